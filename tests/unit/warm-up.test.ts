import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../server/actor.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import type { Platform } from "../../server/platform.ts";
import { createSegment } from "../../server/segments/commands.ts";
import { derivePool } from "../../server/uploads/derive-pool.ts";
import { warmUploads } from "../../server/uploads/warm-up.ts";

/**
 * The warm-up before /ready (server/uploads/warm-up.ts) records and matches a synthetic activity
 * against real segments to warm the statements, in a transaction rolled back: nothing of it may
 * remain — no row, no count moved, no checkpoint, nothing `cli verify` would see.
 */
describe("warming up for the first upload", () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await openPlatform(
      configFromEnv({ databaseUrl: undefined, dataDir: undefined, quiet: true, seedDemo: false }),
    );
    for (let i = 0; i < 3; i++) {
      await createSegment(platform, {
        name: `Warm ${i}`,
        activityType: "Ride",
        points: [[45 + i * 0.01, 4.8], [45.005 + i * 0.01, 4.805], [45.01 + i * 0.01, 4.81]],
        altitudes: null,
        athleteId: null,
        activityId: null,
      }, systemActor("test"));
    }
  }, 120_000);
  afterAll(async () => {
    derivePool(platform.config.deriveWorkers).releaseIdle();
    await platform.close();
  });

  it("leaves no trace: every table as before, verify finds nothing", async () => {
    const tables = platform.projections.projections.flatMap((p) => p.tables);
    const snapshot = async () => {
      const out: Record<string, string[]> = {};
      for (const table of [...tables, "projection_checkpoints"]) {
        out[table] =
          (await platform.db.query<{ r: string }>(`select row_to_json(t)::text as r from ${table} t order by 1`))
            .map((row) => row.r);
      }
      return out;
    };
    const before = await snapshot();
    expect(before.segments.length).toBe(3);
    await warmUploads(platform);
    expect(await snapshot()).toEqual(before);
    const { differences } = await platform.projections.verify();
    expect(differences).toEqual([]);
  }, 120_000);
});
