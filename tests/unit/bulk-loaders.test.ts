import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { basename, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { allProjections } from "../../projections/index.ts";
import { bulkFingerprint } from "../../projections/bulk.ts";
import { moduleFiles, moduleSources, projectionFiles, tablesNamed } from "../helpers/projection-sources.ts";

/**
 * A bulk loader (projections/bulk.ts) restates its projection's handlers as set-based statements,
 * so it is only right for the handlers it was written against. The runner already refuses a loader
 * whose projection's tables or event types changed (its fingerprint); these checks also catch a
 * changed handler: each loader records the hash of its projection's sources (the projection's module
 * and the local modules it imports, the loaders and the read side aside). When one fails, check the
 * loader against the new handlers — tests/unit/bulk-replay.test.ts and `cli verify` compare both ways
 * — then record the new hash here (or drop the loader: the projection then rebuilds event by event).
 */
const WRITTEN_AGAINST: Record<string, string> = {
  "activities": "6c2e6647998de34c",
  "activity-list": "735e9213c39a7f0b",
  "athlete-stats": "16b77d1b34bd6acc",
  "follows": "266536d9e757cb16",
  "gear": "2e0df7288c0e273c",
  "goals": "09c0eaa77e23e876",
  "heatmap_sources": "f04996c2308e9c5f",
  "records": "0025a9ac3600c4a8",
  "segments": "02db045d2f30b43c",
  "training-load": "d51557f1ec63f6d8",
  "training-volume": "e5a9ea0a7ad6e81a",
  "challenges": "c804b4bef20ccefe",
  "club-feed": "9f7cdf001f004d42",
  "clubs": "65d15fee52a5544b",
  "uploads": "a7c4b8edec584c96",
};

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const isLoaderOrReadSide = (file: string) => /(^|-)bulk\.ts$|^queries\.ts$/.test(basename(file));

/** The hash of the handlers' sources a loader restates. */
function handlersHash(file: string): string {
  const hash = createHash("sha256");
  for (const f of moduleFiles(file).filter((f) => !isLoaderOrReadSide(f)).sort()) {
    hash.update(`${relative(ROOT, f)}\n${readFileSync(f, "utf8")}\n`);
  }
  return hash.digest("hex").slice(0, 16);
}

describe("bulk loaders", () => {
  const files = projectionFiles();

  it("are written for their projection's current tables and event types", () => {
    const stale = allProjections.filter((p) => p.bulk && p.bulk.writtenFor !== bulkFingerprint(p))
      .map((p) => `${p.name}: writtenFor ${p.bulk!.writtenFor}, now ${bulkFingerprint(p)}`);
    expect(stale).toEqual([]);
  });

  it("were checked against their projection's current handlers", () => {
    const withLoader = allProjections.filter((p) => p.bulk).map((p) => p.name).sort();
    expect(Object.keys(WRITTEN_AGAINST).sort()).toEqual(withLoader);
    const hashes = Object.fromEntries(withLoader.map((name) => [name, handlersHash(files.get(name)!)]));
    expect(hashes).toEqual(WRITTEN_AGAINST);
  });

  it("the fingerprint changes with a projection's tables and with its event types", () => {
    const p = { schema: "create table a (x int);", handles: ["A", "B"] };
    expect(bulkFingerprint(p)).toBe(bulkFingerprint({ schema: " create table a (x int);\n", handles: ["B", "A"] }));
    expect(bulkFingerprint({ ...p, schema: "create table a (x bigint);" })).not.toBe(bulkFingerprint(p));
    expect(bulkFingerprint({ ...p, handles: ["A", "B", "C"] })).not.toBe(bulkFingerprint(p));
  });

  it("projections that are not isolated declare the other projections whose tables they read", () => {
    // A rebuild loads a projection in bulk only when no projection applying events one by one reads
    // its tables; one neither isolated nor declaring its reads counts as reading every other one.
    const owner = new Map(allProjections.flatMap((p) => p.tables.map((t) => [t, p.name] as const)));
    const problems: string[] = [];
    for (const projection of allProjections.filter((p) => !p.isolated)) {
      const read = [
        ...new Set(
          tablesNamed(moduleSources(files.get(projection.name)!), [...owner.keys()])
            .map((t) => owner.get(t)!).filter((name) => name !== projection.name),
        ),
      ];
      if (projection.reads === undefined) problems.push(`${projection.name} declares no reads (it names ${read})`);
      else {
        const missing = read.filter((name) => !projection.reads!.includes(name));
        if (missing.length) problems.push(`${projection.name} reads ${missing} without declaring it`);
      }
    }
    expect(problems).toEqual([]);
    // The scan sees the real cross reads (segments' boards read athletes, challenges read segment_efforts).
    expect(allProjections.find((p) => p.name === "challenges")!.reads).toContain("segments");
  });
});
