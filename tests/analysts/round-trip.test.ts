import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followStream } from "../../events/athlete/events.ts";
import { handleCommand } from "../../events/decider.ts";
import { followDecider } from "../../events/follow/decide.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { exportEvents } from "../../server/analysts/export.ts";
import { configFromEnv } from "../../server/config.ts";
import { type Platform } from "../../server/platform.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { runCli } from "../helpers/deno.ts";

/** Opens a data directory in this process (no server holds it), runs fn, closes it. */
async function withPlatform<T>(dataDir: string, fn: (p: Platform) => Promise<T>): Promise<T> {
  const platform = await openPlatform(
    configFromEnv({ dataDir, databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
  );
  try {
    return await fn(platform);
  } finally {
    await platform.close();
  }
}

async function exported(p: Platform): Promise<string> {
  let text = "";
  await exportEvents(p.store, { format: "ndjson" }, (chunk) => {
    text += chunk;
  });
  return text;
}

/** export → import → verify through the real CLI (Deno), on temp data directories. */
describe("export → import → verify round trip (real CLI)", () => {
  const root = mkdtempSync(join(tmpdir(), "analysts-roundtrip-"));
  const source = join(root, "source");
  const cli = (dataDir: string, ...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  const ndjson = join(root, "log.ndjson");
  const csv = join(root, "log.csv");
  let original = "";

  beforeAll(async () => {
    original = await withPlatform(source, async (p) => {
      for (const first of ["Ada", "Bea", "Cy"]) {
        await createAthlete(p, {
          firstname: first,
          lastname: "Test",
          email: `${first.toLowerCase()}@example.com`,
          password: "password123",
        });
      }
      for (
        const [type, athleteId, targetId] of [["follow", 1, 2], ["follow", 1, 3], ["unfollow", 1, 2], [
          "follow",
          3,
          1,
        ]] as const
      ) {
        await handleCommand(p.store, followStream(athleteId), followDecider, { type, athleteId, targetId }, {
          metadata: { athleteId, source: "test" },
        });
      }
      return exported(p);
    });
    const e1 = await cli(source, "export", "--format", "ndjson", "--out", ndjson);
    expect(e1.code, e1.stderr).toBe(0);
    const e2 = await cli(source, "export", "--format", "csv", "--out", csv);
    expect(e2.code, e2.stderr).toBe(0);
  }, 120_000);

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("exports every event with the documented columns", () => {
    const text = readFileSync(ndjson, "utf8");
    expect(text).toBe(original);
    const lines = text.trim().split("\n").map((l) => JSON.parse(l));
    expect(lines).toHaveLength(7);
    expect(Object.keys(lines[0])).toEqual([
      "position",
      "stream_id",
      "stream_version",
      "type",
      "schema_version",
      "recorded_at",
      "data",
      "metadata",
    ]);
    expect(lines.map((l) => l.position)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(lines[3]).toMatchObject({
      stream_id: "follows-1",
      stream_version: 1,
      type: "AthleteFollowed",
      data: { athleteId: 1, targetId: 2 },
      metadata: { source: "test" },
    });
    expect(lines[5]).toMatchObject({ stream_id: "follows-1", stream_version: 3, type: "AthleteUnfollowed" });
    expect(lines[0].recorded_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    const header = readFileSync(csv, "utf8").split("\n")[0];
    expect(header).toBe("position,stream_id,stream_version,type,schema_version,recorded_at,data,metadata");
  });

  it("imports into an empty store; verify matches a replay; the log and the id sequences follow", async () => {
    const target = join(root, "imported");
    const imported = await cli(target, "import", ndjson);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout).toContain("imported 7 events in 5 streams (last position 7)");
    const verify = await cli(target, "verify");
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toContain("are equal to the live ones");
    const refused = await cli(target, "import", ndjson);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("the event store is not empty");
    await withPlatform(target, async (p) => {
      expect(await exported(p)).toBe(original);
      const [{ n }] = await p.db.query<{ n: number }>("select count(*)::int as n from follows");
      expect(n).toBe(2);
      // Ids and positions continue after the imported ones.
      const id = await createAthlete(p, {
        firstname: "Dee",
        lastname: "Test",
        email: "dee@example.com",
        password: "password123",
      });
      expect(id).toBe(4);
      expect(await p.store.headPosition()).toBe(8);
    });
  }, 120_000);

  it("imports the CSV export too", async () => {
    const target = join(root, "from-csv");
    const imported = await cli(target, "import", csv);
    expect(imported.code, imported.stderr).toBe(0);
    await withPlatform(target, async (p) => expect(await exported(p)).toBe(original));
  }, 120_000);

  it("refuses a truncated file with a clear message and leaves the store unchanged", async () => {
    const truncated = join(root, "truncated.ndjson");
    writeFileSync(truncated, original.slice(0, original.length - 40));
    const target = join(root, "truncated-target");
    const r = await cli(target, "import", truncated);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/truncated\.ndjson:7: not valid JSON \(corrupt or truncated file\); nothing was imported/);
    await withPlatform(target, async (p) => {
      expect(await p.store.headPosition()).toBe(0);
      const [{ n }] = await p.db.query<{ n: number }>("select count(*)::int as n from athletes");
      expect(n).toBe(0);
    });
  }, 120_000);
});
