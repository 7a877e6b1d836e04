import { readFileSync } from "node:fs";
import { join as joinPath } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatch } from "../../server/cli/dispatch.ts";
import { createSegment } from "../../server/segments/commands.ts";
import { systemActor } from "../../server/actor.ts";
import { startTestServer, type TestAthlete, type TestServer, uploadUntilReady } from "../helpers/server.ts";
import { DEVICES, slice, streamsOf } from "../segments/fixture-track.ts";

/**
 * Challenges through HTTP: activities are created (POST /v3/activities), uploaded from real device
 * files (POST /v3/uploads and the upload job, whose segment matcher produces the efforts), edited
 * (PUT) and deleted (DELETE); progress is read back from the leaderboard and the counters.
 */
let server: TestServer;
/** A segment laid on the Edge 500 ride's own route: uploading that file produces an effort on it. */
let climbSegment: number;
const EDGE500 = "fit/garmin-edge500-cycling-hr-cad-pauses.fit"; // Ride, 2011-09-25, 541 m gain
const EDGE1000 = "fit/garmin-edge1000-cycling-power-hr.fit"; // Ride, 2019-09-20, 1254 m gain
const FAST_RUN = "tcx/garmin-fr410-running-hr.tcx"; // Run, 2012-12-26, 2.36 m/s (about 7:04/km)
const SLOW_RUN = "fit/stryd-running-power-devfields.fit"; // Run, 2017-01-17, 2.14 m/s (about 7:48/km)

beforeAll(async () => {
  server = await startTestServer({ rateLimitShort: 1_000_000, rateLimitLong: 10_000_000 });
  const { points, altitudes } = slice(await streamsOf(EDGE500), 2000, 2600);
  climbSegment = await createSegment(server.platform, {
    name: "Challenge climb",
    activityType: "Ride",
    points,
    altitudes,
    athleteId: null,
    activityId: null,
  }, systemActor("test"));
}, 60_000);
afterAll(() => server.close());

const cli = (argv: string[]) =>
  dispatch([...argv, "--json"], (fn) => fn(server.platform), { interactive: false, progress: () => {} });

async function challenge(args: Record<string, string>) {
  const argv = ["challenge", "create"];
  for (const [k, v] of Object.entries({ start: "2024-06-01", end: "2024-06-30", ...args })) argv.push(`--${k}`, v);
  const out = await cli(argv);
  expect(out.exitCode, out.stderr + out.stdout).toBe(0);
  return JSON.parse(out.stdout).id as number;
}

