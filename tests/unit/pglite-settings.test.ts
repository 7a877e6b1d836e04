import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";

// queryWithSettings (events/db/pglite.ts): one statement in its own transaction after `set local`
// of planner settings, sent in one call — the leaderboard's statement runs this way.
describe("PGlite queryWithSettings", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
    await db.exec("create table t (id int primary key, name text)");
    await db.exec("insert into t values (1, 'one'), (2, 'two'), (3, 'three')");
  });
  afterAll(async () => {
    await db.close();
  });

  it("answers the statement's rows with the settings in force, and only for it", async () => {
    const settings = { plan_cache_mode: "force_generic_plan", enable_sort: "off", work_mem: "'1234kB'" };
    for (let run = 0; run < 3; run++) {
      // The same text each run: the prepared statement is described once, then only bound.
      const rows = await db.queryWithSettings!<{ id: number; name: string; sort: string; mode: string; mem: string }>(
        settings,
        `select id, name, current_setting('enable_sort') as sort, current_setting('plan_cache_mode') as mode,
                current_setting('work_mem') as mem from t where id >= $1 order by id`,
        [2],
      );
      expect(rows).toEqual([
        { id: 2, name: "two", sort: "off", mode: "force_generic_plan", mem: "1234kB" },
        { id: 3, name: "three", sort: "off", mode: "force_generic_plan", mem: "1234kB" },
      ]);
    }
    // Set locally: back to the session's values once its transaction ended.
    const [after] = await db.query<{ sort: string; mode: string }>(
      `select current_setting('enable_sort') as sort, current_setting('plan_cache_mode') as mode from t where id = $1`,
      [1],
    );
    expect(after).toEqual({ sort: "on", mode: "auto" });
  });

  it("commits what the statement wrote, and rolls back and leaves no transaction open when it fails", async () => {
    const written = await db.queryWithSettings!<{ id: number }>(
      { enable_sort: "off" },
      "insert into t values ($1, $2) returning id",
      [4, "four"],
    );
    expect(written).toEqual([{ id: 4 }]);
    await expect(
      db.queryWithSettings!({ enable_sort: "off" }, "insert into t values ($1, $2)", [4, "again"]),
    ).rejects.toMatchObject({ code: "23505" });
    // Not inside an aborted transaction: the next statements run, and the failed row is not there.
    await db.transaction(async (tx) => {
      await tx.query("insert into t values ($1, $2)", [5, "five"]);
    });
    const rows = await db.query<{ id: number; name: string }>("select id, name from t where id >= $1 order by id", [4]);
    expect(rows).toEqual([{ id: 4, name: "four" }, { id: 5, name: "five" }]);
    const [{ sort }] = await db.query<{ sort: string }>("select current_setting($1) as sort", ["enable_sort"]);
    expect(sort).toBe("on");
  });
});
