import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { heatmapStream, heatmapTracksGathered, heatmapTracksUpdated } from "../../events/heatmap/events.ts";
import { FILE_THRESHOLD, getBlob, storedBlobs } from "../../server/blobs.ts";
import { decodeTracks } from "../../server/heatmaps/tracks.ts";
import { checkBlobs } from "../../server/ops/blob-check.ts";
import type { TestAthlete, TestServer } from "../helpers/server.ts";
import { fetchTile, loopTrack, offset, recordActivity, tileOf, waitForBuild } from "./heatmaps-fixtures.ts";

/**
 * Issue 43: a heatmap updated after each of its athlete's activities keeps a bounded number of
 * tracks blobs (each update's event releases the blob it supersedes, which leaves the store), and
 * nothing a replay, `cli verify` or the tiles need is lost: after 30 updates the store holds the
 * map's latest tracks blob only (a row, and a file beside the embedded database once the tracks
 * outgrow FILE_THRESHOLD), every blob the log still needs is there, replay equals live, and the
 * tiles equal those of a map built afresh from the same activities. Deleting the map releases its
 * last blob: the store holds none of its blobs and verify still passes. Run on the embedded store
 * (tests/api/heatmaps-blobs.test.ts) and on PostgreSQL (tests/postgres/heatmaps-blobs.test.ts).
 */
