import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Context, Hono } from "hono";
import { activityContext, visibleActivity } from "../../activities/access.ts";
import { summaryActivities } from "../../activities/read.ts";
import { findAthlete } from "../../../projections/athletes/queries.ts";
import { findGear } from "../../../projections/gear/queries.ts";
import { photosOf } from "../../../projections/activities/queries.ts";
import { photoRepresentation } from "../../photos/represent.ts";
import { athleteDefaults } from "../../athletes/commands.ts";
import { ACTIVITY_TYPES } from "../../../shared/activity-types.ts";
import { AGE_GROUPS, WEIGHT_CLASSES_KG } from "../../segments/leaderboard.ts";
import { activityEffortsSeenBy } from "../../segments/access.ts";
import { faultResponse } from "../../http/conventions.ts";
import { notFound } from "../../http/errors.ts";
import type { Platform } from "../../platform.ts";
import { type Web, web } from "../context.tsx";
import { redirectToSignIn } from "../redirect.ts";
import { escapeHtml, shell, type ShellOptions } from "./shell.ts";
import { sessionToken } from "./token.ts";
import { listPages } from "./lists.ts";

/**
 * The athlete's web app: pages that are a client of the /v3 API (docs/web-app.md). The server
 * renders the frame and what needs no data; the page's module script calls the API with the
 * session's token (token.ts).
 */

function packageDir(file: string): string {
  try {
    return dirname(createRequire(import.meta.url).resolve(file));
  } catch {
    return fileURLToPath(new URL(`../../../node_modules/${dirname(file)}/`, import.meta.url));
  }
}

const own = (name: string) => () => fileURLToPath(new URL(`./assets/${name}`, import.meta.url));
const JS = "text/javascript; charset=utf-8", CSS = "text/css; charset=utf-8";
const ASSETS: Record<string, { file: () => string; type: string }> = {
  "app.css": { file: own("app.css"), type: CSS },
  "app.js": { file: own("app.js"), type: JS },
  "map.js": { file: own("map.js"), type: JS },
  "elevation.js": { file: own("elevation.js"), type: JS },
  "home.js": { file: own("home.js"), type: JS },
  "activity.js": { file: own("activity.js"), type: JS },
  "upload.js": { file: own("upload.js"), type: JS },
  "segment.js": { file: own("segment.js"), type: JS },
  "route.js": { file: own("route.js"), type: JS },
  "club.js": { file: own("club.js"), type: JS },
  "heatmaps.js": { file: own("heatmaps.js"), type: JS },
  "settings.js": { file: own("settings.js"), type: JS },
  "challenge.js": { file: own("challenge.js"), type: JS },
  "athlete.js": { file: own("athlete.js"), type: JS },
  "segments.js": { file: own("segments.js"), type: JS },
  "zones.js": { file: own("zones.js"), type: JS },
  "calendar.js": { file: own("calendar.js"), type: JS },
  "year.js": { file: own("year.js"), type: JS },
  "records.js": { file: own("records.js"), type: JS },
  "fitness.js": { file: own("fitness.js"), type: JS },
  "training.css": { file: own("training.css"), type: CSS },
  "training-common.js": { file: own("training-common.js"), type: JS },
  "activity-tools.js": { file: own("activity-tools.js"), type: JS },
  "activity-tools.css": { file: own("activity-tools.css"), type: CSS },
  "crop.js": { file: own("crop.js"), type: JS },
  "crop.css": { file: own("crop.css"), type: CSS },
  "segment-compare.js": { file: own("segment-compare.js"), type: JS },
  "compare.css": { file: own("compare.css"), type: CSS },
  "lists.js": { file: own("lists.js"), type: JS },
  "gear.js": { file: own("gear.js"), type: JS },
  "goals.js": { file: own("goals.js"), type: JS },
  "goals-view.js": { file: own("goals-view.js"), type: JS },
  "leaflet.js": { file: () => join(packageDir("leaflet/dist/leaflet.js"), "leaflet.js"), type: JS },
  "leaflet.css": { file: () => join(packageDir("leaflet/dist/leaflet.js"), "leaflet.css"), type: CSS },
  "uplot.js": { file: () => join(packageDir("uplot/dist/uPlot.iife.min.js"), "uPlot.iife.min.js"), type: JS },
  "uplot.css": { file: () => join(packageDir("uplot/dist/uPlot.iife.min.js"), "uPlot.min.css"), type: CSS },
};
const cache = new Map<string, Uint8Array>();

