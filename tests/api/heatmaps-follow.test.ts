import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heatmapStream, heatmapTracksGathered, heatmapTracksUpdated } from "../../events/heatmap/events.ts";
import { findEvent } from "../../events/index.ts";
import { getBlob } from "../../server/blobs.ts";
import { decodeTracks } from "../../server/heatmaps/tracks.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { decodeTile, fetchTile, loopTrack, recordActivity, tileOf, waitForBuild } from "./heatmaps-fixtures.ts";

/**
 * A built heatmap follows its athlete's activities (issue 43, item 4): a new public ride of its
 * type adds only its own tracks (nothing gathered again: the update event names the one activity
 * and the tracks of the others are copied from the map's blob), a run leaves a ride map alone, an
 * activity made private or deleted disappears from the tiles at once and from the tracks at the
 * next update; the maps' read models replay to what live kept (`verify`).
 */
let server: TestServer;
let a: TestAthlete;
let mapId = 0;
let tilePath = "";

// Four places around Lausanne, on different z14 tiles.
const A = [46.52, 6.63] as [number, number];
const B = [46.56, 6.70] as [number, number];
const C = [46.60, 6.55] as [number, number];
const D = [46.47, 6.80] as [number, number];
const ids: Record<string, number> = {};

/** Drawn pixels of the z13 tile around a place (its loop of 600 m is 46 px from the centre there). */
async function drawnAt(point: [number, number], z = 13) {
  const t = tileOf(point, z);
  const tile = await fetchTile(server, tilePath, z, t.x, t.y);
  expect(tile.status).toBe(200);
  return decodeTile(tile.bytes).drawnNear(t.px, t.py, 60);
}

/** The map's update events, as the build job appended them. */
async function updates() {
  const events = await server.platform.store.readStream(heatmapStream(mapId));
  return events.filter((e) => e.type === heatmapTracksUpdated.type).map((e) =>
    findEvent([e], heatmapTracksUpdated.type)!.data
  );
}

/** Waits for the build job to append the map's next update (after `count` of them). */
async function nextUpdate(count: number) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    server.platform.jobs.kick();
    const list = await updates();
    if (list.length > count) return list[list.length - 1];
    if (Date.now() > deadline) throw new Error("the heatmap was not updated");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The activity ids of the map's current tracks blob. */
async function trackedActivities() {
  const res = await server.api("GET", `/v3/athletes/${a.id}/heatmaps/${mapId}/progress`, { token: a.token });
  const sha = (await server.platform.db.query<{ tracks_sha256: string }>(
    "select tracks_sha256 from heatmaps where id = $1",
    [mapId],
  ))[0].tracks_sha256;
  const bytes = await getBlob(server.platform.db, sha);
  return { ids: decodeTracks(bytes!).activityIds.sort((x, y) => x - y), count: res.body.activities_count, sha };
}

beforeAll(async () => {
  server = await startTestServer();
  a = await server.athlete({ firstname: "Follow" });
  ids.a = await recordActivity(server, {
    athleteId: a.id,
    type: "Ride",
    startDateLocal: "2024-05-01T07:00:00Z",
    latlng: loopTrack(A, 600),
  });
  ids.b = await recordActivity(server, {
    athleteId: a.id,
    type: "Ride",
    startDateLocal: "2024-05-02T07:00:00Z",
    latlng: loopTrack(B, 600),
  });
  const res = await server.api("POST", "/v3/athlete/heatmaps", { token: a.token, form: { activity_type_ids: "1" } });
  expect(res.status).toBe(201);
  mapId = res.body.id;
  const progress = await waitForBuild(server, a.id, mapId, a.token);
  expect(progress.status).toBe("done");
  tilePath = progress.tile_path;
}, 120_000);
afterAll(() => server.close());

