import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshots, type SignedIn, signIn, uploadFile } from "../helpers/browser.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * Issue #46 item 5: an activity whose altitude is the recording's GPS altitude (a phone's walk, no
 * terrain tiles on this server) says so on its page, under the elevation gain; one whose altitude
 * is a barometric altimeter's does not. Real device files, uploaded with the page's own token, in
 * Debian's chromium against the server as `npm start` runs it; looked at at 1280 and 390 px.
 */
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

const drawn = () => document.getElementById("activity")?.dataset.state === "drawn";

describe("the activity page says when the elevation is GPS altitude", () => {
  it("a phone's walk (My Tracks GPX): a note under the summary; at 1280 and 390 px", async () => {
    const { page, errors } = ada;
    const id = await uploadFile(page, deviceFile("gpx/mytracks-android-hike-karojba.gpx"), "gpx");
    await page.goto(`${server.url}/activities/${id}`);
    await page.waitForFunction(drawn, null, { timeout: 60_000 });
    const note = page.locator("#elevation-note");
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toContain("GPS altitude");
    expect(await page.textContent("#summary")).toContain("Elevation gain");
    // The note belongs to the summary card, right below the figures.
    expect(await page.locator("section[aria-label=Summary] #elevation-note").count()).toBe(1);
    const paths = await screenshots(page, "activity-gps-elevation");
    expect(paths).toHaveLength(2);
    // At a phone's width the note wraps inside the page: no horizontal scroll.
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(overflow).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  }, 180_000);

  it("a barometric ride (Edge 810): no note", async () => {
    const { page, errors } = ada;
    const id = await uploadFile(page, deviceFile("fit/garmin-edge810-cycling-power-vector.fit"), "fit");
    await page.goto(`${server.url}/activities/${id}`);
    await page.waitForFunction(drawn, null, { timeout: 60_000 });
    expect(await page.textContent("#summary")).toContain("Elevation gain");
    expect(await page.locator("#elevation-note").count()).toBe(0);
    expect(errors).toEqual([]);
  }, 180_000);
});
