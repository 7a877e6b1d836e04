import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type Context, Hono } from "hono";
import { activityTypeById, activityTypeWords } from "../../shared/activity-types.ts";
import { faultResponse } from "../http/conventions.ts";
import { pagePolicy } from "../http/security-headers.ts";
import { ApiError, badRequest, notFound } from "../http/errors.ts";
import { findHeatmap } from "../../projections/heatmaps/queries.ts";
import { type HeatmapRow, heatmapUrls } from "../heatmaps/represent.ts";
import { validTile } from "../heatmaps/mercator.ts";
import { findTileSource, tileServiceOf } from "../heatmaps/tiles.ts";
import { isoOfEpoch } from "../../shared/date-range.ts";
import type { Platform } from "../platform.ts";
import { escapeHtml } from "./app/shell.ts";

/** Where Leaflet's files are (node_modules/leaflet/dist). */
function leafletDir(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve("leaflet/dist/leaflet.js"));
  } catch {
    return fileURLToPath(new URL("../../node_modules/leaflet/dist/", import.meta.url));
  }
}

/** The viewer's static files: Leaflet (from npm) and our viewer script, by URL name. */
const ASSETS: Record<string, { file: () => string; type: string }> = {
  "leaflet.js": { file: () => join(leafletDir(), "leaflet.js"), type: "text/javascript; charset=utf-8" },
  "leaflet.css": { file: () => join(leafletDir(), "leaflet.css"), type: "text/css; charset=utf-8" },
  "images/layers.png": { file: () => join(leafletDir(), "images/layers.png"), type: "image/png" },
  "images/layers-2x.png": { file: () => join(leafletDir(), "images/layers-2x.png"), type: "image/png" },
  "images/marker-icon.png": { file: () => join(leafletDir(), "images/marker-icon.png"), type: "image/png" },
  "viewer.js": {
    file: () => fileURLToPath(new URL("./heatmap-viewer/viewer.js", import.meta.url)),
    type: "text/javascript; charset=utf-8",
  },
  "occupancy.js": {
    file: () => fileURLToPath(new URL("./heatmap-viewer/occupancy.js", import.meta.url)),
    type: "text/javascript; charset=utf-8",
  },
};
const assetCache = new Map<string, Uint8Array>();

function asset(name: string): Uint8Array | undefined {
  // Own names only: "constructor" or "__proto__" is not an asset (Object.prototype's members).
  const spec = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!spec) return undefined;
  let bytes = assetCache.get(name);
  if (!bytes) assetCache.set(name, bytes = new Uint8Array(readFileSync(spec.file())));
  return bytes;
}

/**
 * Optional base map under the heat (HEATMAP_BASEMAP_URL, …_ATTRIBUTION), drawn darkened. Unset by
 * default: the viewer is reached by its link alone and makes no request outside this server.
 */
export function baseMapSetting(): { url: string; attribution: string; origin: string } | null {
  const url = process.env.HEATMAP_BASEMAP_URL?.trim();
  if (!url) return null;
  try {
    const origin = new URL(url.replace(/\{[a-z]\}/g, "a")).origin;
    return { url, attribution: process.env.HEATMAP_BASEMAP_ATTRIBUTION ?? "", origin };
  } catch {
    return null;
  }
}