export function heatmapBlobsSuite(
  context: () => { server: TestServer; athlete: TestAthlete },
  store: "embedded" | "postgres",
  verifyWithCli?: () => Promise<void>,
): void {
  const UPDATES = 30;
  // A ride every day around Lausanne, each a loop of 3 km radius (~4,700 positions) somewhere else:
  // the tracks outgrow FILE_THRESHOLD after some updates (files beside the embedded database).
  const RADIUS = 3000;
  const home = [46.52, 6.63] as [number, number];
  const centre = (i: number) => offset(home, (i % 6) * 2500, Math.floor(i / 6) * 2500);

  /** Every tracks blob the map's events have named. */
  async function namedTracks(mapId: number): Promise<string[]> {
    const { server } = context();
    const events = await server.platform.store.readStream(heatmapStream(mapId));
    const shas = events.flatMap((e) =>
      e.type === heatmapTracksGathered.type || e.type === heatmapTracksUpdated.type
        ? [(e.data as { tracksSha256: string }).tracksSha256]
        : []
    );
    return [...new Set(shas)];
  }

  /** Blob files under the embedded store's blob directory (none on PostgreSQL). */
  function blobFiles(): Set<string> {
    const { server } = context();
    const dir = join(server.dataDir, "blobs");
    const found = new Set<string>();
    let folders: string[] = [];
    try {
      folders = readdirSync(dir).filter((f) => /^[0-9a-f]{2}$/.test(f));
    } catch {
      return found;
    }
    for (const folder of folders) for (const name of readdirSync(join(dir, folder))) found.add(name);
    return found;
  }

  async function verifyAll() {
    const { server } = context();
    const { differences } = await server.platform.projections.verify();
    expect(differences).toEqual([]);
    const blobs = await checkBlobs(server.platform.db);
    expect(blobs.problems).toEqual([]);
    if (verifyWithCli) await verifyWithCli();
  }

  /** Waits until the build job has nothing left to do for the map: no update for 1.5 s, none running. */
  async function settled(mapId: number) {
    const { server } = context();
    const state = async () => {
      const events = await server.platform.store.readStream(heatmapStream(mapId));
      const leases = await server.platform.db.query("select 1 from public.job_leases where kind = $1 and id = $2", [
        "heatmap-build",
        String(mapId),
      ]);
      return `${events.length}/${leases.length}`;
    };
    let last = "", since = Date.now();
    while (Date.now() - since < 1500 || last.endsWith("/1")) {
      server.platform.jobs.kick();
      await new Promise((r) => setTimeout(r, 250));
      const now = await state();
      if (now !== last) [last, since] = [now, Date.now()];
    }
  }

  async function currentSha(mapId: number): Promise<string> {
    const { server } = context();
    const [row] = await server.platform.db.query<{ tracks_sha256: string }>(
      "select tracks_sha256 from heatmaps where id = $1",
      [mapId],
    );
    return row.tracks_sha256;
  }

  it(`a map updated ${UPDATES} times keeps one tracks blob; verify passes; its tiles equal a fresh build's`, async () => {
    const { server, athlete } = context();
    const ride = (i: number) =>
      recordActivity(server, {
        athleteId: athlete.id,
        type: "Ride",
        startDateLocal: `2024-03-${String(1 + (i % 28)).padStart(2, "0")}T0${i % 10}:00:00Z`,
        latlng: loopTrack(centre(i), RADIUS),
      });
    await ride(0);
    const created = await server.api("POST", "/v3/athlete/heatmaps", {
      token: athlete.token,
      form: { activity_type_ids: "1" },
    });
    expect(created.status, created.text).toBe(201);
    const mapId = created.body.id as number;
    expect((await waitForBuild(server, athlete.id, mapId, athlete.token)).status).toBe("done");
    const filesBefore = blobFiles();

    let updates = 0;
    for (let i = 1; i <= UPDATES; i++) {
      await ride(i);
      const deadline = Date.now() + 60_000;
      for (;;) {
        server.platform.jobs.kick();
        const events = await server.platform.store.readStream(heatmapStream(mapId));
        const count = events.filter((e) => e.type === heatmapTracksUpdated.type).length;
        if (count > updates) {
          updates = count;
          break;
        }
        if (Date.now() > deadline) throw new Error(`update ${i} never came`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    await settled(mapId);
    const named = await namedTracks(mapId);
    expect(named.length).toBeGreaterThan(UPDATES);
    const current = await currentSha(mapId);
    const bytes = await getBlob(server.platform.db, current);
    expect(decodeTracks(bytes!).activityIds).toHaveLength(UPDATES + 1);
    // Bounded: of the 31 tracks blobs the map's events named, the store holds the latest only.
    expect(await storedBlobs(server.platform.db, named)).toEqual([current]);
    const tracksFiles = [...blobFiles()].filter((name) => !filesBefore.has(name) && named.includes(name));
    if (store === "embedded") {
      // The embedded store keeps large tracks as files beside the database: one is left.
      expect(bytes!.byteLength).toBeGreaterThan(FILE_THRESHOLD);
      expect(tracksFiles).toEqual([current]);
    } else expect(tracksFiles).toEqual([]);
    await verifyAll();

    // The same activities built afresh draw the same tiles.
    const fresh = await server.api("POST", "/v3/athlete/heatmaps", {
      token: athlete.token,
      form: { activity_type_ids: "1" },
    });
    const freshMap = await waitForBuild(server, athlete.id, fresh.body.id, athlete.token);
    expect(freshMap.status).toBe("done");
    await settled(mapId);
    const updated = await waitForBuild(server, athlete.id, mapId, athlete.token);
    const freshTracks = decodeTracks((await getBlob(server.platform.db, await currentSha(fresh.body.id)))!);
    expect([...freshTracks.activityIds].sort()).toEqual([...decodeTracks(bytes!).activityIds].sort());
    for (const i of [0, 7, UPDATES]) {
      for (const z of [11, 14]) {
        const t = tileOf(offset(centre(i), RADIUS, 0), z);
        const mine = await fetchTile(server, updated.tile_path, z, t.x, t.y);
        const theirs = await fetchTile(server, freshMap.tile_path, z, t.x, t.y);
        expect([mine.status, theirs.status]).toEqual([200, 200]);
        expect(Buffer.from(mine.bytes).equals(Buffer.from(theirs.bytes)), `ride ${i} z${z}`).toBe(true);
      }
    }

    // Deleting the map releases its last blob: none of its blobs stays, and verify still passes.
    const del = await server.api("DELETE", `/v3/athletes/${athlete.id}/heatmaps/${mapId}`, { token: athlete.token });
    expect(del.status).toBe(204);
    expect(await storedBlobs(server.platform.db, named)).toEqual([]);
    expect([...blobFiles()].filter((name) => named.includes(name))).toEqual([]);
    await verifyAll();
  });
}
