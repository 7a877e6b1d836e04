import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, api } from "../helpers/http.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer, uploadUntilReady } from "../helpers/server.ts";

/**
 * Issue #42: the two dialects, each difference of docs/app-developers.md's table tried on every way
 * in. /v3 speaks the spec; /api/v3 and the API host (PUBLIC_API_URL, its unprefixed paths) speak
 * Strava's; /v3 on the API host is still the spec. The dialect is decided once, at the edge (the
 * mount and the API host's mapping), so every difference follows the path and nothing else.
 */
let server: TestServer;
let ann: TestAthlete;
let bob: TestAthlete;
/** The API host: the same server reached as 127.0.0.1 (PUBLIC_API_URL's host). */
let apiHost: Api;
const ids = { ride: 0, manual: 0, club: 0, segment: 0 };

beforeAll(async () => {
  server = await startTestServer({ publicApiUrl: "http://127.0.0.1", rateLimitShort: 1e8, rateLimitLong: 1e8 });
  apiHost = api(server.url.replace("localhost", "127.0.0.1"));
  ann = await server.athlete({ firstname: "Ann", lastname: "Tester", premium: true });
  bob = await server.athlete({ firstname: "Bob", lastname: "Rider" });
  const name = "fit/garmin-edge1000-cycling-power-hr.fit";
  ids.ride = await uploadUntilReady(server, ann.token, {
    bytes: readFileSync(deviceFile(name)),
    name: "ride.fit",
    dataType: "fit",
  });
  ids.manual = (await server.api("POST", "/v3/activities", {
    token: ann.token,
    form: { name: "Manual", type: "Run", start_date_local: "2024-01-05T08:00:00Z", elapsed_time: 1800 },
  })).body.id;
  for (let day = 1; day <= 4; day++) {
    await server.api("POST", "/v3/activities", {
      token: ann.token,
      form: { name: `Day ${day}`, type: "Run", start_date_local: `2024-01-0${day}T07:00:00Z`, elapsed_time: 600 },
    });
  }
  ids.club = (await server.api("POST", "/v3/clubs", { token: bob.token, form: { name: "Dialects" } })).body.id;
  await server.api("POST", `/v3/clubs/${ids.club}/join`, { token: ann.token });
  const points = (await server.api("GET", `/v3/activities/${ids.ride}/streams`, {
    token: ann.token,
    query: { keys: "time", key_by_type: true },
  })).body.time.original_size;
  ids.segment = (await server.api("POST", "/v3/segments", {
    token: ann.token,
    form: { name: "Dialect climb", activity_id: ids.ride, start_index: 100, end_index: Math.min(600, points - 1) },
  })).body.id;
}, 300_000);
afterAll(() => server?.close());

/** The same request on /v3, /api/v3, the API host without a prefix and the API host's /v3. */
async function everyWayIn(path: string, query: Record<string, string | number> = {}, token = ann.token) {
  const [spec, strava, host, hostSpec] = await Promise.all([
    server.api("GET", `/v3${path}`, { token, query }),
    server.api("GET", `/api/v3${path}`, { token, query }),
    apiHost("GET", path, { token, query }),
    apiHost("GET", `/v3${path}`, { token, query }),
  ]);
  // The API host's unprefixed paths are Strava's dialect, its /v3 the spec's: the same answers.
  expect(host.status).toBe(strava.status);
  expect(host.body).toEqual(strava.body);
  expect(hostSpec.status).toBe(spec.status);
  expect(hostSpec.body).toEqual(spec.body);
  return { spec, strava };
}

