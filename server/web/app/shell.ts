import process from "node:process";
import type { Context } from "hono";
import { pagePolicy } from "../../http/security-headers.ts";
import { toJson } from "../../../shared/json.ts";

/** Escapes text for HTML element content and attribute values. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** Base map tiles: MAP_TILE_URL (a {z}/{x}/{y} template) and MAP_TILE_ATTRIBUTION; OpenStreetMap by default. */
export function mapTiles(): { url: string; attribution: string; origin: string | null } {
  const url = process.env.MAP_TILE_URL?.trim() || "https://tile.openstreetmap.org/{z}/{x}/{y}.png";
  const attribution = process.env.MAP_TILE_ATTRIBUTION?.trim() ||
    (process.env.MAP_TILE_URL?.trim()
      ? ""
      : '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors');
  let origin: string | null = null;
  try {
    origin = new URL(url.replace(/\{[a-z]\}/g, "a")).origin;
  } catch {
    origin = null;
  }
  return { url, attribution, origin };
}

export interface ShellOptions {
  title: string;
  /** The signed-in athlete, or null. */
  athlete: { id: number; name: string } | null;
  csrf: string;
  /** The API token of the session (pages that call the API). */
  token?: string;
  tokenExpiresAt?: number;
  /** Module scripts of the page, by asset name ("activity.js"). */
  script?: string;
  /** Further module scripts that draw their own part of the page ("zones.js"). */
  moreScripts?: string[];
  /** Server-rendered content of <main>. */
  body: string;
  /** Data for the page's script (JSON). */
  data?: Record<string, unknown>;
  /** Which nav entry is current. */
  current?:
    | "feed"
    | "upload"
    | "activities"
    | "routes"
    | "segments"
    | "find"
    | "heatmaps"
    | "training"
    | "profile"
    | "settings";
  status?: number;
  /** Classic scripts loaded before the page's module (Leaflet, uPlot). */
  libs?: string[];
  /** Extra stylesheets (asset names). */
  styles?: string[];
}

const NAV: { key: ShellOptions["current"]; href: string; label: string }[] = [
  { key: "feed", href: "/", label: "Feed" },
  { key: "upload", href: "/upload", label: "Upload" },
  { key: "activities", href: "/activities", label: "Activities" },
  { key: "routes", href: "/routes", label: "Routes" },
  { key: "segments", href: "/segments", label: "Segments" },
  { key: "find", href: "/find", label: "Find" },
  { key: "heatmaps", href: "/heatmaps", label: "Heatmaps" },
  { key: "training", href: "/athletes/:me/calendar", label: "Training" },
  { key: "profile", href: "/athletes/:me", label: "Profile" },
  { key: "settings", href: "/settings", label: "Settings" },
];

/**
 * The header's navigation and sign-out (or sign in / sign up for a visitor): the app's pages and the
 * server-rendered form pages (server/web/layout.tsx) share it, so every page has the same main navigation.
 */
export function headerNav(
  athlete: { id: number; name: string } | null,
  csrf: string,
  current?: ShellOptions["current"],
): string {
  return athlete
    ? `<nav aria-label="Main"><ul>${
      NAV.map((n) =>
        `<li><a href="${n.href.replace(":me", String(athlete.id))}"${
          n.key === current ? ' aria-current="page"' : ""
        }>${n.label}</a></li>`
      ).join("")
    }</ul></nav>
      <form method="post" action="/logout" class="signout"><input type="hidden" name="_csrf" value="${
      escapeHtml(csrf)
    }">
      <button class="link" type="submit">Sign out<span class="who"> (${
      escapeHtml(athlete.name)
    })</span></button></form>`
    : `<nav aria-label="Account"><ul><li><a href="/login">Sign in</a></li><li><a href="/register">Sign up</a></li></ul></nav>`;
}

/** The app's page frame: skip link, header with navigation, main, config for the page's script. */
export function shell(c: Context, o: ShellOptions): Response {
  const tiles = mapTiles();
  // Written with toJson: ids beyond 2^53 (segment efforts) as bare digits, as the API writes them.
  const config = {
    athlete: o.athlete,
    csrf: o.athlete ? o.csrf : null,
    tokenExpiresAt: o.tokenExpiresAt ?? null,
    tiles: { url: tiles.url, attribution: tiles.attribution },
    ...o.data,
  };
  const nav = headerNav(o.athlete, o.csrf, o.current);
  const styles = ["app.css", ...(o.styles ?? [])].map((s) => `<link rel="stylesheet" href="/app/assets/${s}">`).join(
    "",
  );
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(o.title)} · Fitness Platform</title>
${o.token ? `<meta name="api-token" content="${escapeHtml(o.token)}">` : ""}
${styles}
</head><body>
<a class="skip" href="#main">Skip to content</a>
<header><div class="bar"><a class="brand" href="/">Fitness Platform</a>${nav}</div></header>
<main id="main" tabindex="-1">${o.body}</main>
<script type="application/json" id="app-config">${toJson(config).replace(/</g, "\\u003c")}</script>
${(o.libs ?? []).map((l) => `<script src="/app/assets/${l}"></script>`).join("")}
${o.script ? `<script type="module" src="/app/assets/${o.script}"></script>` : ""}
${(o.moreScripts ?? []).map((m) => `<script type="module" src="/app/assets/${m}"></script>`).join("")}
</body></html>`;
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${tiles.origin ? ` ${tiles.origin}` : ""}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  // The fixed security headers (nosniff, frame protection) are the app's middleware's (server/http/security-headers.ts).
  pagePolicy(c, { csp, referrerPolicy: "same-origin" });
  return c.html(html, (o.status ?? 200) as 200, { "cache-control": "no-store" });
}
