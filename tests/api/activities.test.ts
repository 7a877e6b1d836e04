import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { recordActivity } from "./activities-fixtures.ts";

let server: TestServer;
let owner: TestAthlete;
let other: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  owner = await server.athlete({ firstname: "Ada" });
  other = await server.athlete({ firstname: "Eddy" });
});
afterAll(() => server.close());

const create = (token: string, form: Record<string, string | number>) =>
  server.api("POST", "/v3/activities", { token, form });
const MANUAL = {
  name: "Evening ride",
  type: "ride",
  start_date_local: "2024-05-01T18:30:00+02:00",
  elapsed_time: 3600,
  distance: 30000,
  description: "Windy",
};

/** Every field of the summary representation, in value or type. */
function expectSummaryShape(body: Record<string, unknown>) {
  const keys = [
    "id",
    "resource_state",
    "external_id",
    "upload_id",
    "athlete",
    "name",
    "distance",
    "moving_time",
    "elapsed_time",
    "total_elevation_gain",
    "type",
    "workout_type",
    "start_date",
    "start_date_local",
    "timezone",
    "start_latlng",
    "end_latlng",
    "location_city",
    "location_state",
    "location_country",
    "achievement_count",
    "pr_count",
    "kudos_count",
    "comment_count",
    "athlete_count",
    "photo_count",
    "total_photo_count",
    "map",
    "trainer",
    "commute",
    "manual",
    "private",
    "flagged",
    "gear_id",
    "average_speed",
    "max_speed",
    "average_cadence",
    "average_temp",
    "average_watts",
    "max_watts",
    "weighted_average_watts",
    "kilojoules",
    "device_watts",
    "has_heartrate",
    "average_heartrate",
    "max_heartrate",
    "elev_high",
    "elev_low",
    "suffer_score",
    "has_kudoed",
    // Issue #19: Strava's newer fields.
    "sport_type",
    "upload_id_str",
    "hide_from_home",
    // Issue 31: what Strava's answers carry besides its model's SummaryActivity.
    "utc_offset",
    "start_latitude",
    "start_longitude",
    "visibility",
  ];
  expect(Object.keys(body).sort()).toEqual(keys.sort());
}
const DETAIL_ONLY = [
  "calories",
  "description",
  "gear",
  "segment_efforts",
  "splits_metric",
  "splits_standard",
  "laps",
  "best_efforts",
  "embed_token",
  "photos",
  "elevation_from_gps",
];

