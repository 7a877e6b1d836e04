import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../server/actor.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import type { Platform } from "../../server/platform.ts";
import { createSegment, measureSegmentProfiles } from "../../server/segments/commands.ts";

/**
 * An upload that rides many segments created without altitudes measures them all: one read of
 * their streams and one transaction (events/decider.ts `handleCommands`), not a read, an append and
 * a commit per segment (200 of them made a first upload over new segments take 1.9 s).
 */
const dir = mkdtempSync(join(tmpdir(), "fitness-profiles-batch-"));
let platform: Platform;
const ids: number[] = [];
beforeAll(async () => {
  platform = await openPlatform(
    configFromEnv({ dataDir: join(dir, "data"), databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
  );
  for (let i = 0; i < 20; i++) {
    ids.push(
      await createSegment(platform, {
        name: `Climb ${i}`,
        activityType: "Ride",
        points: [[45 + i / 100, 7], [45.004 + i / 100, 7]],
        altitudes: null,
        athleteId: null,
        activityId: null,
      }, systemActor("test")),
    );
  }
});
afterAll(async () => {
  await platform?.close();
  rmSync(dir, { recursive: true, force: true });
});

const measurement = (segmentId: number, source: "gps" | "barometric", climbCategory = 0) => ({
  segmentId,
  activityId: 77,
  effortId: "9007199254741000",
  source,
  profile: [[0, 100], [445, 100 + segmentId % 7]] as [number, number][],
  averageGrade: 1,
  maximumGrade: 1,
  elevationHigh: 100 + segmentId % 7,
  elevationLow: 100,
  totalElevationGain: segmentId % 7,
  climbCategory,
});

/** The database calls made while `run` runs: statements outside a transaction, and transactions. */
async function calls(run: () => Promise<void>): Promise<number> {
  const db = platform.db;
  let n = 0;
  const query = db.query, transaction = db.transaction;
  db.query = ((...args: Parameters<typeof query>) => (n++, query.apply(db, args))) as typeof query;
  db.transaction =
    ((...args: Parameters<typeof transaction>) => (n++, transaction.apply(db, args))) as typeof transaction;
  try {
    await run();
  } finally {
    db.query = query;
    db.transaction = transaction;
  }
  return n;
}

describe("segments measured from one upload", () => {
  it("are read once and appended in one transaction, each measured once", async () => {
    const made = await calls(() =>
      measureSegmentProfiles(platform, ids.map((id) => measurement(id, "gps")), systemActor("test"))
    );
    expect(made).toBeLessThanOrEqual(2);
    const rows = await platform.db.query<{ id: string; elevation_high: number }>(
      "select id, elevation_high from segments where id = any($1::bigint[]) order by id",
      [ids],
    );
    expect(rows.map((r) => [Number(r.id), Number(r.elevation_high)])).toEqual(ids.map((id) => [id, 100 + id % 7]));
    // A GPS measurement again records nothing; a barometric one replaces each, once.
    await measureSegmentProfiles(platform, ids.map((id) => measurement(id, "gps")), systemActor("test"));
    await measureSegmentProfiles(platform, ids.map((id) => measurement(id, "barometric", id % 2)), systemActor("test"));
    for (const id of ids) {
      const events = await platform.store.readStream(`segment-${id}`);
      expect(events.map((e) => e.type)).toEqual(["SegmentCreated", "SegmentProfileMeasured", "SegmentProfileMeasured"]);
    }
    // Explore's lists follow a measurement that changed the climb category (and only those refresh).
    const listed = await platform.db.query<{ segment_id: string; climb_category: number }>(
      "select distinct segment_id, climb_category from segment_tile_tops where segment_id = any($1::bigint[])",
      [ids],
    );
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((r) => r.climb_category !== Number(r.segment_id) % 2)).toEqual([]);
    expect((await platform.projections.verify()).differences).toEqual([]);
  });
});
