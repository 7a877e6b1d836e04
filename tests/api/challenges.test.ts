import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityCreated, activityRecorded, activityStream } from "../../events/activity/events.ts";
import { activityDeleted } from "../../events/activity/changes.ts";
import { segmentEffortsMatched } from "../../events/segment/events.ts";
import { dispatch } from "../../server/cli/dispatch.ts";
import { nextId } from "../../server/ids.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimitShort: 1_000_000, rateLimitLong: 10_000_000 });
});
afterAll(() => server.close());

const cli = (argv: string[]) => dispatch([...argv, "--json"], (fn) => fn(server.platform), { interactive: false, progress: () => {} });

async function challenge(args: Record<string, string>) {
  const argv = ["challenge", "create", "--start", "2024-06-01", "--end", "2024-06-30"];
  for (const [k, v] of Object.entries(args)) argv.push(`--${k}`, v);
  const out = await cli(argv);
  expect(out.exitCode, out.stderr + out.stdout).toBe(0);
  return JSON.parse(out.stdout).id as number;
}

/** An uploaded activity as upload processing records it (only the facts challenges read vary). */
async function ride(athleteId: number, day: string, f: { distance?: number; elevation?: number; movingTime?: number; type?: "Ride" | "Run" } = {}) {
  const activityId = await nextId(server.platform.db, "activity");
  const startDate = `${day}T07:00:00Z`;
  const distance = f.distance ?? 20000;
  const movingTime = f.movingTime ?? 3600;
  await server.platform.store.append(activityStream(activityId), 0, [activityRecorded.create({
    activityId, athleteId, type: f.type ?? "Ride", name: "Morning Ride", description: null, externalId: null, uploadId: null,
    startDate, startDateLocal: startDate, timezone: "(GMT+00:00) UTC", distance, movingTime, elapsedTime: movingTime + 60,
    totalElevationGain: f.elevation ?? 100, elevHigh: null, elevLow: null, startLatlng: null, endLatlng: null,
    averageSpeed: distance / movingTime, maxSpeed: 10, averageCadence: null, averageTemp: null, averageWatts: null,
    maxWatts: null, weightedAverageWatts: null, kilojoules: null, deviceWatts: null, hasHeartrate: false,
    averageHeartrate: null, maxHeartrate: null, calories: null, sufferScore: null, private: false, trainer: false,
    commute: false, deviceName: null, workoutType: null, polyline: null, summaryPolyline: null, streamsSha256: null,
    laps: [], splitsMetric: [], splitsStandard: [], bestEfforts: [],
  })]);
  return activityId;
}

async function effort(athleteId: number, segmentId: number, day: string, elapsedTime: number) {
  const activityId = await ride(athleteId, day);
  const startDate = `${day}T07:10:00Z`;
  await server.platform.store.append(activityStream(activityId), "any", [segmentEffortsMatched.create({
    activityId, athleteId, activityType: "Ride", private: false, prCount: 0, achievementCount: 0,
    efforts: [{
      effortId: String(activityId * 1000 + 1), segmentId, name: "Climb", startIndex: 0, endIndex: 10, startDate,
      startDateLocal: startDate, elapsedTime, movingTime: elapsedTime, distance: 1000, averageHeartrate: null,
      maxHeartrate: null, averageWatts: null, averageCadence: null, komRank: null, prRank: null, achievements: [], hidden: false,
    }],
  })]);
}

const join = (a: TestAthlete, id: number) => server.api("POST", `/v3/challenges/${id}/athletes`, { token: a.token });
const detail = async (a: TestAthlete, id: number) => (await server.api("GET", `/v3/challenges/${id}`, { token: a.token })).body;
const progress = async (challengeId: number, athleteId: number) => {
  const [row] = await server.platform.db.query<{ completed: boolean; value: number }>(
    "select completed, value from challenge_participants where challenge_id = $1 and athlete_id = $2", [challengeId, athleteId]);
  return row;
};

