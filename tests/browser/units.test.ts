import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appState,
  launchChromium,
  pageApi,
  screenshots,
  seriousAxeViolations,
  type SignedIn,
  signIn,
  uploadFile,
} from "../helpers/browser.ts";
import { type DenoServer, ROOT, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * Issue 33: the athlete's measurement_preference. Ada (demo data) chooses "Imperial" on /settings
 * (PUT /v3/athlete measurement_preference=feet); the feed and an activity page then show miles,
 * feet, mi/h and min/mi, no km; no console error, no serious axe violation at 1280 and 390 px.
 * Screenshots: docs/screens/units-imperial-*.png.
 */
const SCREENS = join(ROOT, "docs", "screens");
const EDGE500 = deviceFile("fit/garmin-edge500-cycling-hr-cad-pauses.fit");

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

async function copyShots(page: Page, name: string) {
  const [desktop, phone] = await screenshots(page, name);
  const { copyFileSync } = await import("node:fs");
  copyFileSync(desktop, join(SCREENS, `${name}-desktop.png`));
  copyFileSync(phone, join(SCREENS, `${name}-phone.png`));
}

describe("units follow measurement_preference", () => {
  it(
    "metric by default; imperial chosen on /settings: the feed and an activity page in mi, ft, mi/h, min/mi",
    async () => {
      const { page, errors } = ada;
      await page.waitForSelector(".feed-list .stats, .stats");
      const metricFeed = await page.locator("main").innerText();
      expect(metricFeed).toMatch(/\d km\b/);

      await page.goto(`${server.url}/settings`);
      await page.waitForSelector("#profile-form #units");
      expect(await page.inputValue("#units")).toBe("meters");
      await page.selectOption("#units", "feet");
      await page.click("#profile-form button[type=submit]");
      await page.waitForSelector("#profile-status.ok");
      expect((await pageApi<{ measurement_preference: string }>(page, "/athlete")).measurement_preference).toBe("feet");
      expect(await seriousAxeViolations(page)).toEqual([]);
      // Reloaded: the page itself (gear distances, the zones map's scale) now in miles.
      await page.reload();
      await page.waitForSelector("#gear");
      expect(await page.locator("#gear").innerText()).toMatch(/\d mi\b/);
      expect(await page.inputValue("#units")).toBe("feet");
      await copyShots(page, "units-settings");

      await page.goto(`${server.url}/`);
      await page.waitForSelector(".stats");
      await page.waitForFunction(() => (window as unknown as { appState?: { totals?: boolean } }).appState?.totals);
      const feed = `${await page.locator("#feed").innerText()}\n${await page.locator("#totals").innerText()}`;
      expect(feed).toMatch(/\d\.\d+ mi\b/);
      expect(feed).toMatch(/\d ft\b/);
      expect(feed).toMatch(/mi\/h|\/mi\b/);
      expect(feed).not.toMatch(/\bkm\b|km\/h|\d m\b/);
      // The demo "Lunch run", 5.20 km in 30:00: 3.23 mi at 9:17 /mi.
      expect(feed).toContain("3.23 mi");
      expect(feed).toContain("9:17 /mi");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await copyShots(page, "units-imperial-feed");

      // A ride with a track (a real device file): its page in miles, feet and mi/h (summary, charts, map scale).
      const ride = { id: await uploadFile(page, EDGE500, "fit") };
      await page.goto(`${server.url}/activities/${ride.id}`);
      await page.waitForFunction(
        () => (window as unknown as { appState?: { activityDrawn?: number } }).appState?.activityDrawn,
        null,
        { timeout: 60_000 },
      );
      expect(await appState(page, "activityDrawn")).toBeTruthy();
      const summary = await page.locator("main").innerText();
      expect(summary).toMatch(/\d\.\d+ mi\b/);
      expect(summary).toMatch(/\d ft\b/);
      expect(summary).toMatch(/\d mi\/h/);
      expect(summary).not.toMatch(/\d km\b|km\/h/);
      const chartTitles = await page.locator("#charts h3").allInnerTexts();
      expect(chartTitles).toContain("Speed (mi/h)");
      expect(chartTitles).toContain("Elevation (ft)");
      expect(summary).not.toContain("Splits (km)");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await copyShots(page, "units-imperial-activity");
      expect(errors).toEqual([]);
    },
    180_000,
  );
});
