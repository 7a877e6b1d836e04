import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import { allProjections } from "../../projections/index.ts";
import { checkMixedLogs } from "../helpers/replay-batch.ts";
import { moduleSources, projectionFiles, tablesNamed } from "../helpers/projection-sources.ts";

describe("batched replay equals one-by-one application", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(() => db.close());
  it("mixed logs of creations, edits, kudos, comments, deletions, follows and joins", async () => {
    await checkMixedLogs(db, 12);
  }, 300_000);
});

describe("isolated projections", () => {
  it("read only their own tables, and no other projection's handlers read theirs", () => {
    const files = projectionFiles();
    expect([...files.keys()].sort()).toEqual(allProjections.map((p) => p.name).sort());
    const owner = new Map(allProjections.flatMap((p) => p.tables.map((t) => [t, p.name] as const)));
    const allTables = [...owner.keys()];
    const isolatedTables = allProjections.filter((p) => p.isolated).flatMap((p) => p.tables);
    const problems: string[] = [];
    let crossReads = 0;
    for (const projection of allProjections) {
      const named = tablesNamed(moduleSources(files.get(projection.name)!), allTables)
        .filter((t) => owner.get(t) !== projection.name);
      crossReads += named.length;
      if (projection.isolated && named.length) problems.push(`${projection.name} (isolated) names ${named.join(", ")}`);
      for (const t of named.filter((t) => isolatedTables.includes(t))) {
        problems.push(`${projection.name} names ${t} of the isolated ${owner.get(t)}`);
      }
    }
    expect(problems).toEqual([]);
    // The scan sees the reads that exist (segments' boards read athletes, challenges segment_efforts).
    expect(crossReads).toBeGreaterThan(0);
    expect(allProjections.filter((p) => p.isolated).length).toBeGreaterThan(5);
  });
});
