import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appState, launchChromium, screenshots, type SignedIn, signIn, uploadFile } from "../helpers/browser.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * Issue 33, defect 1: an activity without GPS with more than ~1,000 samples (a pool swim, indoor
 * rowing, an indoor ride) was drawn, then replaced ~60 ms later by "Cannot read properties of null
 * (reading 'replaceWith')": the full-resolution redraw looked for the map box the first draw had
 * replaced by "No GPS track". Real device files, uploaded with the page's own token, in Debian's
 * chromium against the server as `npm start` runs it.
 */
const FILES = [
  { name: "pool swim", file: deviceFile("fit/garmin-fr735xt-pool-swim-lengths.fit"), records: 4376 },
  { name: "indoor rowing", file: deviceFile("fit/garmin-vivoactivehr-indoor-rowing-nogps.fit"), records: 1641 },
  { name: "indoor ride", file: deviceFile("fit/garmin-edge530-indoor-cycling-power-hrv-laps.fit"), records: 1072 },
];

/** The full-resolution redraw is done, or the page failed (what the defect did). */
const redrawnOrFailed = () =>
  !!(window as unknown as { appState?: { activityFull?: number } }).appState?.activityFull ||
  document.getElementById("activity")?.dataset.state === "failed";

let server: DenoServer;
let browser: Browser;
let ada: SignedIn;

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await launchChromium();
  ada = await signIn(browser, server.url, "ada@example.com");
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("an activity without GPS", () => {
  for (const { name, file, records } of FILES) {
    it(`${name}: stays drawn after the full-resolution redraw, with its figures and charts, and no error`, async () => {
      const { page, errors } = ada;
      const id = await uploadFile(page, file, "fit");
      await page.goto(`${server.url}/activities/${id}`);
      await page.waitForFunction(redrawnOrFailed, null, { timeout: 60_000 });
      // The full-resolution streams were really longer than the reduced ones (the redraw happened).
      const lengths = await page.evaluate(`(async () => {
        const app = await import("/app/assets/app.js");
        const keys = "time,distance";
        const full = await app.api("/activities/${id}/streams?keys=" + keys);
        const medium = await app.api("/activities/${id}/streams?keys=" + keys + "&resolution=medium");
        const len = (list) => Math.max(...list.map((s) => s.data.length));
        return { full: len(full), medium: len(medium) };
      })()`) as { full: number; medium: number };
      expect(lengths.full).toBeGreaterThan(lengths.medium);
      expect(lengths.full).toBeGreaterThan(1000);
      expect(lengths.full).toBeLessThanOrEqual(records);
      // Past the redraw and then some: the page is still the drawn activity.
      await page.waitForTimeout(500);
      expect(await page.getAttribute("#activity", "data-state")).toBe("drawn");
      expect(await page.locator("#activity [role=alert]").count()).toBe(0);
      expect(await page.textContent("#activity")).not.toContain("Cannot read properties");
      expect(await page.isVisible("#no-map")).toBe(true);
      expect(await page.textContent("#no-map")).toBe("No GPS track: nothing to map.");
      expect(await page.textContent("#summary")).toContain("Moving time");
      const charts = await page.locator("#charts figure.chart canvas").count();
      expect(charts).toBeGreaterThan(0);
      expect(await page.isVisible("#charts figure.chart")).toBe(true);
      expect(await appState(page, "activityDrawn")).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    }, 180_000);
  }

  it("is looked at: the pool swim at 1280 and 390 px", async () => {
    const { page, errors } = ada;
    await page.goto(`${server.url}/`);
    const swim = await page.evaluate(
      `import("/app/assets/app.js").then((app) => app.api("/athlete/activities?per_page=10")).then((rows) => rows.find((a) => a.type === "Swim")?.id)`,
    ) as number;
    expect(swim).toBeGreaterThan(0);
    await page.goto(`${server.url}/activities/${swim}`);
    await page.waitForFunction(redrawnOrFailed, null, { timeout: 60_000 });
    const paths = await screenshots(page, "activity-without-gps");
    expect(paths).toHaveLength(2);
    expect(await page.getAttribute("#activity", "data-state")).toBe("drawn");
    expect(errors).toEqual([]);
  }, 120_000);
});