/** The viewer's policy: its own scripts and styles, tiles from here (and the base map's origin, if set). */
function viewerCsp(base: { origin: string } | null): string {
  return `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:${
    base ? ` ${base.origin}` : ""
  }; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

const DIGITS = /^\d{1,16}$/;

/** The way back to the athlete's heatmaps (a visitor who is not signed in is asked to sign in first). */
const BACK = `<a class="back" href="/heatmaps">← Heatmaps</a>`;

function ids(c: Context): { athleteId: number; mapId: number } {
  const a = c.req.param("athlete_id") ?? "", m = c.req.param("map_id") ?? "";
  if (!DIGITS.test(a) || Number(a) === 0) throw badRequest("Heatmap", "athlete_id");
  if (!DIGITS.test(m) || Number(m) === 0 || !Number.isSafeInteger(Number(m))) throw badRequest("Heatmap", "map_id");
  return { athleteId: Number(a), mapId: Number(m) };
}

function page(title: string, body: string, head = ""): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>${head}
<style>
html,body{margin:0;height:100%;background:#0b0e14;color:#d8dee9;font:14px/1.4 system-ui,-apple-system,Segoe UI,sans-serif}
#map{position:absolute;inset:0;background:#0b0e14}
.panel{position:absolute;z-index:1000;top:12px;left:56px;background:rgba(11,14,20,.86);border:1px solid #273042;border-radius:8px;padding:10px 14px;max-width:340px}
.panel h1{font-size:16px;margin:0 0 4px;color:#ffb347}.panel p{margin:2px 0;color:#aab4c3}
.panel a.back{display:inline-block;margin:0 0 6px;color:#ffb347;font-weight:600;text-decoration:none}
.panel a.back:hover{text-decoration:underline}.panel a.back:focus-visible{outline:2px solid #ffb347;outline-offset:2px}
@media (max-width:600px){.panel{left:52px;right:8px;top:8px;padding:8px 10px}}
.leaflet-container{background:#0b0e14}.leaflet-control-attribution{background:rgba(11,14,20,.75)!important;color:#8893a5}
.leaflet-control-attribution a{color:#ffb347}.leaflet-tile.heat{mix-blend-mode:screen}
.basemap{filter:invert(1) hue-rotate(180deg) brightness(.55) contrast(1.2) saturate(.3)}
.status{margin:20vh auto;max-width:520px;text-align:center}
</style></head><body>${body}</body></html>`;
}

function describe(row: HeatmapRow): string {
  const types = row.activity_type_ids.map((id) => {
    const type = activityTypeById(id);
    return type ? activityTypeWords(type) : String(id);
  }).join(", ");
  const day = (s: number) => isoOfEpoch(s)?.slice(0, 10) ?? "?";
  const window = row.start_date_local !== null || row.end_date_local !== null
    ? `${row.start_date_local !== null ? day(row.start_date_local) : "…"} – ${
      row.end_date_local !== null ? day(row.end_date_local) : "…"
    }`
    : "all dates";
  return `<p>${escapeHtml(types)} · ${escapeHtml(window)}</p><p>${row.activities_count} public ${
    row.activities_count === 1 ? "activity" : "activities"
  } · ${row.tiles_count} tiles</p>`;
}

/** GET /heatmap-viewer/<name>: the viewer's script, styles and Leaflet. */
function viewerAsset(c: Context): Response {
  const name = c.req.path.slice("/heatmap-viewer/".length);
  const bytes = asset(name);
  if (!bytes) return faultResponse(c, notFound("Asset", "path"));
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
    "content-type": ASSETS[name].type,
    "cache-control": "public, max-age=86400",
  });
}

/** The tile's z, x and y from the address (400 naming the first bad one, or one outside the map). */
function tileOf(c: Context): { z: number; x: number; y: number } {
  const match = /^(\d{1,6})\.png$/.exec(c.req.param("file") ?? "");
  const zText = c.req.param("z") ?? "", xText = c.req.param("x") ?? "";
  if (!/^\d{1,2}$/.test(zText)) throw badRequest("Tile", "z");
  if (!/^\d{1,6}$/.test(xText)) throw badRequest("Tile", "x");
  if (!match) throw badRequest("Tile", "y");
  const z = Number(zText), x = Number(xText), y = Number(match[1]);
  if (!validTile(z, x, y)) {
    const field = z > 18 ? "z" : x >= 2 ** z ? "x" : "y";
    throw badRequest("Tile", field, "outside the map");
  }
  return { z, x, y };
}

/** GET /heatmaps/:athlete_id/:map_id/tiles/:z/:x/:y.png: a PNG tile of a built map, revalidated by ETag. */
async function heatmapTile(c: Context, platform: Platform): Promise<Response> {
  const { athleteId, mapId } = ids(c);
  const { z, x, y } = tileOf(c);
  const source = await findTileSource(platform.db, athleteId, mapId);
  if (!source) throw notFound("Heatmap");
  if (source.status !== "done") {
    throw new ApiError(404, "Record Not Found", [{ resource: "Heatmap", field: "status", code: "not ready" }]);
  }
  const tile = await tileServiceOf(platform).tile(platform.db, source, z, x, y);
  const headers = {
    "cache-control": "private, max-age=600",
    etag: tile.etag,
    "access-control-allow-origin": "*",
  };
  if ((c.req.header("if-none-match") ?? "").split(/\s*,\s*/).includes(tile.etag)) return c.body(null, 304, headers);
  return c.body(tile.png as Uint8Array<ArrayBuffer>, 200, { ...headers, "content-type": "image/png" });
}

