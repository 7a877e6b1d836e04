import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityStream } from "../../events/activity/events.ts";
import { activityUpdated } from "../../events/activity/changes.ts";
import { heatmapStream, STATUS_AFTER } from "../../events/heatmap/events.ts";
import { insidePrivacyZone } from "../../shared/privacy-zones.ts";
import { activityTypeId } from "../../shared/activity-types.ts";
import { latOf, lngOf, TILE_SIZE, unitsPerPixel } from "../../server/heatmaps/mercator.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import {
  decodeTile,
  fetchTile,
  lineTrack,
  loopTrack,
  offset,
  recordActivity,
  tileOf,
  waitForBuild,
} from "./heatmaps-fixtures.ts";

/**
 * Heatmaps over HTTP: build statuses, filtering by type and local dates, only public activities,
 * privacy zones (decoded PNG pixels), caching, deletion, other athletes, bad input.
 */
let server: TestServer;
let a: TestAthlete;
let b: TestAthlete;

// Areas of athlete a (Zürich); far enough apart to be on different z14 tiles.
const RIDE_2024 = [47.3769, 8.5417] as [number, number];
const RUN_2024 = [47.4245, 8.4466] as [number, number];
const PRIVATE_RIDE = [47.3226, 8.6467] as [number, number];
const RIDE_2023 = [47.2700, 8.4300] as [number, number];
const ZONE = [47.3600, 8.5900] as [number, number];
const ZONE_RADIUS = 250;
const LATER_ZONE = offset(RIDE_2024, 0, 600);

const ids: Record<string, number> = {};

beforeAll(async () => {
  server = await startTestServer();
  a = await server.athlete({ firstname: "Heat" });
  b = await server.athlete({ firstname: "Other" });
  const zone = await server.api("POST", "/v3/athlete/privacy_zones", {
    token: a.token,
    form: { lat: ZONE[0], lng: ZONE[1], radius: ZONE_RADIUS },
  });
  expect(zone.status).toBe(201);
  ids.ride2024 = await recordActivity(server, {
    athleteId: a.id,
    type: "Ride",
    startDateLocal: "2024-05-01T07:00:00Z",
    latlng: loopTrack(RIDE_2024, 600),
  });
  ids.run2024 = await recordActivity(server, {
    athleteId: a.id,
    type: "Run",
    startDateLocal: "2024-06-10T18:00:00Z",
    latlng: loopTrack(RUN_2024, 400),
  });
  ids.privateRide = await recordActivity(server, {
    athleteId: a.id,
    type: "Ride",
    private: true,
    startDateLocal: "2024-05-02T07:00:00Z",
    latlng: loopTrack(PRIVATE_RIDE, 500),
  });
  ids.ride2023 = await recordActivity(server, {
    athleteId: a.id,
    type: "Ride",
    startDateLocal: "2023-01-01T10:00:00Z",
    latlng: loopTrack(RIDE_2023, 500),
  });
  // Straight through the privacy zone, with a GPS gap (null) before it.
  ids.zoneRide = await recordActivity(server, {
    athleteId: a.id,
    type: "Ride",
    startDateLocal: "2024-05-03T07:00:00Z",
    latlng: [null, ...lineTrack(ZONE, 1400)],
  });
  // Another athlete's ride at the same place must never show on a's maps.
  ids.otherRide = await recordActivity(server, {
    athleteId: b.id,
    type: "Ride",
    startDateLocal: "2024-05-01T08:00:00Z",
    latlng: loopTrack(RUN_2024, 900),
  });
});
afterAll(() => server.close());

async function create(athlete: TestAthlete, form: Record<string, string | number>) {
  return server.api("POST", "/v3/athlete/heatmaps", { token: athlete.token, form });
}

async function built(form: Record<string, string | number>) {
  const res = await create(a, form);
  expect(res.status).toBe(201);
  const progress = await waitForBuild(server, a.id, res.body.id, a.token);
  expect(progress.status).toBe("done");
  return progress;
}

