import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform, readModelsCurrent } from "../../server/open-platform.ts";

const dir = mkdtempSync(join(tmpdir(), "fitness-upgrade-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const config = () =>
  configFromEnv({ dataDir: dir, databaseUrl: undefined, seedDemo: false, quiet: true, runJobs: false });

describe("read models of an older version on disk", () => {
  it("are rebuilt from the log at start when their tables changed, and kept when not", async () => {
    let platform = await openPlatform(config());
    const id = await createAthlete(platform, {
      firstname: "Old",
      lastname: "Data",
      email: "old@example.com",
      password: "password123",
      city: "Ghent",
    });
    // Simulate a database written by an earlier version: a read-model column it did not have yet.
    await platform.db.exec("alter table rm.athletes drop column city");
    // A column that one of this version's indexes covers: `create … if not exists` alone fails on it.
    await platform.db.exec("alter table rm.club_feed_activities drop column visibility");
    await platform.db.query("update public.read_model_schema set hash = 'an earlier version' where id = 1");
    await platform.close();

    platform = await openPlatform(config());
    const [row] = await platform.db.query<{ city: string }>("select city from athletes where id = $1", [id]);
    expect(row.city).toBe("Ghent");
    expect((await platform.projections.verify()).differences).toEqual([]);
    // Unchanged read models are not rebuilt: a marker row written outside the log survives a restart.
    await platform.db.exec("create table rm.marker (x int); insert into rm.marker values (1)");
    await platform.close();
    platform = await openPlatform(config());
    expect(await platform.db.query("select x from rm.marker")).toEqual([{ x: 1 }]);
    expect(await readModelsCurrent(platform.db)).toBe(true);
    await platform.close();
  });

  it("are rebuilt again at start when a rebuild stopped halfway", async () => {
    let platform = await openPlatform(config());
    const [{ hash }] = await platform.db.query<{ hash: string }>("select hash from public.read_model_schema");
    // What a process killed during its rebuild leaves: the row says pending, the tables half-filled.
    await platform.db.query("update public.read_model_schema set hash = $1", [`pending:${hash}`]);
    await platform.db.exec("delete from rm.athletes");
    expect(await readModelsCurrent(platform.db)).toBe(false);
    await platform.close();

    platform = await openPlatform(config());
    expect(await platform.db.query("select count(*)::int as n from athletes")).toEqual([{ n: 1 }]);
    expect(await readModelsCurrent(platform.db)).toBe(true);
    expect((await platform.projections.verify()).differences).toEqual([]);
    await platform.close();
  });

  it("leave no old tables behind a replay, even after a crash between its swap and the old tables' drop", async () => {
    const platform = await openPlatform(config());
    const schemas = async () =>
      (await platform.db.query<{ name: string }>(
        "select nspname as name from pg_namespace where nspname like 'rm%' order by 1",
      )).map((r) => r.name);
    // What a replay killed after its swap leaves: the old read models renamed, not yet dropped.
    await platform.db.exec("create schema rm_retired; create table rm_retired.athletes (id bigint)");
    await platform.projections.replay();
    expect(await schemas()).toEqual(["rm"]);
    expect(await platform.db.query("select count(*)::int as n from athletes")).toEqual([{ n: 1 }]);
    await platform.projections.replay();
    expect(await schemas()).toEqual(["rm"]);
    expect((await platform.projections.verify()).differences).toEqual([]);
    await platform.close();
  });
});
