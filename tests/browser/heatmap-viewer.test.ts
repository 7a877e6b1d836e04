import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { decode } from "fast-png";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { loopTrack, offset, recordActivity, waitForBuild } from "../api/heatmaps-fixtures.ts";

/**
 * The heatmap viewer page in a real browser (Debian's chromium): Leaflet served by us, our tiles
 * alone, no outside request. The screenshot goes to tests/artifacts/heatmap-viewer.png.
 */
const ARTIFACTS = join(import.meta.dirname!, "..", "artifacts");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SCREENS = join(import.meta.dirname!, "..", "..", "docs", "screens");
const CENTER: [number, number] = [45.7640, 4.8357]; // Lyon

let server: TestServer;
let browser: Browser;
let athlete: TestAthlete;

/** A deterministic street-grid wander: arterials get ridden more often, which makes the density visible. */
function gridRoute(seed: number): [number, number][] {
  let state = seed * 9301 + 49297;
  const rand = () => ((state = (state * 9301 + 49297) % 233280) / 233280);
  const block = 350, size = 10;
  let gx = Math.floor(rand() * size), gy = Math.floor(rand() * size);
  const points: [number, number][] = [];
  for (let step = 0; step < 28; step++) {
    const arterial = rand() < 0.55;
    let nx = gx, ny = gy;
    if (arterial) {
      if (rand() < 0.5) nx = gx + (gx < size / 2 ? 1 : -1), ny = gy;
      else ny = 5, nx = gx;
    } else if (rand() < 0.5) nx = Math.max(0, Math.min(size, gx + (rand() < 0.5 ? 1 : -1)));
    else ny = Math.max(0, Math.min(size, gy + (rand() < 0.5 ? 1 : -1)));
    for (let i = 0; i <= 60; i++) {
      const f = i / 60;
      const east = ((gx + (nx - gx) * f) - size / 2) * block + Math.sin(seed + i) * 2;
      const north = ((gy + (ny - gy) * f) - size / 2) * block + Math.cos(seed * 3 + i) * 2;
      points.push(offset(CENTER, east, north));
    }
    gx = nx, gy = ny;
  }
  return points;
}

beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete({ firstname: "Viewer" });
  for (let i = 0; i < 40; i++) {
    await recordActivity(server, {
      athleteId: athlete.id,
      type: i % 3 === 0 ? "Run" : "Ride",
      startDateLocal: `2024-0${1 + (i % 9)}-1${i % 10}T07:00:00Z`,
      latlng: gridRoute(i + 1),
    });
  }
  for (let i = 0; i < 6; i++) {
    await recordActivity(server, {
      athleteId: athlete.id,
      type: "Ride",
      startDateLocal: "2024-03-03T07:00:00Z",
      latlng: loopTrack(offset(CENTER, 200, -300), 1200 + i * 15),
    });
  }
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("heatmap viewer page", () => {
  it("shows our tiles over a dark map with no outside request, and saves a screenshot", async () => {
    const res = await server.api("POST", "/v3/athlete/heatmaps", {
      token: athlete.token,
      form: { activity_type_ids: "1,2" },
    });
    expect(res.status).toBe(201);
    const progress = await waitForBuild(server, athlete.id, res.body.id, athlete.token);
    expect(progress.status).toBe("done");
    expect(progress.activities_count).toBe(46);

    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const page = await context.newPage();
    const outside: string[] = [];
    page.on("request", (req) => {
      if (!req.url().startsWith(server.url) && !req.url().startsWith("data:")) outside.push(req.url());
    });
    const response = await page.goto(res.body.web_url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("img-src 'self' data:;");
    await page.waitForFunction(
      () => {
        const v = (window as unknown as { heatmapViewer?: { ready: boolean; tilesLoaded: number } }).heatmapViewer;
        return !!v && v.ready && v.tilesLoaded > 0;
      },
      undefined,
      { timeout: 30_000 },
    );
    const viewer = await page.evaluate(() =>
      (window as unknown as { heatmapViewer: { tilesLoaded: number; tilesFailed: number } }).heatmapViewer
    );
    expect(viewer.tilesFailed).toBe(0);
    expect(viewer.tilesLoaded).toBeGreaterThanOrEqual(4);
    expect(await page.locator(".panel").innerText()).toContain("46 public activities");

    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = await page.screenshot({ type: "png" });
    writeFileSync(join(ARTIFACTS, "heatmap-viewer.png"), shot);
    const image = decode(new Uint8Array(shot));
    const data = image.data as Uint8Array;
    let hot = 0;
    for (let i = 0; i < data.length; i += image.channels) {
      // Heat colours are red/orange/yellow/purple; the page background is near-black blue.
      if (data[i] > 100 && data[i] > data[i + 2] + 20) hot++;
    }
    expect(hot).toBeGreaterThan(2000);
    expect(outside).toEqual([]);
    await context.close();
  });

  it(
    "opens fitted to the activities at 1280 and 390 px (not the world), and its link leads back to the heatmaps",
    async () => {
      const res = await server.api("POST", "/v3/athlete/heatmaps", {
        token: athlete.token,
        form: { activity_type_ids: "1,2" },
      });
      expect(res.status).toBe(201);
      const progress = await waitForBuild(server, athlete.id, res.body.id, athlete.token);
      expect(progress.center_zoom).toBeGreaterThan(2);
      mkdirSync(SCREENS, { recursive: true });
      for (const [width, height, name] of [[1280, 900, "desktop"], [390, 844, "phone"]] as const) {
        const context = await browser.newContext({ viewport: { width, height } });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(e.message));
        page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
        await page.goto(res.body.web_url);
        await page.waitForFunction(
          () => (window as unknown as { heatmapViewer?: { ready: boolean } }).heatmapViewer?.ready,
          undefined,
          { timeout: 30_000 },
        );
        const zoom = await page.evaluate(() =>
          (window as unknown as { heatmapViewer: { zoom: number } }).heatmapViewer.zoom
        );
        // World zoom is 2 (what the viewer opened on); fitted to the tracks' box it is the build's
        // center_zoom on a desktop window, at most two zooms out on a phone.
        expect(zoom, name).toBeGreaterThan(2);
        if (name === "desktop") expect(zoom).toBeGreaterThanOrEqual(progress.center_zoom);
        else expect(zoom).toBeGreaterThanOrEqual(progress.center_zoom - 2);
        const back = page.locator(".panel a.back");
        expect(await back.isVisible()).toBe(true);
        expect(await back.innerText()).toContain("Heatmaps");
        await page.evaluate(AXE);
        const serious = await page.evaluate(async () => {
          // deno-lint-ignore no-explicit-any
          const r = await (window as any).axe.run(document, { resultTypes: ["violations"] });
          // deno-lint-ignore no-explicit-any
          return r.violations.filter((v: any) => v.impact === "serious" || v.impact === "critical").map((v: any) =>
            `${v.id} (${v.impact})`
          );
        });
        expect(serious, name).toEqual([]);
        await page.screenshot({ path: join(SCREENS, `heatmap-viewer-back-${name}.png`) });
        // Not signed in here: /heatmaps asks to sign in and comes back to it.
        await Promise.all([
          page.waitForURL((url) => url.pathname === "/heatmaps" || url.search.includes("%2Fheatmaps")),
          back.click(),
        ]);
        expect(errors, name).toEqual([]);
        await context.close();
      }
    },
    120_000,
  );

  it(
    "asks only for the tiles that may hold heat, and shows exactly what asking for every tile shows",
    async () => {
      const res = await server.api("POST", "/v3/athlete/heatmaps", {
        token: athlete.token,
        form: { activity_type_ids: "1,2" },
      });
      expect(res.status).toBe(201);
      expect((await waitForBuild(server, athlete.id, res.body.id, athlete.token)).status).toBe("done");
      /** The view at the opening zoom and two zooms out: heat tiles asked for, and the screenshots. */
      const look = async (everyTile: boolean) => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        const page = await context.newPage();
        if (everyTile) {
          // The bare baseline: the same page without the list of occupied tiles (the viewer then asks for every tile).
          await page.route(res.body.web_url, async (route) => {
            const response = await route.fetch();
            const html = (await response.text()).replace(/"occupied":\{[^}]*\}/, '"occupied":null');
            expect(html).toContain('"occupied":null');
            await route.fulfill({ response, body: html });
          });
        }
        const asked: string[] = [];
        page.on("request", (req) => /\/tiles\/\d+\/\d+\/\d+\.png$/.test(req.url()) && asked.push(req.url()));
        await page.goto(res.body.web_url);
        const ready = () => (window as unknown as { heatmapViewer: { ready: boolean } }).heatmapViewer?.ready;
        await page.waitForFunction(ready, undefined, { timeout: 30_000 });
        await page.waitForTimeout(400); // Leaflet fades tiles in
        const shots = [await page.screenshot({ type: "png" })];
        const opening = asked.length;
        await page.locator("#map").focus();
        for (const step of [1, 2]) {
          await page.evaluate(() =>
            (window as unknown as { heatmapViewer: { ready: boolean } }).heatmapViewer.ready = false
          );
          await page.keyboard.press("Minus");
          await page.waitForFunction(ready, undefined, { timeout: 30_000 });
          await page.waitForTimeout(600); // Leaflet's zoom animation and fade
          shots.push(await page.screenshot({ type: "png" }));
          expect(step).toBeGreaterThan(0);
        }
        await context.close();
        return { opening, shots };
      };
      const listed = await look(false);
      const every = await look(true);
      expect(listed.opening).toBeGreaterThan(0);
      // A 1280 x 900 window spans 20-30 tiles; the Lyon rides fill a few of them.
      expect(listed.opening).toBeLessThan(every.opening / 2);
      for (let i = 0; i < listed.shots.length; i++) {
        const a = decode(new Uint8Array(listed.shots[i])).data, b = decode(new Uint8Array(every.shots[i])).data;
        let differ = 0;
        for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) differ++;
        expect(differ, `view ${i}`).toBe(0);
      }
    },
    120_000,
  );
});
