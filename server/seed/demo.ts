import type { Platform } from "../platform.ts";

/** What the demo created, shared between seed steps and printed at the end. */
export interface Demo {
  athletes: { id: number; firstname: string; email: string; password: string }[];
  application: { client_id: number; client_secret: string; access_token: string };
  /** A token of the first athlete with view_private,write. */
  token: string;
  /** Lines printed under "Try it" after the token. */
  examples: string[];
}

export type SeedStep = (platform: Platform, demo: Demo) => Promise<void>;
