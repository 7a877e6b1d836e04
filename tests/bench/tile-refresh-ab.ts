/**
 * `deno run -A tests/bench/tile-refresh-ab.ts [other/tiles.ts] [rounds]`: explore's tile lists
 * refresh (refreshTileTops) as an upload of the uploads bench makes it — 10,000 segments, 200 of
 * them on the ride's 20 km loop and the rest scattered over 2° × 2° around it; each "upload" adds
 * one athlete-effort to the 200 on the loop (8 efforts each, as a 6 h ride's laps) and refreshes
 * their lists in one call. With another tiles.ts (e.g. a `git show` of the base), both
 * implementations run alternately in the same process on two identical in-memory PGlite stores,
 * so a loaded machine slows both alike; after each round both stores' lists are checked equal to
 * each other and to a rebuild's. Prints p50 per implementation.
 */
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import { catalogue } from "../../events/index.ts";
import { EventStore } from "../../events/store.ts";
import { allProjections } from "../../projections/index.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import * as ours from "../../projections/segments/tiles.ts";

const other = Deno.args[0]?.endsWith(".ts") ? await import(Deno.args[0]) as typeof ours : undefined;
const rounds = Math.max(1, Number(Deno.args.find((a) => /^\d+$/.test(a)) ?? 10));
const CENTER = [45.5, 6.5];

async function build(): Promise<Db> {
  const db = await openPglite();
  await new ProjectionRunner(db, await EventStore.open(db, catalogue), allProjections).migrate();
  await db.exec("set search_path to rm, public");
  // As tests/bench/uploads.bench.ts places them: every 50th on the loop, the others scattered.
  await db.exec(`
    insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade, total_elevation_gain,
        climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private, hazardous, created_at, updated_at,
        effort_count, athlete_count)
      select g + 1, 'Bench ' || g, 'Ride', '[]'::jsonb, 600, 1, 2, 10, 0, lat, lng, lat, lng, '', false, false, now(),
             now(), 0, 0
        from generate_series(0, 9999) g,
             lateral (select case when g % 50 = 0
                                  then ${CENTER[0]} + 3183.1 * sin(((g / 50) * 97 % 19000) / 3183.1) / 111320
                                  else ${CENTER[0]} - 1 + 2 * ((g * 7919) % 10000) / 10000.0 end as lat,
                             case when g % 50 = 0
                                  then ${CENTER[1]} + 3183.1 * cos(((g / 50) * 97 % 19000) / 3183.1)
                                       / (111320 * cos(radians(${CENTER[0]})))
                                  else ${CENTER[1]} - 1 + 2 * ((g * 104729) % 10000) / 10000.0 end as lng) p;`);
  await db.transaction((tx) => ours.rebuildTileTops(tx));
  await db.exec("analyze");
  return db;
}

const lists = (db: Db) =>
  db.query<{ r: string }>(
    `select coalesce(json_agg(t order by level, tile, activity_type, segment_id)::text, '') as r
       from (select level, tile, activity_type, segment_id, athlete_count, effort_count, climb_category, place
               from segment_tile_tops) t`,
  ).then((rows) => rows[0].r);

const impls = [
  ...(other ? [{ name: "other", refresh: other.refreshTileTops, db: await build() }] : []),
  { name: "ours", refresh: ours.refreshTileTops, db: await build() },
];
const route = Array.from({ length: 200 }, (_, i) => i * 50 + 1);
const samples = new Map<string, number[]>(impls.map((i) => [i.name, []]));
for (let round = 0; round < rounds; round++) {
  for (const impl of round % 2 ? [...impls].reverse() : impls) {
    const t0 = performance.now();
    await impl.db.transaction(async (tx) => {
      await tx.query(
        "update segments set effort_count = effort_count + 8, athlete_count = $2 where id = any($1::bigint[])",
        [route, round + 1],
      );
      await impl.refresh(tx, route);
    });
    samples.get(impl.name)!.push(performance.now() - t0);
  }
  const kept = await Promise.all(impls.map((i) => lists(i.db)));
  if (new Set(kept).size !== 1) throw new Error(`round ${round}: the implementations' lists differ`);
  const db = impls[0].db;
  await db.transaction(async (tx) => {
    await tx.exec("create temp table kept on commit drop as select * from segment_tile_tops");
    await ours.rebuildTileTops(tx);
    const [{ n }] = await tx.query<{ n: number }>(
      `select count(*)::int as n from ((select * from kept except select * from segment_tile_tops)
         union all (select * from segment_tile_tops except select * from kept)) d`,
    );
    if (n !== 0) throw new Error(`round ${round}: ${n} rows differ from a rebuild`);
  });
}
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, xs] of samples) {
  const ms = p50(xs).toFixed(1);
  console.log(`${name}: update + refresh of the 200 segments' lists (one transaction) p50 ${ms} ms over ${xs.length}`);
}
for (const impl of impls) await impl.db.close();
