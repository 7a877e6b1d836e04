import { Hono } from "hono";
import type { Platform } from "../platform.ts";
import { accountPages } from "./account.tsx";
import { consentPages } from "./consent.tsx";
import { oauthEndpoints } from "./oauth-endpoints.ts";
import { oauthDiscovery } from "./oauth-discovery.ts";
import { settingsPages } from "./settings.tsx";

/** OAuth 2.0 endpoints and the athlete's pages: sign up/in/out, My API application, My apps, consent (mounted at `/`). */
export function oauthWeb(platform: Platform): Hono {
  const pages = new Hono();
  pages.route("/", oauthEndpoints(platform));
  pages.route("/", oauthDiscovery(platform));
  pages.route("/", accountPages(platform));
  pages.route("/settings", settingsPages(platform));
  pages.route("/", consentPages(platform));
  return pages;
}