/** Alpha-drawn pixels of the z14 tile around a point (within r pixels). */
async function drawnAt(tilePath: string, point: [number, number], z = 14, r = 40) {
  const t = tileOf(point, z);
  const tile = await fetchTile(server, tilePath, z, t.x, t.y);
  expect(tile.status).toBe(200);
  expect(tile.headers.get("content-type")).toBe("image/png");
  return decodeTile(tile.bytes).drawnNear(t.px, t.py, r);
}

describe("POST /v3/athlete/heatmaps and the build", () => {
  it("answers the created subset, then goes queued → building → gathering → generating → done", async () => {
    const res = await create(a, { activity_type_ids: "1" });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["activity_type_ids", "athlete", "id", "resource_state", "web_url"]);
    expect(res.body).toMatchObject({
      resource_state: 2,
      athlete: { id: a.id, resource_state: 1 },
      activity_type_ids: [1],
    });
    expect(Number.isSafeInteger(res.body.id)).toBe(true);
    expect(res.body.id).toBeGreaterThanOrEqual(2 ** 52);
    expect(res.body.web_url).toBe(`${server.url}/heatmaps/${a.id}/${res.body.id}`);
    const progress = await waitForBuild(server, a.id, res.body.id, a.token);
    expect(progress).toMatchObject({ status: "done", status_message: "Your heatmap is ready." });
    const events = await server.platform.store.readStream(heatmapStream(res.body.id));
    expect(events.map((e) => STATUS_AFTER[e.type])).toEqual(["queued", "building", "gathering", "generating", "done"]);
    // Public rides of a: 2024 loop, 2023 loop, the zone line. Not the private ride, the run, or b's ride.
    expect(progress.activities_count).toBe(3);
    expect(progress.tiles_count).toBeGreaterThan(19);
    expect(progress.center_latlng).toHaveLength(2);
    expect(progress.center_latlng[0]).toBeGreaterThan(47.25);
    expect(progress.center_latlng[0]).toBeLessThan(47.4);
    expect(progress.center_zoom).toBeGreaterThanOrEqual(10);
    expect(progress.center_zoom).toBeLessThanOrEqual(14);
    expect(progress.tile_path).toBe(`${res.body.web_url}/tiles`);
  });

  it("ids are random, not sequential", async () => {
    const first = await create(a, { activity_type_ids: "2" });
    const second = await create(a, { activity_type_ids: "2" });
    expect(Math.abs(second.body.id - first.body.id)).toBeGreaterThan(1000);
    await waitForBuild(server, a.id, first.body.id, a.token);
    await waitForBuild(server, a.id, second.body.id, a.token);
  });

  it("draws only public activities of the chosen types", async () => {
    const rides = await built({ activity_type_ids: String(activityTypeId("Ride")) });
    expect(await drawnAt(rides.tile_path, offset(RIDE_2024, 600, 0))).toBeGreaterThan(20);
    expect(await drawnAt(rides.tile_path, offset(RIDE_2023, 500, 0))).toBeGreaterThan(20);
    expect(await drawnAt(rides.tile_path, offset(RUN_2024, 400, 0))).toBe(0);
    expect(await drawnAt(rides.tile_path, offset(PRIVATE_RIDE, 500, 0))).toBe(0);
    const runs = await built({ activity_type_ids: "2" });
    expect(runs.activities_count).toBe(1);
    expect(await drawnAt(runs.tile_path, offset(RUN_2024, 400, 0))).toBeGreaterThan(20);
    expect(await drawnAt(runs.tile_path, offset(RIDE_2024, 600, 0))).toBe(0);
  });

  it("filters by local start and end dates (epoch seconds)", async () => {
    const start = Date.UTC(2024, 3, 1) / 1000, end = Date.UTC(2024, 11, 31) / 1000;
    const map = await built({ activity_type_ids: "1,2", start_date_local: start, end_date_local: end });
    expect(map.activities_count).toBe(3); // 2024 ride, 2024 run, zone ride
    expect(map.start_date_local).toBe("2024-04-01T00:00:00Z");
    expect(map.end_date_local).toBe("2024-12-31T00:00:00Z");
    expect(await drawnAt(map.tile_path, offset(RIDE_2023, 500, 0))).toBe(0);
    expect(await drawnAt(map.tile_path, offset(RUN_2024, 400, 0))).toBeGreaterThan(20);
    // The end bound is compared with the end of the activity: a window ending mid-ride excludes it.
    const rideStart = Date.UTC(2024, 4, 1, 7) / 1000;
    const cut = await built({ activity_type_ids: "1", start_date_local: rideStart, end_date_local: rideStart + 60 });
    expect(cut.activities_count).toBe(0);
    expect(cut.center_latlng).toBeNull();
    const whole = await built({
      activity_type_ids: "1",
      start_date_local: rideStart,
      end_date_local: rideStart + 3 * 3600,
    });
    expect(whole.activities_count).toBe(1);
  });
});

