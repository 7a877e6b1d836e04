import type { Platform } from "../platform.ts";
import type { JobKind } from "./runner.ts";

/** Durable job kinds (upload processing, heatmap builds, webhook deliveries). Add one per kind. */
export const jobKinds: ((platform: Platform) => JobKind)[] = [];
