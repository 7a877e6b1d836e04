import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import {
  launchChromium,
  pageApi,
  screenshots,
  seriousAxeViolations,
  type SignedIn,
  signIn,
} from "../helpers/browser.ts";

/**
 * Goals (issue #47 item 3) in Chromium against the server as `npm start` runs it: Ada records two runs
 * this week (6.0 and 6.3 km, today and at the week's Monday or later) and sets "Run, every week, 20 km"
 * on the goals page; the page, her feed and her profile read "12.3 / 20 km" with a progress bar; a
 * yearly moving-time goal reads in hours; removing a goal takes it off. Another athlete's profile shows
 * no goals. Screenshots at 1280 and 390 px (tests/artifacts/screens/goals-*), axe without serious
 * violations.
 */
let server: DenoServer;
let browser: Browser;
let ada: SignedIn, eddy: SignedIn;

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await launchChromium();
  ada = await signIn(browser, server.url, "ada@example.com");
  eddy = await signIn(browser, server.url, "eddy@example.com");
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const ready = (page: SignedIn["page"], key: string) =>
  page.waitForFunction((k) => (window as unknown as { appState?: Record<string, unknown> }).appState?.[k], key);

describe("goals in the web app", () => {
  it("sets a weekly run goal and shows 12.3 / 20 km on the goals page, the feed and the profile", async () => {
    const page = ada.page;
    // Two runs this week in UTC (her latest activity's time zone, as these are written): today, and
    // the later of this Monday and yesterday.
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    const monday = new Date(
      Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - ((now.getUTCDay() + 6) % 7)),
    )
      .toISOString().slice(0, 10);
    for (const [day, distance] of [[monday, 6000], [today, 6300]] as const) {
      await pageApi(page, "/activities", {
        method: "POST",
        body: {
          name: `Run ${distance}`,
          type: "Run",
          start_date_local: `${day}T00:05:00Z`,
          elapsed_time: 1800,
          distance,
        },
      });
    }
    const me = await pageApi<{ id: number }>(page, "/athlete");

    await page.goto(`${server.url}/goals`);
    await ready(page, "goals");
    expect(await page.textContent("#goal-list")).toContain("No goals yet");
    await page.getByLabel("Sport").selectOption("Run");
    await page.getByLabel("Every").selectOption("week");
    await page.getByLabel("Measure").selectOption("distance");
    await page.getByLabel("Target (km)").fill("20");
    await page.click("#goal-form button[type=submit]");
    await expect.poll(() => page.textContent("#goal-status"), { timeout: 20_000 }).toBe("Goal set.");
    expect(await page.textContent("#goal-list .goal-value")).toBe("12.3 / 20 km");
    expect(await page.textContent("#goal-list .goal-label")).toBe("Run · distance this week");
    expect(await page.getAttribute("#goal-list progress", "value")).toBe("12300");
    // A yearly moving-time goal, in hours.
    await page.getByLabel("Every").selectOption("year");
    await page.getByLabel("Measure").selectOption("time");
    await page.getByLabel("Target (h)").fill("100");
    await page.click("#goal-form button[type=submit]");
    await expect.poll(() => page.locator("#goal-list .goal").count(), { timeout: 20_000 }).toBe(2);
    expect(await page.locator("#goal-list .goal-value").nth(1).textContent()).toMatch(/^\d+(\.\d)? \/ 100 h$/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshots(page, "goals-page");

    await page.goto(`${server.url}/`);
    await ready(page, "goals");
    expect(await page.textContent("#feed-goals .goal-value")).toBe("12.3 / 20 km");
    await screenshots(page, "goals-feed");
    await page.goto(`${server.url}/athletes/${me.id}`);
    await ready(page, "goals");
    expect(await page.textContent("#profile-goals .goal-value")).toBe("12.3 / 20 km");
    expect(await seriousAxeViolations(page)).toEqual([]);
    await screenshots(page, "goals-profile");

    // Eddy reads Ada's profile: no goals there (they are hers).
    await eddy.page.goto(`${server.url}/athletes/${me.id}`);
    await ready(eddy.page, "athleteActivities");
    expect(await eddy.page.locator("#profile-goals").count()).toBe(0);

    // Removing a goal takes it off.
    await page.goto(`${server.url}/goals`);
    await ready(page, "goals");
    await page.getByRole("button", { name: "Remove Run · moving time this year" }).click();
    await expect.poll(() => page.locator("#goal-list .goal").count(), { timeout: 20_000 }).toBe(1);
    expect((await pageApi<unknown[]>(page, "/athlete/goals")).length).toBe(1);
    expect([...ada.errors, ...eddy.errors]).toEqual([]);
  }, 300_000);
});