function asset(name: string): Uint8Array | undefined {
  // Own names only: "constructor" or "__proto__" is not an asset (Object.prototype's members).
  const spec = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!spec) return undefined;
  let bytes = cache.get(name);
  if (!bytes) cache.set(name, bytes = new Uint8Array(readFileSync(spec.file())));
  return bytes;
}

const FAVICON =
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#b83a07"/><path d="M6 24 13 10l5 9 3-5 5 10z" fill="#fff"/></svg>`;

/** Paths that answer JSON faults, never the HTML page. */
const API_PATHS = /^\/(v3|api|oauth|photos|heatmap-viewer|health|ready|metrics|app\/)/;

/** The HTML "not found" (or "not allowed") page with a way back; JSON stays for the API. */
export async function notFoundPage(c: Context, platform: Platform, w?: Web): Promise<Response> {
  if (API_PATHS.test(c.req.path) || !(c.req.header("accept") ?? "").includes("text/html")) {
    return faultResponse(c, notFound("resource", "path"));
  }
  w ??= await web(c, platform);
  return shell(c, {
    title: "Page not found",
    athlete: w.athlete,
    csrf: w.csrf,
    status: 404,
    body: `<section class="card notfound" aria-labelledby="nf-title">
      <h1 id="nf-title">This page isn't here</h1>
      <p>There is nothing at <code>${escapeHtml(c.req.path.slice(0, 200))}</code> that you can see. It may have been
      deleted, it may be private, or the address may be mistyped.</p>
      <p class="actions"><a class="button" href="/">Back to ${
      w.athlete ? "your feed" : "the start page"
    }</a></p></section>`,
  });
}

const LANDING = `<section class="hero" aria-labelledby="hero-title">
  <h1 id="hero-title">Your activities, on your own server</h1>
  <p class="lead">This is a self-hosted fitness platform. Upload rides, runs and swims recorded on your GPS device or
  the desktop companion, see them on a map with charts, compete on segments, take part in clubs and challenges, and
  build heatmaps — with your data kept on this server and privacy zones you control.</p>
  <p class="actions"><a class="button" href="/login">Sign in</a> <a class="button secondary" href="/register">Create an account</a></p>
</section>
<section class="features" aria-label="What you can do">
  <div class="card"><h2>Upload</h2><p>FIT, TCX and GPX files from any device, several at once.</p></div>
  <div class="card"><h2>Analyse</h2><p>Maps, elevation, speed, heart rate, power and cadence, splits and laps.</p></div>
  <div class="card"><h2>Compare</h2><p>Segments with leaderboards, kudos and comments, clubs and challenges.</p></div>
  <div class="card"><h2>Strava-compatible API</h2><p>Existing clients can use this server's <a href="/docs">v3 API</a>.</p></div>
</section>`;

const FEED = `<div class="columns feed-columns">
  <section class="feed" aria-labelledby="feed-title">
    <h1 id="feed-title">Your feed</h1>
    <ol id="feed" class="feed-list" aria-live="polite"></ol>
    <p id="feed-status" class="muted" role="status">Loading activities…</p>
    <p><button id="feed-more" class="secondary" type="button" hidden>Load more</button></p>
  </section>
  <aside aria-labelledby="totals-title">
    <section class="card" id="gear-reminders" aria-labelledby="gear-reminders-title" hidden></section>
    <section class="card" id="feed-goals" aria-labelledby="goals-title"><h2 id="goals-title">Goals</h2><p class="muted">Loading…</p></section>
    <section class="card" id="totals"><h2 id="totals-title">Totals</h2><p class="muted">Loading…</p></section>
    <section class="card" id="my-clubs" aria-labelledby="clubs-title"><h2 id="clubs-title">Your clubs</h2><p class="muted">Loading…</p></section>
    <section class="card"><h2>Add an activity</h2><p><a href="/upload">Upload files</a> from your device, or let the
    desktop companion upload them as soon as you plug the device in.</p></section>
    <section class="card"><h2>Find others</h2><p><a href="/find" id="feed-find">Find clubs, athletes and challenges</a>
    to join and follow: their activities come to this feed.</p></section>
  </aside>
</div>`;

