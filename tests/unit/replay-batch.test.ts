import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import { allProjections } from "../../projections/index.ts";
import { checkMixedLogs } from "../helpers/replay-batch.ts";

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

/** Table names SQL statements in a file name (after from / join / into / update / using / table). */
function tablesNamed(source: string, tables: string[]): string[] {
  return tables.filter((t) => new RegExp(`\\b(from|join|into|update|using|table)\\s+${t}\\b`, "i").test(source));
}

/** The source of a projection's module and of the local modules it imports, recursively. */
function moduleSources(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return "";
  seen.add(file);
  const source = readFileSync(file, "utf8");
  let all = source;
  for (const m of source.matchAll(/from\s+"(\.\/[^"]+)"/g)) all += moduleSources(resolve(dirname(file), m[1]), seen);
  return all;
}

function projectionFiles(): Map<string, string> {
  const root = fileURLToPath(new URL("../../projections", import.meta.url));
  const byName = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith(".ts")) {
        const m = /export const \w+Projection: Projection = \{\s*name: "([^"]+)"/.exec(readFileSync(path, "utf8"));
        if (m) byName.set(m[1], path);
      }
    }
  };
  walk(root);
  return byName;
}

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
