// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityStream } from "../../events/activity/events.ts";
import { segmentEffortsMatched } from "../../events/segment/events.ts";
import { followCommands } from "../../server/athletes/cli.ts";
import { segmentCommands } from "../../server/segments/cli.ts";
import { nextId } from "../../server/ids.ts";
import { effortIdFor } from "../../server/segments/efforts.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { recordActivity } from "./activities-fixtures.ts";

let server: TestServer;
let owner: TestAthlete;
let segmentId: number;

const today = new Date().toISOString().slice(0, 10);

/** Records one effort on a segment for an athlete, as the upload job's processor does (the event). */
async function effort(
  segment: number,
  athleteId: number,
  elapsed: number,
  options: { date?: string; private?: boolean } = {},
) {
  const activityId = await nextId(server.platform.db, "activity");
  const date = options.date ?? `${today}T08:00:00Z`;
  const id = effortIdFor(activityId, 0);
  await server.platform.store.append(activityStream(activityId), "any", [segmentEffortsMatched.create({
    activityId,
    athleteId,
    activityType: "Run",
    visibility: options.private ? "only_me" : "everyone",
    prCount: 0,
    achievementCount: 0,
    efforts: [{
      effortId: id,
      segmentId: segment,
      name: "seg",
      startIndex: 0,
      endIndex: 10,
      startDate: date,
      startDateLocal: date,
      elapsedTime: elapsed,
      movingTime: elapsed,
      distance: 1000,
      averageHeartrate: null,
      maxHeartrate: null,
      averageWatts: null,
      averageCadence: null,
      komRank: null,
      prRank: null,
      achievements: [],
      hidden: true,
    }],
  })]);
  return { activityId, effortId: BigInt(id) };
}

async function newSegment(name: string, lat = 51.5, lng = -0.14) {
  const result = await segmentCommands[0].run(server.platform, {
    name,
    "activity-type": "Run",
    points: `${lat},${lng},10;${lat + 0.005},${lng + 0.005},40`,
  }, { progress() {}, interactive: false }) as { id: number };
  return result.id;
}

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.athlete({ firstname: "Owner", lastname: "Runner" });
}, 60_000);
afterAll(() => server.close());

