import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importArchive } from "../../server/archive/import.ts";
import { fitnessSeries } from "../../projections/training-load/model.ts";
import { writeZip } from "../archive/archives.ts";
import { bestPower, bestTime, type GeneratedActivity, generateYears } from "../helpers/athlete-years.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

/**
 * Issue 43: a real athlete's years, imported from a Strava export, read through the read models
 * (totals by day / week / month / year, records, searched lists) and checked against figures computed
 * here from the generated history itself — the files' own distances and seconds, each ride's power
 * samples, each run's distance over time — never from the server's earlier answers. Then the
 * read models follow edits, privacy changes and deletions, and replay to what live kept.
 *
 * 420 activities over 5 years (the same mix as the 2,060 of `npm run bench -- years`, fewer of them).
 */
const GENERATED = generateYears({ activities: 420, years: 5, end: "2025-12-31", seed: 7 });
const acts = GENERATED.activities;
let server: TestServer;
let ada: TestAthlete, adaPublic: TestAthlete, eddy: TestAthlete;
let dir = "";
/** Server activity id by generated activity (recordings by their file name, manual ones by start). */
const idOf = new Map<GeneratedActivity, number>();

const RIDE_TYPES = ["Ride", "VirtualRide"];
const DURATIONS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];
const EFFORTS: [string, number][] = [["400m", 400], ["1K", 1000], ["1 mile", 1609], ["5K", 5000], ["10K", 10000]];

interface Volume {
  visibility: string[];
  includes_private: boolean;
  buckets: { start: string; sport_type: string; count: number; distance: number; moving_time: number }[];
}

const get = async <T = Record<string, unknown>>(token: string, path: string) => {
  const res = await server.api("GET", path, { token });
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.body as T;
};

/** Every page of a search, following the older cursors. */
async function allPages(token: string, athleteId: number, query: string, perPage = 200) {
  const seen: { id: number; name: string; start_date_local: string; external_id?: string; private: boolean }[] = [];
  let before = "";
  for (let i = 0; i < 100; i++) {
    const page = await get<{ activities: typeof seen; older: string | null; count: number; total: number }>(
      token,
      `/v3/athletes/${athleteId}/activities/search?per_page=${perPage}${query}${before ? `&before=${before}` : ""}`,
    );
    seen.push(...page.activities);
    if (!page.older) return { seen, count: page.count, total: page.total };
    before = page.older;
  }
  throw new Error("never ended");
}

/** The best of a candidate list by value (a record's holder) and the runner-up's value. */
function top<T>(list: T[], value: (x: T) => number | null, higher: boolean) {
  const scored = list.map((x) => ({ x, v: value(x) })).filter((s): s is { x: T; v: number } => s.v !== null);
  scored.sort((p, q) => (higher ? q.v - p.v : p.v - q.v));
  return { best: scored[0], second: scored[1] };
}

beforeAll(async () => {
  server = await startTestServer();
  ada = await server.athlete({ firstname: "Ada", lastname: "Years" });
  adaPublic = { ...ada, token: await server.token(ada.id, ada.applicationId, ["read"]) };
  eddy = await server.athlete({ firstname: "Eddy", permissions: ["read"] });
  dir = mkdtempSync(join(tmpdir(), "athlete-years-"));
  const zip = join(dir, "export.zip");
  await writeZip(zip, GENERATED.entries);
  const summary = await importArchive(server.platform, { athleteId: ada.id, path: zip, via: "api" });
  expect(summary.failed).toEqual([]);
  expect(summary.imported).toBe(acts.length);
  const { seen } = await allPages(ada.token, ada.id, "");
  const byFile = new Map(seen.map((a) => [a.external_id ?? "", a.id]));
  const byStart = new Map(seen.map((a) => [`${a.name}|${a.start_date_local}`, a.id]));
  for (const a of acts) {
    const id = a.file ? byFile.get(a.file) : byStart.get(`${a.name}|${a.localIso}`);
    expect(id, `${a.name} ${a.localIso}`).toBeDefined();
    idOf.set(a, id!);
  }
}, 900_000);
afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sportOf = (a: GeneratedActivity) => a.type;
const publicActs = () => acts.filter((a) => !a.private);