describe("privacy zones on tiles", () => {
  it("leaves every pixel over a zone empty while the track around it is drawn", async () => {
    const map = await built({ activity_type_ids: "1" });
    for (const z of [13, 14, 15, 16]) {
      const t = tileOf(ZONE, z);
      const tile = decodeTile((await fetchTile(server, map.tile_path, z, t.x, t.y)).bytes);
      const unit = unitsPerPixel(z);
      let inside = 0, drawnInside = 0;
      for (let py = 0; py < TILE_SIZE; py++) {
        for (let px = 0; px < TILE_SIZE; px++) {
          const lat = latOf((t.y * TILE_SIZE + py + 0.5) * unit), lng = lngOf((t.x * TILE_SIZE + px + 0.5) * unit);
          if (!insidePrivacyZone([lat, lng], [{ lat: ZONE[0], lng: ZONE[1], radius_m: ZONE_RADIUS }])) continue;
          inside++;
          if (tile.alpha(px, py) > 0) drawnInside++;
        }
      }
      expect(inside).toBeGreaterThan(10);
      expect(drawnInside).toBe(0);
      expect(tile.drawn).toBeGreaterThan(20); // the line outside the zone is on the tile
    }
  });

  it("hides a zone added after the build, and an activity made private after it", async () => {
    const map = await built({ activity_type_ids: "1" });
    const zoneTile = tileOf(LATER_ZONE, 15);
    const before = decodeTile((await fetchTile(server, map.tile_path, 15, zoneTile.x, zoneTile.y)).bytes);
    expect(before.drawnNear(zoneTile.px, zoneTile.py, 12)).toBeGreaterThan(5);
    const zone = await server.api("POST", "/v3/athlete/privacy_zones", {
      token: a.token,
      json: { lat: LATER_ZONE[0], lng: LATER_ZONE[1], radius: 120 },
    });
    expect(zone.status).toBe(201);
    const after = decodeTile((await fetchTile(server, map.tile_path, 15, zoneTile.x, zoneTile.y)).bytes);
    expect(after.drawnNear(zoneTile.px, zoneTile.py, 12)).toBe(0);
    expect(after.drawn).toBeGreaterThan(0);
    await server.api("DELETE", `/v3/athlete/privacy_zones/${zone.body.id}`, { token: a.token });

    await server.platform.store.append(activityStream(ids.ride2023), "any", [
      activityUpdated.create({ activityId: ids.ride2023, athleteId: a.id, visibility: "only_me" }),
    ]);
    expect(await drawnAt(map.tile_path, offset(RIDE_2023, 500, 0))).toBe(0);
    expect(await drawnAt(map.tile_path, offset(RIDE_2024, 600, 0))).toBeGreaterThan(20);
    await server.platform.store.append(activityStream(ids.ride2023), "any", [
      activityUpdated.create({ activityId: ids.ride2023, athleteId: a.id, visibility: "everyone" }),
    ]);
    expect(await drawnAt(map.tile_path, offset(RIDE_2023, 500, 0))).toBeGreaterThan(20);
  });
});