describe("POST /v3/activities", () => {
  it("creates a manual activity: 201 with the detailed representation, field by field", async () => {
    const res = await create(owner.token, MANUAL);
    expect(res.status).toBe(201);
    const b = res.body;
    expect(typeof b.id).toBe("number");
    expect(b).toEqual({
      id: b.id,
      resource_state: 3,
      external_id: "",
      upload_id: null,
      athlete: { id: owner.id, resource_state: 1 },
      name: "Evening ride",
      distance: 30000,
      moving_time: 3600,
      elapsed_time: 3600,
      total_elevation_gain: 0,
      type: "Ride",
      workout_type: null,
      start_date: "2024-05-01T16:30:00Z",
      start_date_local: "2024-05-01T18:30:00Z",
      timezone: "(GMT+02:00) UTC+02:00",
      utc_offset: 7200,
      start_latitude: null,
      start_longitude: null,
      visibility: "everyone",
      start_latlng: null,
      end_latlng: null,
      location_city: "",
      location_state: "",
      location_country: "",
      achievement_count: 0,
      pr_count: 0,
      kudos_count: 0,
      comment_count: 0,
      athlete_count: 1,
      photo_count: 0,
      total_photo_count: 0,
      map: { id: `a${b.id}`, polyline: "", summary_polyline: "", resource_state: 3 },
      trainer: false,
      commute: false,
      manual: true,
      private: false,
      flagged: false,
      gear_id: "",
      average_speed: 30000 / 3600,
      max_speed: 0,
      average_cadence: null,
      average_temp: null,
      average_watts: null,
      max_watts: null,
      weighted_average_watts: null,
      kilojoules: null,
      device_watts: null,
      has_heartrate: false,
      average_heartrate: null,
      max_heartrate: null,
      elev_high: null,
      elev_low: null,
      suffer_score: null,
      has_kudoed: false,
      description: "Windy",
      calories: null,
      segment_efforts: [],
      splits_metric: [],
      splits_standard: [],
      laps: [],
      best_efforts: [],
      gear: null,
      photos: { primary: null, count: 0 },
      device_name: "",
      embed_token: b.embed_token,
      elevation_from_gps: null,
      sport_type: "Ride",
      upload_id_str: null,
      hide_from_home: false,
    });
    expect(b.embed_token).toMatch(/^[0-9a-f]{40}$/);
    // Strava's dialect: null where there is no value, as Strava's answers have it.
    const strava = await server.api("GET", `/api/v3/activities/${b.id}`, { token: owner.token });
    expect(strava.body).toMatchObject({
      external_id: null,
      gear_id: null,
      device_name: null,
      location_city: null,
      map: { polyline: null, summary_polyline: null },
    });
  });

  it("takes private, trainer and commute flags and a local time without offset as UTC", async () => {
    const res = await create(owner.token, {
      name: "Rollers",
      type: "VirtualRide",
      start_date_local: "2024-01-02T07:00:00Z",
      elapsed_time: 1200,
      private: 1,
      trainer: 1,
      commute: 1,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      private: true,
      trainer: true,
      commute: true,
      type: "VirtualRide",
      distance: 0,
      start_date: "2024-01-02T07:00:00Z",
      start_date_local: "2024-01-02T07:00:00Z",
      timezone: "(GMT+00:00) UTC",
    });
  });

  it("refuses a token without write: 401 with the missing permission", async () => {
    const reader = await server.athlete({ permissions: ["read"] });
    const res = await create(reader.token, MANUAL);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      message: "Authorization Error",
      errors: [{ resource: "AccessToken", field: "write_permission", code: "missing" }],
    });
  });

  it("refuses a request without a token: 401", async () => {
    const res = await server.api("POST", "/v3/activities", { form: MANUAL });
    expect(res.status).toBe(401);
  });

  it.each([
    ["unknown type", { type: "Crosscountryskiing" }, "type", "invalid"],
    ["non-ISO date", { start_date_local: "01/05/2024 18:30" }, "start_date_local", "invalid"],
    ["impossible date", { start_date_local: "2024-02-30T10:00:00Z" }, "start_date_local", "invalid"],
    ["negative elapsed_time", { elapsed_time: -5 }, "elapsed_time", "invalid"],
    ["fractional elapsed_time", { elapsed_time: "12.5" }, "elapsed_time", "invalid"],
    ["name over 255 characters", { name: "x".repeat(256) }, "name", "invalid"],
    ["description over 10000 characters", { description: "x".repeat(10001) }, "description", "invalid"],
    ["negative distance", { distance: -1 }, "distance", "invalid"],
    ["missing name", { name: "" }, "name", "missing"],
    ["bad private flag", { private: "maybe" }, "private", "invalid"],
  ])("refuses %s: 400 with the documented body", async (_label, change, field, code) => {
    const res = await create(owner.token, { ...MANUAL, ...change });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: "Bad Request", errors: [{ resource: "Activity", field, code }] });
  });

  it("refuses a body without the required fields, one triple per field", async () => {
    const res = await create(owner.token, {});
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      "elapsed_time",
      "name",
      "start_date_local",
      "type",
    ]);
    expect(res.body.errors.every((e: { code: string }) => e.code === "missing")).toBe(true);
  });
});