describe("POST /v3/segments and GET /v3/segments/:id", () => {
  it("creates a segment from a stretch of the athlete's own activity with derived facts", async () => {
    const activity = await recordActivity(server, owner.id);
    const res = await server.api("POST", "/v3/segments", {
      token: owner.token,
      form: { name: "Park climb", activity_id: activity.activityId, start_index: 100, end_index: 400 },
    });
    expect(res.status).toBe(201);
    segmentId = res.body.id;
    expect(res.body).toMatchObject({
      resource_state: 3,
      name: "Park climb",
      activity_type: "Run",
      private: false,
      hazardous: false,
      starred: false,
      // The source activity's own effort over the stretch is matched at creation (issue 33 item 10).
      effort_count: 1,
      athlete_count: 1,
      star_count: 0,
      start_latlng: [51.50123 + 100 * 0.00002, -0.14212 + 100 * 0.00002],
    });
    expect(res.body.distance).toBeGreaterThan(700);
    expect(res.body.climb_category).toBeGreaterThanOrEqual(0);
    expect(typeof res.body.map.polyline).toBe("string");
    const got = await server.api("GET", `/v3/segments/${segmentId}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(segmentId);
  });

  it("refuses another athlete's activity, bad indexes, missing fields and a read-only token", async () => {
    const activity = await recordActivity(server, owner.id);
    const other = await server.athlete();
    const form = { name: "x", activity_id: activity.activityId, start_index: 0, end_index: 10 };
    expect((await server.api("POST", "/v3/segments", { token: other.token, form })).status).toBe(404);
    const bad = await server.api("POST", "/v3/segments", { token: owner.token, form: { ...form, end_index: 99999 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ resource: "Segment", field: "end_index", code: "invalid" }]);
    const missing = await server.api("POST", "/v3/segments", {
      token: owner.token,
      form: { activity_id: activity.activityId },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((e: any) => e.field).sort()).toEqual(["end_index", "name", "start_index"]);
    const reader = await server.athlete({ permissions: ["read"] });
    const denied = await server.api("POST", "/v3/segments", { token: reader.token, form });
    expect(denied.status).toBe(401);
  });

  it("answers 404 for an unknown segment and 400 for a bad id", async () => {
    expect((await server.api("GET", "/v3/segments/999999", { token: owner.token })).status).toBe(404);
    const bad = await server.api("GET", "/v3/segments/abc", { token: owner.token });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ resource: "Segment", field: "id" });
  });
});

describe("stars", () => {
  it("stars and unstars, keeping star_count, and lists starred segments with extras", async () => {
    const fan = await server.athlete();
    const put = await server.api("PUT", `/v3/segments/${segmentId}/starred`, {
      token: fan.token,
      form: { starred: true },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: segmentId, starred: true, star_count: 1 });
    // Starring twice changes nothing.
    const again = await server.api("PUT", `/v3/segments/${segmentId}/starred`, {
      token: fan.token,
      form: { starred: true },
    });
    expect(again.body.star_count).toBe(1);
    const mine = await server.api("GET", "/v3/segments/starred", { token: fan.token });
    expect(mine.body.map((s: any) => s.id)).toEqual([segmentId]);
    expect(mine.body[0].resource_state).toBe(2);
    await effort(segmentId, fan.id, 333);
    const theirs = await server.api("GET", `/v3/athletes/${fan.id}/segments/starred`, { token: fan.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body[0]).toMatchObject({
      id: segmentId,
      starred: true,
      pr_time: 333,
      start_latitude: expect.any(Number),
      end_longitude: expect.any(Number),
      // Not the KOM: the owner's effort from the source activity (300 s) is faster.
      athlete_pr_effort: { elapsed_time: 333, distance: 1000, is_kom: false },
    });
    expect(typeof theirs.body[0].starred_date).toBe("string");
    const off = await server.api("PUT", `/v3/segments/${segmentId}/starred`, {
      token: fan.token,
      form: { starred: false },
    });
    expect(off.body).toMatchObject({ starred: false, star_count: 0 });
    expect((await server.api("GET", "/v3/segments/starred", { token: fan.token })).body).toEqual([]);
  });

  it("athlete_pr_effort: the requester's own PR on detail and starred lists, in the spec's and Strava's published fields, through the privacy engine", async () => {
    const climb = await newSegment("PR climb", 51.6, -0.2);
    const ada = await server.athlete({ firstname: "Ada" });
    const adaRead = await server.token(ada.id, ada.applicationId, ["read"]);
    const bob = await server.athlete({ firstname: "Bob" });
    const cy = await server.athlete({ firstname: "Cy" });
    const slow = await effort(climb, ada.id, 400, { date: "2026-01-02T08:00:00Z" });
    const hidden = await effort(climb, ada.id, 350, { date: "2026-01-03T08:00:00Z", private: true });
    const best = await effort(climb, ada.id, 380, { date: "2026-01-04T08:00:00Z" });
    await effort(climb, bob.id, 300, { date: "2026-01-05T08:00:00Z" });
    expect(slow.effortId).not.toBe(best.effortId);

    // Without view_private the private effort is not Ada's to show: her PR is the 380 s public one, of 2 efforts.
    const detail = await server.api("GET", `/v3/segments/${climb}`, { token: adaRead });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.athlete_pr_effort).toEqual({
      id: best.effortId,
      activity_id: best.activityId,
      elapsed_time: 380,
      distance: 1000,
      start_date: "2026-01-04T08:00:00Z",
      start_date_local: "2026-01-04T08:00:00Z",
      is_kom: false,
      pr_activity_id: best.activityId,
      pr_elapsed_time: 380,
      pr_date: "2026-01-04T08:00:00Z",
      effort_count: 2,
    });
    expect(detail.body.athlete_segment_stats).toEqual({
      // A date, as Strava sends it ("2011-09-25"; stravalib's AthleteSegmentStats.pr_date is a date).
      pr_elapsed_time: 380,
      pr_date: "2026-01-04",
      pr_activity_id: best.activityId,
      effort_count: 2,
    });
    // The spec's fields (id, elapsed_time, distance, start_date, start_date_local, is_kom) and Strava's
    // published SummaryPRSegmentEffort (pr_activity_id, pr_elapsed_time, pr_date, effort_count) are all there.
    for (
      const key of [
        "id",
        "elapsed_time",
        "distance",
        "start_date",
        "start_date_local",
        "is_kom",
        "pr_activity_id",
        "pr_elapsed_time",
        "pr_date",
        "effort_count",
      ]
    ) {
      expect(detail.body.athlete_pr_effort, key).toHaveProperty(key);
    }
    // With view_private Ada's private effort is hers to see: 350 s of 3.
    const full = await server.api("GET", `/v3/segments/${climb}`, { token: ada.token });
    expect(full.body.athlete_pr_effort).toMatchObject({
      id: hidden.effortId,
      elapsed_time: 350,
      effort_count: 3,
      is_kom: false,
    });
    // Bob sees his own PR (the KOM), never Ada's; Cy, without efforts, none.
    const bobs = await server.api("GET", `/v3/segments/${climb}`, { token: bob.token });
    expect(bobs.body.athlete_pr_effort).toMatchObject({ elapsed_time: 300, is_kom: true, effort_count: 1 });
    const none = await server.api("GET", `/v3/segments/${climb}`, { token: cy.token });
    expect(none.body.athlete_pr_effort).toBeNull();
    expect(none.body.athlete_segment_stats).toEqual({
      pr_elapsed_time: null,
      pr_date: null,
      pr_activity_id: null,
      effort_count: 0,
    });

    // Starred lists: /v3/segments/starred and another athlete's list carry the requester's PR.
    expect(
      (await server.api("PUT", `/v3/segments/${climb}/starred`, { token: ada.token, form: { starred: true } })).status,
    ).toBe(200);
    expect(
      (await server.api("PUT", `/v3/segments/${climb}/starred`, { token: bob.token, form: { starred: true } })).status,
    ).toBe(200);
    const mine = await server.api("GET", "/v3/segments/starred", { token: adaRead });
    expect(mine.body[0]).toMatchObject({
      id: climb,
      pr_time: 380,
      athlete_pr_effort: { elapsed_time: 380, effort_count: 2 },
    });
    const bobsList = await server.api("GET", `/v3/athletes/${bob.id}/segments/starred`, { token: adaRead });
    expect(bobsList.body[0]).toMatchObject({
      id: climb,
      pr_time: 380,
      athlete_pr_effort: { id: best.effortId, elapsed_time: 380 },
    });
    const cysView = await server.api("GET", `/v3/athletes/${bob.id}/segments/starred`, { token: cy.token });
    expect(cysView.body[0]).toMatchObject({ id: climb, pr_time: null, athlete_pr_effort: null });
  });

  it("refuses a missing starred value and a read-only token", async () => {
    const res = await server.api("PUT", `/v3/segments/${segmentId}/starred`, { token: owner.token, form: {} });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ resource: "Segment", field: "starred", code: "missing" }]);
    const reader = await server.athlete({ permissions: ["read"] });
    expect(
      (await server.api("PUT", `/v3/segments/${segmentId}/starred`, { token: reader.token, form: { starred: true } }))
        .status,
    ).toBe(401);
    expect((await server.api("GET", "/v3/athletes/999999/segments/starred", { token: owner.token })).status).toBe(404);
  });
});

describe("GET /v3/segments/:id/leaderboard", () => {
  let board: number;
  const athletes: TestAthlete[] = [];

  beforeAll(async () => {
    board = await newSegment("Board", 48.1, 11.5);
    for (let k = 0; k < 20; k++) {
      const a = await server.athlete({
        firstname: `R${k}`,
        lastname: "Zed",
        sex: k % 2 === 0 ? "F" : "M",
        premium: k === 14,
        birthdate: `${new Date().getUTCFullYear() - (k < 10 ? 30 : 60)}-01-01`,
        weight: k < 10 ? 60 : 80,
      });
      athletes.push(a);
      await effort(board, a.id, 100 + k, { date: k >= 18 ? "2020-05-05T08:00:00Z" : undefined });
      if (k === 3) await effort(board, a.id, 150); // a slower second effort: one entry per athlete (their best)
    }
  }, 120_000);

  it("answers the spec's example: ranked 15th with defaults → the top 10 plus ranks 13 to 17", async () => {
    const res = await server.api("GET", `/v3/segments/${board}/leaderboard`, { token: athletes[14].token });
    expect(res.status).toBe(200);
    expect(res.body.entry_count).toBe(20);
    expect(res.body.entries.map((e: any) => e.rank)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 16]);
    expect(res.body.entries[0]).toMatchObject({
      athlete_name: "R0 Z.",
      elapsed_time: 100,
      moving_time: 100,
      athlete_id: athletes[0].id,
    });
    expect(typeof res.body.entries[0].effort_id).toBe("bigint");
    expect(res.body.entries[3].elapsed_time).toBe(103);
  });

  it("pages, and appends context rows without repeats", async () => {
    const page2 = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: athletes[14].token,
      query: { page: 2, per_page: 5, context_entries: 1 },
    });
    expect(page2.body.entries.map((e: any) => e.rank)).toEqual([5, 6, 7, 8, 9, 13, 14, 15]);
    const overlap = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: athletes[3].token,
      query: { context_entries: 15 },
    });
    expect(overlap.body.entries.map((e: any) => e.rank)).toEqual([...Array(19).keys()]);
    const none = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: owner.token,
      query: { page: 9 },
    });
    expect(none.body.entries).toEqual([]);
  });

  it("shares ranks between ties and skips the next (1, 1, 3)", async () => {
    const tie = await newSegment("Tie", 47.1, 10.5);
    await effort(tie, athletes[0].id, 50);
    await effort(tie, athletes[1].id, 50);
    await effort(tie, athletes[2].id, 60);
    const res = await server.api("GET", `/v3/segments/${tie}/leaderboard`, { token: owner.token });
    expect(res.body.entries.map((e: any) => e.rank)).toEqual([0, 0, 2]);
  });

  it("filters by gender", async () => {
    const res = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: owner.token,
      query: { gender: "F" },
    });
    expect(res.body.entry_count).toBe(10);
    expect(res.body.entries.every((e: any) => e.athlete_gender === "F")).toBe(true);
    expect(res.body.entries.map((e: any) => e.rank)).toEqual([...Array(10).keys()]);
  });

  it("filters by age_group and weight_class for premium athletes only", async () => {
    const premium = athletes[14];
    const young = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: premium.token,
      query: { age_group: "25_34" },
    });
    expect(young.status).toBe(200);
    expect(young.body.entry_count).toBe(10);
    const old = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: premium.token,
      query: { age_group: "55_64" },
    });
    expect(old.body.entry_count).toBe(10);
    const kg = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: premium.token,
      query: { weight_class: "75_84" },
    });
    expect(kg.body.entry_count).toBe(10);
    const lb = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: premium.token,
      query: { weight_class: "125_149" },
    });
    expect(lb.body.entry_count).toBe(10); // 60 kg ≈ 132 lb
    const refused = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: athletes[0].token,
      query: { age_group: "25_34" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      message: "Forbidden",
      errors: [{ resource: "Leaderboard", field: "age_group", code: "premium_required" }],
    });
    const refusedWeight = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: athletes[0].token,
      query: { weight_class: "75_84" },
    });
    expect(refusedWeight.status).toBe(403);
  });

  it("filters by following (the athletes followed, and oneself)", async () => {
    const me = athletes[5];
    for (const target of [athletes[7], athletes[12]]) {
      await followCommands[0].run(server.platform, { athlete: String(me.id), target: String(target.id) }, {
        progress() {},
        interactive: false,
      });
    }
    const res = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: me.token,
      query: { following: true },
    });
    expect(res.body.entry_count).toBe(3);
    expect(res.body.entries.map((e: any) => e.athlete_id)).toEqual([me.id, athletes[7].id, athletes[12].id]);
    expect(res.body.entries.map((e: any) => e.rank)).toEqual([0, 1, 2]);
  });

  it("filters by club_id for members; others get 400", async () => {
    const founder = athletes[2];
    const club = await server.api("POST", "/v3/clubs", { token: founder.token, form: { name: "Board club" } });
    expect(club.status).toBe(201);
    const joined = await server.api("POST", `/v3/clubs/${club.body.id}/join`, { token: athletes[9].token });
    expect(joined.status).toBe(200);
    const res = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: founder.token,
      query: { club_id: club.body.id },
    });
    expect(res.status).toBe(200);
    expect(res.body.entries.map((e: any) => e.athlete_id)).toEqual([founder.id, athletes[9].id]);
    const outsider = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
      token: athletes[4].token,
      query: { club_id: club.body.id },
    });
    expect(outsider.status).toBe(400);
    expect(outsider.body.errors).toEqual([{ resource: "Leaderboard", field: "club_id", code: "invalid" }]);
  });

  it("filters by date_range (older efforts drop out)", async () => {
    for (const range of ["this_year", "this_month", "this_week", "today"]) {
      const res = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
        token: owner.token,
        query: { date_range: range },
      });
      expect(res.status).toBe(200);
      expect(res.body.entry_count).toBe(18);
    }
  });

  it("refuses unknown filter values and context_entries over 15", async () => {
    for (
      const [field, value] of [
        ["gender", "X"],
        ["age_group", "30_40"],
        ["weight_class", "1_2"],
        ["date_range", "yesterday"],
        ["following", "maybe"],
        ["context_entries", "16"],
        ["per_page", "0"],
        ["page", "-1"],
        ["club_id", "abc"],
      ]
    ) {
      const res = await server.api("GET", `/v3/segments/${board}/leaderboard`, {
        token: athletes[14].token,
        query: { [field]: value },
      });
      expect(res.status, field).toBe(400);
      expect(res.body.errors, field).toEqual([{ resource: "Leaderboard", field, code: "invalid" }]);
    }
  });

  it("drops a private or deleted activity's efforts from the board and the counts", async () => {
    const seg = await newSegment("Privacy", 46.1, 9.5);
    const a = await server.athlete();
    const b = await server.athlete();
    const ride = await recordActivity(server, a.id);
    await server.platform.store.append(activityStream(ride.activityId), "any", [segmentEffortsMatched.create({
      activityId: ride.activityId,
      athleteId: a.id,
      activityType: "Run",
      visibility: "everyone",
      prCount: 1,
      achievementCount: 1,
      efforts: [{
        effortId: effortIdFor(ride.activityId, 0),
        segmentId: seg,
        name: "Privacy",
        startIndex: 0,
        endIndex: 10,
        startDate: ride.startDate,
        startDateLocal: ride.startDateLocal,
        elapsedTime: 40,
        movingTime: 40,
        distance: 900,
        averageHeartrate: null,
        maxHeartrate: null,
        averageWatts: null,
        averageCadence: null,
        komRank: 1,
        prRank: 1,
        achievements: [{ typeId: 2, type: "overall", rank: 1 }],
        hidden: false,
      }],
    })]);
    await effort(seg, b.id, 45);
    const counts = async () => (await server.api("GET", `/v3/segments/${seg}`, { token: b.token })).body;
    expect(await counts()).toMatchObject({ effort_count: 2, athlete_count: 2 });
    const hide = await server.api("PUT", `/v3/activities/${ride.activityId}`, {
      token: a.token,
      form: { private: true },
    });
    expect(hide.status).toBe(200);
    expect(await counts()).toMatchObject({ effort_count: 1, athlete_count: 1 });
    let res = await server.api("GET", `/v3/segments/${seg}/leaderboard`, { token: b.token });
    expect(res.body.entries.map((e: any) => e.athlete_id)).toEqual([b.id]);
    await server.api("PUT", `/v3/activities/${ride.activityId}`, { token: a.token, form: { private: false } });
    expect(await counts()).toMatchObject({ effort_count: 2, athlete_count: 2 });
    const del = await server.api("DELETE", `/v3/activities/${ride.activityId}`, { token: a.token });
    expect(del.status).toBeLessThan(300);
    expect(await counts()).toMatchObject({ effort_count: 1, athlete_count: 1 });
    res = await server.api("GET", `/v3/segments/${seg}/leaderboard`, { token: b.token });
    expect(res.body.entry_count).toBe(1);
    expect(res.body.entries[0]).toMatchObject({ athlete_id: b.id, rank: 0 });
  });
});

describe("GET /v3/segments/:id/all_efforts", () => {
  let seg: number;
  let runner: TestAthlete;
  beforeAll(async () => {
    seg = await newSegment("Efforts", 45.1, 8.5);
    runner = await server.athlete();
    await effort(seg, runner.id, 70, { date: "2024-03-02T07:00:00Z" });
    await effort(seg, runner.id, 60, { date: "2024-03-01T07:00:00Z" });
    await effort(seg, owner.id, 65, { date: "2024-03-03T07:00:00Z" });
    await effort(seg, owner.id, 55, { date: "2024-03-04T07:00:00Z", private: true });
  });

  it("lists every visible effort ascending by start_date_local", async () => {
    const res = await server.api("GET", `/v3/segments/${seg}/all_efforts`, { token: runner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((e: any) => e.elapsed_time)).toEqual([60, 70, 65]);
    expect(res.body[0]).toMatchObject({
      resource_state: 2,
      segment: { id: seg },
      start_date_local: "2024-03-01T07:00:00Z",
    });
    const own = await server.api("GET", `/v3/segments/${seg}/all_efforts`, { token: owner.token });
    expect(own.body.map((e: any) => e.elapsed_time)).toEqual([60, 70, 65, 55]);
  });

  it("filters by athlete and by an inclusive local date range; pages", async () => {
    const mine = await server.api("GET", `/v3/segments/${seg}/all_efforts`, {
      token: runner.token,
      query: { athlete_id: runner.id },
    });
    expect(mine.body.map((e: any) => e.elapsed_time)).toEqual([60, 70]);
    const range = await server.api("GET", `/v3/segments/${seg}/all_efforts`, {
      token: runner.token,
      query: { start_date_local: "2024-03-02T07:00:00Z", end_date_local: "2024-03-03T07:00:00Z" },
    });
    expect(range.body.map((e: any) => e.elapsed_time)).toEqual([70, 65]);
    const paged = await server.api("GET", `/v3/segments/${seg}/all_efforts`, {
      token: runner.token,
      query: { per_page: 1, page: 2 },
    });
    expect(paged.body.map((e: any) => e.elapsed_time)).toEqual([70]);
  });

  it("needs both dates together, and valid ones", async () => {
    const one = await server.api("GET", `/v3/segments/${seg}/all_efforts`, {
      token: runner.token,
      query: { start_date_local: "2024-03-02T07:00:00Z" },
    });
    expect(one.status).toBe(400);
    expect(one.body.errors).toEqual([{ resource: "Segment", field: "end_date_local", code: "missing" }]);
    const bad = await server.api("GET", `/v3/segments/${seg}/all_efforts`, {
      token: runner.token,
      query: { start_date_local: "soon", end_date_local: "later" },
    });
    expect(bad.status).toBe(400);
  });

  it("hides a private activity's effort by id from others", async () => {
    const res = await server.api("GET", `/v3/segments/${seg}/all_efforts`, { token: owner.token });
    const hidden = res.body.find((e: any) => e.elapsed_time === 55);
    expect((await server.api("GET", `/v3/segment_efforts/${hidden.id}`, { token: runner.token })).status).toBe(404);
    expect((await server.api("GET", `/v3/segment_efforts/${hidden.id}`, { token: owner.token })).status).toBe(200);
    expect((await server.api("GET", "/v3/segment_efforts/99999999999999999999", { token: owner.token })).status).toBe(
      400,
    );
  });
});

describe("GET /v3/segments/explore and /v3/segments/:id/streams", () => {
  it("finds up to 10 segments starting inside the bounds, by activity type and climb category", async () => {
    const ids: number[] = [];
    for (let k = 0; k < 12; k++) ids.push(await newSegment(`Explore ${k}`, 40 + k * 0.001, 3));
    const res = await server.api("GET", "/v3/segments/explore", {
      token: owner.token,
      query: { bounds: "39.99,2.99,40.02,3.01", activity_type: "running" },
    });
    expect(res.status).toBe(200);
    expect(res.body.segments).toHaveLength(10);
    const item = res.body.segments.find((s: any) => s.id === ids[0]);
    expect(item).toMatchObject({
      name: "Explore 0",
      start_latlng: [40, 3],
      elev_difference: 30,
      climb_category_desc: expect.any(String),
    });
    expect(typeof item.points).toBe("string");
    expect(typeof item.avg_grade).toBe("number");
    const riding = await server.api("GET", "/v3/segments/explore", {
      token: owner.token,
      query: { bounds: "39.99,2.99,40.02,3.01" },
    });
    expect(riding.body.segments).toEqual([]);
    const steep = await server.api("GET", "/v3/segments/explore", {
      token: owner.token,
      query: { bounds: "39.99,2.99,40.02,3.01", activity_type: "running", min_cat: 5 },
    });
    expect(steep.body.segments).toEqual([]);
  });

  it("refuses bounds out of range, inverted or malformed, and bad categories", async () => {
    for (const bounds of ["91,0,92,1", "10,-181,11,0", "11,0,10,1", "10,1,11,0", "10,0,11", "a,b,c,d", ""]) {
      const res = await server.api("GET", "/v3/segments/explore", { token: owner.token, query: { bounds } });
      expect(res.status, bounds).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ resource: "Segment", field: "bounds" });
    }
    for (const query of [{ activity_type: "swimming" }, { min_cat: 6 }, { min_cat: 3, max_cat: 1 }]) {
      const res = await server.api("GET", "/v3/segments/explore", {
        token: owner.token,
        query: { bounds: "10,0,11,1", ...query },
      });
      expect(res.status).toBe(400);
    }
  });

  it("answers a segment's distance, altitude and latlng streams, keyed or as an array", async () => {
    const keyed = await server.api("GET", `/v3/segments/${segmentId}/streams`, {
      token: owner.token,
      query: { keys: "latlng", key_by_type: true },
    });
    expect(keyed.status).toBe(200);
    expect(Object.keys(keyed.body)).toEqual(["distance", "altitude", "latlng"]);
    expect(keyed.body.distance).toMatchObject({ series_type: "distance", resolution: "high" });
    expect(keyed.body.distance.data[0]).toBe(0);
    expect(keyed.body.latlng.data).toHaveLength(keyed.body.distance.original_size);
    const list = await server.api("GET", `/v3/segments/${segmentId}/streams`, { token: owner.token });
    expect(list.body.map((s: any) => s.type)).toEqual(["distance", "altitude", "latlng"]);
  });
});
