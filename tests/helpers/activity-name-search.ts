import { beforeAll, describe, expect, it } from "vitest";
import type { Db, Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { nameGrams } from "../../projections/activity-list/grams.ts";
import { activityListProjection } from "../../projections/activity-list/projection.ts";
import { countActivities, type Keyset, searchActivities } from "../../projections/activity-list/queries.ts";
import type { VisiblePredicate } from "../../projections/queries/athlete-feeds.ts";
import { type PlanNode, scannedRows } from "./plan-scans.ts";

/**
 * The suite of tests/unit/activity-name-search.test.ts (PGlite) and
 * tests/postgres/activity-name-search.test.ts (PostgreSQL). Issue 43: an athlete's activities
 * searched by a part of the name — the exact count and every page — over a generated history of 2,000 names (and another athlete's 300 beside them), checked against
 * JavaScript's own `toLowerCase().includes` over the names generated here: substrings mid-word and
 * across words, any case, accents, ß, CJK, emoji, two-character queries, after renames and deletions.
 * And the count's cost follows its answer: it reads the names holding the query's trigrams through
 * their index (projections/activity-list/grams.ts), never every name of the athlete.
 */
const WORDS = [
  "Morning",
  "Run",
  "parkrun",
  "Évening",
  "Ride",
  "Straße",
  "Zürich",
  "loop",
  "東京マラソン",
  "🏃 tempo",
  "naïve",
  "İstanbul",
  "INTERVALS",
  "hill",
  "Rkr",
];
const BIG = 1, SMALL = 2;

/** The suite over the database `open()` gives (opened, and closed, by the caller's suite). */
export function nameSearchSuite(label: string, open: () => Db): void {
  let db: Db;
  let position = 0;
  /** The names as generated, by activity id (the live ones). */
  const names = new Map<number, { athlete: number; name: string; start: number }>();

  function event(type: string, data: Record<string, unknown>): StoredEvent {
    position++;
    return {
      position,
      streamId: `activity-${data.activityId}`,
      streamVersion: 1,
      type,
      schemaVersion: 1,
      data,
      metadata: {},
      recordedAt: new Date(Date.UTC(2025, 0, 1) + position * 1000).toISOString(),
    } as unknown as StoredEvent;
  }

  function created(activityId: number, athleteId: number, name: string, start: number): StoredEvent {
    names.set(activityId, { athlete: athleteId, name, start });
    const iso = new Date(start * 1000).toISOString().replace(/\.\d+Z$/, "Z");
    return event("ActivityCreated", {
      activityId,
      athleteId,
      name,
      type: "Run",
      sportType: "Run",
      startDate: iso,
      startDateLocal: iso,
      timezone: "(GMT+00:00) UTC",
      elapsedTime: 1800,
      distance: 5000,
      description: null,
      visibility: "everyone",
      trainer: false,
      commute: false,
    });
  }

  /** Every statement run while `fn` runs, with its parameters. */
  async function recording<T>(
    fn: (q: Queryable) => Promise<T>,
  ): Promise<{ value: T; statements: [string, unknown[]][] }> {
    const statements: [string, unknown[]][] = [];
    const q = Object.create(db) as Queryable;
    q.query = ((sql: string, params?: unknown[]) => {
      statements.push([sql, params ?? []]);
      return db.query(sql, params);
    }) as Queryable["query"];
    return { value: await fn(q), statements };
  }

  const everyone: VisiblePredicate = () => ({ sql: "true", params: [] });

  const expected = (athlete: number, q: string) =>
    [...names].filter(([, a]) => a.athlete === athlete && a.name.toLowerCase().includes(q.toLowerCase()))
      .sort(([ia, a], [ib, b]) => b.start - a.start || ib - ia).map(([id]) => id);

  async function everyPage(athlete: number, q: string, limit: number): Promise<number[]> {
    const ids: number[] = [];
    let before: Keyset | undefined;
    for (let i = 0; i < 1000; i++) {
      const page = await searchActivities(db, athlete, everyone, { q }, { limit, before });
      ids.push(...page.rows.map((r) => r.id));
      if (!page.older) return ids;
      before = page.rows.at(-1);
    }
    throw new Error("never ended");
  }

  beforeAll(async () => {
    db = open();
    await db.transaction(async (tx) => {
      await tx.exec(activityListProjection.schema);
    });
    // A deterministic history: names of two or three words, some words cut or run together.
    let seed = 43;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const events: StoredEvent[] = [];
    let id = 1;
    for (const [athlete, count] of [[BIG, 2000], [SMALL, 300]]) {
      for (let i = 0; i < count; i++) {
        const parts = Array.from({ length: 2 + next(2) }, () => WORDS[next(WORDS.length)]);
        const name = next(5) === 0 ? parts.join("") : parts.join(" ");
        events.push(created(id++, athlete, name, 1_600_000_000 + i * 86_400 + next(3600)));
      }
    }
    // Renames and deletions after the fact.
    for (let a = 5; a < 2000; a += 97) {
      events.push(event("ActivityUpdated", { activityId: a, athleteId: BIG, name: `Renamed PARKRUN ${a} ß` }));
      names.get(a)!.name = `Renamed PARKRUN ${a} ß`;
    }
    for (let a = 7; a < 2000; a += 89) {
      events.push(event("ActivityDeleted", { activityId: a, athleteId: BIG, uploadId: null }));
      names.delete(a);
    }
    await db.transaction((tx) => activityListProjection.applyBatch!(tx, events));
    // The planner's statistics, as the runner refreshes them live (projections/runner.ts, ANALYZE_EVERY).
    await db.exec("analyze activity_list");
  });

  describe(`a search by a part of the name (${label})`, () => {
    const queries = [
      "parkrun",
      "PARKRUN",
      "arkr",
      "n r",
      "ning ru",
      "évening",
      "ÉVENING",
      "strasse",
      "straße",
      "zürich",
      "東京マ",
      "マラソ",
      "🏃 t",
      "ïve",
      "i̇stan",
      "istan",
      "rkr",
      "un",
      "ß",
      "renamed parkrun 1",
      "no such name",
    ];

    it("counts exactly what the names hold, any case and script, renames and deletions included", async () => {
      for (const athlete of [BIG, SMALL]) {
        for (const q of queries) {
          const count = await countActivities(db, athlete, everyone, { q });
          expect(count, `${athlete} "${q}"`).toBe(expected(athlete, q).length);
        }
      }
      // The history holds each kind of match.
      expect(expected(BIG, "parkrun").length).toBeGreaterThan(100);
      expect(expected(BIG, "🏃 t").length).toBeGreaterThan(10);
      expect(expected(BIG, "renamed parkrun 1").length).toBeGreaterThan(1);
    });

    it("pages through every match, newest first, and no other athlete's", async () => {
      for (const q of ["parkrun", "zürich", "ß", "東京マ", "n r"]) {
        expect(await everyPage(BIG, q, 30), q).toEqual(expected(BIG, q));
        expect(await everyPage(SMALL, q, 30), q).toEqual(expected(SMALL, q));
      }
    });

    it("reads the names holding the query's trigrams, not every name of the athlete", async () => {
      const q = "zürich loop";
      const { value: count, statements } = await recording((r) => countActivities(r, BIG, everyone, { q }));
      expect(count).toBe(expected(BIG, q).length);
      const holding = [...names.values()].filter((a) => {
        const grams = new Set(nameGrams(BIG, a.name.toLowerCase()));
        return a.athlete === BIG && nameGrams(BIG, q).every((g) => grams.has(g));
      }).length;
      const [sql, params] = statements.find(([s]) => s.includes("count("))!;
      const [plan] = await db.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
        `explain (analyze, format json) ${sql}`,
        params,
      );
      const read = scannedRows(plan["QUERY PLAN"][0].Plan).rows;
      expect(read).toBeLessThanOrEqual(holding);
      expect(holding).toBeLessThan(names.size / 10);
    });

    it("indexes the same trigrams as a query asks for (code points, not UTF-16 units)", async () => {
      for (const name of ["東京マラソン", "🏃 tempo", "straße", "i̇stanbul", "ab", ""]) {
        const [row] = await db.query<{ grams: string[] }>("select activity_list_grams($1, $2) as grams", [BIG, name]);
        expect([...new Set(row.grams)].sort(), name).toEqual(nameGrams(BIG, name).sort());
      }
    });
  });
}
