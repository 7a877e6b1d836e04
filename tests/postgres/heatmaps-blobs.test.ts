import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { heatmapBlobsSuite } from "../api/heatmaps-blobs-suite.ts";
import { runCli } from "../helpers/deno.ts";
import { createTestDatabase } from "../helpers/postgres.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

/**
 * A heatmap's tracks blobs stay bounded however often it is updated, on PostgreSQL (blobs are rows
 * of public.blobs there; tests/api/heatmaps-blobs-suite.ts), with `cli verify` run as operators do, and an
 * `export` → `import` into an empty store that verifies too.
 */
let database: { url: string; drop(): Promise<void> };
let server: TestServer;
let athlete: TestAthlete;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer({ databaseUrl: database.url });
  athlete = await server.athlete({ firstname: "Blobs" });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await database?.drop();
});

/** `cli verify` passes on the store at `url`. */
async function verifyAt(url: string) {
  const verify = await runCli(["verify", "--json"], { DATABASE_URL: url });
  expect(verify.code, verify.stderr + verify.stdout).toBe(0);
  const report = JSON.parse(verify.stdout);
  expect(report.differences).toEqual([]);
  expect(report.blobs.problems).toEqual([]);
}

heatmapBlobsSuite(() => ({ server, athlete }), "postgres", async () => {
  await verifyAt(database.url);
  // export → import into an empty store carries the blobs still needed (not the released ones) and verifies.
  const dir = mkdtempSync(join(tmpdir(), "heatmap-blobs-"));
  const target = await createTestDatabase();
  try {
    const file = join(dir, "log.ndjson");
    const exported = await runCli(["export", "--format", "ndjson", "--out", file], { DATABASE_URL: database.url });
    expect(exported.code, exported.stderr).toBe(0);
    const imported = await runCli(["import", file], { DATABASE_URL: target.url });
    expect(imported.code, imported.stderr + imported.stdout).toBe(0);
    await verifyAt(target.url);
  } finally {
    await target.drop();
    rmSync(dir, { recursive: true, force: true });
  }
});
