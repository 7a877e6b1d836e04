import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/deno.ts";
import { type DropinServer, startDropinServer, upload } from "./deno-server.ts";

/**
 * GET /v3/athletes/:id/stats (issue #19) over HTTP on the Deno server: the totals must equal those
 * computed here from the athlete's activities as GET /v3/athlete/activities lists them, with
 * Strava's rules (Everyone-visible only; rides / runs / swims; recent = the 4 weeks ending today,
 * ytd = this calendar year, by local start day; biggest ride distance and climb).
 */
let s: DropinServer;
const DAY = 86_400_000;
const localDaysAgo = (n: number, hour = 9) =>
  new Date(Date.now() - n * DAY).toISOString().slice(0, 10) + `T${String(hour).padStart(2, "0")}:00:00Z`;

beforeAll(async () => {
  s = await startDropinServer(["Ann", "Bob"]);
  const { Ann, Bob } = s.people;
  await upload(s.call, Ann.token, "fit/garmin-edge1000-cycling-power-hr.fit");
  await upload(s.call, Ann.token, "tcx/garmin-fr410-running-hr.tcx");
  await upload(s.call, Ann.token, "tcx/garmin-vivoactivehr-pool-swim.tcx");
  const manual = async (
    token: string,
    type: string,
    daysAgo: number,
    distance: number,
    elapsed: number,
    extra: Record<string, string | number> = {},
  ) => {
    const res = await s.call("POST", "/v3/activities", {
      token,
      form: {
        name: `${type} ${daysAgo}`,
        type,
        start_date_local: localDaysAgo(daysAgo),
        elapsed_time: elapsed,
        distance,
        ...extra,
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.id as number;
  };
  await manual(Ann.token, "Ride", 2, 20_000.5, 3600);
  await manual(Ann.token, "VirtualRide", 12, 31_000, 4000);
  await manual(Ann.token, "Ride", 40, 55_500, 9000);
  await manual(Ann.token, "Ride", 400, 90_000, 15000);
  await manual(Ann.token, "EBikeRide", 3, 42_000, 5000);
  await manual(Ann.token, "Run", 1, 10_000, 3000);
  await manual(Ann.token, "Run", 27, 5_000, 1500);
  await manual(Ann.token, "Run", 29, 7_000, 2100);
  await manual(Ann.token, "Swim", 5, 1_500, 1800);
  await manual(Ann.token, "Walk", 4, 3_000, 2400);
  // Sport types: a mountain-bike ride counts as a ride, an e-mountain-bike ride nowhere, a trail run as a run.
  await manual(Ann.token, "Ride", 11, 25_000, 5000, { sport_type: "MountainBikeRide" });
  await manual(Ann.token, "EBikeRide", 13, 33_000, 4000, { sport_type: "EMountainBikeRide" });
  await manual(Ann.token, "Run", 14, 9_000, 3300, { sport_type: "TrailRun" });
  const hidden = await manual(Ann.token, "Ride", 6, 150_000, 20000, { private: 1 });
  const madePublic = await manual(Ann.token, "Run", 8, 12_345.6, 4000, { private: 1 });
  const retyped = await manual(Ann.token, "Ride", 9, 8_000, 1700);
  const deleted = await manual(Ann.token, "Swim", 3, 2_000, 2400);
  expect((await s.call("PUT", `/v3/activities/${madePublic}`, { token: Ann.token, form: { private: 0 } })).status).toBe(
    200,
  );
  expect((await s.call("PUT", `/v3/activities/${retyped}`, { token: Ann.token, form: { type: "Run" } })).status).toBe(
    200,
  );
  expect((await s.call("DELETE", `/v3/activities/${deleted}`, { token: Ann.token })).status).toBe(204);
  expect(hidden).toBeGreaterThan(0);
  await manual(Bob.token, "Ride", 2, 77_000, 9000);
  await manual(Bob.token, "Run", 3, 4_000, 1300);
}, 600_000);
afterAll(() => s?.close());

interface Listed {
  type: string;
  sport_type?: string;
  private: boolean;
  start_date_local: string;
  distance: number;
  moving_time: number;
  elapsed_time: number;
  total_elevation_gain: number;
  achievement_count: number;
}

async function listAll(token: string): Promise<Listed[]> {
  const all: Listed[] = [];
  for (let page = 1;; page++) {
    const res = await s.call("GET", "/v3/athlete/activities", { token, query: { page, per_page: 200 } });
    expect(res.status).toBe(200);
    all.push(...res.body);
    if (res.body.length < 200) return all;
  }
}

// Strava's groups by sport type (docs/app-developers.md): e-bike rides count in no total.
const GROUP: Record<string, string> = {
  Ride: "ride",
  VirtualRide: "ride",
  MountainBikeRide: "ride",
  GravelRide: "ride",
  Run: "run",
  TrailRun: "run",
  Swim: "swim",
};

function expectedStats(activities: Listed[]) {
  const today = new Date().toISOString().slice(0, 10);
  const recentFrom = new Date(Date.parse(`${today}T00:00:00Z`) - 27 * DAY).toISOString().slice(0, 10);
  const totals: Record<
    string,
    {
      count: number;
      distance: number;
      moving_time: number;
      elapsed_time: number;
      elevation_gain: number;
      achievement_count: number;
    }
  > = {};
  for (const period of ["recent", "ytd", "all"]) {
    for (const group of ["ride", "run", "swim"]) {
      totals[`${period}_${group}_totals`] = {
        count: 0,
        distance: 0,
        moving_time: 0,
        elapsed_time: 0,
        elevation_gain: 0,
        achievement_count: 0,
      };
    }
  }
  let biggestRide = 0;
  let biggestClimb = 0;
  for (const a of activities) {
    const group = GROUP[a.sport_type ?? a.type];
    if (a.private || !group) continue;
    const day = a.start_date_local.slice(0, 10);
    const periods = ["all"];
    if (day >= recentFrom && day <= today) periods.push("recent");
    if (day.slice(0, 4) === today.slice(0, 4) && day <= today) periods.push("ytd");
    for (const period of periods) {
      const t = totals[`${period}_${group}_totals`];
      t.count++;
      t.distance += a.distance;
      t.moving_time += a.moving_time;
      t.elapsed_time += a.elapsed_time;
      t.elevation_gain += a.total_elevation_gain;
      t.achievement_count += a.achievement_count;
    }
    if (group === "ride") {
      biggestRide = Math.max(biggestRide, a.distance);
      biggestClimb = Math.max(biggestClimb, a.total_elevation_gain);
    }
  }
  return { totals, biggestRide, biggestClimb };
}

describe("GET /v3/athletes/:id/stats", () => {
  it("equals the totals of the athlete's Everyone-visible activities listed over the API", async () => {
    const { Ann } = s.people;
    const activities = await listAll(Ann.token);
    expect(activities.length).toBe(19);
    const expected = expectedStats(activities);
    const res = await s.call("GET", `/v3/athletes/${Ann.id}/stats`, { token: Ann.token });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      "all_ride_totals",
      "all_run_totals",
      "all_swim_totals",
      "biggest_climb_elevation_gain",
      "biggest_ride_distance",
      "recent_ride_totals",
      "recent_run_totals",
      "recent_swim_totals",
      "ytd_ride_totals",
      "ytd_run_totals",
      "ytd_swim_totals",
    ]);
    for (const [key, want] of Object.entries(expected.totals)) {
      const got = res.body[key];
      expect(got.count, key).toBe(want.count);
      expect(got.distance, key).toBeCloseTo(want.distance, 0);
      expect(got.moving_time, key).toBe(want.moving_time);
      expect(got.elapsed_time, key).toBe(want.elapsed_time);
      expect(got.elevation_gain, key).toBeCloseTo(want.elevation_gain, 0);
      // Every period carries achievement_count (Strava's model declares it on ActivityTotal).
      expect(got.achievement_count, key).toBe(want.achievement_count);
    }
    expect(res.body.biggest_ride_distance).toBeCloseTo(expected.biggestRide, 3);
    expect(res.body.biggest_climb_elevation_gain).toBeCloseTo(expected.biggestClimb, 3);
    // Not vacuous: the fixture set fills every group of the all-time totals, and the recent ones.
    for (const group of ["ride", "run", "swim"]) {
      expect(res.body[`all_${group}_totals`].count).toBeGreaterThan(0);
      expect(res.body[`recent_${group}_totals`].count).toBeGreaterThan(0);
    }
    // The private ride (150 km) is not the biggest; the uploaded ride has the biggest climb.
    expect(res.body.biggest_ride_distance).toBe(90_000);
    expect(res.body.biggest_climb_elevation_gain).toBeGreaterThan(0);
    // The retyped ride counts as a run, the deleted swim nowhere, the e-bike ride and the walk nowhere.
    expect(res.body.recent_run_totals.count).toBe(5);
    expect(res.body.recent_swim_totals.count).toBe(1);
    expect(res.body.recent_ride_totals.count).toBe(3);
  });

  it("answers another athlete's stats with 403 and without a token 401", async () => {
    const { Ann, Bob } = s.people;
    const res = await s.call("GET", `/v3/athletes/${Bob.id}/stats`, { token: Ann.token });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual([{ resource: "Athlete", field: "id", code: "forbidden" }]);
    expect((await s.call("GET", `/v3/athletes/${Ann.id}/stats`)).status).toBe(401);
    const bob = await s.call("GET", `/v3/athletes/${Bob.id}/stats`, { token: Bob.readToken });
    expect(bob.status).toBe(200);
    expect(bob.body.recent_ride_totals).toMatchObject({ count: 1, distance: 77_000, elapsed_time: 9000 });
    expect(bob.body.all_run_totals).toMatchObject({ count: 1, distance: 4000 });
    expect(bob.body.all_swim_totals).toEqual({
      count: 0,
      distance: 0,
      moving_time: 0,
      elapsed_time: 0,
      elevation_gain: 0,
      achievement_count: 0,
    });
  });

  it("is a read model that a replay of the log reproduces exactly (cli verify)", async () => {
    await s.server.stop();
    const verify = await runCli(["verify"], { DATA_DIR: s.server.dataDir });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/read-model tables rebuilt from \d+ events are equal/);
  });
});