describe("creating and reading challenges", () => {
  it("the CLI creates a challenge; GET answers it detailed, /joined in summary", async () => {
    const id = await challenge({ name: "June Gran Fondo", type: "CumulativeChallenge", dimension: "distance", goal: "100000", "activity-type": "Ride", description: "Ride 100 km in June" });
    const a = await server.athlete();
    const res = await server.api("GET", `/v3/challenges/${id}`, { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id, resource_state: 3, name: "June Gran Fondo", type: "CumulativeChallenge", joined: false, start_date: "2024-06-01",
      end_date: "2024-06-30", segment_id: null, activity_type: "Ride", dimension: "distance", goal: 100000,
      goal_hidden: false, measurement_unit: "metric", description: "Ride 100 km in June", participant_count: 0,
      total_dimension: 0, attempt_count: 0, completed_count: 0, leaderboard_count: 0, external_url: null,
    });
    for (const f of ["mobile_description", "additional_info", "rules", "prizes", "logo_url", "teaser", "url", "color", "social_hashtag"]) {
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
    for (const args of [
      ["--type", "Marathon", "--dimension", "distance", "--goal", "1"],
      ["--type", "CumulativeChallenge", "--dimension", "pace", "--goal", "300"],
      ["--type", "SegmentChallenge", "--dimension", "time", "--goal", "0"],
      ["--type", "CumulativeChallenge", "--dimension", "distance", "--goal", "-5"],
    ]) {
      const out = await cli(["challenge", "create", "--name", "Bad", "--start", "2024-06-01", "--end", "2024-06-30", ...args]);
      expect(out.exitCode).not.toBe(0);
    }
    const backwards = await cli(["challenge", "create", "--name", "Bad", "--type", "CumulativeChallenge", "--dimension", "time", "--goal", "1", "--start", "2024-06-30", "--end", "2024-06-01"]);
    expect(backwards.exitCode).toBe(1);
    expect(JSON.parse(backwards.stdout).error.errors[0]).toMatchObject({ resource: "Challenge", field: "end_date" });
  });

  it("answers 404 for an unknown challenge, 400 for a bad id, 403 for an application without challenges", async () => {
    const a = await server.athlete();
    expect((await server.api("GET", "/v3/challenges/999999", { token: a.token })).status).toBe(404);
    expect((await server.api("GET", "/v3/challenges/x1", { token: a.token })).status).toBe(400);
    expect((await server.api("POST", "/v3/challenges/999999/athletes", { token: a.token })).status).toBe(404);
    const id = await challenge({ name: "Closed", type: "CumulativeChallenge", dimension: "time", goal: "3600" });
    const app = await server.application({ challenges: false });
    const b = await server.athlete({ applicationId: app.client_id });
    for (const [method, path] of [["GET", `/v3/challenges/${id}`], ["GET", "/v3/challenges/joined"], ["GET", `/v3/challenges/${id}/leaderboard`], ["POST", `/v3/challenges/${id}/athletes`], ["DELETE", `/v3/challenges/${id}/athletes`]]) {
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
    const id = await challenge({ name: "Partner", type: "CumulativeChallenge", dimension: "distance", goal: "1000", "external-url": "https://partner.example.com/join" });
    const a = await server.athlete();
    expect((await detail(a, id)).external_url).toBe("https://partner.example.com/join");
    const res = await join(a, id);
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual([{ resource: "Challenge", field: "external_url", code: "join externally" }]);
    expect((await detail(a, id)).participant_count).toBe(0);
  });
});

describe("progress by projection", () => {
  it("cumulative distance: activities in the window and of the type add up until the goal", async () => {
    const id = await challenge({ name: "Cumulative 50k", type: "CumulativeChallenge", dimension: "distance", goal: "50000", "activity-type": "Ride" });
    const done = await server.athlete();
    const short = await server.athlete();
    await ride(done.id, "2024-06-02", { distance: 30000 }); // before joining: still counts
    await join(done, id);
    await join(short, id);
    await ride(done.id, "2024-06-20", { distance: 25000 });
    await ride(short.id, "2024-06-05", { distance: 30000 });
    await ride(short.id, "2024-07-01", { distance: 30000 }); // after the window
    await ride(short.id, "2024-06-06", { distance: 30000, type: "Run" }); // wrong type
    expect(await progress(id, done.id)).toMatchObject({ completed: true, value: 55000 });
    expect(await progress(id, short.id)).toMatchObject({ completed: false, value: 30000 });
    expect(await detail(done, id)).toMatchObject({ participant_count: 2, total_dimension: 85000, attempt_count: 3, completed_count: 1, leaderboard_count: 2 });
  });

  it("cumulative elevation and time complete or not; a deleted activity is taken back", async () => {
    const elev = await challenge({ name: "Climb 2000", type: "CumulativeChallenge", dimension: "elevation", goal: "2000" });
    const time = await challenge({ name: "10 hours", type: "CumulativeChallenge", dimension: "time", goal: "36000" });
    const a = await server.athlete();
    const b = await server.athlete();
    for (const x of [a, b]) { await join(x, elev); await join(x, time); }
    const big = await ride(a.id, "2024-06-10", { elevation: 1500, movingTime: 20000 });
    await ride(a.id, "2024-06-11", { elevation: 600, movingTime: 17000 });
    await ride(b.id, "2024-06-10", { elevation: 1999, movingTime: 35999 });
    expect(await progress(elev, a.id)).toMatchObject({ completed: true, value: 2100 });
    expect(await progress(time, a.id)).toMatchObject({ completed: true, value: 37000 });
    expect(await progress(elev, b.id)).toMatchObject({ completed: false });
    expect(await progress(time, b.id)).toMatchObject({ completed: false });
    await server.platform.store.append(activityStream(big), "any", [activityDeleted.create({ activityId: big, athleteId: a.id, uploadId: null })]);
    expect(await progress(elev, a.id)).toMatchObject({ completed: false, value: 600 });
    expect((await detail(a, elev)).completed_count).toBe(0);
  });

  it("single activity: the best activity by distance, elevation, time or pace counts", async () => {
    const dist = await challenge({ name: "One 100k", type: "SingleActivityChallenge", dimension: "distance", goal: "100000" });
    const elev = await challenge({ name: "One 1000m climb", type: "SingleActivityChallenge", dimension: "elevation", goal: "1000" });
    const time = await challenge({ name: "One 4h", type: "SingleActivityChallenge", dimension: "time", goal: "14400" });
    const pace = await challenge({ name: "Sub 5 min/km", type: "SingleActivityChallenge", dimension: "pace", goal: "300", "activity-type": "Run" });
    const a = await server.athlete();
    const b = await server.athlete();
    for (const x of [a, b]) for (const c of [dist, elev, time, pace]) await join(x, c);
    await ride(a.id, "2024-06-03", { distance: 60000, elevation: 500, movingTime: 7200 });
    const best = await ride(a.id, "2024-06-04", { distance: 101000, elevation: 1200, movingTime: 15000 });
    await ride(a.id, "2024-06-05", { distance: 10000, movingTime: 2900, type: "Run" }); // 3.45 m/s: under 5:00/km
    await ride(b.id, "2024-06-03", { distance: 60000, elevation: 999, movingTime: 14399 });
    await ride(b.id, "2024-06-04", { distance: 60000, elevation: 300, movingTime: 3000 });
    await ride(b.id, "2024-06-05", { distance: 10000, movingTime: 3100, type: "Run" }); // 5:10/km
    expect(await progress(dist, a.id)).toMatchObject({ completed: true, value: 101000 });
    expect(await progress(elev, a.id)).toMatchObject({ completed: true, value: 1200 });
    expect(await progress(time, a.id)).toMatchObject({ completed: true, value: 15000 });
    expect(await progress(pace, a.id)).toMatchObject({ completed: true });
    expect(await progress(dist, b.id)).toMatchObject({ completed: false, value: 60000 });
    expect(await progress(elev, b.id)).toMatchObject({ completed: false, value: 999 });
    expect(await progress(time, b.id)).toMatchObject({ completed: false, value: 14399 });
    expect(await progress(pace, b.id)).toMatchObject({ completed: false });
    const board = await server.api("GET", `/v3/challenges/${dist}/leaderboard`, { token: a.token });
    expect(board.body[0]).toMatchObject({ rank: 1, athlete_id: a.id, total_dimension: 101000, activity_id: best, activity_count: 3, success_count: 1 });
  });

  it("segment: an effort on the segment inside the window completes it", async () => {
    const id = await challenge({ name: "Climb the Muur", type: "SegmentChallenge", dimension: "time", goal: "0", segment: "4242" });
    const a = await server.athlete();
    const b = await server.athlete();
    const c = await server.athlete();
    for (const x of [a, b, c]) await join(x, id);
    await effort(a.id, 4242, "2024-06-15", 300);
    await effort(a.id, 4242, "2024-06-16", 280);
    await effort(b.id, 4242, "2024-07-15", 250); // outside the window
    await effort(c.id, 777, "2024-06-15", 250); // another segment
    expect(await progress(id, a.id)).toMatchObject({ completed: true, value: 280 });
    expect(await progress(id, b.id)).toMatchObject({ completed: false });
    expect(await progress(id, c.id)).toMatchObject({ completed: false });
    expect(await detail(a, id)).toMatchObject({ participant_count: 3, completed_count: 1, attempt_count: 2, leaderboard_count: 1 });
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
      await ride(p.id, "2024-06-10", { distance: d });
      people.push(p);
    }
    const idle = await server.athlete();
    await join(idle, id);
    const me = people[6]; // 7th, 30 km
    const res = await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: me.token, query: { per_page: 3 } });
    expect(res.status).toBe(200);
    expect(res.body.map((e: { athlete_id: number }) => e.athlete_id)).toEqual([0, 1, 2, 4, 5, 6, 7, 8].map((i) => people[i].id));
    expect(res.body.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 3, 5, 6, 7, 8, 9]);
    expect(res.body[0]).toMatchObject({ overall_rank: 1, athlete_name: "Rider0 Board", total_dimension: 90000, activity_count: 1, success_count: 0 });
    expect(typeof res.body[0].athlete_profile).toBe("string");
    expect(typeof res.body[0].activity_id).toBe("number");
    // ties share a rank
    const top = await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: people[0].token });
    expect(top.body.map((e: { rank: number }) => e.rank)).toEqual([1, 2, 3, 3, 5, 6, 7, 8, 9]);
    // page 2: no context
    const second = await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: me.token, query: { per_page: 3, page: 2 } });
    expect(second.body.map((e: { athlete_id: number }) => e.athlete_id)).toEqual([3, 4, 5].map((i) => people[i].id));
    // someone without progress gets no context
    const idleView = await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: idle.token, query: { per_page: 2 } });
    expect(idleView.body).toHaveLength(2);
    expect((await detail(idle, id)).leaderboard_count).toBe(9);

    // friends: the people the requester follows, and the requester
    await cli(["follow", "--athlete", String(me.id), "--target", String(people[1].id)]);
    await cli(["follow", "--athlete", String(me.id), "--target", String(people[8].id)]);
    const friends = await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: me.token, query: { filter: "friends" } });
    expect(friends.body.map((e: { athlete_id: number; rank: number; overall_rank: number }) => [e.athlete_id, e.rank, e.overall_rank]))
      .toEqual([[people[1].id, 1, 2], [me.id, 2, 7], [people[8].id, 3, 9]]);

    // club: members of the club; club_id is required and must exist
    const owner = people[5];
    const club = await server.api("POST", "/v3/clubs", { token: owner.token, form: { name: "Board club" } });
    await server.api("POST", `/v3/clubs/${club.body.id}/join`, { token: people[2].token });
    const byClub = await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: owner.token, query: { filter: "club", club_id: club.body.id } });
    expect(byClub.body.map((e: { athlete_id: number; rank: number }) => [e.athlete_id, e.rank])).toEqual([[people[2].id, 1], [owner.id, 2]]);
    const missing = await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: me.token, query: { filter: "club" } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ resource: "Challenge", field: "club_id", code: "missing" }]);
    expect((await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: me.token, query: { filter: "club", club_id: 999999 } })).status).toBe(404);
    expect((await server.api("GET", `/v3/challenges/${id}/leaderboard`, { token: me.token, query: { filter: "enemies" } })).status).toBe(400);
   }, 120_000);
});

describe("replay", () => {
  it("rebuilds every read model identically (cli verify)", async () => {
    const { differences } = await server.platform.projections.verify();
    expect(differences).toEqual([]);
  });
});
