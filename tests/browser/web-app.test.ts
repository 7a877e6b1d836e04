import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { encode as encodePng } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, ROOT, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * The athlete's web app in a real browser (Debian's chromium) against the real server as `npm start`
 * runs it (Deno, a real port, PGlite on disk), offline: the base map's tiles fail to load and the
 * route must still show. Every page is checked with axe-core (no serious or critical violation)
 * and for console errors, and screenshotted at desktop and phone width into docs/screens/.
 */
const SCREENS = join(ROOT, "docs", "screens");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const TILE_HOST = "tile.openstreetmap.org";
const FIT_POWER = deviceFile("fit/garmin-edge1000-cycling-power-hr.fit");
const FIT_HR = deviceFile("fit/garmin-edge500-cycling-hr-cad-pauses.fit");

let server: DenoServer;
let browser: Browser;
const consoleErrors: string[] = [];
/** Failed requests a test provokes on purpose (Chromium logs each as a console error). */
let provoked: RegExp[] = [];

interface Athlete {
  context: BrowserContext;
  page: Page;
}

function watch(page: Page): void {
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const where = message.location().url ?? "";
    // Offline: the base map's tiles cannot load (expected); a deliberately missing page answers 404.
    if (where.includes(TILE_HOST)) return;
    if (/status of 404/.test(message.text()) && /\/(nope|activities\/\d+|athletes\/\d+)$/.test(where)) return;
    if (provoked.some((p) => p.test(`${message.text()} ${where}`))) return;
    consoleErrors.push(`${page.url()}: ${message.text()} (${where})`);
  });
  page.on("pageerror", (error) => consoleErrors.push(`${page.url()}: ${error.message}`));
}

async function signIn(email: string): Promise<Athlete> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  watch(page);
  await page.goto(`${server.url}/login`);
  await page.fill("#email", email);
  await page.fill("#password", "demo-password");
  await Promise.all([page.waitForURL(`${server.url}/`), page.click("button[type=submit]")]);
  return { context, page };
}