/** The shell's fields for a signed-in athlete's page: who, the form token and the page's API token. */
function signedIn(w: Pick<Web, "athlete" | "csrf">, t: { token: string; expiresAt: number } | null | undefined) {
  return { athlete: w.athlete, csrf: w.csrf, token: t?.token, tokenExpiresAt: t?.expiresAt };
}

/** The page's own part of the shell (its title, script, data and body); the rest is the signed-in frame. */
type PageOptions = Omit<ShellOptions, "athlete" | "csrf" | "token" | "tokenExpiresAt">;

/**
 * A page for the signed-in athlete only (else the sign-in page), drawn by its module script with the
 * session's API token; `options` gives the page's part, knowing who is signed in.
 */
async function signedInPage(
  c: Context,
  platform: Platform,
  options: (athleteId: number) => PageOptions | Promise<PageOptions>,
) {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const t = await sessionToken(c, platform, w.athlete.id);
  return shell(c, { ...signedIn(w, t), ...(await options(w.athlete.id)) });
}

function favicon(c: Context): Response {
  return c.body(FAVICON, 200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" });
}

/** GET /app/assets/:name: the pages' scripts and styles, and the libraries they use. */
function appAsset(c: Context): Response {
  const name = c.req.param("name") ?? "";
  const bytes = asset(name);
  if (!bytes) return faultResponse(c, notFound("Asset", "path"));
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
    "content-type": ASSETS[name].type,
    "cache-control": "public, max-age=300",
  });
}

/** POST /app/token: a fresh token for an open page whose token is about to expire (same origin, session, CSRF header). */
async function freshPageToken(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) {
    return c.json({
      message: "Authorization Error",
      errors: [{ resource: "Session", field: "cookie", code: "missing" }],
    }, 401);
  }
  if (!(await w.csrfOk(c.req.header("x-csrf-token")))) {
    return c.json({ message: "Forbidden", errors: [{ resource: "Session", field: "csrf", code: "invalid" }] }, 403);
  }
  const t = await sessionToken(c, platform, w.athlete.id);
  if (!t) {
    return c.json({
      message: "Authorization Error",
      errors: [{ resource: "Session", field: "token", code: "invalid" }],
    }, 401);
  }
  c.header("cache-control", "no-store");
  return c.json({ access_token: t.token, expires_at: Math.floor(t.expiresAt / 1000) });
}

/** GET /: the start page, or the signed-in athlete's feed. */
async function feedPage(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return shell(c, { title: "Welcome", athlete: null, csrf: w.csrf, body: LANDING });
  const t = await sessionToken(c, platform, w.athlete.id);
  return shell(c, {
    title: "Feed",
    ...signedIn(w, t),
    current: "feed",
    script: "home.js",
    data: { perPage: Math.min(100, Math.max(1, Number(/^\d{1,3}$/.exec(c.req.query("per_page") ?? "")?.[0] ?? 20))) },
    body: FEED,
  });
}

const UPLOAD = `<h1>Upload activities</h1>
<section class="card">
  <div id="drop" class="drop">
    <p><strong>Drop FIT, TCX or GPX files here</strong> (also gzipped: .fit.gz, .tcx.gz, .gpx.gz), several at once.</p>
    <p><input id="files" class="visually-hidden" type="file" multiple accept=".fit,.tcx,.gpx,.gz">
    <label class="button" for="files">Choose files</label></p>
  </div>
  <ol id="uploads" class="uploads" aria-live="polite"></ol>
</section>`;

/** GET /upload. */
function uploadPage(c: Context, platform: Platform): Promise<Response> {
  return signedInPage(c, platform, async (athleteId) => ({
    title: "Upload",
    current: "upload",
    script: "upload.js",
    data: { defaultVisibility: (await athleteDefaults(platform.db, athleteId)).visibility },
    body: UPLOAD,
  }));
}

/** GET /segments: the segment explorer. */
function segmentsPage(c: Context, platform: Platform): Promise<Response> {
  return signedInPage(c, platform, () => ({
    title: "Segments",
    current: "segments",
    script: "segments.js",
    styles: ["leaflet.css"],
    libs: ["leaflet.js"],
    body: `<div id="segments"><h1>Explore segments</h1><p class="muted" role="status">Loading…</p></div>`,
  }));
}