/** A manual activity (POST /v3/activities): distance and elapsed time (= moving time); no elevation. */
async function ride(
  athlete: TestAthlete,
  day: string,
  f: { distance?: number; time?: number; type?: "Ride" | "Run"; private?: boolean } = {},
) {
  const res = await server.api("POST", "/v3/activities", {
    token: athlete.token,
    form: {
      name: "Morning",
      type: f.type ?? "Ride",
      start_date_local: `${day}T07:00:00Z`,
      elapsed_time: f.time ?? 3600,
      distance: f.distance ?? 20000,
      private: f.private ? 1 : 0,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

/** A recorded activity: a real device file through POST /v3/uploads, polled until it has an activity. */
async function upload(athlete: TestAthlete, file: string) {
  return uploadUntilReady(server, athlete.token, {
    bytes: readFileSync(joinPath(DEVICES, file)),
    name: file.split("/").pop()!,
    dataType: file.split(".").pop()!,
  });
}

async function activity(athlete: TestAthlete, id: number) {
  const res = await server.api("GET", `/v3/activities/${id}`, {
    token: athlete.token,
    query: { include_all_efforts: true },
  });
  expect(res.status).toBe(200);
  return res.body;
}

async function remove(athlete: TestAthlete, id: number) {
  expect((await server.api("DELETE", `/v3/activities/${id}`, { token: athlete.token })).status).toBe(204);
}

async function setPrivate(athlete: TestAthlete, id: number, value: boolean) {
  const res = await server.api("PUT", `/v3/activities/${id}`, {
    token: athlete.token,
    form: { private: value ? 1 : 0 },
  });
  expect(res.status, res.text).toBe(200);
}

interface Entry {
  rank: number;
  overall_rank: number;
  athlete_id: number;
  total_dimension: number;
  activity_id: number | null;
  activity_count: number;
  success_count: number;
}

/** The whole leaderboard as `viewer` sees it. */
async function board(viewer: TestAthlete, id: number): Promise<Entry[]> {
  const res = await server.api("GET", `/v3/challenges/${id}/leaderboard`, {
    token: viewer.token,
    query: { per_page: 200 },
  });
  expect(res.status).toBe(200);
  return res.body;
}

/**
 * An athlete's progress as the leaderboard shows it (undefined: not on the board). `completed` is
 * success_count > 0: cumulative 1 when the goal is reached, single activity the activities meeting
 * it, segment the efforts.
 */
async function progress(id: number, athlete: TestAthlete, viewer = athlete) {
  const e = (await board(viewer, id)).find((x) => x.athlete_id === athlete.id);
  return e && { ...e, completed: e.success_count > 0, value: e.total_dimension };
}

const join = (a: TestAthlete, id: number) => server.api("POST", `/v3/challenges/${id}/athletes`, { token: a.token });
const detail = async (a: TestAthlete, id: number) =>
  (await server.api("GET", `/v3/challenges/${id}`, { token: a.token })).body;
describe("creating and reading challenges", () => {
  it("the CLI creates a challenge; GET answers it detailed, /joined in summary", async () => {
    const id = await challenge({
      name: "June Gran Fondo",
      type: "CumulativeChallenge",
      dimension: "distance",
      goal: "100000",
      "activity-type": "Ride",
      description: "Ride 100 km in June",
    });
    const a = await server.athlete();
    const res = await server.api("GET", `/v3/challenges/${id}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      resource_state: 3,
      name: "June Gran Fondo",
      type: "CumulativeChallenge",
      joined: false,
      start_date: "2024-06-01",
      end_date: "2024-06-30",
      segment_id: null,
      activity_type: "Ride",
      dimension: "distance",
      goal: 100000,
      goal_hidden: false,
      measurement_unit: "metric",
      description: "Ride 100 km in June",
      participant_count: 0,
      total_dimension: 0,
      attempt_count: 0,
      completed_count: 0,
      leaderboard_count: 0,
      external_url: null,
    });
    for (
      const f of [
        "mobile_description",
        "additional_info",
        "rules",
        "prizes",
        "logo_url",
        "teaser",
        "url",
        "color",
        "social_hashtag",
      ]
    ) {
      expect(typeof res.body[f]).toBe("string");
    }
    expect((await join(a, id)).status).toBe(200);
    const joined = await server.api("GET", "/v3/challenges/joined", { token: a.token });
    expect(joined.status).toBe(200);
    expect(joined.body).toHaveLength(1);
    expect(joined.body[0]).toMatchObject({ id, resource_state: 2, joined: true, participant_count: 1 });
    expect(joined.body[0].description).toBeUndefined();
    expect(joined.body[0].rules).toBeUndefined();
  });

  it("the CLI refuses bad challenges", async () => {
    for (
      const args of [
        ["--type", "Marathon", "--dimension", "distance", "--goal", "1"],
        ["--type", "CumulativeChallenge", "--dimension", "pace", "--goal", "300"],
        ["--type", "SegmentChallenge", "--dimension", "time", "--goal", "0"],
        ["--type", "CumulativeChallenge", "--dimension", "distance", "--goal", "-5"],
      ]
    ) {
      const out = await cli([
        "challenge",
        "create",
        "--name",
        "Bad",
        "--start",
        "2024-06-01",
        "--end",
        "2024-06-30",
        ...args,
      ]);
      expect(out.exitCode).not.toBe(0);
    }
    const backwards = await cli([
      "challenge",
      "create",
      "--name",
      "Bad",
      "--type",
      "CumulativeChallenge",
      "--dimension",
      "time",
      "--goal",
      "1",
      "--start",
      "2024-06-30",
      "--end",
      "2024-06-01",
    ]);
    expect(backwards.exitCode).toBe(1);
    expect(JSON.parse(backwards.stdout).error.errors[0]).toMatchObject({ resource: "Challenge", field: "end_date" });
  });

  it("answers 404 for an unknown challenge, 400 for a bad id, 403 for an application without challenges", async () => {
    const a = await server.athlete();
    expect((await server.api("GET", "/v3/challenges/999999", { token: a.token })).status).toBe(404);
    expect((await server.api("GET", "/v3/challenges/x1", { token: a.token })).status).toBe(400);
    expect((await server.api("POST", "/v3/challenges/999999/athletes", { token: a.token })).status).toBe(404);
    for (const filter of ["none", "friends", "club"]) {
      const res = await server.api("GET", "/v3/challenges/999999/leaderboard", {
        token: a.token,
        query: { filter, club_id: 1 },
      });
      expect(res.status).toBe(404);
      expect(res.body.errors[0].resource).toBe("Challenge");
    }
    const id = await challenge({ name: "Closed", type: "CumulativeChallenge", dimension: "time", goal: "3600" });
    const empty = await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: a.token });
    expect([empty.status, empty.body]).toEqual([200, []]);
    const app = await server.application({ challenges: false });
    const b = await server.athlete({ applicationId: app.client_id });
    for (
      const [method, path] of [
        ["GET", `/v3/challenges/${id}`],
        ["GET", "/v3/challenges/joined"],
        ["GET", `/v3/challenges/${id}/leaderboard`],
        ["POST", `/v3/challenges/${id}/athletes`],
        ["DELETE", `/v3/challenges/${id}/athletes`],
      ]
    ) {
      const res = await server.api(method, path, { token: b.token });
      expect(res.status).toBe(403);
      expect(res.body.errors).toEqual([{ resource: "Application", field: "challenges", code: "not enabled" }]);
    }
  });
});

describe("challenge participation state machine", () => {
  it("joined false → POST → joined true (twice: unchanged) → DELETE → joined false; write needed", async () => {
    const id = await challenge({ name: "Join me", type: "CumulativeChallenge", dimension: "distance", goal: "1000" });
    const a = await server.athlete();
    const reader = await server.athlete({ permissions: ["read"] });
    const denied = await server.api("POST", `/v3/challenges/${id}/athletes`, { token: reader.token });
    expect(denied.status).toBe(401);
    expect(denied.body.errors).toEqual([{ resource: "AccessToken", field: "write_permission", code: "missing" }]);
    const first = await join(a, id);
    expect(first.body).toMatchObject({ id, resource_state: 3, joined: true, participant_count: 1 });
    expect((await join(a, id)).body).toMatchObject({ joined: true, participant_count: 1 });
    expect((await server.api("DELETE", `/v3/challenges/${id}/athletes`, { token: reader.token })).status).toBe(401);
    const leave = await server.api("DELETE", `/v3/challenges/${id}/athletes`, { token: a.token });
    expect(leave.status).toBe(200);
    expect(leave.body).toMatchObject({ joined: false, participant_count: 0 });
    expect((await server.api("DELETE", `/v3/challenges/${id}/athletes`, { token: a.token })).body.joined).toBe(false);
    expect((await server.api("GET", "/v3/challenges/joined", { token: a.token })).body).toEqual([]);
  });

  it("a challenge with an external_url cannot be joined directly", async () => {
    const id = await challenge({
      name: "Partner",
      type: "CumulativeChallenge",
      dimension: "distance",
      goal: "1000",
      "external-url": "https://partner.example.com/join",
    });
    const a = await server.athlete();
    expect((await detail(a, id)).external_url).toBe("https://partner.example.com/join");
    const res = await join(a, id);
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual([{ resource: "Challenge", field: "external_url", code: "join externally" }]);
    expect((await detail(a, id)).participant_count).toBe(0);
  });
});

describe("progress by projection (manual activities)", () => {
  it("cumulative distance: activities in the window and of the type add up until the goal; leaving takes progress out of the counters", async () => {
    const id = await challenge({
      name: "Cumulative 50k",
      type: "CumulativeChallenge",
      dimension: "distance",
      goal: "50000",
      "activity-type": "Ride",
    });
    const done = await server.athlete();
    const short = await server.athlete();
    await ride(done, "2024-06-02", { distance: 30000 }); // before joining: still counts
    await join(done, id);
    await join(short, id);
    const late = await ride(done, "2024-06-20", { distance: 25000 });
    await ride(short, "2024-06-05", { distance: 30000 });
    await ride(short, "2024-07-01", { distance: 30000 }); // after the window
    await ride(short, "2024-06-06", { distance: 30000, type: "Run" }); // wrong type
    expect(await progress(id, done)).toMatchObject({
      completed: true,
      value: 55000,
      success_count: 1,
      activity_count: 2,
    });
    expect(await progress(id, short)).toMatchObject({
      completed: false,
      value: 30000,
      success_count: 0,
      activity_count: 1,
    });
    expect(await detail(done, id)).toMatchObject({
      participant_count: 2,
      total_dimension: 85000,
      attempt_count: 3,
      completed_count: 1,
      leaderboard_count: 2,
    });
    expect((await server.api("DELETE", `/v3/challenges/${id}/athletes`, { token: short.token })).body)
      .toMatchObject({
        joined: false,
        participant_count: 1,
        total_dimension: 55000,
        attempt_count: 2,
        completed_count: 1,
        leaderboard_count: 1,
      });
    expect((await join(short, id)).body).toMatchObject({
      participant_count: 2,
      total_dimension: 85000,
      attempt_count: 3,
      leaderboard_count: 2,
    });
    // editing the type out of the challenge's type takes the activity out
    expect((await server.api("PUT", `/v3/activities/${late}`, { token: done.token, form: { type: "Run" } })).status)
      .toBe(200);
    expect(await progress(id, done)).toMatchObject({ completed: false, value: 30000, activity_count: 1 });
    expect(await detail(done, id)).toMatchObject({
      total_dimension: 60000,
      attempt_count: 2,
      completed_count: 0,
      leaderboard_count: 2,
    });
  });

  it("cumulative time completes or not; a deleted activity is taken back", async () => {
    const id = await challenge({ name: "10 hours", type: "CumulativeChallenge", dimension: "time", goal: "36000" });
    const a = await server.athlete();
    const b = await server.athlete();
    for (const x of [a, b]) await join(x, id);
    const big = await ride(a, "2024-06-10", { time: 20000 });
    await ride(a, "2024-06-11", { time: 17000 });
    await ride(b, "2024-06-10", { time: 35999 });
    expect(await progress(id, a)).toMatchObject({ completed: true, value: 37000 });
    expect(await progress(id, b)).toMatchObject({ completed: false, value: 35999 });
    expect((await detail(a, id)).completed_count).toBe(1);
    await remove(a, big);
    expect(await progress(id, a)).toMatchObject({ completed: false, value: 17000, activity_count: 1 });
    expect(await detail(a, id)).toMatchObject({ completed_count: 0, total_dimension: 17000 + 35999, attempt_count: 2 });
  });

  it("single activity: the best activity by distance or time counts", async () => {
    const dist = await challenge({
      name: "One 100k",
      type: "SingleActivityChallenge",
      dimension: "distance",
      goal: "100000",
    });
    const time = await challenge({ name: "One 4h", type: "SingleActivityChallenge", dimension: "time", goal: "14400" });
    const a = await server.athlete();
    const b = await server.athlete();
    for (const x of [a, b]) for (const c of [dist, time]) await join(x, c);
    await ride(a, "2024-06-03", { distance: 60000, time: 7200 });
    const best = await ride(a, "2024-06-04", { distance: 101000, time: 15000 });
    await ride(b, "2024-06-03", { distance: 60000, time: 14399 });
    await ride(b, "2024-06-04", { distance: 99999, time: 3000 });
    expect(await progress(dist, a)).toMatchObject({
      completed: true,
      value: 101000,
      activity_id: best,
      activity_count: 2,
      success_count: 1,
    });
    expect(await progress(time, a)).toMatchObject({ completed: true, value: 15000, activity_id: best });
    expect(await progress(dist, b)).toMatchObject({ completed: false, value: 99999 });
    expect(await progress(time, b)).toMatchObject({ completed: false, value: 14399 });
    expect(await detail(a, dist)).toMatchObject({
      participant_count: 2,
      completed_count: 1,
      attempt_count: 4,
      total_dimension: 101000 + 99999,
    });
  });

  it("a private activity never counts, so its data never reaches the leaderboard; making it public counts it", async () => {
    const id = await challenge({
      name: "Private kms",
      type: "CumulativeChallenge",
      dimension: "distance",
      goal: "60000",
    });
    const owner = await server.athlete();
    const other = await server.athlete();
    for (const x of [owner, other]) await join(x, id);
    const open = await ride(owner, "2024-06-03", { distance: 30000 });
    const hidden = await ride(owner, "2024-06-04", { distance: 40000, private: true });
    await ride(other, "2024-06-03", { distance: 10000 });
    expect(await progress(id, owner, other)).toMatchObject({
      value: 30000,
      activity_id: open,
      activity_count: 1,
      completed: false,
    });
    expect(await progress(id, owner)).toMatchObject({ value: 30000, activity_id: open });
    expect(await detail(other, id)).toMatchObject({ total_dimension: 40000, attempt_count: 2, completed_count: 0 });

    await setPrivate(owner, open, true); // nothing public left: off the board
    expect(await progress(id, owner, other)).toBeUndefined();
    expect((await board(other, id)).map((e) => e.activity_id)).not.toContain(open);
    expect(await detail(other, id)).toMatchObject({
      participant_count: 2,
      leaderboard_count: 1,
      total_dimension: 10000,
      attempt_count: 1,
    });

    await setPrivate(owner, open, false);
    await setPrivate(owner, hidden, false);
    expect(await progress(id, owner, other)).toMatchObject({
      value: 70000,
      activity_id: hidden,
      activity_count: 2,
      completed: true,
    });
    expect(await detail(other, id)).toMatchObject({ leaderboard_count: 2, total_dimension: 80000, completed_count: 1 });
  });
});

describe("progress by projection (uploaded device files, segment efforts by the real matcher)", () => {
  let a: TestAthlete, b: TestAthlete, c: TestAthlete;
  let climbTotal: number, singleClimb: number, pace: number, segment: number, segmentLater: number;
  const ids: Record<string, number> = {};
  const facts: Record<
    string,
    {
      total_elevation_gain: number;
      average_speed: number;
      segment_efforts: { segment: { id: number }; elapsed_time: number }[];
    }
  > = {};

  beforeAll(async () => {
    const window = { start: "2011-01-01", end: "2019-12-31" };
    climbTotal = await challenge({
      name: "Climb 1500 m",
      type: "CumulativeChallenge",
      dimension: "elevation",
      goal: "1500",
      "activity-type": "Ride",
      ...window,
    });
    singleClimb = await challenge({
      name: "1000 m in one ride",
      type: "SingleActivityChallenge",
      dimension: "elevation",
      goal: "1000",
      "activity-type": "Ride",
      ...window,
    });
    pace = await challenge({
      name: "Under 7:30/km",
      type: "SingleActivityChallenge",
      dimension: "pace",
      goal: "450",
      "activity-type": "Run",
      ...window,
    });
    segment = await challenge({
      name: "September climb",
      type: "SegmentChallenge",
      dimension: "time",
      goal: "0",
      segment: String(climbSegment),
      start: "2011-09-01",
      end: "2011-09-30",
    });
    segmentLater = await challenge({
      name: "Next year's climb",
      type: "SegmentChallenge",
      dimension: "time",
      goal: "0",
      segment: String(climbSegment),
      start: "2012-01-01",
      end: "2012-12-31",
    });
    a = await server.athlete({ firstname: "Ada" });
    b = await server.athlete({ firstname: "Bea" });
    c = await server.athlete({ firstname: "Cas" });
    for (const x of [a, b, c]) {
      for (const id of [climbTotal, singleClimb, pace, segment, segmentLater]) await join(x, id);
    }
    for (const [who, file] of [[a, EDGE1000], [a, EDGE500], [a, FAST_RUN], [b, EDGE500], [b, SLOW_RUN]] as const) {
      const key = `${who.id}:${file}`;
      ids[key] = await upload(who, file);
      facts[key] = await activity(who, ids[key]);
    }
  }, 180_000);

  const gain = (who: TestAthlete, file: string) => facts[`${who.id}:${file}`].total_elevation_gain;

  it("cumulative elevation: recorded climbing adds up to the goal or not", async () => {
    expect(gain(a, EDGE1000)).toBeGreaterThan(1000);
    expect(gain(a, EDGE500)).toBeLessThan(1000);
    const ada = await progress(climbTotal, a);
    expect(ada).toMatchObject({ completed: true, activity_count: 2, activity_id: ids[`${a.id}:${EDGE1000}`] }); // the latest ride
    expect(ada!.value).toBeCloseTo(gain(a, EDGE1000) + gain(a, EDGE500), 6);
    const bea = await progress(climbTotal, b);
    expect(bea).toMatchObject({ completed: false, activity_count: 1 }); // her run is not a ride
    expect(bea!.value).toBeCloseTo(gain(b, EDGE500), 6);
    expect(await progress(climbTotal, c)).toBeUndefined();
    const d = await detail(a, climbTotal);
    expect(d).toMatchObject({ participant_count: 3, attempt_count: 3, completed_count: 1, leaderboard_count: 2 });
    expect(d.total_dimension).toBeCloseTo(gain(a, EDGE1000) + 2 * gain(a, EDGE500), 6);
  });

  it("single activity elevation: the best recorded ride completes it or not", async () => {
    expect(await progress(singleClimb, a)).toMatchObject({
      completed: true,
      value: gain(a, EDGE1000),
      activity_id: ids[`${a.id}:${EDGE1000}`],
      success_count: 1,
    });
    expect(await progress(singleClimb, b)).toMatchObject({
      completed: false,
      value: gain(b, EDGE500),
      success_count: 0,
    });
  });

  it("single activity pace: the fastest run (distance / moving time) against seconds per kilometre", async () => {
    const fast = facts[`${a.id}:${FAST_RUN}`].average_speed;
    const slow = facts[`${b.id}:${SLOW_RUN}`].average_speed;
    expect(fast).toBeGreaterThan(1000 / 450);
    expect(slow).toBeLessThan(1000 / 450);
    const ada = await progress(pace, a);
    expect(ada).toMatchObject({ completed: true, activity_id: ids[`${a.id}:${FAST_RUN}`], activity_count: 1 });
    expect(ada!.value).toBeCloseTo(fast, 2);
    const bea = await progress(pace, b);
    expect(bea).toMatchObject({ completed: false, activity_id: ids[`${b.id}:${SLOW_RUN}`] });
    expect(bea!.value).toBeCloseTo(slow, 2);
  });

  it("segment: an effort matched on the segment inside the window completes it; outside the window or no effort does not", async () => {
    const effortOf = (who: TestAthlete) =>
      facts[`${who.id}:${EDGE500}`].segment_efforts.find((e) => e.segment.id === climbSegment)!;
    expect(effortOf(a)).toBeDefined();
    const entries = await board(c, segment);
    expect(entries.map((e) => [e.athlete_id, e.rank, e.total_dimension, e.activity_id, e.success_count])).toEqual(
      [[a.id, 1, effortOf(a).elapsed_time, ids[`${a.id}:${EDGE500}`], 1], [
        b.id,
        1,
        effortOf(b).elapsed_time,
        ids[`${b.id}:${EDGE500}`],
        1,
      ]],
    );
    expect(await detail(c, segment)).toMatchObject({
      participant_count: 3,
      completed_count: 2,
      attempt_count: 2,
      leaderboard_count: 2,
      total_dimension: 2 * effortOf(a).elapsed_time,
    });
    expect(await board(a, segmentLater)).toEqual([]); // the same effort, outside this window
    expect(await detail(a, segmentLater)).toMatchObject({ completed_count: 0, attempt_count: 0, leaderboard_count: 0 });
  });

  it("a ride made private leaves every board (its effort too) and comes back when public again", async () => {
    const rideId = ids[`${b.id}:${EDGE500}`];
    await setPrivate(b, rideId, true);
    for (const id of [climbTotal, singleClimb, segment]) {
      const seen = await board(a, id);
      expect(seen.map((e) => e.athlete_id)).not.toContain(b.id);
      expect(seen.map((e) => e.activity_id)).not.toContain(rideId);
      expect(await progress(id, b)).toBeUndefined(); // it does not count for her either
    }
    expect(await detail(a, segment)).toMatchObject({ completed_count: 1, attempt_count: 1, leaderboard_count: 1 });
    await setPrivate(b, rideId, false);
    expect(await progress(segment, b, a)).toMatchObject({ completed: true, activity_id: rideId });
    expect(await detail(a, segment)).toMatchObject({ completed_count: 2, attempt_count: 2, leaderboard_count: 2 });
  });

  it("deleting the big ride takes it back: cumulative and single elevation are no longer completed", async () => {
    await remove(a, ids[`${a.id}:${EDGE1000}`]);
    const ada = await progress(climbTotal, a);
    expect(ada).toMatchObject({ completed: false, activity_count: 1, activity_id: ids[`${a.id}:${EDGE500}`] });
    expect(ada!.value).toBeCloseTo(gain(a, EDGE500), 6);
    expect(await progress(singleClimb, a)).toMatchObject({
      completed: false,
      value: gain(a, EDGE500),
      activity_id: ids[`${a.id}:${EDGE500}`],
    });
    expect(await detail(a, climbTotal)).toMatchObject({ completed_count: 0, attempt_count: 2 });
    expect(await detail(a, singleClimb)).toMatchObject({ completed_count: 0 });
  });
});

describe("leaderboard", () => {
  it("descending, competition ranks; the requester with 2 before and after appended on the first page", async () => {
    const id = await challenge({ name: "Board", type: "CumulativeChallenge", dimension: "distance", goal: "1000000" });
    const people: TestAthlete[] = [];
    const distances = [90000, 80000, 70000, 70000, 50000, 40000, 30000, 20000, 10000];
    for (const [i, d] of distances.entries()) {
      const p = await server.athlete({ firstname: `Rider${i}`, lastname: "Board" });
      await join(p, id);
      await ride(p, "2024-06-10", { distance: d });
      people.push(p);
    }
    const idle = await server.athlete();
    await join(idle, id);
    const me = people[6]; // 7th, 30 km
    const res = await server.api("GET", `/v3/challenges/${id}/leaderboard`, {
      token: me.token,
      query: { per_page: 3 },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((e: { athlete_id: number }) => e.athlete_id)).toEqual(
      [0, 1, 2, 4, 5, 6, 7, 8].map((i) => people[i].id),
    );
    expect(res.body.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 3, 5, 6, 7, 8, 9]);
    expect(res.body[0]).toMatchObject({
      overall_rank: 1,
      athlete_name: "Rider0 Board",
      total_dimension: 90000,
      activity_count: 1,
      success_count: 0,
    });
    expect(typeof res.body[0].athlete_profile).toBe("string");
    expect(typeof res.body[0].activity_id).toBe("number");
    // ties share a rank
    const top = await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: people[0].token });
    expect(top.body.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 3, 3, 5, 6, 7, 8, 9]);
    // page 2: no context
    const second = await server.api("GET", `/v3/challenges/${id}/leaderboard`, {
      token: me.token,
      query: { per_page: 3, page: 2 },
    });
    expect(second.body.map((e: { athlete_id: number }) => e.athlete_id)).toEqual([3, 4, 5].map((i) => people[i].id));
    expect(second.body.map((e: { rank: number; overall_rank: number }) => [e.rank, e.overall_rank])).toEqual([[3, 3], [
      5,
      5,
    ], [6, 6]]);
    // the first context row ties with the row above it: it shares that row's rank
    const tied = await server.api("GET", `/v3/challenges/${id}/leaderboard`, {
      token: people[5].token,
      query: { per_page: 2 },
    });
    expect(tied.body.map((e: { athlete_id: number; rank: number }) => [e.athlete_id, e.rank]))
      .toEqual([[people[0].id, 1], [people[1].id, 2], [people[3].id, 3], [people[4].id, 5], [people[5].id, 6], [
        people[6].id,
        7,
      ], [people[7].id, 8]]);
    // someone without progress gets no context
    const idleView = await server.api("GET", `/v3/challenges/${id}/leaderboard`, {
      token: idle.token,
      query: { per_page: 2 },
    });
    expect(idleView.body).toHaveLength(2);
    expect((await detail(idle, id)).leaderboard_count).toBe(9);

    // friends: the people the requester follows, and the requester
    await cli(["follow", "--athlete", String(me.id), "--target", String(people[1].id)]);
    await cli(["follow", "--athlete", String(me.id), "--target", String(people[8].id)]);
    const friends = await server.api("GET", `/v3/challenges/${id}/leaderboard`, {
      token: me.token,
      query: { filter: "friends" },
    });
    expect(
      friends.body.map((
        e: { athlete_id: number; rank: number; overall_rank: number },
      ) => [e.athlete_id, e.rank, e.overall_rank]),
    )
      .toEqual([[people[1].id, 1, 2], [me.id, 2, 7], [people[8].id, 3, 9]]);

    // club: members of the club; club_id is required and must exist
    const owner = people[5];
    const club = await server.api("POST", "/v3/clubs", { token: owner.token, form: { name: "Board club" } });
    await server.api("POST", `/v3/clubs/${club.body.id}/join`, { token: people[2].token });
    const byClub = await server.api("GET", `/v3/challenges/${id}/leaderboard`, {
      token: owner.token,
      query: { filter: "club", club_id: club.body.id },
    });
    expect(byClub.body.map((e: { athlete_id: number; rank: number }) => [e.athlete_id, e.rank])).toEqual([[
      people[2].id,
      1,
    ], [owner.id, 2]]);
    const missing = await server.api("GET", `/v3/challenges/${id}/leaderboard`, {
      token: me.token,
      query: { filter: "club" },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ resource: "Challenge", field: "club_id", code: "missing" }]);
    expect(
      (await server.api("GET", `/v3/challenges/${id}/leaderboard`, {
        token: me.token,
        query: { filter: "club", club_id: 999999 },
      })).status,
    ).toBe(404);
    expect(
      (await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: me.token, query: { filter: "enemies" } }))
        .status,
    ).toBe(400);
  }, 120_000);
});

describe("replay", () => {
  it("rebuilds every read model identically (cli verify)", async () => {
    const { differences } = await server.platform.projections.verify();
    expect(differences).toEqual([]);
  });
});
