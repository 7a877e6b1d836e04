import type { Hono } from "hono";
import type { Platform } from "../platform.ts";
import { mountOAuthWeb } from "./oauth.ts";
import { mountHeatmapPages } from "./heatmaps.ts";
import { mountImportPages } from "./import.tsx";
import { mountAvatars } from "../avatars/mount.ts";
import { mountAppPages } from "./app/index.ts";
import { mountAccountControlPages } from "./account-control.tsx";

/** Mounts of non-API pages (sign-in, consent, viewer pages…). Add one per page family. */
export const webMounts: ((app: Hono, platform: Platform) => void)[] = [
  mountOAuthWeb,
  mountHeatmapPages,
  mountImportPages,
  mountAvatars,
  mountAppPages,
  mountAccountControlPages,
];
