import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  launchChromium,
  pageApi,
  screenshots,
  seriousAxeViolations,
  type SignedIn,
  signIn,
  uploadFile,
} from "../helpers/browser.ts";
import { type DenoServer, ROOT, runCli, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * Issue 33, items 12–15, in Debian's chromium against the server as `npm start` runs it, with real
 * device files (a ride with power and heart rate, two runs, a pool swim): the activity page's
 * heart-rate and power zones, the training calendar (weekly and monthly totals by sport, weekly
 * volume chart), personal records (runs' best efforts, rides' power curve, linked to their
 * activities) and fitness and freshness (CTL / ATL / TSB from the training-load projection). Another
 * athlete sees none of the private run in the calendar and the records, and no one's fitness but
 * their own. Every page: no console error, no serious axe violation, drawn within a second;
 * screenshots at 1280 and 390 px go to docs/screens/.
 */
const RIDE = deviceFile("fit/garmin-edge1000-cycling-power-hr.fit");
const RUN = deviceFile("fit/garmin-fr920xt-running-paused.fit");
const PRIVATE_RUN = deviceFile("gpx/strava-export-running-hr.gpx");
const SWIM = deviceFile("fit/garmin-fr735xt-pool-swim-lengths.fit");
const DOCS_SCREENS = join(ROOT, "docs", "screens");

interface Activity {
  id: number;
  name: string;
  type: string;
  start_date_local: string;
  moving_time: number;
  distance: number;
  private: boolean;
  weighted_average_watts?: number;
  average_heartrate?: number;
  best_efforts?: { name: string; elapsed_time: number }[];
}
interface Records {
  best_efforts: { name: string; elapsed_time: number; start_date_local: string; activity: { id: number } }[];
  power_curve: { duration: number; watts: number; activity: { id: number } }[];
}
interface Fitness {
  ftp: number | null;
  days: { date: string; load: number; ctl: number; atl: number; tsb: number }[];
  activities: { activity_id: number; date: string; load: number; method: string }[];
}

let server: DenoServer;
let browser: Browser;
let ada: SignedIn;
let eddy: SignedIn;
let adaId: number;
const acts: Record<"ride" | "run" | "privateRun" | "swim", Activity> = {} as never;

/** Opens a page and waits for its part (`window.appState[key]`); answers ms from navigation start to drawn. */
async function open(page: Page, path: string, key: string): Promise<number> {
  await page.goto(`${server.url}${path}`);
  await page.waitForFunction(
    (k) => (window as unknown as { appState?: Record<string, unknown> }).appState?.[k] !== undefined,
    key,
    { timeout: 30_000 },
  );
  const [drawnAt, failed] = await page.evaluate(
    (k) => [performance.now(), (window as unknown as { appState: Record<string, unknown> }).appState[k] === "failed"],
    key,
  );
  expect(failed).toBe(false);
  return drawnAt as number;
}

/** Waits for a part of the page (`window.appState[key]`) to be drawn again. */
const redrawn = async (page: Page, key: string) => {
  await page.reload();
  await page.waitForFunction(
    (k) => (window as unknown as { appState?: Record<string, unknown> }).appState?.[k] !== undefined,
    key,
    { timeout: 30_000 },
  );
  await page.waitForTimeout(200);
};

/**
 * Screenshots at both widths, kept in docs/screens/ (the docs show them), each drawn at its width
 * (the charts are drawn to the width they have), and axe at both widths.
 */
async function shoot(page: Page, name: string, key: string) {
  const [desktop, phone] = await screenshots(page, name, () => redrawn(page, key));
  mkdirSync(DOCS_SCREENS, { recursive: true });
  copyFileSync(desktop, join(DOCS_SCREENS, `${name}-desktop.png`));
  copyFileSync(phone, join(DOCS_SCREENS, `${name}-phone.png`));
  expect(await seriousAxeViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await redrawn(page, key);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Nothing wider than the phone's screen but the calendar's own scroll box.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  } finally {
    await page.setViewportSize({ width: 1280, height: 900 });
  }
}

const month = (a: Activity) => a.start_date_local.slice(0, 7);

beforeAll(async () => {
  server = await startDenoServer({ timeoutMs: 180_000 });
  browser = await launchChromium();
  ada = await signIn(browser, server.url, "ada@example.com");
  eddy = await signIn(browser, server.url, "eddy@example.com");
  adaId = (await pageApi<{ id: number }>(ada.page, "/athlete")).id;
  await pageApi(ada.page, "/athlete", { method: "PUT", body: { ftp: 250 } });
  const load = async (file: string, type: string) => {
    const id = await uploadFile(ada.page, file, type);
    return await pageApi<Activity>(ada.page, `/activities/${id}`);
  };
  acts.ride = await load(RIDE, "fit");
  acts.run = await load(RUN, "fit");
  acts.swim = await load(SWIM, "fit");
  const privateRun = await load(PRIVATE_RUN, "gpx");
  acts.privateRun = await pageApi<Activity>(ada.page, `/activities/${privateRun.id}`, {
    method: "PUT",
    body: { private: true },
  });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe("heart-rate and power zones on the activity page (item 15)", () => {
  it("shows the owner's zones as the API answers them", async () => {
    const { page, errors } = ada;
    expect(acts.ride.type).toBe("Ride");
    await open(page, `/activities/${acts.ride.id}`, "zones");
    const zones = await pageApi<{ type: string; distribution_buckets: { time: number }[] }[]>(
      page,
      `/activities/${acts.ride.id}/zones`,
    );
    for (const zone of zones) {
      const key = zone.type === "power" ? "power" : "heartrate";
      const rows = await page.$$eval(
        `#zones-${key} tbody tr`,
        (trs) => trs.map((tr) => Number((tr as HTMLElement).dataset.time)),
      );
      expect(rows).toEqual(zone.distribution_buckets.map((b) => b.time));
    }
    expect(zones.map((z) => z.type).sort()).toEqual(["heartrate", "power"]);
    // FTP 250 W: Coggan's seven zones, Z4 from 90 % = 225 W to 105 % = 262.5 W (rounded).
    expect(await page.$$eval("#zones-power tbody tr", (trs) => trs.length)).toBe(7);
    expect(await page.textContent("#zones-power tbody tr:nth-child(4) td")).toBe("225–263 W");
    const shares = await page.$$eval(
      "#zones-heartrate tbody tr td:last-child",
      (tds) => tds.map((td) => Number(td.textContent!.replace(" %", ""))),
    );
    expect(shares.reduce((s, v) => s + v, 0)).toBeGreaterThanOrEqual(97);
    expect(shares.reduce((s, v) => s + v, 0)).toBeLessThanOrEqual(103);
    await shoot(page, "activity-zones", "zones");
    expect(errors).toEqual([]);
  }, 180_000);

  it("a swim without power shows heart-rate zones only or says there are none", async () => {
    const { page, errors } = ada;
    await open(page, `/activities/${acts.swim.id}`, "zones");
    expect(await page.$("#zones-power")).toBeNull();
    expect(await page.textContent("#zones")).toMatch(/Heart rate|No heart rate or power/);
    expect(errors).toEqual([]);
  }, 120_000);

  it("another athlete's page has no zones (the API answers them to the owner only)", async () => {
    const { page, errors } = eddy;
    await page.goto(`${server.url}/activities/${acts.ride.id}`);
    await page.waitForFunction(
      () => (window as unknown as { appState?: { activityDrawn?: number } }).appState?.activityDrawn,
      null,
      { timeout: 30_000 },
    );
    await page.waitForTimeout(300);
    expect(await page.$("#zones")).toBeNull();
    expect(errors).toEqual([]);
  }, 120_000);

  it("a non-premium owner is told zones are for premium athletes", async () => {
    const { page, errors } = eddy;
    const id = await uploadFile(page, RIDE, "fit");
    await open(page, `/activities/${id}`, "zones");
    expect(await page.textContent("#zones")).toContain("premium");
    expect(errors).toEqual([]);
  }, 180_000);
});

describe("training calendar (item 12)", () => {
  it("shows the month's activities by day, weekly and monthly totals by sport, and the weekly volume", async () => {
    const { page, errors } = ada;
    const m = month(acts.ride);
    const drawnAt = await open(page, `/athletes/${adaId}/calendar?month=${m}`, "calendar");
    expect(drawnAt).toBeLessThan(1000);
    expect(await page.textContent("#month-title")).toBe(
      new Date(`${m}-01T00:00:00Z`).toLocaleString("en-GB", { month: "long", year: "numeric", timeZone: "UTC" }),
    );
    const day = acts.ride.start_date_local.slice(0, 10);
    expect(await page.$(`td[data-day="${day}"] a[href="/activities/${acts.ride.id}"]`)).not.toBeNull();
    const inMonth = Object.values(acts).filter((a) => month(a) === m);
    const rides = inMonth.filter((a) => a.type === "Ride");
    expect(await page.textContent("#month-totals tr[data-sport=ride] td")).toBe(String(rides.length));
    // The week's cell of the ride's row sums the ride (and whatever rode that week).
    expect(await page.textContent(`tr:has(td[data-day="${day}"]) td.week li[data-sport=ride]`)).toContain("km");
    expect(await page.$$eval("#volume-chart rect", (r) => r.length)).toBeGreaterThan(0);
    await shoot(page, "calendar", "calendar");
    expect(errors).toEqual([]);
  }, 180_000);

  it("each month of the uploads shows its activities, the private run to its owner only", async () => {
    const { page, errors } = ada;
    for (const a of Object.values(acts)) {
      await open(page, `/athletes/${adaId}/calendar?month=${month(a)}`, "calendar");
      expect(await page.$(`a[href="/activities/${a.id}"]`), a.type).not.toBeNull();
    }
    const other = eddy.page;
    await open(other, `/athletes/${adaId}/calendar?month=${month(acts.privateRun)}`, "calendar");
    expect(await other.$(`a[href="/activities/${acts.privateRun.id}"]`)).toBeNull();
    await open(other, `/athletes/${adaId}/calendar?month=${month(acts.ride)}`, "calendar");
    expect(await other.$(`a[href="/activities/${acts.ride.id}"]`)).not.toBeNull();
    expect(await other.textContent("h1")).toContain("Ada");
    await shoot(other, "calendar-other", "calendar");
    expect(errors).toEqual([]);
    expect(eddy.errors).toEqual([]);
  }, 240_000);
});

describe("the profile links to the training pages", () => {
  it("one's own: calendar, year, records, fitness; another athlete's: calendar, year and records", async () => {
    await open(ada.page, `/athletes/${adaId}`, "profile");
    expect(await ada.page.$$eval(".training-links a", (a) => a.map((l) => l.getAttribute("href")))).toEqual(
      ["calendar", "year", "records", "fitness"].map((p) => `/athletes/${adaId}/${p}`),
    );
    await open(eddy.page, `/athletes/${adaId}`, "profile");
    expect(await eddy.page.$$eval(".training-links a", (a) => a.map((l) => l.getAttribute("href")))).toEqual(
      ["calendar", "year", "records"].map((p) => `/athletes/${adaId}/${p}`),
    );
    await eddy.page.click(`.training-links a[href="/athletes/${adaId}/records"]`);
    await eddy.page.waitForFunction(() =>
      (window as unknown as { appState?: { records?: unknown } }).appState?.records !== undefined
    );
    expect(await eddy.page.textContent("h1")).toBe("Ada Lovelace: personal records");
    expect(ada.errors).toEqual([]);
    expect(eddy.errors).toEqual([]);
  }, 120_000);
});

describe("personal records (item 13)", () => {
  it("lists the runs' best efforts and the power curve, each linked to its activity with its date", async () => {
    const { page, errors } = ada;
    const drawnAt = await open(page, `/athletes/${adaId}/records`, "records");
    expect(drawnAt).toBeLessThan(1000);
    const records = await pageApi<Records>(page, `/athletes/${adaId}/records`);
    expect(records.best_efforts.length).toBeGreaterThan(0);
    expect(records.power_curve.length).toBeGreaterThan(3);
    expect(new Set(records.power_curve.map((p) => p.activity.id))).toEqual(new Set([acts.ride.id]));
    // The curve falls (or holds) as the duration grows.
    for (let i = 1; i < records.power_curve.length; i++) {
      expect(records.power_curve[i].watts).toBeLessThanOrEqual(records.power_curve[i - 1].watts);
    }
    // Each best effort is the fastest of the runs' (the private run counts for its owner).
    for (const e of records.best_efforts) {
      const times = [acts.run, acts.privateRun].flatMap((a) =>
        (a.best_efforts ?? []).filter((b) => b.name === e.name).map((b) => b.elapsed_time)
      );
      expect(e.elapsed_time).toBe(Math.min(...times));
      expect(await page.$(`#run-records tr[data-effort="${e.name}"] a[href="/activities/${e.activity.id}"]`)).not
        .toBeNull();
    }
    const rows = await page.$$eval(
      "#power-records tbody tr",
      (trs) => trs.map((tr) => [tr.querySelector("th")!.textContent, tr.querySelector("td")!.textContent]),
    );
    expect(rows).toEqual(
      records.power_curve.map((
        p,
      ) => [
        p.duration < 60 ? `${p.duration} s` : p.duration < 3600 ? `${p.duration / 60} min` : `${p.duration / 3600} h`,
        `${p.watts} W`,
      ]),
    );
    expect(await page.$("#power-curve path.curve")).not.toBeNull();
    await shoot(page, "records", "records");
    expect(errors).toEqual([]);
  }, 180_000);

  it("another athlete's view counts no private activity", async () => {
    const { page, errors } = eddy;
    await open(page, `/athletes/${adaId}/records`, "records");
    const records = await pageApi<Records>(page, `/athletes/${adaId}/records`);
    expect(records.best_efforts.some((e) => e.activity.id === acts.privateRun.id)).toBe(false);
    expect(await page.$(`a[href="/activities/${acts.privateRun.id}"]`)).toBeNull();
    for (const e of records.best_efforts) {
      const own = (acts.run.best_efforts ?? []).find((b) => b.name === e.name);
      expect(e.elapsed_time).toBe(own?.elapsed_time);
    }
    expect(errors).toEqual([]);
  }, 120_000);
});

describe("fitness and freshness (item 14)", () => {
  it("draws CTL, ATL and TSB from the training-load projection", async () => {
    const { page, errors } = ada;
    const drawnAt = await open(page, `/athletes/${adaId}/fitness`, "fitness");
    expect(drawnAt).toBeLessThan(1000);
    const fitness = await pageApi<Fitness>(page, `/athletes/${adaId}/fitness?days=3650`);
    expect(fitness.ftp).toBe(250);
    const ride = fitness.activities.find((a) => a.activity_id === acts.ride.id)!;
    expect(ride.method).toBe("power");
    // TSS = t · NP · IF / (FTP · 3600) · 100, IF = NP / FTP.
    const np = acts.ride.weighted_average_watts!;
    expect(ride.load).toBeCloseTo((acts.ride.moving_time * np * (np / 250)) / (250 * 3600) * 100, 0);
    const run = fitness.activities.find((a) => a.activity_id === acts.run.id)!;
    expect(run.method).toBe("heartrate");
    expect(run.load).toBeGreaterThan(0);
    // The series: CTL += (load − CTL)/42, ATL += (load − ATL)/7 from the first day.
    let ctl = 0, atl = 0;
    for (const d of fitness.days) {
      ctl += (d.load - ctl) / 42;
      atl += (d.load - atl) / 7;
    }
    const last = fitness.days.at(-1)!;
    expect(last.ctl).toBeCloseTo(ctl, 0);
    expect(last.atl).toBeCloseTo(atl, 0);
    expect(last.date).toBe(new Date().toISOString().slice(0, 10));
    expect(await page.textContent("#ctl dd")).toBe(String(last.ctl));
    expect(await page.textContent("#tsb dd")).toBe(String(last.tsb));
    expect(await page.$$eval("#fitness-chart path", (p) => p.length)).toBe(3);
    // The whole history (the device files are from 2019): the period chosen is kept in the address.
    await page.selectOption("#fitness-range", "3650");
    await page.waitForFunction(() => location.search === "?days=3650");
    await page.waitForFunction(() => document.querySelectorAll("#loads tbody tr").length > 0);
    expect(await page.$(`#loads a[href="/activities/${acts.ride.id}"]`)).not.toBeNull();
    await shoot(page, "fitness", "fitness");
    expect(errors).toEqual([]);
  }, 180_000);

  it("another athlete's fitness is theirs alone (page and API)", async () => {
    const { page, errors } = eddy;
    await open(page, `/athletes/${adaId}/fitness`, "fitness");
    expect(await page.textContent("#fitness-own")).toContain("only they");
    expect(errors).toEqual([]);
    // (The refused request below is logged by the browser, so errors are checked before it.)
    const refused = await page.evaluate(
      `import("/app/assets/app.js").then((app) => app.api("/athletes/${adaId}/fitness").then(() => 0, (e) => e.status))`,
    );
    expect(refused).toBe(403);
  }, 120_000);
});

describe("the training-load read model is rebuilt exactly by replay", () => {
  it("cli verify: a replay of the log equals the live tables (uploads, an FTP, a private edit)", async () => {
    await browser.close();
    await server.stop();
    const verify = await runCli(["verify"], { DATA_DIR: server.dataDir });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toContain("are equal to the live ones");
    expect(verify.stdout + verify.stderr).not.toMatch(/training_load_\w+ differ/);
  }, 300_000);
});