/** GET /settings: profile, units, upload defaults and privacy zones. */
function settingsPage(c: Context, platform: Platform): Promise<Response> {
  return signedInPage(c, platform, async (athleteId) => ({
    title: "Settings",
    current: "settings",
    script: "settings.js",
    // GET /v3/athlete does not answer the upload defaults (API gap): the page starts from them here.
    data: { defaults: await athleteDefaults(platform.db, athleteId) },
    styles: ["leaflet.css"],
    libs: ["leaflet.js"],
    body: `<div id="settings"><h1>Settings</h1><p class="muted" role="status">Loading…</p></div>` +
      `<p><a href="/settings/account">Password, sign out everywhere, delete account</a></p>`,
  }));
}

/** GET /heatmaps: the athlete's heatmaps. */
function heatmapsPage(c: Context, platform: Platform): Promise<Response> {
  return signedInPage(c, platform, () => ({
    title: "Heatmaps",
    current: "heatmaps",
    script: "heatmaps.js",
    data: { activityTypes: ACTIVITY_TYPES.map((name, i) => [i + 1, name]) },
    body: `<div id="heatmaps"><h1>Heatmaps</h1><p class="muted" role="status">Loading…</p></div>`,
  }));
}

/** A page whose content the module script draws from the API (id checked here, the rest by the API). */
interface ApiPage {
  title: string;
  script: string;
  key: string;
  map?: boolean;
  styles?: string[];
  data?: () => Record<string, unknown>;
  /** An athlete's page: the id must name an athlete (else the HTML not-found page); own is this navigation entry. */
  athlete?: "profile" | "training";
}

const API_PAGES: [path: string, page: ApiPage][] = [
  ["/segments/:id", {
    title: "Segment",
    script: "segment.js",
    key: "segmentId",
    map: true,
    styles: ["compare.css"],
    data: () => ({ ageGroups: AGE_GROUPS, weightClassesKg: WEIGHT_CLASSES_KG }),
  }],
  ["/clubs/:id", { title: "Club", script: "club.js", key: "clubId" }],
  ["/routes/:id", { title: "Route", script: "route.js", key: "routeId", map: true }],
  ["/challenges/:id", { title: "Challenge", script: "challenge.js", key: "challengeId" }],
  ["/athletes/:id", { title: "Athlete", script: "athlete.js", key: "athleteId", athlete: "profile" }],
  // The athlete's training pages (docs/web-app.md): calendar, year, personal records, fitness and freshness.
  ...([["calendar", "Training calendar"], ["year", "Year"], ["records", "Personal records"], [
    "fitness",
    "Fitness and freshness",
  ]] as const)
    .map(([page, title]): [string, ApiPage] => [`/athletes/:id/${page}`, {
      title,
      script: `${page}.js`,
      key: "athleteId",
      styles: ["training.css"],
      athlete: "training",
    }]),
];

async function apiPage(c: Context, platform: Platform, o: ApiPage): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const idText = c.req.param("id") ?? "";
  if (!/^\d{1,15}$/.test(idText) || Number(idText) === 0) return notFoundPage(c, platform, w);
  const id = Number(idText);
  if (o.athlete && !(await findAthlete(platform.db, id))) return notFoundPage(c, platform, w);
  const t = await sessionToken(c, platform, w.athlete.id);
  if (!t) return redirectToSignIn(c);
  return shell(c, {
    title: o.title,
    ...signedIn(w, t),
    current: o.athlete && id === w.athlete.id ? o.athlete : undefined,
    script: o.script,
    styles: [...(o.map ? ["leaflet.css", "uplot.css"] : []), ...(o.styles ?? [])],
    libs: o.map ? ["leaflet.js", "uplot.js"] : [],
    data: { [o.key]: id, ...o.data?.() },
    body: `<div id="${o.script.replace(".js", "")}"><h1>${
      escapeHtml(o.title)
    }</h1><p class="muted" role="status">Loading…</p></div>`,
  });
}

/**
 * What an activity's page starts from when it is another athlete's: GET /v3/activities/:id answers
 * the owner only (as Strava's), so the summary representation, through the same privacy engine as
 * every read, the segment efforts this viewer may see (the summary has none; Strava's page lists a
 * followed athlete's efforts — server/segments/access.ts), the owner's name and the photos (the
 * API's photo list answers the owner only: their URLs and captions, no locations).
 */