/** axe-core in the page: the serious and critical violations (empty when the page passes). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const axe = (window as any).axe;
    const r = await axe.run(document, { resultTypes: ["violations"] });
    // deno-lint-ignore no-explicit-any
    return r.violations.filter((v: any) => v.impact === "serious" || v.impact === "critical")
      // deno-lint-ignore no-explicit-any
      .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n: any) => n.target.join(" ")).join(", ")}`);
  });
  return result;
}

/** Checks axe and saves the page at desktop and phone width (docs/screens/<name>-desktop|phone.png). */
async function look(page: Page, name: string, settle: () => Promise<unknown> = async () => {}): Promise<void> {
  expect(await axeViolations(page), `axe on ${name}`).toEqual([]);
  const size = page.viewportSize()!;
  await page.screenshot({ path: join(SCREENS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await page.waitForTimeout(300);
    await settle();
    expect(await axeViolations(page), `axe on ${name} (phone)`).toEqual([]);
    await page.screenshot({ path: join(SCREENS, `${name}-phone.png`), fullPage: true });
  } finally {
    await page.setViewportSize(size); // a failure here must not leave the next test at phone width
    await page.waitForTimeout(200);
  }
}

/** A 200 × 300 PNG: red bands above and below a blue centre square (rgb 20,110,200). */
function portraitPng(): Uint8Array {
  const w = 200, hgt = 300, data = new Uint8Array(w * hgt * 3);
  for (let y = 0; y < hgt; y++) {
    for (let x = 0; x < w; x++) data.set(y < 50 || y >= 250 ? [220, 30, 30] : [20, 110, 200], (y * w + x) * 3);
  }
  return encodePng({ width: w, height: hgt, data, channels: 3, depth: 8 });
}

const state = (page: Page, key: string) =>
  page.evaluate((k) => (window as unknown as { appState?: Record<string, unknown> }).appState?.[k], key);

beforeAll(async () => {
  mkdirSync(SCREENS, { recursive: true });
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("the web app", () => {
  let ada: Athlete;
  let eddy: Athlete;
  let rideId = 0;
  let secondId = 0;
  let segmentId = 0;

  it("greets a signed-out visitor with what this is, sign in and register", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    watch(page);
    const res = await page.goto(`${server.url}/`);
    expect(res?.status()).toBe(200);
    expect(await page.textContent("h1")).toBe("Your activities, on your own server");
    expect(await page.getAttribute("main a[href='/login']", "href")).toBe("/login");
    expect(await page.getAttribute("main a[href='/register']", "href")).toBe("/register");
    // No token is handed to a visitor without a session.
    expect(await page.locator('meta[name="api-token"]').count()).toBe(0);
    await look(page, "landing");
    // Pages that need a session send the visitor to sign in first, and back afterwards.
    await page.goto(`${server.url}/upload`);
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/upload");
    await context.close();
  }, 60_000);

  it("signs in as a demo athlete onto the feed, with totals", async () => {
    ada = await signIn("ada@example.com");
    const { page } = ada;
    expect(await page.textContent("h1")).toBe("Your feed");
    await page.waitForFunction(() => (window as unknown as { appState?: { totals?: boolean } }).appState?.totals);
    const seeded = await page.locator("#feed li").count();
    expect(seeded).toBeGreaterThan(0);
    expect(await page.textContent("#totals")).toContain("This week");
    expect(await page.getAttribute("header nav a[aria-current=page]", "href")).toBe("/");
  }, 60_000);

  it("uploads real FIT files with progress and status, and errors in plain words", async () => {
    const { page } = ada;
    await page.goto(`${server.url}/upload`);
    const bad = join(server.dataDir, "notes.txt");
    writeFileSync(bad, "not an activity");
    await page.setInputFiles("#files", [FIT_POWER, FIT_HR, bad]);
    await page.waitForFunction(() => document.querySelectorAll("#uploads li[data-state]").length === 3, null, {
      timeout: 120_000,
    });
    const rows = await page.$$eval(
      "#uploads li",
      (lis) =>
        lis.map((li) => ({
          name: li.getAttribute("data-file"),
          state: li.getAttribute("data-state"),
          text: li.querySelector(".status")?.textContent,
          href: li.querySelector("a")?.getAttribute("href"),
        })),
    );
    expect(rows.map((r) => r.state)).toEqual(["done", "done", "error"]);
    expect(rows[2].text).toBe("Not a FIT, TCX or GPX file (or their .gz): choose a file your device recorded.");
    rideId = Number(/^\/activities\/(\d+)$/.exec(rows[0].href ?? "")?.[1]);
    secondId = Number(/^\/activities\/(\d+)$/.exec(rows[1].href ?? "")?.[1]);
    expect(rideId).toBeGreaterThan(0);
    expect(secondId).toBeGreaterThan(0);
    await look(page, "upload");
    // The same file again is refused in plain words, with a link to the activity it duplicates.
    provoked = [/status of 400 .*\/v3\/uploads$/];
    await page.goto(`${server.url}/upload`);
    await page.setInputFiles("#files", [FIT_POWER]);
    await page.waitForSelector("#uploads li[data-state]", { timeout: 60_000 });
    expect(await page.getAttribute("#uploads li", "data-state")).toBe("error");
    expect(await page.textContent("#uploads .status")).toContain("This file was uploaded before.");
    expect(await page.getAttribute("#uploads .status a", "href")).toBe(`/activities/${rideId}`);
    provoked = [];
  }, 180_000);

  it("shows the activity with its route on a map and linked charts, though tiles cannot load", async () => {
    const { page } = ada;
    await page.goto(`${server.url}/activities/${rideId}`);
    await page.waitForFunction(
      () => (window as unknown as { appState?: { activityFull?: number } }).appState?.activityFull,
      null,
      { timeout: 60_000 },
    );
    // The route is drawn as a vector path, the tiles failed (offline).
    const path = await page.getAttribute(".leaflet-overlay-pane path.leaflet-interactive", "d");
    expect((path ?? "").length).toBeGreaterThan(200);
    expect(Number(await state(page, "tileErrors"))).toBeGreaterThan(0);
    // The file's own summary: an Edge 1000 ride with power and heart rate.
    expect(await page.textContent("#title")).toBeTruthy();
    const charts = await page.$$eval("[data-chart]", (els) => els.map((e) => e.getAttribute("data-chart")));
    expect(charts).toEqual(expect.arrayContaining(["altitude", "velocity_smooth", "heartrate", "watts"]));
    expect(await page.locator("[data-chart=altitude] canvas").count()).toBe(1);
    // The cursor on a chart puts a marker on the map at that point of the route.
    const markersBefore = await page.locator(".leaflet-overlay-pane path").count();
    const over = page.locator("[data-chart=altitude] .u-over");
    const box = (await over.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
    await expect.poll(() => page.locator(".leaflet-overlay-pane path").count(), { timeout: 20_000 }).toBe(
      markersBefore + 1,
    );
    const legend = await page.textContent("[data-chart=altitude] .u-legend");
    expect(legend).toMatch(/km\s*\d+\.\d\d/);
    // Charts over time instead of distance.
    await page.check("input[name=x][value=time]");
    expect(await page.textContent("[data-chart=altitude] .u-legend")).toContain("min");
    await page.mouse.move(0, 0);
    await look(page, "activity", () => page.waitForTimeout(300));
  }, 120_000);

  it("lets a second athlete give kudos and comment, and the owner sees both", async () => {
    eddy = await signIn("eddy@example.com");
    const { page } = eddy;
    await page.goto(`${server.url}/activities/${rideId}`);
    await page.waitForSelector("#give-kudos");
    expect(await page.locator("#edit").count()).toBe(0); // not the owner: no edit form
    await page.click("#give-kudos");
    await expect.poll(() => page.textContent("#kudos-count"), { timeout: 20_000 }).toBe("1 kudo");
    expect(await page.textContent("#give-kudos")).toBe("You gave kudos");
    await page.fill("#comment-text", "Strong ride, Ada!");
    await page.click("#comment-form button[type=submit]");
    await expect.poll(() => page.locator("#comments li").count(), { timeout: 20_000 }).toBe(1);
    expect(await page.textContent("#comments li")).toContain("Strong ride, Ada!");
    // The owner's page shows them.
    await ada.page.goto(`${server.url}/activities/${rideId}`);
    await ada.page.waitForSelector("#comments li");
    expect(await ada.page.textContent("#kudos-count")).toBe("1 kudo");
    expect(await ada.page.textContent("#comments")).toContain("Eddy");
    expect(await ada.page.textContent("#comments")).toContain("Strong ride, Ada!");
  }, 90_000);

  it("shows a segment's leaderboard, which changes when another athlete rides it; filters and star", async () => {
    const { page } = ada;
    const apiAs = (p: Page, path: string, init: { method?: string; body?: unknown } = {}) =>
      p.evaluate(async ({ path, init }) => {
        const token = document.querySelector<HTMLMetaElement>('meta[name="api-token"]')!.content;
        const res = await fetch(`/v3${path}`, {
          method: init.method ?? "GET",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
        return res.json();
      }, { path, init });
    await page.goto(`${server.url}/upload`);
    // A segment made from a stretch of Ada's Edge 500 ride (Toronto).
    const segment = await apiAs(page, "/segments", {
      method: "POST",
      body: { name: "Bathurst Climb", activity_id: secondId, start_index: 2000, end_index: 2600 },
    });
    expect(segment.id).toBeGreaterThan(0);
    segmentId = segment.id;
    const me = await apiAs(page, "/athlete");
    const eddyMe = await apiAs(eddy.page, "/athlete");
    const leaderboardDone = (p: Page, n: number) =>
      p.waitForFunction(
        (n) => ((window as unknown as { appState?: { leaderboard?: number } }).appState?.leaderboard ?? 0) >= n,
        n,
      );
    const count = async (p: Page) => Number(/^(\d+) athletes?$/.exec((await p.textContent("#entry-count")) ?? "")?.[1]);
    await page.goto(`${server.url}/segments/${segment.id}`);
    await leaderboardDone(page, 1);
    expect(await page.textContent("#title")).toBe("Bathurst Climb");
    expect((await page.getAttribute(".leaflet-overlay-pane path", "d"))?.length).toBeGreaterThan(50);
    expect(await page.locator("#profile canvas").count()).toBe(1);
    const before = await count(page);
    expect(await page.locator(`#leaderboard tr[data-athlete="${eddyMe.id}"]`).count()).toBe(0);
    // Eddy rides it (the same Edge 500 file, uploaded from his own page): the board changes.
    await eddy.page.goto(`${server.url}/upload`);
    await eddy.page.setInputFiles("#files", [FIT_HR]);
    await eddy.page.waitForSelector("#uploads li[data-state=done]", { timeout: 120_000 });
    await page.reload();
    await leaderboardDone(page, 1);
    expect(await count(page)).toBe(before + 1);
    expect(await page.locator(`#leaderboard tr[data-athlete="${eddyMe.id}"]`).count()).toBe(1);
    expect(await page.locator(`#leaderboard tr[data-athlete="${me.id}"]`).count()).toBe(before);
    // Eddy sees his effort on his own copy of the page.
    await eddy.page.goto(`${server.url}/segments/${segment.id}`);
    await leaderboardDone(eddy.page, 1);
    expect(await eddy.page.locator("#my-efforts tbody tr").count()).toBe(1);
    // Women only: Eddy's entry goes.
    await page.selectOption("#f-gender", "F");
    await leaderboardDone(page, 2);
    expect(await count(page)).toBe(before);
    expect(await page.locator(`#leaderboard tr[data-athlete="${eddyMe.id}"]`).count()).toBe(0);
    await page.selectOption("#f-gender", "");
    await leaderboardDone(page, 3);
    await page.click("#star");
    await expect.poll(() => page.getAttribute("#star", "aria-pressed"), { timeout: 20_000 }).toBe("true");
    expect((await apiAs(page, `/segments/${segment.id}`)).starred).toBe(true);
    await look(page, "segment");
  }, 180_000);

  it("lets an athlete join a club from its page", async () => {
    const created = await ada.page.evaluate(async () => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="api-token"]')!.content;
      const res = await fetch("/v3/clubs", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: "Lunch Loop Club",
          description: "Noon rides around the park.",
          sport_type: "cycling",
          city: "London",
          country: "United Kingdom",
        }),
      });
      return { status: res.status, body: await res.json() };
    });
    expect(created.status).toBe(201);
    const { page } = eddy;
    await page.goto(`${server.url}/clubs/${created.body.id}`);
    await page.waitForSelector("#join");
    expect(await page.textContent("#title")).toBe("Lunch Loop Club");
    await page.click("#join");
    await expect.poll(() => page.textContent("#membership"), { timeout: 20_000 }).toBe("You are a member.");
    expect(await page.textContent("#members")).toContain("Eddy");
    // The feed lists the athlete's clubs.
    await page.goto(`${server.url}/`);
    await page.waitForSelector(`#my-clubs a[href="/clubs/${created.body.id}"]`);
    await page.goto(`${server.url}/clubs/${created.body.id}`);
    await page.waitForSelector("#leave");
    await look(page, "club");
    // The challenge Ada joined is on her feed; Eddy joins it from its page.
    await ada.page.goto(`${server.url}/`);
    const challenge = (await ada.page.waitForSelector("#my-challenges a")).getAttribute("href");
    await page.goto(`${server.url}${await challenge}`);
    await page.waitForSelector("#join");
    await page.click("#join");
    await expect.poll(() => page.textContent("#joined"), { timeout: 20_000 }).toBe("You joined.");
    await page.waitForSelector("#leave");
    await look(page, "challenge");
  }, 120_000);

  it("builds a heatmap with progress, and its viewer opens on the activities without a debug grid", async () => {
    const { page } = ada;
    await page.goto(`${server.url}/heatmaps`);
    await page.waitForSelector("#create-heatmap");
    expect(await page.getAttribute("header nav a[aria-current=page]", "href")).toBe("/heatmaps");
    await page.click("#create-heatmap button[type=submit]");
    await page.waitForSelector("#heatmap-list li");
    await page.waitForSelector("#heatmap-list li[data-status=done] a", { timeout: 120_000 });
    expect(await page.textContent("#heatmap-list li h2")).toBe("Ride");
    await look(page, "heatmaps");
    const href = (await page.getAttribute("#heatmap-list li[data-status=done] a", "href"))!;
    const token = await page.getAttribute('meta[name="api-token"]', "content");
    await page.goto(`${server.url}${href}`);
    await page.waitForFunction(
      () => (window as unknown as { heatmapViewer?: { ready: boolean } }).heatmapViewer?.ready,
      null,
      { timeout: 60_000 },
    );
    const viewer = await page.evaluate(() =>
      (window as unknown as { heatmapViewer: { zoom: number; tilesLoaded: number } }).heatmapViewer
    );
    // Opened on the rides' bounds (center_zoom is computed from them at build time), not the world at zoom 2.
    const mapId = href.split("/").pop();
    const built = await fetch(`${server.url}/v3/athletes/${href.split("/")[2]}/heatmaps/${mapId}/progress`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.json());
    expect(built.center_zoom).toBeGreaterThan(2);
    // At least the zoom that holds every ride; closer when the rides lie in areas far apart (it opens on the busiest).
    expect(viewer.zoom).toBeGreaterThanOrEqual(built.center_zoom);
    expect(viewer.tilesLoaded).toBeGreaterThan(0);
    expect(await page.locator(".grid, canvas.leaflet-tile").count()).toBe(0);
    await page.screenshot({ path: join(SCREENS, "heatmap-viewer-desktop.png") });
  }, 180_000);

  it("edits an activity; made private, another athlete gets the not-found page", async () => {
    const { page } = ada;
    await page.goto(`${server.url}/activities/${secondId}`);
    await page.waitForSelector("#edit-form");
    await page.fill("#edit-name", "Hill repeats");
    await page.fill("#edit-description", "Five times up the hill.");
    await page.selectOption("#edit-visibility", "only_me");
    await page.click("#edit-form button[type=submit]");
    await expect.poll(() => page.textContent("#edit-status"), { timeout: 20_000 }).toBe("Saved.");
    expect(await page.textContent("#title")).toBe("Hill repeats");
    await page.reload();
    await page.waitForSelector("#description");
    expect(await page.textContent("#description")).toBe("Five times up the hill.");
    // Eddy may not see it: the same page as for an unknown address, with a way back.
    const res = await eddy.page.goto(`${server.url}/activities/${secondId}`);
    expect(res?.status()).toBe(404);
    expect(await eddy.page.textContent("h1")).toBe("This page isn't here");
    expect(await eddy.page.textContent("main")).not.toContain("Hill repeats");
    expect(await eddy.page.getAttribute("main a.button", "href")).toBe("/");
    const unknown = await eddy.page.goto(`${server.url}/nope`);
    expect(unknown?.status()).toBe(404);
    await look(eddy.page, "not-found");
    // The API keeps answering JSON.
    const api = await fetch(`${server.url}/v3/nope`, { headers: { accept: "text/html" } });
    expect(api.status).toBe(404);
    expect(api.headers.get("content-type")).toContain("application/json");
  }, 90_000);

  it(
    "explores segments on a map: the map's bounds ask the explore endpoint; climb category filters; links to the segment",
    async () => {
      const { page } = ada;
      await page.goto(`${server.url}/segments`);
      expect(await page.getAttribute("header nav a[aria-current=page]", "href")).toBe("/segments");
      const segment = await page.evaluate(async (id) => {
        const token = document.querySelector<HTMLMetaElement>('meta[name="api-token"]')!.content;
        return (await fetch(`/v3/segments/${id}`, { headers: { authorization: `Bearer ${token}` } })).json();
      }, segmentId);
      const [[lat0, lng0], [lat1, lng1]] = [segment.start_latlng, segment.end_latlng] as [number, number][];
      const bounds = [
        Math.min(lat0, lat1) - 0.004,
        Math.min(lng0, lng1) - 0.004,
        Math.max(lat0, lat1) + 0.004,
        Math.max(lng0, lng1) + 0.004,
      ];
      const explored = (n: number) =>
        page.waitForFunction(
          (n) => ((window as unknown as { appState?: { explore?: number } }).appState?.explore ?? 0) >= n,
          n,
          { timeout: 30_000 },
        );
      await page.goto(`${server.url}/segments?bounds=${bounds.join(",")}`);
      await explored(1);
      await page.waitForSelector(`#explore-list li[data-segment="${segmentId}"]`);
      expect(await page.textContent(`#explore-list li[data-segment="${segmentId}"] a`)).toBe("Bathurst Climb");
      // Drawn on the map too (a vector path, tiles or not).
      expect(await page.locator(".leaflet-overlay-pane path").count()).toBeGreaterThan(0);
      await look(page, "segments");
      // Only categorised climbs from category 1 up: a short city stretch is not among them.
      const category = Number(segment.climb_category);
      const above = String(Math.min(5, category + 1));
      await page.selectOption("#min-cat", above);
      await page.selectOption("#max-cat", "5");
      await expect.poll(() => page.locator(`#explore-list li[data-segment="${segmentId}"]`).count(), {
        timeout: 20_000,
      }).toBe(category === 5 ? 1 : 0);
      await page.selectOption("#min-cat", "0");
      await page.waitForSelector(`#explore-list li[data-segment="${segmentId}"]`);
      await Promise.all([
        page.waitForURL(`${server.url}/segments/${segmentId}`),
        page.click(`#explore-list li[data-segment="${segmentId}"] a`),
      ]);
    },
    90_000,
  );

  it(
    "shows another athlete's profile; following them brings their activities (never the private one) into the feed",
    async () => {
      const { page } = eddy;
      const adaId = await ada.page.evaluate(() =>
        JSON.parse(document.getElementById("app-config")!.textContent!).athlete.id as number
      );
      // From the activity page, the owner's name links to the profile.
      await page.goto(`${server.url}/activities/${rideId}`);
      await page.waitForSelector("#owner");
      await Promise.all([page.waitForURL(`${server.url}/athletes/${adaId}`), page.click("#owner")]);
      await page.waitForFunction(() =>
        ((window as unknown as { appState?: { athleteActivities?: number } }).appState?.athleteActivities ?? 0) >= 1
      );
      expect(await page.textContent("#title")).toContain("Ada");
      const listed = await page.$$eval(
        "#athlete-activities li",
        (lis) => lis.map((li) => Number(li.getAttribute("data-activity"))),
      );
      expect(listed).toContain(rideId);
      expect(listed).not.toContain(secondId); // made private above
      expect(await page.textContent("#profile-totals")).toContain("Rides");
      // Not followed yet: the feed has none of Ada's activities.
      await page.goto(`${server.url}/`);
      await page.waitForFunction(() =>
        (window as unknown as { appState?: { feedPages?: number } }).appState?.feedPages
      );
      expect(await page.locator(`#feed li[data-athlete="${adaId}"]`).count()).toBe(0);
      await page.goto(`${server.url}/athletes/${adaId}`);
      await page.click("#follow");
      await expect.poll(() => page.textContent("#follow-status"), { timeout: 20_000 }).toBe("You follow Ada.");
      expect(await page.getAttribute("#unfollow", "aria-pressed")).toBe("true");
      expect(await page.textContent("#follow-counts")).toMatch(/^1 follower/);
      await look(page, "athlete");
      await page.goto(`${server.url}/`);
      await page.waitForSelector(`#feed li[data-athlete="${adaId}"]`);
      const feed = await page.$$eval("#feed li", (lis) => lis.map((li) => Number(li.getAttribute("data-activity"))));
      expect(feed).toContain(rideId);
      expect(feed).not.toContain(secondId);
      expect(await page.textContent(`#feed li[data-activity="${rideId}"] .who-row a`)).toContain("Ada");
      // Ada's own profile page is "Profile" in the navigation, with a link to change the picture.
      await ada.page.goto(`${server.url}/athletes/${adaId}`);
      await ada.page.waitForSelector("#profile-head a[href='/settings']");
      expect(await ada.page.getAttribute("header nav a[aria-current=page]", "href")).toBe(`/athletes/${adaId}`);
      // Unknown athletes answer the not-found page.
      expect((await page.goto(`${server.url}/athletes/987654`))?.status()).toBe(404);
    },
    90_000,
  );

  it("scrolls the feed over several API pages, newest first", async () => {
    const { page } = ada;
    await page.goto(`${server.url}/?per_page=1`);
    await page.waitForFunction(() => (window as unknown as { appState?: { feedPages?: number } }).appState?.feedPages);
    const expected = await page.evaluate(async () => {
      const token = document.querySelector<HTMLMetaElement>('meta[name="api-token"]')!.content;
      const res = await fetch("/v3/activities/following?per_page=100", {
        headers: { authorization: `Bearer ${token}` },
      });
      return (await res.json()).map((a: { id: number }) => a.id);
    });
    expect(expected.length).toBeGreaterThanOrEqual(4);
    for (let i = 0; i < expected.length + 2; i++) {
      await page.mouse.wheel(0, 5000);
      await page.waitForTimeout(250);
    }
    await expect.poll(() => page.textContent("#feed-status"), { timeout: 20_000 }).toBe(
      "That's all the activities of you and the athletes you follow.",
    );
    const shown = await page.$$eval("#feed li", (lis) => lis.map((li) => Number(li.getAttribute("data-activity"))));
    expect(shown).toEqual(expected);
    expect(Number(await state(page, "feedPages"))).toBeGreaterThanOrEqual(expected.length);
    await page.goto(`${server.url}/`);
    await page.waitForFunction(() => (window as unknown as { appState?: { totals?: boolean } }).appState?.totals);
    await look(page, "feed");
  }, 90_000);

  it("saves settings: default privacy and a privacy zone placed on the map", async () => {
    const { page } = ada;
    await page.goto(`${server.url}/settings`);
    await page.waitForFunction(() => (window as unknown as { appState?: { settings?: boolean } }).appState?.settings);
    expect(await page.getAttribute("header nav a[aria-current=page]", "href")).toBe("/settings");
    await page.selectOption("#default-visibility", "only_me");
    await page.click("#profile-form button[type=submit]");
    await expect.poll(() => page.textContent("#profile-status"), { timeout: 20_000 }).toBe("Saved.");
    // A click on the map fills the zone's centre.
    await page.locator("#zones-map").scrollIntoViewIfNeeded();
    await expect.poll(async () => {
      const box = (await page.locator("#zones-map").boundingBox())!;
      await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
      return page.inputValue("#zone-lat");
    }, { timeout: 20_000 }).not.toBe("");
    await page.fill("#zone-lat", "-33.8688");
    await page.fill("#zone-lng", "151.2093");
    await page.fill("#zone-radius", "400");
    await page.click("#zone-form button[type=submit]");
    await expect.poll(() => page.locator("#zones li").count(), { timeout: 20_000 }).toBe(1);
    expect(await page.textContent("#zones")).toContain("-33.8688, 151.2093 · 400 m");
    await page.reload();
    await page.waitForFunction(() => (window as unknown as { appState?: { settings?: boolean } }).appState?.settings);
    expect(await page.inputValue("#default-visibility")).toBe("only_me");
    expect(await page.getAttribute("a[href='/settings/import']", "href")).toBe("/settings/import");
    // A profile picture: its centre square becomes the 124 px avatar others see.
    const picture = join(server.dataDir, "me.png");
    writeFileSync(picture, portraitPng());
    const identicon = await page.evaluate(() => (document.getElementById("picture") as HTMLImageElement).currentSrc);
    await page.setInputFiles("#picture-file", picture);
    await expect.poll(() => page.textContent("#picture-status"), { timeout: 30_000 }).toBe("Picture saved.");
    await page.waitForFunction(() => {
      const img = document.getElementById("picture") as HTMLImageElement;
      return img.complete && img.naturalWidth === 124 && /\?v=/.test(img.src);
    });
    const centre = await page.evaluate(() => {
      const img = document.getElementById("picture") as HTMLImageElement;
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 124;
      const g = canvas.getContext("2d")!;
      g.drawImage(img, 0, 0);
      return [...g.getImageData(62, 62, 1, 1).data.slice(0, 3), ...g.getImageData(62, 1, 1, 1).data.slice(0, 3)];
    });
    // Centre and top edge are the square's blue: the red bands above and below it were cropped off.
    for (const [i, v] of [20, 110, 200, 20, 110, 200].entries()) {
      expect(Math.abs(centre[i] - v), `channel ${i}`).toBeLessThanOrEqual(3);
    }
    expect(identicon).toContain("/avatars/athletes/");
    // Gear, added from the page (the gear-create extension).
    await page.fill("#gear-name", "Commuter bike");
    await page.fill("#gear-brand", "Brompton");
    await page.click("#gear-form button[type=submit]");
    await expect.poll(() => page.textContent("#gear"), { timeout: 20_000 }).toContain("Bike: Commuter bike");
    expect(await page.textContent("#gear-status")).toBe("Added.");
    await look(page, "settings");
  }, 90_000);

  it("keeps the session's API token to the session: CSRF-checked refresh, gone after sign-out", async () => {
    const { page } = ada;
    await page.goto(`${server.url}/upload`);
    const token = await page.getAttribute('meta[name="api-token"]', "content");
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    provoked = [/status of 403 .*\/app\/token$/];
    const refused = await page.evaluate(async () => (await fetch("/app/token", { method: "POST" })).status);
    expect(refused).toBe(403);
    provoked = [];
    const fresh = await page.evaluate(async () => {
      const csrf = JSON.parse(document.getElementById("app-config")!.textContent!).csrf;
      const res = await fetch("/app/token", { method: "POST", headers: { "x-csrf-token": csrf } });
      return { status: res.status, body: await res.json() };
    });
    expect(fresh.status).toBe(200);
    expect(fresh.body.access_token).toBe(token);
    const me = await fetch(`${server.url}/v3/athlete`, { headers: { authorization: `Bearer ${token}` } });
    expect((await me.json()).firstname).toBe("Ada");
    // The page's own application is not the athlete's "My API application" nor an app on "My apps".
    await page.goto(`${server.url}/settings/apps`);
    expect(await page.textContent("main")).not.toContain("Web app");
    await page.click("header form button[type=submit]");
    await page.waitForURL(/\/login$/);
    const after = await fetch(`${server.url}/app/token`, {
      method: "POST",
      headers: { "x-csrf-token": "0".repeat(64) },
    });
    expect(after.status).toBe(401);
    // The token minted for the ended session is revoked with it: /v3 answers 401.
    const revoked = await fetch(`${server.url}/v3/athlete`, { headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(401);
  }, 60_000);

  it("deletes an activity from its page", async () => {
    const { page } = eddy;
    await page.goto(`${server.url}/upload`);
    await page.setInputFiles("#files", [deviceFile("fit/garmin-edge1000-cycling-short-3formats.fit")]);
    await page.waitForSelector("#uploads li[data-state=done] a", { timeout: 60_000 });
    const href = (await page.getAttribute("#uploads li a", "href"))!;
    await page.goto(`${server.url}${href}`);
    await page.waitForSelector("#delete");
    page.once("dialog", (dialog) => dialog.accept());
    await Promise.all([page.waitForURL(`${server.url}/`), page.click("#delete")]);
    const gone = await page.goto(`${server.url}${href}`);
    expect(gone?.status()).toBe(404);
  }, 90_000);

  it("logged no console error on any page", () => {
    expect(consoleErrors).toEqual([]);
  });
});
