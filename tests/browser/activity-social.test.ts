import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, pageApi, screenshots, type SignedIn, signIn, uploadFile } from "../helpers/browser.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * Issue 33, defects 3 and 4, in Debian's chromium against the server as `npm start` runs it:
 * - kudos: after a reload the page knows the viewer gave kudos (the API's `has_kudoed`), and the
 *   count is the server's (clicking again, or a 409 for kudos given in another tab, never makes
 *   "2 kudos" of the server's 1);
 * - no literal "null" text: on an activity seen by another athlete, and on the feed of an athlete
 *   in no challenge (replaceChildren writes null as "null").
 */
const RIDE = deviceFile("fit/garmin-edge1000-cycling-short-3formats.fit");
const RUN = deviceFile("gpx/strava-export-running-hr.gpx");
/** Text a page must never show: a value the script did not have. */
const MISSING = /null|undefined|\bNaN\b/; // "nullnull" too

let server: DenoServer;
let browser: Browser;
let ada: SignedIn;
let eddy: SignedIn;
let rideId = 0;
let runId = 0;

const activityDrawn = (page: Page) =>
  page.waitForFunction(
    () => (window as unknown as { appState?: { activityFull?: number } }).appState?.activityFull,
    null,
    { timeout: 60_000 },
  );

/** The activity as its owner reads it from the API (the server's count). */
const serverKudos = async (id: number) =>
  (await pageApi<{ kudos_count: number }>(ada.page, `/activities/${id}`)).kudos_count;

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await launchChromium();
  ada = await signIn(browser, server.url, "ada@example.com");
  rideId = await uploadFile(ada.page, RIDE, "fit");
  runId = await uploadFile(ada.page, RUN, "gpx");
  eddy = await signIn(browser, server.url, "eddy@example.com");
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("kudos and comments of another athlete's activity", () => {
  it("shows no literal null text on an activity seen by another athlete", async () => {
    const { page, errors } = eddy;
    await page.goto(`${server.url}/activities/${rideId}`);
    await activityDrawn(page);
    await page.waitForSelector("#give-kudos");
    expect(await page.getAttribute("#activity", "data-state")).toBe("drawn");
    expect(await page.textContent("#owner")).toBe("Ada Lovelace");
    const text = await page.innerText("main");
    expect(text).not.toMatch(MISSING);
    // The last child of the page is the kudos and comments box (no edit form, and no "null" after it).
    expect(await page.evaluate(() => document.getElementById("activity")!.lastChild?.nodeName)).toBe("SECTION");
    expect(
      await page.evaluate(() =>
        [...document.getElementById("activity")!.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) =>
          n.textContent
        )
      ),
    ).toEqual([]);
    await screenshots(page, "activity-seen-by-another");
    expect(errors).toEqual([]);
  }, 120_000);

  it("remembers the viewer's kudos after a reload and shows the server's count", async () => {
    const { page, errors } = eddy;
    await page.goto(`${server.url}/activities/${rideId}`);
    await page.waitForSelector("#give-kudos");
    expect(await page.textContent("#kudos-count")).toBe("0 kudos");
    expect(await page.isEnabled("#give-kudos")).toBe(true);
    await page.click("#give-kudos");
    await expect.poll(() => page.textContent("#kudos-count"), { timeout: 20_000 }).toBe("1 kudo");
    expect(await page.textContent("#give-kudos")).toBe("You gave kudos");
    expect(await serverKudos(rideId)).toBe(1);

    await page.reload();
    await page.waitForSelector("#give-kudos");
    expect(await page.textContent("#give-kudos")).toBe("You gave kudos");
    expect(await page.isDisabled("#give-kudos")).toBe(true);
    expect(await page.textContent("#kudos-count")).toBe("1 kudo");
    expect(await serverKudos(rideId)).toBe(1);
    expect(errors).toEqual([]);
  }, 120_000);

  it("counts kudos given meanwhile in another tab once (409), as the server does", async () => {
    const { page, errors, context } = eddy;
    await page.goto(`${server.url}/activities/${runId}`);
    await page.waitForSelector("#give-kudos");
    expect(await page.textContent("#kudos-count")).toBe("0 kudos");
    // Another tab gives the kudos: this page still shows the button.
    const other = await context.newPage();
    await other.goto(`${server.url}/activities/${runId}`);
    await other.waitForSelector("#give-kudos");
    await other.click("#give-kudos");
    await expect.poll(() => other.textContent("#kudos-count"), { timeout: 20_000 }).toBe("1 kudo");
    await other.close();
    // The first tab's click is answered 409 (given before): the count stays the server's.
    const refused = page.waitForResponse((r) =>
      r.url().endsWith(`/v3/activities/${runId}/kudos`) && r.request().method() === "POST"
    );
    await page.click("#give-kudos");
    expect((await refused).status()).toBe(409);
    await expect.poll(() => page.textContent("#give-kudos"), { timeout: 20_000 }).toBe("You gave kudos");
    expect(await page.textContent("#kudos-count")).toBe("1 kudo");
    expect(await serverKudos(runId)).toBe(1);
    expect(await page.locator("#social [role=alert]").count()).toBe(0);
    // Chromium logs the refused request as a console error; nothing else may be there.
    expect(errors.filter((e) => !/status of 409/.test(e))).toEqual([]);
    errors.length = 0;
  }, 120_000);
});

describe("the feed of an athlete in no challenge", () => {
  for (const who of ["eddy", "grace"]) {
    it(`shows no literal null text (${who}: no challenge)`, async () => {
      const athlete = who === "eddy" ? eddy : await signIn(browser, server.url, "grace@example.com");
      const { page, errors } = athlete;
      await page.goto(`${server.url}/`);
      await page.waitForSelector("#clubs-title");
      await page.waitForFunction(() => (window as unknown as { appState?: { totals?: boolean } }).appState?.totals);
      const challenges = await pageApi<unknown[]>(page, "/challenges/joined");
      expect(challenges).toEqual([]);
      expect(await page.locator("#my-challenges").count()).toBe(0);
      expect(await page.innerText("#my-clubs")).not.toMatch(MISSING);
      expect(
        await page.evaluate(() =>
          [...document.getElementById("my-clubs")!.childNodes].filter((n) =>
            n.nodeType === Node.TEXT_NODE && n.textContent!.trim()
          ).length
        ),
      ).toBe(0);
      expect(await page.innerText("main")).not.toMatch(MISSING);
      if (who === "eddy") await screenshots(page, "feed-no-challenge");
      expect(errors).toEqual([]);
    }, 120_000);
  }
});
