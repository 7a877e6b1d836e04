import type { Hono } from "hono";
import type { Platform } from "../platform.ts";
import { mountAccountPages } from "./account.tsx";
import { mountConsentPages } from "./consent.tsx";
import { mountOAuthEndpoints } from "./oauth-endpoints.ts";
import { mountSettingsPages } from "./settings.tsx";

/** OAuth 2.0 endpoints and the athlete's pages: sign up/in/out, My API application, My apps, consent. */
export function mountOAuthWeb(app: Hono, platform: Platform): void {
  mountOAuthEndpoints(app, platform);
  mountAccountPages(app, platform);
  mountSettingsPages(app, platform);
  mountConsentPages(app, platform);
}