describe("each difference between /v3 (the spec) and /api/v3 and the API host (Strava's)", () => {
  it("a summary activity: device_name only in Strava's dialect (the spec's summary omits it)", async () => {
    const { spec, strava } = await everyWayIn("/athlete/activities", { per_page: 200 });
    const ride = (list: { id: number }[]) => list.find((a) => a.id === ids.ride) as Record<string, unknown>;
    expect(ride(spec.body)).not.toHaveProperty("device_name");
    expect(ride(strava.body).device_name).toEqual(expect.any(String));
    // The detailed activity carries it in both.
    const detail = await everyWayIn(`/activities/${ids.ride}`);
    expect(detail.spec.body.device_name).toBe(ride(strava.body).device_name);
    expect(detail.strava.body.device_name).toBe(ride(strava.body).device_name);
  });

  it("before, after and page: a 400 naming each on /v3; combined in Strava's dialect (the window, then the page)", async () => {
    const before = Date.parse("2024-01-04T12:00:00Z") / 1000;
    const { spec, strava } = await everyWayIn("/athlete/activities", { before, page: 2, per_page: 1 });
    expect(spec.status).toBe(400);
    expect(spec.body.errors).toEqual([
      { resource: "Activity", field: "before", code: "cannot be combined" },
      { resource: "Activity", field: "page", code: "cannot be combined" },
    ]);
    expect(strava.status).toBe(200);
    expect(strava.body.map((a: { name: string }) => a.name)).toEqual(["Day 3"]);
    // stravalib's date-filtered list: after and before with page=1.
    const after = Date.parse("2024-01-01T12:00:00Z") / 1000;
    const window = await everyWayIn("/athlete/activities", { after, before, page: 1, per_page: 200 });
    expect(window.spec.status).toBe(400);
    expect(window.spec.body.errors.map((e: { field: string }) => e.field)).toEqual(["before", "after", "page"]);
    expect(window.strava.body.map((a: { name: string }) => a.name)).toEqual(["Day 2", "Day 3", "Day 4"]);
  });

  it("a club's activities: summary activities with guid on /v3, Strava's ClubActivity in its dialect", async () => {
    const { spec, strava } = await everyWayIn(`/clubs/${ids.club}/activities`, {}, bob.token);
    const item = spec.body.find((a: { id: number }) => a.id === ids.ride);
    expect(item).toMatchObject({ id: ids.ride, resource_state: 2, guid: `activity-${ids.ride}` });
    expect(item.athlete).toMatchObject({ id: ann.id, firstname: "Ann", lastname: "Tester", friend: null });
    expect(Object.keys(strava.body[0]).sort()).toEqual([
      "athlete",
      "distance",
      "elapsed_time",
      "moving_time",
      "name",
      "resource_state",
      "sport_type",
      "total_elevation_gain",
      "type",
      "workout_type",
    ]);
    expect(strava.body.find((a: { name: string }) => a.name === item.name).athlete).toEqual({
      resource_state: 2,
      firstname: "Ann",
      lastname: "T.",
    });
    const both = await everyWayIn(`/clubs/${ids.club}/activities`, { before: 2e9, page: 1 }, bob.token);
    expect(both.spec.status).toBe(400);
    expect(both.strava.status).toBe(200);
  });

  it('a string without a value: "" on /v3 (the spec types it string), null in Strava\'s dialect', async () => {
    const { spec, strava } = await everyWayIn(`/activities/${ids.manual}`);
    for (const key of ["external_id", "gear_id", "device_name", "location_city"]) {
      expect([key, spec.body[key]]).toEqual([key, ""]);
      expect([key, strava.body[key]]).toEqual([key, null]);
    }
    expect(spec.body.map.summary_polyline).toBe("");
    expect(strava.body.map.summary_polyline).toBeNull();
  });

  it("a power zone: custom_zones only in Strava's dialect (the spec has it on heart-rate zones only)", async () => {
    const { spec, strava } = await everyWayIn(`/activities/${ids.ride}/zones`);
    const power = (list: { type: string }[]) => list.find((z) => z.type === "power") as Record<string, unknown>;
    expect(power(spec.body)).not.toHaveProperty("custom_zones");
    expect(power(strava.body).custom_zones).toBe(false);
    const heart = (list: { type: string }[]) => list.find((z) => z.type === "heartrate") as Record<string, unknown>;
    expect(heart(spec.body).custom_zones).toBe(false);
  });

  it("a segment leaderboard: the deprecated effort_count only in Strava's dialect", async () => {
    const { spec, strava } = await everyWayIn(`/segments/${ids.segment}/leaderboard`);
    expect(spec.body).not.toHaveProperty("effort_count");
    expect(spec.body.entry_count).toBeGreaterThan(0);
    expect(strava.body.effort_count).toBe(strava.body.entry_count);
  });

  it("everything else is the same answer in both dialects", async () => {
    for (const path of ["/athlete", `/clubs/${ids.club}`, `/segments/${ids.segment}`, `/activities/${ids.ride}/laps`]) {
      const { spec, strava } = await everyWayIn(path);
      expect(spec.status, path).toBe(200);
      expect(strava.body, path).toEqual(spec.body);
    }
  });
});
