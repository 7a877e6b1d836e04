import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { DerivePool, derivePool } from "../../server/uploads/derive-pool.ts";

/**
 * Derive workers keep their process alive: a closed platform must stop the idle ones, or a finished
 * CLI command (import-archive) lives on until the pool's idle timeout (it once took 30 s to exit).
 */
const FIT = readFileSync(
  join(import.meta.dirname ?? ".", "../fixtures/devices/fit/garmin-edge500-cycling-hr-cad-pauses.fit"),
);
const context = {
  uploadId: null,
  externalId: null,
  activityType: null,
  defaultType: "Ride" as const,
  name: null,
  description: null,
  visibility: "everyone" as const,
  trainer: false,
  commute: false,
  athlete: { premium: false, weight: null, birthdate: null },
};
const dir = mkdtempSync(join(tmpdir(), "derive-pool-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the derive pool's workers", () => {
  it(
    "derive in a worker; releaseIdle stops the idle ones and spares a busy one, whose file still completes",
    async () => {
      const pool = new DerivePool(2);
      const first = await pool.derive({
        original: new Uint8Array(FIT),
        dataType: "fit",
        context,
        maxUploadBytes: 64 << 20,
      });
      expect(first.derived.facts.distance).toBeGreaterThan(0);
      expect(pool.workers).toBe(1);
      pool.releaseIdle();
      expect(pool.workers).toBe(0);

      const a = pool.derive({ original: new Uint8Array(FIT), dataType: "fit", context, maxUploadBytes: 64 << 20 });
      const b = pool.derive({ original: new Uint8Array(FIT), dataType: "fit", context, maxUploadBytes: 64 << 20 });
      expect(pool.workers).toBe(2);
      pool.releaseIdle(); // both busy: neither stops
      expect(pool.workers).toBe(2);
      const [ra, rb] = await Promise.all([a, b]);
      expect(ra.derived.facts.distance).toBe(first.derived.facts.distance);
      expect(rb.derived.facts.distance).toBe(first.derived.facts.distance);
      pool.releaseIdle();
      expect(pool.workers).toBe(0);
    },
    120_000,
  );

  it("are stopped when a platform closes (its jobs are done)", async () => {
    await derivePool(1).derive({ original: new Uint8Array(FIT), dataType: "fit", context, maxUploadBytes: 64 << 20 });
    expect(derivePool(1).workers).toBe(1);
    const platform = await openPlatform(
      configFromEnv({
        dataDir: join(dir, "data"),
        databaseUrl: undefined,
        seedDemo: false,
        quiet: true,
        passwordCost: "test",
      }),
    );
    await platform.close();
    expect(derivePool(1).workers).toBe(0);
  }, 120_000);
});
