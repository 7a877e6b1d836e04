import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { markReadModelsCurrent, openPlatform, readModelsCurrent } from "../../server/open-platform.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

/**
 * An upgrade on PostgreSQL: the database holds an earlier version's read models (a column this
 * version's index covers is missing), and two servers of the new version start together: the one
 * that migrates first rebuilds; the other does not rebuild over it (it serves, /ready "pending",
 * until the first is done) — two rebuilds at once would drop each other's schema.
 * A rebuild that stopped halfway is finished by `cli replay`'s path (replay, then marked current).
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.drop();
});
const config = () =>
  configFromEnv({ dataDir: undefined, databaseUrl: database.url, seedDemo: false, quiet: true, runJobs: false });

describe("read models of an earlier version on PostgreSQL", () => {
  it("are rebuilt once when two servers of the new version start together", async () => {
    const platform = await openPlatform(config());
    const id = await createAthlete(platform, {
      firstname: "Old",
      lastname: "Data",
      email: "old-pg@example.com",
      password: "password123",
      city: "Leuven",
    });
    await platform.db.exec("alter table rm.club_feed_activities drop column visibility");
    await platform.db.exec("alter table rm.athletes drop column city");
    await platform.db.query("update public.read_model_schema set hash = 'an earlier version' where id = 1");
    await platform.close();

    const [a, b] = await Promise.all([openPlatform(config()), openPlatform(config())]);
    try {
      for (const p of [a, b]) {
        const [row] = await p.db.query<{ city: string }>("select city from athletes where id = $1", [id]);
        expect(row.city).toBe("Leuven");
        expect(await readModelsCurrent(p.db)).toBe(true);
      }
      expect((await a.projections.verify()).differences).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("started again after a rebuild stopped halfway, serve pending until cli replay finishes it", async () => {
    let platform = await openPlatform(config());
    const [{ hash }] = await platform.db.query<{ hash: string }>("select hash from public.read_model_schema");
    await platform.db.query("update public.read_model_schema set hash = $1", [`pending:${hash}`]);
    await platform.db.exec("delete from rm.athletes");
    await platform.close();

    platform = await openPlatform(config());
    try {
      // Another server may be rebuilding: this one does not drop its work.
      expect(await readModelsCurrent(platform.db)).toBe(false);
      await platform.projections.replay();
      await markReadModelsCurrent(platform.db);
      expect(await readModelsCurrent(platform.db)).toBe(true);
      expect(await platform.db.query("select count(*)::int as n from athletes")).toEqual([{ n: 1 }]);
    } finally {
      await platform.close();
    }
  });
});