async function othersActivity(
  platform: Platform,
  row: Awaited<ReturnType<typeof visibleActivity>>,
  auth: Parameters<typeof visibleActivity>[2],
) {
  const context = activityContext(platform, auth, "spec");
  const [summary] = await summaryActivities([row], context);
  const segmentEfforts = await activityEffortsSeenBy(platform.db, row.id, context.viewer);
  const owner = await findAthlete(platform.db, row.athlete_id);
  const photos = (await photosOf(platform.db, row.id)).map((p) => {
    const { urls, caption } = photoRepresentation(platform.config.publicUrl, p, 600);
    return { urls, caption };
  });
  return {
    summary,
    segmentEfforts,
    photos,
    ownerId: row.athlete_id,
    ownerName: owner ? `${owner.firstname} ${owner.lastname}` : null,
  };
}

/** GET /activities/:id: an activity the athlete may see (else the HTML not-found page). */
async function activityPage(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const idText = c.req.param("id") ?? "";
  if (!/^\d{1,15}$/.test(idText)) return notFoundPage(c, platform, w);
  const t = await sessionToken(c, platform, w.athlete.id);
  if (!t) return redirectToSignIn(c);
  let row;
  try {
    row = await visibleActivity(platform.db, Number(idText), t.auth);
  } catch {
    return notFoundPage(c, platform, w);
  }
  const others = row.athlete_id !== w.athlete.id ? await othersActivity(platform, row, t.auth) : {};
  return shell(c, {
    title: "Activity",
    ...signedIn(w, t),
    script: "activity.js",
    moreScripts: ["zones.js", "activity-tools.js", "crop.js"],
    styles: ["leaflet.css", "uplot.css", "training.css", "activity-tools.css", "crop.css"],
    libs: ["leaflet.js", "uplot.js"],
    data: { activityId: Number(idText), ...others },
    body:
      `<div id="activity" data-state="loading"><h1 id="title">Activity</h1><p class="muted" role="status">Loading…</p></div>`,
  });
}

/** GET /goals: the athlete's goals (set, follow, remove). */
function goalsPage(c: Context, platform: Platform): Promise<Response> {
  return signedInPage(c, platform, () => ({
    title: "Goals",
    script: "goals.js",
    body: `<div id="goals"><h1>Goals</h1><p class="muted" role="status">Loading…</p></div>`,
  }));
}

/** GET /gear/:id: one of the athlete's bikes or shoes (another's, or unknown: the not-found page). */
async function gearPage(c: Context, platform: Platform): Promise<Response> {
  const w = await web(c, platform);
  if (!w.athlete) return redirectToSignIn(c);
  const id = c.req.param("id") ?? "";
  if (!/^[bg]\d{1,18}$/.test(id)) return notFoundPage(c, platform, w);
  const gear = await findGear(platform.db, id);
  if (!gear || Number(gear.athlete_id) !== w.athlete.id) return notFoundPage(c, platform, w);
  const t = await sessionToken(c, platform, w.athlete.id);
  if (!t) return redirectToSignIn(c);
  return shell(c, {
    title: "Gear",
    ...signedIn(w, t),
    current: "settings",
    script: "gear.js",
    data: { gearId: id },
    body: `<div id="gear-page"><h1>Gear</h1><p class="muted" role="status">Loading…</p></div>`,
  });
}

/** The web app (mounted at `/`): `/`, the athlete's pages, `/activities/:id`, `/upload`, the token endpoint and the assets. */
export function appPages(platform: Platform): Hono {
  const pages = new Hono();
  pages.get("/favicon.ico", favicon);
  pages.get("/app/assets/:name", appAsset);
  pages.post("/app/token", (c) => freshPageToken(c, platform));
  pages.get("/", (c) => feedPage(c, platform));
  pages.get("/upload", (c) => uploadPage(c, platform));
  pages.route("/", listPages(platform)); // /activities, /routes, /find (lists.ts)
  for (const [path, page] of API_PAGES) pages.get(path, (c) => apiPage(c, platform, page));
  pages.get("/segments", (c) => segmentsPage(c, platform));
  pages.get("/settings", (c) => settingsPage(c, platform));
  pages.get("/heatmaps", (c) => heatmapsPage(c, platform));
  pages.get("/activities/:id", (c) => activityPage(c, platform));
  pages.get("/gear/:id", (c) => gearPage(c, platform));
  pages.get("/goals", (c) => goalsPage(c, platform));
  return pages;
}
