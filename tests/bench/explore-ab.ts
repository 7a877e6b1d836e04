/**
 * `deno run -A tests/bench/explore-ab.ts [other/tiles.ts] [rounds]`: explore's pick (exploreTopIds,
 * then the 10 segments' columns read as the route reads them) at 1× and 10× the segments in view,
 * the scale bench's segments and box (10,000 per block over lat 40–50, lng −5–5, each attempted
 * once, plus one popular segment at 45, 0), each size in its own in-memory PGlite. With another
 * tiles.ts (e.g. a `git archive` of the base), both implementations run alternately in the same
 * process, size by size and round by round, so a loaded machine slows both alike; each answer is
 * checked to be the other's. Prints p50 per implementation and size, the 10× / 1× ratio, and the
 * statements and rows each pick sends.
 */
import { openPglite } from "../../events/db/pglite.ts";
import type { Db, Queryable } from "../../events/db/types.ts";
import { catalogue } from "../../events/index.ts";
import { EventStore } from "../../events/store.ts";
import { allProjections } from "../../projections/index.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { SEGMENT_COLUMNS } from "../../projections/segments/queries.ts";
import * as ours from "../../projections/segments/tiles.ts";

type Pick = typeof ours.exploreTopIds;
const SEGMENTS = 10_000;
const SEG0 = 1_000_000;
const BOX = { bounds: [44.5, -0.5, 45.5, 0.5] as [number, number, number, number], activityType: "Ride" };
const CALLS = 100;

const other = Deno.args[0]?.endsWith(".ts") ? await import(Deno.args[0]) as typeof ours : undefined;
const rounds = Math.max(1, Number(Deno.args.find((a) => /^\d+$/.test(a)) ?? 5));

async function build(blocks: number): Promise<Db> {
  const db = await openPglite();
  await new ProjectionRunner(db, await EventStore.open(db, catalogue), allProjections).migrate();
  await db.exec("set search_path to rm, public");
  await db.exec(`
    insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade, total_elevation_gain,
        climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private, hazardous, created_at, updated_at,
        effort_count, athlete_count)
      select ${SEG0} + g + 1, 'Seg ' || g, case when g % 2 = 0 then 'Ride' else 'Run' end, '[[0,0],[0,0.01]]'::jsonb,
             1000, 3, 5, 30, g % 6, lat, lng, lat + 0.009, lng, 'abc', false, false, now(), now(), 1, 1
        from generate_series(0::bigint, ${blocks * SEGMENTS - 1}::bigint) g,
             lateral (select 40 + ((g * 7919) % 100003) / 100003.0 * 10 as lat,
                             -5 + ((g * 15485863) % 99991) / 99991.0 * 10 as lng) p;
    insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade, total_elevation_gain,
        climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private, hazardous, created_at, updated_at,
        effort_count, athlete_count)
      values (1, 'Popular', 'Ride', '[[45,0],[45.009,0]]'::jsonb, 1000, 3, 5, 30, 1, 45, 0, 45.009, 0, 'abc', false, false,
              now(), now(), ${blocks * 10_000}, ${blocks * 2_000});`);
  await db.transaction((tx) => ours.rebuildTileTops(tx));
  await db.exec("analyze");
  return db;
}

/** The pick and the columns' read, as exploreSegments does; the statements and rows it sent. */
async function explore(db: Queryable, pick: Pick): Promise<{ ids: number[]; statements: number; rows: number }> {
  let statements = 0, rows = 0;
  const counting: Queryable = {
    query: async <T>(sql: string, params?: unknown[]) => {
      const out = await db.query<T>(sql, params);
      statements++;
      rows += out.length;
      return out;
    },
    exec: (sql) => db.exec(sql),
  };
  const ids = await pick(counting, { ...BOX, minCat: 0, maxCat: 5 });
  await counting.query(
    `select ${SEGMENT_COLUMNS}, s.elevation_difference as elev_difference from segments s
    where s.id = any($1::bigint[])`,
    [ids],
  );
  return { ids, statements, rows };
}

const sizes = [{ name: "1×", db: await build(1) }, { name: "10×", db: await build(10) }];
const impls: { name: string; pick: Pick }[] = [
  ...(other ? [{ name: "other", pick: other.exploreTopIds }] : []),
  { name: "ours", pick: ours.exploreTopIds },
];
const samples = new Map<string, number[]>();
for (const size of sizes) {
  const answers = new Set<string>();
  for (const impl of impls) {
    for (let i = 0; i < 50; i++) await explore(size.db, impl.pick);
    const { ids, statements, rows } = await explore(size.db, impl.pick);
    answers.add(JSON.stringify(ids));
    console.log(`${size.name} ${impl.name}: ${statements} statements, ${rows} rows back`);
  }
  if (answers.size !== 1) throw new Error(`${size.name}: the implementations answer differently: ${[...answers]}`);
}
if (Deno.env.get("EXPLAIN")) {
  const original = sizes[1].db;
  const seen: { sql: string; params?: unknown[] }[] = [];
  await ours.exploreTopIds({
    query: (sql, params) => {
      seen.push({ sql, params });
      return original.query(sql, params);
    },
    exec: (sql) => original.exec(sql),
  }, { ...BOX, minCat: 0, maxCat: 5 });
  for (const s of seen) {
    const plan = await original.query<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${s.sql}`, s.params);
    console.log(plan.map((r) => r["QUERY PLAN"]).join("\n"));
  }
}
for (let round = 0; round < rounds; round++) {
  for (const size of sizes) {
    for (const impl of impls) {
      const key = `${impl.name} ${size.name}`;
      const list = samples.get(key) ?? [];
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        await explore(size.db, impl.pick);
        list.push(performance.now() - t);
      }
      samples.set(key, list);
    }
  }
}
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const impl of impls) {
  const one = p50(samples.get(`${impl.name} 1×`)!), ten = p50(samples.get(`${impl.name} 10×`)!);
  console.log(`${impl.name}: p50 1× ${one.toFixed(3)} ms, 10× ${ten.toFixed(3)} ms: ${(ten / one).toFixed(2)}×`);
}
for (const size of sizes) await size.db.close();
