import type { Hono } from "hono";
import type { Platform } from "../platform.ts";
import { oauthWeb } from "./oauth.ts";
import { heatmapPages } from "./heatmaps.ts";
import { importPages } from "./import.tsx";
import { avatarPages } from "../avatars/mount.ts";
import { appPages } from "./app/index.ts";
import { accountControlPages } from "./account-control.tsx";

/**
 * The non-API pages (sign-in, consent, viewer pages…), one Hono sub-app per page family with its
 * routes relative to its base, in this order (the first route that matches answers). Add one per
 * page family.
 */
const WEB_PAGES: [base: string, pages: (platform: Platform) => Hono][] = [
  ["/", oauthWeb],
  ["/", heatmapPages],
  ["/settings/import", importPages],
  ["/avatars", avatarPages],
  ["/", appPages],
  ["/settings", accountControlPages],
];

/** Mounts the pages on the app, after the API (server/app.ts). */
export function mountWebPages(app: Hono, platform: Platform): void {
  for (const [base, pages] of WEB_PAGES) app.route(base, pages(platform));
}
