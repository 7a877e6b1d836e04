import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, pageApi, type SignedIn, uploadFile, watchErrors } from "../helpers/browser.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * Issue 33 items 10 and 11, against the server as `npm start` starts it (demo seed on): a newcomer
 * who signs up and uploads one of the device files the docs name earns an effort on the demo
 * segment laid on it and a place on its leaderboard; a segment cut from an activity gets that
 * activity's effort at creation, through events (a replay of the log gives the same read models).
 */
const EDGE500 = deviceFile("fit/garmin-edge500-cycling-hr-cad-pauses.fit");
const FR410 = deviceFile("tcx/garmin-fr410-running-hr.tcx");

interface Effort {
  name: string;
  elapsed_time: number;
  segment: { id: number; name: string };
}
interface Activity {
  id: number;
  name: string;
  segment_efforts: Effort[];
}
interface Board {
  entries: { athlete_id: number; rank: number; elapsed_time: number }[];
}

let server: DenoServer;
let browser: Browser;
let newcomer: SignedIn;
let newcomerId: number;
const errors: string[] = [];

async function signUp(page: Page, first: string, email: string): Promise<void> {
  await page.goto(`${server.url}/register`);
  await page.fill("#firstname", first);
  await page.fill("#lastname", "Newcomer");
  await page.fill("#email", email);
  await page.fill("#password", "newcomer-pass");
  await Promise.all([page.waitForURL(`${server.url}/`), page.click("button[type=submit]")]);
}

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  watchErrors(page, errors);
  await signUp(page, "Nora", "nora@example.com");
  newcomer = { context, page, errors };
  newcomerId = (await pageApi<{ id: number }>(page, "/athlete")).id;
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function firstEffort(file: string, type: string, segmentName: string) {
  const id = await uploadFile(newcomer.page, file, type);
  const activity = await pageApi<Activity>(newcomer.page, `/activities/${id}?include_all_efforts=true`);
  const effort = activity.segment_efforts.find((e) => e.segment.name === segmentName);
  expect(effort, `${segmentName} in ${JSON.stringify(activity.segment_efforts.map((e) => e.segment.name))}`)
    .toBeDefined();
  const board = await pageApi<Board>(newcomer.page, `/segments/${effort!.segment.id}/leaderboard`);
  const place = board.entries.find((e) => e.athlete_id === newcomerId);
  expect(place).toBeDefined();
  expect(place!.elapsed_time).toBe(effort!.elapsed_time);
  expect(place!.rank).toBeGreaterThanOrEqual(0); // competition rank from 0
  return { activityId: id, effort: effort! };
}

let ride: number;

describe("a newcomer's first upload of a documented file", () => {
  it("the Edge 500 FIT ride earns an effort on Bathurst Rollers and a leaderboard place", async () => {
    ride = (await firstEffort(EDGE500, "fit", "Bathurst Rollers")).activityId;
  }, 180_000);

  it("the Forerunner 410 TCX run earns an effort on Campus Loop and a leaderboard place", async () => {
    await firstEffort(FR410, "tcx", "Campus Loop");
  }, 180_000);
});

describe("a segment cut from an activity", () => {
  it("gets the source activity's effort at creation, with a leaderboard place", async () => {
    const created = await pageApi<{ id: number; distance: number }>(newcomer.page, "/segments", {
      method: "POST",
      body: { name: "Nora's stretch", activity_id: ride, start_index: 3000, end_index: 3400 },
    });
    expect(created.distance).toBeGreaterThan(100);
    const activity = await pageApi<Activity>(newcomer.page, `/activities/${ride}?include_all_efforts=true`);
    const names = activity.segment_efforts.map((e) => e.segment.name);
    // The new segment's effort joins the efforts of upload time, which stay.
    expect(names).toContain("Nora's stretch");
    expect(names).toContain("Bathurst Rollers");
    const effort = activity.segment_efforts.find((e) => e.segment.id === created.id)!;
    const board = await pageApi<Board>(newcomer.page, `/segments/${created.id}/leaderboard`);
    expect(board.entries).toEqual([
      expect.objectContaining({ athlete_id: newcomerId, rank: 0, elapsed_time: effort.elapsed_time }),
    ]);
    const efforts = await pageApi<{ id: number }[]>(newcomer.page, `/segments/${created.id}/all_efforts`);
    expect(efforts.length).toBe(1);
  }, 120_000);
});

describe("replay", () => {
  it("the read models equal a replay of the event log (the efforts are events)", async () => {
    expect(errors).toEqual([]);
    await browser.close();
    await server.stop();
    const verify = await runCli(["verify", "--json"], { DATA_DIR: server.dataDir });
    expect(verify.code, verify.stderr).toBe(0);
    const report = JSON.parse(verify.stdout);
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
  }, 240_000);
});