describe("tiles", () => {
  it("are 256 × 256 PNGs with caching headers, revalidated by ETag; empty areas are transparent", async () => {
    const map = await built({ activity_type_ids: "1" });
    const t = tileOf(offset(RIDE_2024, 600, 0), 12);
    const first = await fetchTile(server, map.tile_path, 12, t.x, t.y);
    expect(first.status).toBe(200);
    expect([...first.bytes.slice(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    const decoded = decodeTile(first.bytes);
    expect([decoded.width, decoded.height]).toEqual([256, 256]);
    expect(first.headers.get("cache-control")).toBe("private, max-age=600");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);
    const again = await fetchTile(server, map.tile_path, 12, t.x, t.y, { "if-none-match": etag });
    expect(again.status).toBe(304);
    const world = decodeTile((await fetchTile(server, map.tile_path, 0, 0, 0)).bytes);
    expect(world.drawn).toBeGreaterThan(0);
    const ocean = decodeTile((await fetchTile(server, map.tile_path, 10, 0, 0)).bytes);
    expect(ocean.drawn).toBe(0);
    expect(
      decodeTile((await fetchTile(server, map.tile_path, 18, ...xy(tileOf(offset(RIDE_2024, 600, 0), 18)))).bytes)
        .drawn,
    ).toBeGreaterThan(0);
  });

  it("refuse z/x/y outside the map (400) and unknown maps (404) with the documented body", async () => {
    const map = await built({ activity_type_ids: "1" });
    for (const [z, x, y, field] of [[19, 0, 0, "z"], [2, 4, 0, "x"], [2, 0, 4, "y"], [0, 1, 0, "x"]] as const) {
      const res = await fetch(`${map.tile_path}/${z}/${x}/${y}.png`);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        message: "Bad Request",
        errors: [{ resource: "Tile", field, code: "outside the map" }],
      });
    }
    const bad = await fetch(`${map.tile_path}/1/0/zero.png`);
    expect(bad.status).toBe(400);
    const unknown = await fetch(`${server.url}/heatmaps/${a.id}/${map.id + 1}/tiles/0/0/0.png`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      message: "Record Not Found",
      errors: [{ resource: "Heatmap", field: "id", code: "invalid" }],
    });
    const wrongAthlete = await fetch(`${server.url}/heatmaps/${b.id}/${map.id}/tiles/0/0/0.png`);
    expect(wrongAthlete.status).toBe(404);
  });
});

function xy(t: { x: number; y: number }): [number, number] {
  return [t.x, t.y];
}