describe("totals by day, week, month and year (GET /v3/athletes/:id/volume)", () => {
  it("each year's count by sport is exact, distance and time match the files' own, for the owner and others", async () => {
    const years = [...new Set(acts.map((a) => Number(a.localDay.slice(0, 4))))];
    const [own, others, ownPublic] = await Promise.all([
      get<Volume>(ada.token, `/v3/athletes/${ada.id}/volume?period=year&from=1900-01-01&to=2200-12-31`),
      get<Volume>(eddy.token, `/v3/athletes/${ada.id}/volume?period=year&from=1900-01-01&to=2200-12-31`),
      get<Volume>(adaPublic.token, `/v3/athletes/${ada.id}/volume?period=year&from=1900-01-01&to=2200-12-31`),
    ]);
    expect(own.includes_private).toBe(true);
    expect(others.includes_private).toBe(false);
    expect(others.visibility).toEqual(["everyone"]);
    expect(ownPublic.includes_private).toBe(false);
    expect(acts.some((a) => a.private)).toBe(true);
    for (const [answer, list] of [[own, acts], [others, publicActs()], [ownPublic, publicActs()]] as const) {
      const expected = new Map<string, { count: number; distance: number; time: number }>();
      for (const a of list) {
        const key = `${a.localDay.slice(0, 4)}-01-01|${sportOf(a)}`;
        const e = expected.get(key) ?? { count: 0, distance: 0, time: 0 };
        e.count++, e.distance += a.distance, e.time += a.elapsed;
        expected.set(key, e);
      }
      expect(answer.buckets.map((b) => `${b.start}|${b.sport_type}`).sort()).toEqual([...expected.keys()].sort());
      for (const b of answer.buckets) {
        const e = expected.get(`${b.start}|${b.sport_type}`)!;
        expect(b.count).toBe(e.count);
        expect(Math.abs(b.distance - e.distance)).toBeLessThanOrEqual(e.distance * 0.001 + 1);
        expect(Math.abs(b.moving_time - e.time)).toBeLessThanOrEqual(e.time * 0.01 + 5);
      }
    }
    expect(years.length).toBeGreaterThanOrEqual(5);
  });

  it("a month by day, a year by month and by week: counts exact, local days", async () => {
    const year = 2024;
    const inYear = acts.filter((a) => a.localDay.startsWith(`${year}-`));
    const monthly = await get<Volume>(
      ada.token,
      `/v3/athletes/${ada.id}/volume?period=month&from=${year}-01-01&to=${year}-12-31`,
    );
    const weekly = await get<Volume>(
      ada.token,
      `/v3/athletes/${ada.id}/volume?period=week&from=${year}-01-01&to=${year}-12-31`,
    );
    const daily = await get<Volume>(
      ada.token,
      `/v3/athletes/${ada.id}/volume?period=day&from=${year}-03-01&to=${year}-03-31`,
    );
    const count = (answer: Volume, start: string) =>
      answer.buckets.filter((b) => b.start === start).reduce((n, b) => n + b.count, 0);
    for (let m = 1; m <= 12; m++) {
      const month = `${year}-${String(m).padStart(2, "0")}`;
      expect(count(monthly, `${month}-01`), month).toBe(inYear.filter((a) => a.localDay.startsWith(month)).length);
    }
    const mondayOf = (day: string) => {
      const ms = Date.parse(`${day}T00:00:00Z`);
      return new Date(ms - ((new Date(ms).getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
    };
    const weeks = new Map<string, number>();
    for (const a of inYear) weeks.set(mondayOf(a.localDay), (weeks.get(mondayOf(a.localDay)) ?? 0) + 1);
    for (const [monday, n] of weeks) expect(count(weekly, monday), monday).toBe(n);
    expect(weekly.buckets.reduce((n, b) => n + b.count, 0)).toBe(inYear.length);
    for (let d = 1; d <= 31; d++) {
      const day = `${year}-03-${String(d).padStart(2, "0")}`;
      expect(count(daily, day), day).toBe(acts.filter((a) => a.localDay === day).length);
    }
  });

  it("refuses windows that are too long or backwards, and bad dates, with a 400", async () => {
    for (
      const query of [
        "period=day&from=2020-01-01&to=2022-01-01",
        "period=week&from=2024-02-01&to=2024-01-01",
        "period=month&from=2024-02-30&to=2024-03-01",
        "period=year&from=1800-01-01&to=2024-01-01",
        "period=hour&from=2024-01-01&to=2024-01-02",
        "from=2024-01-01",
      ]
    ) {
      const res = await server.api("GET", `/v3/athletes/${ada.id}/volume?${query}`, { token: ada.token });
      expect(res.status, query).toBe(400);
      expect(res.body.message).toBe("Bad Request");
    }
    expect(
      (await server.api("GET", `/v3/athletes/999999/volume?from=2024-01-01&to=2024-01-02`, { token: ada.token }))
        .status,
    ).toBe(404);
  });
});

describe("records (GET /v3/athletes/:id/records)", () => {
  async function checkRecords(token: string, list: GeneratedActivity[], year?: number) {
    const answer = await get<{
      best_efforts: { name: string; elapsed_time: number; activity: { id: number } }[];
      power_curve: { duration: number; watts: number; activity: { id: number } }[];
    }>(token, `/v3/athletes/${ada.id}/records${year ? `?year=${year}` : ""}`);
    const inScope = year ? list.filter((a) => a.localDay.startsWith(`${year}-`)) : list;
    const rides = inScope.filter((a) => RIDE_TYPES.includes(a.type) && a.samples?.w);
    for (const duration of DURATIONS) {
      const { best, second } = top(rides, (a) => bestPower(a, duration), true);
      const got = answer.power_curve.find((p) => p.duration === duration);
      if (!best) {
        expect(got, `${duration} s`).toBeUndefined();
        continue;
      }
      expect(Math.abs(got!.watts - best.v), `${duration} s`).toBeLessThanOrEqual(1);
      if (!second || best.v - second.v > 2) expect(got!.activity.id, `${duration} s`).toBe(idOf.get(best.x));
    }
    const runs = inScope.filter((a) => a.type === "Run" && a.samples);
    for (const [name, metres] of EFFORTS) {
      const { best, second } = top(runs, (a) => bestTime(a, metres), false);
      const got = answer.best_efforts.find((e) => e.name === name);
      expect(got, name).toBeDefined();
      expect(Math.abs(got!.elapsed_time - best.v), name).toBeLessThanOrEqual(2);
      if (!second || second.v - best.v > 4) expect(got!.activity.id, name).toBe(idOf.get(best.x));
    }
    return answer;
  }

  it("the owner's all-time and yearly bests equal those computed from the samples", async () => {
    await checkRecords(ada.token, acts);
    await checkRecords(ada.token, acts, 2022);
    await checkRecords(ada.token, acts, 2025);
  });

  it("another athlete's and the owner's token without view_private count the public activities only", async () => {
    await checkRecords(eddy.token, publicActs());
    await checkRecords(adaPublic.token, publicActs());
  });
});

describe("searched lists (GET /v3/athletes/:id/activities/search)", () => {
  it("every activity is reachable exactly once, newest first, in pages of any size; counts exact", async () => {
    for (const perPage of [200, 37]) {
      const { seen, count, total } = await allPages(ada.token, ada.id, "", perPage);
      expect(total).toBe(acts.length);
      expect(count).toBe(acts.length);
      expect(seen).toHaveLength(acts.length);
      expect(new Set(seen.map((a) => a.id)).size).toBe(acts.length);
      const starts = seen.map((a) => a.start_date_local);
      expect(starts).toEqual([...starts].sort().reverse());
    }
    const others = await allPages(eddy.token, ada.id, "");
    expect(others.total).toBe(publicActs().length);
    expect(others.seen.some((a) => a.private)).toBe(false);
    expect(others.seen).toHaveLength(publicActs().length);
  });

  it("filters by name, sport, local dates, gear, commute and indoor, with exact counts", async () => {
    const athlete = await get<{ bikes: { id: string; name: string }[]; shoes: { id: string; name: string }[] }>(
      ada.token,
      "/v3/athlete",
    );
    const gearId = (name: string) => [...athlete.bikes, ...athlete.shoes].find((g) => g.name === name)!.id;
    const cases: [string, (a: GeneratedActivity) => boolean][] = [
      ["&q=PARKRUN", (a) => a.name.startsWith("Parkrun")],
      ["&q=10k", (a) => a.name.includes("10K")],
      ["&sport_type=Swim", (a) => a.type === "Swim"],
      ["&sport_type=VirtualRide", (a) => a.type === "VirtualRide"],
      ["&from=2023-03-01&to=2023-05-31", (a) => a.localDay >= "2023-03-01" && a.localDay <= "2023-05-31"],
      ["&sport_type=Run&from=2024-01-01&to=2024-12-31", (a) => a.type === "Run" && a.localDay.startsWith("2024-")],
      [`&gear_id=${gearId(GENERATED.bikes[1])}`, (a) => a.gear === GENERATED.bikes[1]],
      [`&gear_id=${gearId(GENERATED.shoes[0])}`, (a) => a.gear === GENERATED.shoes[0]],
      ["&commute=true", (a) => a.commute],
      ["&trainer=true", (a) => a.type === "VirtualRide"],
      ["&trainer=false&sport_type=Ride", (a) => a.type === "Ride"],
    ];
    for (const [query, wanted] of cases) {
      const expected = acts.filter(wanted);
      expect(expected.length, query).toBeGreaterThan(0);
      const { seen, count, total } = await allPages(ada.token, ada.id, query, 25);
      expect(count, query).toBe(expected.length);
      expect(total, query).toBe(acts.length);
      expect(seen.map((a) => a.id).sort((x, y) => x - y), query).toEqual(
        expected.map((a) => idOf.get(a)!).sort((x, y) => x - y),
      );
    }
  });

  it("a page never shifts when an activity is added; newer pages lead back", async () => {
    const first = await get<{ activities: { id: number }[]; older: string; newer: string | null }>(
      ada.token,
      `/v3/athletes/${ada.id}/activities/search?per_page=20`,
    );
    expect(first.newer).toBeNull();
    const second = await get<{ activities: { id: number }[]; older: string; newer: string }>(
      ada.token,
      `/v3/athletes/${ada.id}/activities/search?per_page=20&before=${first.older}`,
    );
    const created = await server.api("POST", "/v3/activities", {
      token: ada.token,
      json: { name: "Added meanwhile", sport_type: "Run", start_date_local: "2025-12-31T20:00:00Z", elapsed_time: 600 },
    });
    expect(created.status).toBe(201);
    const again = await get<{ activities: { id: number }[] }>(
      ada.token,
      `/v3/athletes/${ada.id}/activities/search?per_page=20&before=${first.older}`,
    );
    expect(again.activities.map((a) => a.id)).toEqual(second.activities.map((a) => a.id));
    const back = await get<{ activities: { id: number }[] }>(
      ada.token,
      `/v3/athletes/${ada.id}/activities/search?per_page=20&after=${second.newer}`,
    );
    expect(back.activities.map((a) => a.id)).toEqual(first.activities.map((a) => a.id));
    const top = await get<{ activities: { id: number }[]; total: number }>(
      ada.token,
      `/v3/athletes/${ada.id}/activities/search?per_page=1`,
    );
    expect(top.activities[0].id).toBe(created.body.id);
    expect(top.total).toBe(acts.length + 1);
    expect((await server.api("DELETE", `/v3/activities/${created.body.id}`, { token: ada.token })).status).toBe(204);
  });

  it("refuses bad cursors and filters with a 400", async () => {
    for (const query of ["before=abc", "before=1.2&after=1.3", "from=2024-13-01", "per_page=201", "commute=maybe"]) {
      const res = await server.api("GET", `/v3/athletes/${ada.id}/activities/search?${query}`, { token: ada.token });
      expect(res.status, query).toBe(400);
    }
  });
});

describe("fitness (GET /v3/athletes/:id/fitness) reads its window only", () => {
  it("a window of 30, 365 or 800 days equals the same days of the whole history folded from its first day", async () => {
    type Fitness = {
      days: { date: string; load: number; ctl: number; atl: number; tsb: number }[];
      activities: { activity_id: number; date: string; load: number }[];
    };
    for (const token of [ada.token, adaPublic.token]) {
      const all = await get<Fitness>(token, `/v3/athletes/${ada.id}/fitness?days=3650`);
      expect(all.activities.length).toBe(token === ada.token ? acts.length : publicActs().length);
      const daily = new Map<string, number>();
      for (const a of all.activities) daily.set(a.date, (daily.get(a.date) ?? 0) + a.load);
      const through = all.days[all.days.length - 1].date;
      // As JSON carries it (−0 is written 0).
      const whole: Fitness["days"] = JSON.parse(JSON.stringify(fitnessSeries(daily, through)));
      expect(all.days).toEqual(whole);
      for (const days of [30, 365, 800]) {
        const window = await get<Fitness>(token, `/v3/athletes/${ada.id}/fitness?days=${days}`);
        expect(window.days, `${days} days`).toEqual(whole.slice(-days));
        expect(window.activities, `${days} days`).toEqual(
          all.activities.filter((a) => a.date >= whole.slice(-days)[0].date),
        );
      }
    }
  });
});

describe("the read models follow edits, privacy and deletions, and replay to what live kept", () => {
  it("a record's ride made private, its run deleted, a ride edited into a run", async () => {
    // The all-time 5-minute power record: made private, another athlete sees the next best.
    const rides = publicActs().filter((a) => RIDE_TYPES.includes(a.type) && a.samples?.w);
    const ranked = rides.map((a) => ({ a, v: bestPower(a, 300)! })).sort((p, q) => q.v - p.v);
    const holder = ranked[0].a;
    expect(
      (await server.api("PUT", `/v3/activities/${idOf.get(holder)}`, { token: ada.token, json: { private: true } }))
        .status,
    ).toBe(200);
    const others = await get<{ power_curve: { duration: number; watts: number; activity: { id: number } }[] }>(
      eddy.token,
      `/v3/athletes/${ada.id}/records`,
    );
    const five = others.power_curve.find((p) => p.duration === 300)!;
    expect(five.activity.id).not.toBe(idOf.get(holder));
    expect(Math.abs(five.watts - ranked[1].v)).toBeLessThanOrEqual(1);
    // The owner still sees it.
    const own = await get<{ power_curve: { duration: number; activity: { id: number } }[] }>(
      ada.token,
      `/v3/athletes/${ada.id}/records`,
    );
    expect(own.power_curve.find((p) => p.duration === 300)!.activity.id).toBe(idOf.get(holder));

    // The 5K record run deleted: the next best holds it; the year's count of runs drops by one.
    const runs = acts.filter((a) => a.type === "Run" && a.samples);
    const fives = runs.map((a) => ({ a, v: bestTime(a, 5000) })).filter((r) => r.v !== null)
      .sort((p, q) => p.v! - q.v!);
    const gone = fives[0].a;
    const year = gone.localDay.slice(0, 4);
    const before = await get<Volume>(
      ada.token,
      `/v3/athletes/${ada.id}/volume?period=year&from=${year}-01-01&to=${year}-12-31`,
    );
    expect((await server.api("DELETE", `/v3/activities/${idOf.get(gone)}`, { token: ada.token })).status).toBe(204);
    const records = await get<{ best_efforts: { name: string; elapsed_time: number }[] }>(
      ada.token,
      `/v3/athletes/${ada.id}/records`,
    );
    expect(Math.abs(records.best_efforts.find((e) => e.name === "5K")!.elapsed_time - fives[1].v!))
      .toBeLessThanOrEqual(2);
    const after = await get<Volume>(
      ada.token,
      `/v3/athletes/${ada.id}/volume?period=year&from=${year}-01-01&to=${year}-12-31`,
    );
    const runsIn = (v: Volume) => v.buckets.find((b) => b.sport_type === "Run")?.count ?? 0;
    expect(runsIn(after)).toBe(runsIn(before) - 1);

    // A ride edited into a run moves from one sport's totals to the other's.
    const ride = acts.find((a) => a.type === "Ride" && a.localDay.startsWith("2023-"))!;
    const volume = () =>
      get<Volume>(ada.token, `/v3/athletes/${ada.id}/volume?period=year&from=2023-01-01&to=2023-12-31`);
    const v0 = await volume();
    expect(
      (await server.api("PUT", `/v3/activities/${idOf.get(ride)}`, { token: ada.token, json: { sport_type: "Run" } }))
        .status,
    ).toBe(200);
    const v1 = await volume();
    const of = (v: Volume, sport: string) => v.buckets.find((b) => b.sport_type === sport)?.count ?? 0;
    expect(of(v1, "Ride")).toBe(of(v0, "Ride") - 1);
    expect(of(v1, "Run")).toBe(of(v0, "Run") + 1);

    const { differences } = await server.platform.projections.verify();
    expect(differences).toEqual([]);
  });
});
