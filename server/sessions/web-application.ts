import type { Platform } from "../platform.ts";
import { readWebSecret } from "./session-table.ts";

/** Where the id of this server's own application (the web pages' tokens) is kept in web_secrets. */
export const WEB_APP_KEY = "web-app-id";

/** The web pages' own application, once a page has created it (else undefined). */
export async function knownWebApplicationId(platform: Platform): Promise<number | undefined> {
  const known = await readWebSecret(platform.db, WEB_APP_KEY);
  return known ? Number(known) : undefined;
}