describe("GET /v3/activities/:id", () => {
  it("answers a recorded activity in full detail to its owner", async () => {
    const rec = await recordActivity(server, owner.id);
    const res = await server.api("GET", `/v3/activities/${rec.activityId}`, {
      token: owner.token,
      query: { include_all_efforts: true },
    });
    expect(res.status).toBe(200);
    const b = res.body;
    expect(b).toMatchObject({
      id: rec.activityId,
      resource_state: 3,
      external_id: "run.fit",
      upload_id: null,
      name: "Recorded run",
      type: "Run",
      distance: 2100,
      moving_time: 600,
      elapsed_time: 600,
      total_elevation_gain: 12.5,
      elev_high: 25,
      elev_low: 15,
      start_latlng: [51.50123, -0.14212],
      end_latlng: [51.51323, -0.13012],
      manual: false,
      workout_type: 0,
      start_latitude: 51.50123,
      start_longitude: -0.14212,
      visibility: "everyone",
      average_cadence: 85,
      average_temp: 18,
      average_watts: 199.5,
      max_watts: 249,
      weighted_average_watts: 201,
      kilojoules: 119.7,
      device_watts: true,
      has_heartrate: true,
      average_heartrate: 130,
      max_heartrate: 160,
      calories: 150,
      suffer_score: null,
      device_name: "Garmin Forerunner 945",
      timezone: "(GMT+01:00) Europe/Paris",
      map: {
        id: `a${rec.activityId}`,
        polyline: "_p~iF~ps|U_ulLnnqC",
        summary_polyline: "_p~iF~ps|U",
        resource_state: 3,
      },
      segment_efforts: [],
    });
    expect(b.laps).toEqual([
      {
        id: rec.activityId * 10000 + 1,
        resource_state: 2,
        name: "Lap 1",
        activity: { id: rec.activityId, resource_state: 1 },
        athlete: { id: owner.id, resource_state: 1 },
        elapsed_time: 300,
        moving_time: 300,
        start_date: "2024-03-10T09:00:00Z",
        start_date_local: "2024-03-10T10:00:00Z",
        distance: 1046.5,
        start_index: 0,
        end_index: 299,
        total_elevation_gain: 6,
        average_speed: 3.49,
        max_speed: 3.5,
        average_cadence: 85,
        average_watts: 199,
        average_heartrate: 115,
        max_heartrate: 129,
        lap_index: 1,
        split: 1,
        pace_zone: 0,
        sport_type: "Run",
      },
      expect.objectContaining({
        lap_index: 2,
        split: 2,
        start_date_local: "2024-03-10T10:05:00Z",
        average_cadence: null,
      }),
    ]);
    expect(b.splits_metric).toEqual([
      {
        distance: 1000,
        elapsed_time: 286,
        elevation_difference: 1.2,
        moving_time: 286,
        split: 1,
        average_speed: 3.5,
        average_heartrate: 114,
        pace_zone: 0,
      },
      {
        distance: 1000,
        elapsed_time: 286,
        elevation_difference: null,
        moving_time: 286,
        split: 2,
        average_speed: 3.5,
        pace_zone: 0,
      },
    ]);
    expect(b.splits_standard).toHaveLength(1);
    expect(b.best_efforts[0]).toEqual({
      id: rec.activityId * 100 + 1,
      resource_state: 2,
      name: "400m",
      segment: null,
      activity: { id: rec.activityId },
      athlete: { id: owner.id },
      activity_id: rec.activityId,
      is_kom: false,
      kom_rank: null,
      pr_rank: null,
      elapsed_time: 114,
      moving_time: 114,
      start_date: "2024-03-10T09:00:10Z",
      start_date_local: "2024-03-10T10:00:10Z",
      distance: 400,
      start_index: 10,
      end_index: 124,
      hidden: false,
      achievements: [{ type_id: 3, type: "pr", rank: 1 }],
      // Recorded without the averages (events before issue #19): Strava's fields, empty.
      average_cadence: null,
      average_watts: null,
      device_watts: false,
      average_heartrate: null,
      max_heartrate: null,
    });
    expect(b.best_efforts[1].achievements).toEqual([]);
  });

  it("shows suffer_score only on a premium athlete's activity", async () => {
    const premium = await server.athlete({ premium: true });
    const rec = await recordActivity(server, premium.id);
    const res = await server.api("GET", `/v3/activities/${rec.activityId}`, { token: premium.token });
    expect(res.body.suffer_score).toBe(12);
  });

  it("rounds start/end locations to 2 decimals for the owner without view_private", async () => {
    const rec = await recordActivity(server, owner.id);
    const token = await server.token(owner.id, owner.applicationId, ["read"]);
    const res = await server.api("GET", `/v3/activities/${rec.activityId}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.start_latlng).toEqual([51.5, -0.14]);
    expect(res.body.end_latlng).toEqual([51.51, -0.13]);
  });

  it("refuses another athlete's activity (403) and hides another's private one (404)", async () => {
    const pub = await create(owner.token, MANUAL);
    const priv = await create(owner.token, { ...MANUAL, private: 1 });
    const forbidden = await server.api("GET", `/v3/activities/${pub.body.id}`, { token: other.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({
      message: "Forbidden",
      errors: [{ resource: "Activity", field: "athlete", code: "forbidden" }],
    });
    const hidden = await server.api("GET", `/v3/activities/${priv.body.id}`, { token: other.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({
      message: "Record Not Found",
      errors: [{ resource: "Activity", field: "id", code: "invalid" }],
    });
  });

  it("hides the owner's private activity from the owner's token without view_private", async () => {
    const priv = await create(owner.token, { ...MANUAL, private: 1 });
    const token = await server.token(owner.id, owner.applicationId, ["read"]);
    const res = await server.api("GET", `/v3/activities/${priv.body.id}`, { token });
    expect(res.status).toBe(404);
  });

  it("answers 404 for an unknown id and 400 for a malformed one", async () => {
    expect((await server.api("GET", "/v3/activities/999999999", { token: owner.token })).status).toBe(404);
    const bad = await server.api("GET", "/v3/activities/abc", { token: owner.token });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      message: "Bad Request",
      errors: [{ resource: "Activity", field: "id", code: "invalid" }],
    });
    const flag = await server.api("GET", "/v3/activities/1", {
      token: owner.token,
      query: { include_all_efforts: "perhaps" },
    });
    expect(flag.status).toBe(400);
  });
});

describe("PUT /v3/activities/:id", () => {
  it("updates the given fields and answers the detailed activity", async () => {
    const created = await create(owner.token, MANUAL);
    const res = await server.api("PUT", `/v3/activities/${created.body.id}`, {
      token: owner.token,
      form: { name: "Renamed", type: "run", private: "true", commute: "true", trainer: "false", description: "Better" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: created.body.id,
      resource_state: 3,
      name: "Renamed",
      type: "Run",
      private: true,
      commute: true,
      trainer: false,
      description: "Better",
      distance: 30000,
    });
    const again = await server.api("GET", `/v3/activities/${created.body.id}`, { token: owner.token });
    expect(again.body.name).toBe("Renamed");
  });

  it("sets gear from the athlete's gear and clears it with 'none'", async () => {
    const { addGear } = await import("../../server/gear/commands.ts");
    const bike = await addGear(server.platform, { athleteId: owner.id, kind: "bike", name: "Steel", primary: true });
    const created = await create(owner.token, MANUAL);
    const set = await server.api("PUT", `/v3/activities/${created.body.id}`, {
      token: owner.token,
      form: { gear_id: bike },
    });
    expect(set.status).toBe(200);
    expect(set.body.gear_id).toBe(bike);
    expect(set.body.gear).toEqual({
      id: bike,
      primary: true,
      name: "Steel",
      nickname: "",
      resource_state: 2,
      retired: false,
      distance: 30000,
      converted_distance: 30,
      reminder_distance: null,
      reminder_reached: false,
    });
    const cleared = await server.api("PUT", `/v3/activities/${created.body.id}`, {
      token: owner.token,
      form: { gear_id: "none" },
    });
    // A string without a value on /v3 (the spec types gear_id string), null in Strava's dialect.
    expect(cleared.body.gear_id).toBe("");
    expect(cleared.body.gear).toBeNull();
    const strava = await server.api("GET", `/api/v3/activities/${created.body.id}`, { token: owner.token });
    expect(strava.body.gear_id).toBeNull();
  });

  it("refuses gear of another athlete or unknown gear: 400", async () => {
    const { addGear } = await import("../../server/gear/commands.ts");
    const theirs = await addGear(server.platform, { athleteId: other.id, kind: "shoe", name: "Not yours" });
    const created = await create(owner.token, MANUAL);
    for (const gear_id of [theirs, "b999999"]) {
      const res = await server.api("PUT", `/v3/activities/${created.body.id}`, {
        token: owner.token,
        form: { gear_id },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: "Bad Request",
        errors: [{ resource: "Gear", field: "id", code: "invalid" }],
      });
    }
  });

  it("refuses bad input, another athlete, and a token without write", async () => {
    const created = await create(owner.token, MANUAL);
    const path = `/v3/activities/${created.body.id}`;
    const badType = await server.api("PUT", path, { token: owner.token, form: { type: "Teleport" } });
    expect(badType.status).toBe(400);
    expect(badType.body.errors).toEqual([{ resource: "Activity", field: "type", code: "invalid" }]);
    expect((await server.api("PUT", path, { token: owner.token, form: { name: "y".repeat(300) } })).status).toBe(400);
    const wrong = await server.api("PUT", path, { token: other.token, form: { name: "Mine now" } });
    expect(wrong.status).toBe(403);
    const reader = await server.token(owner.id, owner.applicationId, ["read", "view_private"]);
    const noWrite = await server.api("PUT", path, { token: reader, form: { name: "x" } });
    expect(noWrite.status).toBe(401);
    expect(noWrite.body.errors).toEqual([{ resource: "AccessToken", field: "write_permission", code: "missing" }]);
    expect((await server.api("GET", path, { token: owner.token })).body.name).toBe("Evening ride");
  });
});

describe("DELETE /v3/activities/:id", () => {
  it("deletes the owner's activity (204); it is then gone", async () => {
    const created = await create(owner.token, MANUAL);
    const path = `/v3/activities/${created.body.id}`;
    expect((await server.api("DELETE", path, { token: other.token })).status).toBe(403);
    const res = await server.api("DELETE", path, { token: owner.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect((await server.api("GET", path, { token: owner.token })).status).toBe(404);
    expect((await server.api("DELETE", path, { token: owner.token })).status).toBe(404);
  });
});

describe("GET /v3/athlete/activities", () => {
  let lister: TestAthlete;
  const ids: number[] = [];
  beforeAll(async () => {
    lister = await server.athlete();
    for (const [i, day] of ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"].entries()) {
      const res = await create(lister.token, {
        ...MANUAL,
        name: `A${i}`,
        start_date_local: `${day}T10:00:00Z`,
        private: i === 3 ? 1 : 0,
      });
      ids.push(res.body.id);
    }
  });
  const epoch = (day: string) => Date.parse(`${day}T10:00:00Z`) / 1000;

  it("answers summary activities newest first, detail-only attributes absent", async () => {
    const res = await server.api("GET", "/v3/athlete/activities", { token: lister.token });
    expect(res.status).toBe(200);
    expect(res.body.map((a: { id: number }) => a.id)).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    const first = res.body[1];
    expectSummaryShape(first);
    for (const key of DETAIL_ONLY) expect(first).not.toHaveProperty(key);
    expect(first).toMatchObject({
      resource_state: 2,
      name: "A2",
      map: { id: `a${ids[2]}`, summary_polyline: "", resource_state: 2 },
    });
    expect(first.map).not.toHaveProperty("polyline");
    // Strava's dialect: the same summary with device_name, and null where there is no value, as Strava answers.
    const strava = await server.api("GET", "/api/v3/athlete/activities", { token: lister.token });
    expect(strava.body[1]).toMatchObject({ name: "A2", device_name: null, map: { summary_polyline: null } });
  });

  it("leaves private activities out without view_private", async () => {
    const token = await server.token(lister.id, lister.applicationId, ["read"]);
    const res = await server.api("GET", "/v3/athlete/activities", { token });
    expect(res.body.map((a: { id: number }) => a.id)).toEqual([ids[2], ids[1], ids[0]]);
  });

  it("before lists older activities newest first; after lists newer ones oldest first", async () => {
    const before = await server.api("GET", "/v3/athlete/activities", {
      token: lister.token,
      query: { before: epoch("2024-01-03") },
    });
    expect(before.body.map((a: { id: number }) => a.id)).toEqual([ids[1], ids[0]]);
    const after = await server.api("GET", "/v3/athlete/activities", {
      token: lister.token,
      query: { after: epoch("2024-01-01"), per_page: 2 },
    });
    expect(after.body.map((a: { id: number }) => a.id)).toEqual([ids[1], ids[2]]);
  });

  it("pages with page and per_page until an empty page", async () => {
    const p2 = await server.api("GET", "/v3/athlete/activities", {
      token: lister.token,
      query: { page: 2, per_page: 3 },
    });
    expect(p2.body.map((a: { id: number }) => a.id)).toEqual([ids[0]]);
    const p3 = await server.api("GET", "/v3/athlete/activities", {
      token: lister.token,
      query: { page: 3, per_page: 3 },
    });
    expect(p3.body).toEqual([]);
  });

  it("refuses before, after and page combined on /v3 (the spec), naming each one given", async () => {
    for (const query of [{ before: 1, after: 0 }, { before: 1, page: 1 }, { after: 1, page: 2 }]) {
      const res = await server.api("GET", "/v3/athlete/activities", { token: lister.token, query });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: "Bad Request",
        errors: Object.keys(query).map((field) => ({ resource: "Activity", field, code: "cannot be combined" })),
      });
    }
  });

  it("combines before, after and page on /api/v3 (Strava's dialect): the time window first, then the page within it", async () => {
    const list = async (query: Record<string, number>) => {
      const res = await server.api("GET", "/api/v3/athlete/activities", { token: lister.token, query });
      expect(res.status).toBe(200);
      return res.body.map((a: { id: number }) => a.id);
    };
    expect(await list({ before: epoch("2024-01-03"), page: 1, per_page: 1 })).toEqual([ids[1]]);
    expect(await list({ before: epoch("2024-01-03"), page: 2, per_page: 1 })).toEqual([ids[0]]);
    expect(await list({ before: epoch("2024-01-03"), page: 3, per_page: 1 })).toEqual([]);
    expect(await list({ after: epoch("2023-12-31"), page: 2, per_page: 2 })).toEqual([ids[2], ids[3]]);
    expect(await list({ before: epoch("2024-01-03"), after: epoch("2024-01-01"), page: 1 })).toEqual([ids[1]]);
  });

  it("rejects bad values: 400", async () => {
    const bad = await server.api("GET", "/v3/athlete/activities", {
      token: lister.token,
      query: { before: "yesterday" },
    });
    expect(bad.body).toEqual({
      message: "Bad Request",
      errors: [{ resource: "Activity", field: "before", code: "invalid" }],
    });
    expect(
      (await server.api("GET", "/v3/athlete/activities", { token: lister.token, query: { per_page: 201 } })).status,
    ).toBe(400);
  });
});