describe("a built heatmap follows its athlete's activities", () => {
  it("a new ride of its type adds its own tracks only; a run leaves the ride map alone", async () => {
    expect(await drawnAt(C)).toBe(0);
    const before = await trackedActivities();
    expect(before.ids).toEqual([ids.a, ids.b].sort((x, y) => x - y));
    const gathered = findEvent(
      await server.platform.store.readStream(heatmapStream(mapId)),
      heatmapTracksGathered.type,
    );
    expect(gathered?.data.tracksSha256).toBe(before.sha);

    ids.run = await recordActivity(server, {
      athleteId: a.id,
      type: "Run",
      startDateLocal: "2024-05-03T07:00:00Z",
      latlng: loopTrack(D, 500),
    });
    ids.c = await recordActivity(server, {
      athleteId: a.id,
      type: "Ride",
      startDateLocal: "2024-05-04T07:00:00Z",
      latlng: loopTrack(C, 600),
    });
    const update = await nextUpdate(0);
    // Only the new ride was gathered; the others' tracks were copied from the blob.
    expect(update.addedActivityIds).toEqual([ids.c]);
    expect(update.removedActivityIds).toEqual([]);
    const after = await trackedActivities();
    expect(after.ids).toEqual([ids.a, ids.b, ids.c].sort((x, y) => x - y));
    expect(after.count).toBe(3);
    expect(after.sha).not.toBe(before.sha);
    // The earlier blob is released by the update (no read needs it) and leaves the store
    // (tests/api/heatmaps-blobs.test.ts: after 30 updates one is left).
    expect(update.releasedTracksSha256s).toEqual([before.sha]);
    // (the job deletes it just after appending the event this test saw)
    const deadline = Date.now() + 10_000;
    while (await getBlob(server.platform.db, before.sha) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await getBlob(server.platform.db, before.sha)).toBeUndefined();
    expect(await drawnAt(C)).toBeGreaterThan(0);
    expect(await drawnAt(A)).toBeGreaterThan(0);
    expect(await drawnAt(D)).toBe(0);
    // Nothing more to do: no further update for the run.
    server.platform.jobs.kick();
    await new Promise((r) => setTimeout(r, 1500));
    expect(await updates()).toHaveLength(1);
  });

  it("an activity made private leaves the tiles at once and the tracks at the next update; a deleted one too", async () => {
    expect(await drawnAt(A)).toBeGreaterThan(0);
    const put = await server.api("PUT", `/v3/activities/${ids.a}`, { token: a.token, json: { private: true } });
    expect(put.status).toBe(200);
    // At once: the tiles no longer draw it (the privacy epoch moved).
    expect(await drawnAt(A)).toBe(0);
    const removed = await nextUpdate(1);
    expect(removed.removedActivityIds).toEqual([ids.a]);
    expect(removed.addedActivityIds).toEqual([]);
    expect((await trackedActivities()).ids).toEqual([ids.b, ids.c].sort((x, y) => x - y));

    const del = await server.api("DELETE", `/v3/activities/${ids.b}`, { token: a.token });
    expect(del.status).toBe(204);
    expect(await drawnAt(B)).toBe(0);
    const deleted = await nextUpdate(2);
    expect(deleted.removedActivityIds).toEqual([ids.b]);
    expect(deleted.addedActivityIds).toEqual([]);
    ids.a2 = await recordActivity(server, {
      athleteId: a.id,
      type: "Ride",
      startDateLocal: "2024-05-05T07:00:00Z",
      latlng: loopTrack(A, 600),
    });
    const next = await nextUpdate(3);
    expect(next.addedActivityIds).toEqual([ids.a2]);
    expect(next.removedActivityIds).toEqual([]);
    const now = await trackedActivities();
    expect(now.ids).toEqual([ids.c, ids.a2].sort((x, y) => x - y));
    expect(now.count).toBe(2);
    expect(await drawnAt(A)).toBeGreaterThan(0);
    expect(await drawnAt(B)).toBe(0);
  });

  it("an activity made public again comes back; replay equals live", async () => {
    const put = await server.api("PUT", `/v3/activities/${ids.a}`, { token: a.token, json: { private: false } });
    expect(put.status).toBe(200);
    const back = await nextUpdate(4);
    expect(back.addedActivityIds).toEqual([ids.a]);
    expect((await trackedActivities()).ids).toEqual([ids.a, ids.c, ids.a2].sort((x, y) => x - y));
    const { differences } = await server.platform.projections.verify();
    expect(differences).toEqual([]);
  });
});