/**
 * The viewer's configuration: where it opens and the tiles that may hold heat (from the tiles' own data,
 * decoded once for the tiles that follow); the build's center and zoom when they cannot be read.
 */
async function viewerConfig(platform: Platform, row: HeatmapRow, base: ReturnType<typeof baseMapSetting>) {
  let bounds = null;
  const source = await findTileSource(platform.db, row.athlete_id, row.id).catch(() => null);
  if (source && source.status === "done") {
    bounds = await tileServiceOf(platform).bounds(platform.db, source).catch(() => null);
  }
  return {
    bounds: bounds?.open ?? null,
    occupied: bounds?.occupied ?? null,
    tilePath: heatmapUrls("", row.athlete_id, row.id).tile_path,
    center: row.center_lat === null ? null : [row.center_lat, row.center_lng],
    zoom: row.center_zoom ?? 2,
    activitiesCount: row.activities_count,
    baseMapUrl: base?.url ?? null,
    baseMapAttribution: base?.attribution ?? null,
  };
}

/** GET /heatmaps/:athlete_id/:map_id: the viewer page (or its status while building, or 400/404 pages). */
async function viewerPage(c: Context, platform: Platform): Promise<Response> {
  // Every answer of the viewer, its 400 and 404 pages too, under the viewer's policy (the
  // security-headers middleware writes it with nosniff and frame protection).
  const base = baseMapSetting();
  pagePolicy(c, { csp: viewerCsp(base), referrerPolicy: "no-referrer" });
  let key;
  try {
    key = ids(c);
  } catch {
    return c.html(page("Heatmap", `<div class="status"><h1>Bad heatmap address</h1></div>`), 400);
  }
  const row = await findHeatmap(platform.db, key.athleteId, key.mapId);
  if (!row) {
    return c.html(
      page("Heatmap not found", `<div class="status"><h1>No such heatmap</h1><p>It may have been deleted.</p></div>`),
      404,
    );
  }
  const security = { "cache-control": "private, no-cache" };
  if (row.status !== "done") {
    const refresh = row.status === "error" ? "" : `<meta http-equiv="refresh" content="2">`;
    return c.html(
      page(
        "Heatmap",
        `<div class="status"><h1>Heatmap: ${escapeHtml(row.status)}</h1><p>${
          escapeHtml(row.status_message)
        }</p>${BACK}</div>`,
        refresh,
      ),
      200,
      security,
    );
  }
  const config = await viewerConfig(platform, row, base);
  const head = `<link rel="stylesheet" href="/heatmap-viewer/leaflet.css">`;
  const empty = row.center_lat === null ? `<p>No public activity with a route: nothing to draw.</p>` : "";
  const body =
    `<main id="map" aria-label="Heatmap"></main><div class="panel" role="region" aria-label="About this heatmap">${BACK}<h1>Heatmap</h1>${
      describe(row)
    }${empty}</div>
<script type="application/json" id="heatmap-config">${JSON.stringify(config).replace(/</g, "\\u003c")}</script>
<script src="/heatmap-viewer/leaflet.js"></script><script src="/heatmap-viewer/occupancy.js"></script>
<script src="/heatmap-viewer/viewer.js"></script>`;
  return c.html(page("Heatmap", body, head), 200, security);
}

/** The viewer page, its assets, and the tiles (`<tile_path>/{z}/{x}/{y}.png`), mounted at `/`. No token: the id is the key. */
export function heatmapPages(platform: Platform): Hono {
  const pages = new Hono();
  pages.get("/heatmap-viewer/*", viewerAsset);
  pages.get("/heatmaps/:athlete_id/:map_id/tiles/:z/:x/:file", (c) => heatmapTile(c, platform));
  pages.get("/heatmaps/:athlete_id/:map_id", (c) => viewerPage(c, platform));
  return pages;
}