describe("reading, listing, other athletes, deleting", () => {
  it("GET answers the summary; the list holds only one's own maps", async () => {
    const map = await built({ activity_type_ids: "1,2" });
    const summary = await server.api("GET", `/v3/athletes/${a.id}/heatmaps/${map.id}`, { token: a.token });
    expect(summary.status).toBe(200);
    expect(summary.body).toMatchObject({
      id: map.id,
      resource_state: 2,
      activity_type_ids: [1, 2],
      athlete: { id: a.id },
    });
    expect(summary.body.status).toBeUndefined();
    expect(typeof summary.body.created_at).toBe("string");
    const mine = await server.api("GET", "/v3/athlete/heatmaps", { token: a.token });
    expect(mine.status).toBe(200);
    expect(mine.body.map((h: { id: number }) => h.id)).toContain(map.id);
    const theirs = await server.api("GET", "/v3/athlete/heatmaps", { token: b.token });
    expect(theirs.body).toEqual([]);
  });

  it("another athlete holding the id may read it, but not delete it; a wrong athlete_id is 404", async () => {
    const map = await built({ activity_type_ids: "1" });
    const read = await server.api("GET", `/v3/athletes/${a.id}/heatmaps/${map.id}`, { token: b.token });
    expect(read.status).toBe(200);
    const del = await server.api("DELETE", `/v3/athletes/${a.id}/heatmaps/${map.id}`, { token: b.token });
    expect(del.status).toBe(403);
    expect(del.body).toEqual({
      message: "Forbidden",
      errors: [{ resource: "Heatmap", field: "athlete_id", code: "forbidden" }],
    });
    for (
      const path of [`/v3/athletes/${b.id}/heatmaps/${map.id}`, `/v3/athletes/${b.id}/heatmaps/${map.id}/progress`]
    ) {
      const res = await server.api("GET", path, { token: b.token });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({
        message: "Record Not Found",
        errors: [{ resource: "Heatmap", field: "id", code: "invalid" }],
      });
    }
    expect((await server.api("GET", `/v3/athletes/${a.id}/heatmaps/${map.id}`)).status).toBe(401);
  });

  it("DELETE answers 204; the map, its page and its tiles are gone", async () => {
    const map = await built({ activity_type_ids: "1" });
    const t = tileOf(offset(RIDE_2024, 600, 0), 14);
    expect((await fetchTile(server, map.tile_path, 14, t.x, t.y)).status).toBe(200);
    const [row] = await server.platform.db.query<{ tracks_sha256: string }>(
      "select tracks_sha256 from heatmaps where id = $1",
      [map.id],
    );
    const del = await server.api("DELETE", `/v3/athletes/${a.id}/heatmaps/${map.id}`, { token: a.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await fetchTile(server, map.tile_path, 14, t.x, t.y)).status).toBe(404);
    expect((await fetch(map.web_url)).status).toBe(404);
    expect((await server.api("GET", `/v3/athletes/${a.id}/heatmaps/${map.id}/progress`, { token: a.token })).status)
      .toBe(404);
    expect((await server.api("DELETE", `/v3/athletes/${a.id}/heatmaps/${map.id}`, { token: a.token })).status).toBe(
      404,
    );
    const list = await server.api("GET", "/v3/athlete/heatmaps", { token: a.token });
    expect(list.body.map((h: { id: number }) => h.id)).not.toContain(map.id);
    expect(await server.platform.db.query("select 1 from public.blobs where sha256 = $1", [row.tracks_sha256])).toEqual(
      [],
    );
  });
});

describe("bad input", () => {
  it("refuses unknown activity type ids, an inverted window and malformed ids", async () => {
    for (const value of ["0", "30", "abc", "1,,2", "-1", "1.5"]) {
      const res = await create(a, { activity_type_ids: value });
      expect(res.status, value).toBe(400);
      expect(res.body).toEqual({
        message: "Bad Request",
        errors: [{ resource: "Heatmap", field: "activity_type_ids", code: "invalid" }],
      });
    }
    const missing = await create(a, {});
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([{ resource: "Heatmap", field: "activity_type_ids", code: "missing" }]);
    const inverted = await create(a, {
      activity_type_ids: "1",
      start_date_local: 1_700_000_000,
      end_date_local: 1_600_000_000,
    });
    expect(inverted.status).toBe(400);
    expect(inverted.body.errors).toEqual([{ resource: "Heatmap", field: "end_date_local", code: "invalid" }]);
    const notInt = await create(a, { activity_type_ids: "1", start_date_local: "yesterday" });
    expect(notInt.status).toBe(400);
    expect(notInt.body.errors).toEqual([{ resource: "Heatmap", field: "start_date_local", code: "invalid" }]);
    const badId = await server.api("GET", `/v3/athletes/${a.id}/heatmaps/abc`, { token: a.token });
    expect(badId.status).toBe(400);
    expect(badId.body.errors).toEqual([{ resource: "Heatmap", field: "map_id", code: "invalid" }]);
  });
});

describe("a build that fails", () => {
  it("ends in error with an English status_message", async () => {
    const c = await server.athlete();
    await recordActivity(server, {
      athleteId: c.id,
      type: "Walk",
      startDateLocal: "2024-01-01T10:00:00Z",
      latlng: loopTrack(RIDE_2024, 100),
      missingBlob: true,
    });
    const res = await create(c, { activity_type_ids: String(activityTypeId("Walk")) });
    const progress = await waitForBuild(server, c.id, res.body.id, c.token);
    expect(progress.status).toBe("error");
    expect(progress.status_message).toMatch(
      /^There was an error building your heatmap: The recorded positions of activity \d+ could not be read\.$/,
    );
    const page = await fetch(res.body.web_url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("There was an error building your heatmap");
  });
});
