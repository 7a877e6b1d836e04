import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  launchChromium,
  pageApi,
  screenshots,
  type SignedIn,
  signIn,
  uploadFile,
  watchErrors,
} from "../helpers/browser.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * Issue 33, defect 5: figures in their sport's units, in Debian's chromium against the server as
 * `npm start` runs it, with real device files: a pool swim in metres and min/100 m, a run's cadence
 * doubled to steps/min, calories in kcal, an estimated power said to be estimated (`device_watts`
 * false), sport types in words ("Virtual ride"), "1 kudo", and comment times in the viewer's own
 * time zone.
 */
const SWIM = deviceFile("fit/garmin-fr735xt-pool-swim-lengths.fit");
const RUN = deviceFile("fit/stryd-running-power-devfields.fit");
const RIDE_NO_POWER = deviceFile("tcx/fitbit-versa-cycling-hr.tcx");
const VIRTUAL = deviceFile("fit/zwift-virtual-cycling-power.fit");

interface Activity {
  id: number;
  type: string;
  sport_type: string;
  distance: number;
  average_speed: number;
  average_cadence: number | null;
  average_watts: number | null;
  device_watts: boolean | null;
  calories: number | null;
}

let server: DenoServer;
let browser: Browser;
let ada: SignedIn;

const drawn = (page: Page) =>
  page.waitForFunction(
    () => (window as unknown as { appState?: { activityFull?: number } }).appState?.activityFull,
    null,
    { timeout: 60_000 },
  );

/** The figure of the summary labelled `label`. */
const figure = (page: Page, label: string) =>
  page.evaluate(
    (l) =>
      [...document.querySelectorAll("#summary > div")].find((d) => d.querySelector("dt")?.textContent === l)
        ?.querySelector("dd")?.textContent ?? null,
    label,
  );

async function open(file: string, dataType: string): Promise<Activity> {
  const id = await uploadFile(ada.page, file, dataType);
  await ada.page.goto(`${server.url}/activities/${id}`);
  await drawn(ada.page);
  return await pageApi<Activity>(ada.page, `/activities/${id}`);
}

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await launchChromium();
  ada = await signIn(browser, server.url, "ada@example.com");
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("figures in their sport's units", () => {
  it("a pool swim: metres, min/100 m, strokes/min, kcal", async () => {
    const { page, errors } = ada;
    const a = await open(SWIM, "fit");
    expect(a.type).toBe("Swim");
    expect(await figure(page, "Distance")).toBe(`${Math.round(a.distance).toLocaleString("en")} m`);
    const pace = 100 / a.average_speed;
    expect(await figure(page, "Avg pace")).toBe(
      `${Math.floor(Math.round(pace) / 60)}:${String(Math.round(pace) % 60).padStart(2, "0")} /100 m`,
    );
    expect(await page.textContent("[data-chart=velocity_smooth] h3")).toBe("Pace (min/100 m)");
    if (a.average_cadence) {
      expect(await figure(page, "Avg cadence")).toBe(`${Math.round(a.average_cadence)} strokes/min`);
    }
    if (a.calories) expect(await figure(page, "Calories")).toBe(`${Math.round(a.calories).toLocaleString("en")} kcal`);
    expect(await page.textContent("#laps thead")).toContain("Pace");
    expect(await page.textContent("#laps tbody")).not.toContain("km");
    await screenshots(page, "activity-swim-units");
    expect(errors).toEqual([]);
  }, 180_000);

  it("a run: cadence doubled to steps/min, in the summary and the chart", async () => {
    const { page, errors } = ada;
    const a = await open(RUN, "fit");
    expect(a.type).toBe("Run");
    expect(a.average_cadence).toBeGreaterThan(50);
    expect(a.average_cadence).toBeLessThan(110); // one foot: the API's count
    expect(await figure(page, "Avg cadence")).toBe(`${Math.round(a.average_cadence! * 2)} steps/min`);
    expect(await page.textContent("[data-chart=cadence] h3")).toBe("Cadence (steps/min)");
    expect(errors).toEqual([]);
  }, 180_000);

  it("a ride without a power meter: its power is said to be estimated", async () => {
    const { page, errors } = ada;
    const a = await open(RIDE_NO_POWER, "tcx");
    expect(a.device_watts).toBe(false);
    expect(a.average_watts).toBeGreaterThan(0);
    expect(await figure(page, "Avg power")).toBeNull();
    expect(await figure(page, "Avg power (estimated)")).toBe(`${Math.round(a.average_watts!)} W`);
    expect(errors).toEqual([]);
  }, 180_000);

  it("a virtual ride: its sport in words, on the page and in the feed", async () => {
    const { page, errors } = ada;
    const a = await open(VIRTUAL, "fit");
    expect(a.sport_type).toBe("VirtualRide");
    expect(await page.textContent("#head .muted")).toContain("Virtual ride ·");
    expect(await page.textContent("#edit-type option:checked")).toBe("Virtual ride");
    await page.goto(`${server.url}/`);
    await page.waitForSelector(`#feed li[data-activity="${a.id}"]`);
    expect(await page.textContent(`#feed li[data-activity="${a.id}"] .meta`)).toMatch(/^Virtual ride · /);
    expect(errors).toEqual([]);
  }, 180_000);

  it("one kudo, and comment times in the viewer's time zone", async () => {
    const rides = await pageApi<Activity[]>(ada.page, "/athlete/activities?per_page=10");
    const run = rides.find((r) => r.type === "Run")!;
    // Eddy, in New York (UTC-5 in winter, -4 in summer), gives kudos and comments.
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      timezoneId: "America/New_York",
    });
    const page = await context.newPage();
    const errors: string[] = [];
    watchErrors(page, errors);
    await page.goto(`${server.url}/login`);
    await page.fill("#email", "eddy@example.com");
    await page.fill("#password", "demo-password");
    await Promise.all([page.waitForURL(`${server.url}/`), page.click("button[type=submit]")]);
    await page.goto(`${server.url}/activities/${run.id}`);
    await page.waitForSelector("#give-kudos");
    await page.click("#give-kudos");
    await expect.poll(() => page.textContent("#kudos-count"), { timeout: 20_000 }).toBe("1 kudo");
    await page.fill("#comment-text", "Nice run!");
    await page.click("#comment-form button[type=submit]");
    await page.waitForSelector("#comments li");
    const comments = await pageApi<{ created_at: string }[]>(page, `/activities/${run.id}/comments`);
    const at = comments[0].created_at;
    const shown = await page.textContent("#comments li .muted");
    const format = (timeZone: string) =>
      new Date(at).toLocaleString("en-GB", {
        weekday: "short",
        day: "numeric",
        month: "short",
        year: "numeric",
        hour: "2-digit",
        minute: "2-digit",
        timeZone,
      });
    expect(shown).toBe(format("America/New_York"));
    expect(shown).not.toBe(format("UTC"));
    // The feed says "1 kudo" too.
    await page.goto(
      `${server.url}/athletes/${await ada.page.evaluate(() =>
        (JSON.parse(document.getElementById("app-config")!.textContent!) as { athlete: { id: number } }).athlete.id
      )}`,
    );
    await page.waitForSelector(`li[data-activity="${run.id}"]`);
    expect(await page.textContent(`li[data-activity="${run.id}"]`)).toContain("1 kudo · 1 comment");
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);
});
