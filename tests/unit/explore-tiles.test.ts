import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db, Queryable } from "../../events/db/types.ts";
import { catalogue } from "../../events/index.ts";
import { EventStore } from "../../events/store.ts";
import { allProjections } from "../../projections/index.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { exploreSegments, exploreSegmentsByScan } from "../../projections/segments/queries.ts";
import { rebuildTileTops, refreshTileTops, TILE_LEVELS, TOP } from "../../projections/segments/tiles.ts";

/**
 * Explore reads the tiles' lists of most attempted segments (projections/segments/tiles.ts): its
 * answer must be the one filtering every segment of the box gives, for any box and climb category
 * range, and the lists kept change by change must equal lists computed from scratch — with counts
 * going up and down, segments made private, categories changed, dense and sparse areas, boxes
 * across tile edges.
 */
describe("explore from the tiles' lists", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
    const runner = new ProjectionRunner(db, await EventStore.open(db, catalogue), allProjections);
    await runner.migrate();
  });
  afterAll(() => db.close());

  const expected = (q: Queryable) =>
    q.query<{ r: string }>(
      `select row_to_json(x)::text as r from (
         select level, tile, activity_type, id, athlete_count, effort_count, climb_category, place
           from (select l.level, t.tile, s.*, row_number() over (partition by l.level, t.tile, s.activity_type
                                                  order by s.athlete_count desc, s.effort_count desc, s.id) as place
                   from segments s cross join (values ${TILE_LEVELS.map((l) => `(${l})`).join(",")}) l(level)
                   cross join lateral (select floor((s.start_lat + 90) * 2 ^ l.level)::bigint * 360 * (2 ^ l.level)::bigint
                                             + floor((s.start_lng + 180) * 2 ^ l.level)::bigint as tile) t
                  where not s.private) r where place <= ${TOP} order by 1, 2, 3, 4) x`,
    );
  const kept = (q: Queryable) =>
    q.query<{ r: string }>(
      `select row_to_json(x)::text as r from (select level, tile, activity_type, segment_id as id, athlete_count,
              effort_count, climb_category, place from segment_tile_tops order by 1, 2, 3, 4) x`,
    );

  const segment = fc.record({
    lat: fc.oneof(fc.double({ min: 44.9, max: 45.1, noNaN: true }), fc.double({ min: 44, max: 46, noNaN: true })),
    lng: fc.oneof(fc.double({ min: -0.1, max: 0.1, noNaN: true }), fc.double({ min: -1, max: 1, noNaN: true })),
    run: fc.boolean(),
    cat: fc.integer({ min: 0, max: 5 }),
    athletes: fc.integer({ min: 0, max: 6 }),
    efforts: fc.integer({ min: 0, max: 12 }),
    private: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  });
  const change = fc.record({
    at: fc.nat(),
    athletes: fc.integer({ min: -3, max: 3 }),
    efforts: fc.integer({ min: -5, max: 5 }),
    cat: fc.option(fc.integer({ min: 0, max: 5 })),
    private: fc.boolean(),
  });
  const box = fc.record({
    lat: fc.double({ min: 43.8, max: 46, noNaN: true }),
    lng: fc.double({ min: -1.2, max: 1, noNaN: true }),
    height: fc.oneof(fc.double({ min: 0.001, max: 0.3, noNaN: true }), fc.double({ min: 0.3, max: 2.5, noNaN: true })),
    width: fc.oneof(fc.double({ min: 0.001, max: 0.3, noNaN: true }), fc.double({ min: 0.3, max: 2.5, noNaN: true })),
    run: fc.boolean(),
    minCat: fc.integer({ min: 0, max: 5 }),
    extra: fc.integer({ min: 0, max: 5 }),
  });

  it("answers as a scan of the box, and keeps the lists a rebuild computes", async () => {
    let next = 1;
    await fc.assert(
      fc.asyncProperty(
        // Sizes set: fast-check's default keeps arrays to about ten (no tile list would fill).
        fc.array(segment, { minLength: 40, maxLength: 160, size: "max" }),
        fc.array(change, { minLength: 10, maxLength: 60, size: "max" }),
        fc.array(box, { minLength: 4, maxLength: 12 }),
        async (segments, changes, boxes) => {
          await db.exec("delete from rm.segments; delete from rm.segment_tile_tops");
          const ids: number[] = [];
          await db.transaction(async (tx) => {
            await tx.exec("set local search_path to rm, public");
            for (const s of segments) {
              const id = next++;
              ids.push(id);
              await tx.query(
                `insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade,
                   total_elevation_gain, climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private,
                   hazardous, created_at, updated_at, effort_count, athlete_count)
                 values ($1, 's', $2, '[]', 1000, 1, 2, 10, $3, $4, $5, $4, $5, '', $6, false, now(), now(), $7, $8)`,
                [id, s.run ? "Run" : "Ride", s.cat, s.lat, s.lng, s.private, s.athletes + s.efforts, s.athletes],
              );
              // Created with no efforts, then counted: as the live path, a change at a time.
              await refreshTileTops(tx, [id]);
            }
            for (const c of changes) {
              const id = ids[c.at % ids.length];
              await tx.query(
                `update segments set athlete_count = greatest(0, athlete_count + $2),
                   effort_count = greatest(0, effort_count + $3), climb_category = coalesce($4, climb_category),
                   private = private <> $5
                 where id = $1`,
                [id, c.athletes, c.efforts, c.cat, c.private && c.at % 7 === 0],
              );
              await refreshTileTops(tx, [id, ids[(c.at * 31) % ids.length]]);
            }
            expect(await kept(tx)).toEqual(await expected(tx));
            await rebuildTileTops(tx);
            expect(await kept(tx)).toEqual(await expected(tx));
            for (const b of boxes) {
              const q = {
                bounds: [b.lat, b.lng, b.lat + b.height, b.lng + b.width] as [number, number, number, number],
                activityType: b.run ? "Run" as const : "Ride" as const,
                minCat: b.minCat,
                maxCat: Math.min(5, b.minCat + b.extra),
              };
              const tiles = (await exploreSegments(tx, q)).map((r) => Number(r.id));
              const scan = (await exploreSegmentsByScan(tx, q)).map((r) => Number(r.id));
              expect(tiles).toEqual(scan);
            }
          });
        },
      ),
      { numRuns: 25, endOnFailure: true },
    );
  }, 300_000);

  it(
    "answers as a scan of the box where the finest tiles' lists are full (the descent and the direct read)",
    async () => {
      // A few hundred segments within 0.03° (about 2 × 2 tiles of the finest level, 1/64°), one sport,
      // counts tied often: boxes inside cut full lists at every level, so explore descends to the
      // finest tiles and reads their segments inside the box directly.
      const dense = fc.record({
        lat: fc.double({ min: 45, max: 45.03, noNaN: true }),
        lng: fc.double({ min: 0, max: 0.03, noNaN: true }),
        cat: fc.integer({ min: 0, max: 5 }),
        athletes: fc.integer({ min: 0, max: 3 }),
        efforts: fc.integer({ min: 0, max: 3 }),
      });
      const inner = fc.record({
        lat: fc.double({ min: 44.995, max: 45.03, noNaN: true }),
        lng: fc.double({ min: -0.005, max: 0.03, noNaN: true }),
        height: fc.double({ min: 0.0005, max: 0.03, noNaN: true }),
        width: fc.double({ min: 0.0005, max: 0.03, noNaN: true }),
        minCat: fc.integer({ min: 0, max: 5 }),
        extra: fc.integer({ min: 0, max: 5 }),
      });
      let direct = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(dense, { minLength: 150, maxLength: 300, size: "max" }),
          fc.array(inner, { minLength: 6, maxLength: 12 }),
          async (segments, boxes) => {
            await db.exec("delete from rm.segments; delete from rm.segment_tile_tops");
            await db.transaction(async (tx) => {
              await tx.exec("set local search_path to rm, public");
              await tx.query(
                `insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade,
                 total_elevation_gain, climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private,
                 hazardous, created_at, updated_at, effort_count, athlete_count)
               select g.i, 's', 'Ride', '[]', 1000, 1, 2, 10, g.cat, g.lat, g.lng, g.lat, g.lng, '', false, false, now(),
                      now(), g.athletes + g.efforts, g.athletes
                 from unnest($1::int[], $2::int[], $3::float8[], $4::float8[], $5::int[], $6::int[])
                      as g(i, cat, lat, lng, athletes, efforts)`,
                [
                  segments.map((_, i) => i + 1),
                  segments.map((s) => s.cat),
                  segments.map((s) => s.lat),
                  segments.map((s) => s.lng),
                  segments.map((s) => s.athletes),
                  segments.map((s) => s.efforts),
                ],
              );
              await rebuildTileTops(tx);
              expect(await kept(tx)).toEqual(await expected(tx));
              const counting: Queryable = {
                query: (sql, params) => {
                  if (sql.includes("cross join lateral")) direct++;
                  return tx.query(sql, params);
                },
                exec: (sql) => tx.exec(sql),
              };
              for (const b of boxes) {
                const q = {
                  bounds: [b.lat, b.lng, b.lat + b.height, b.lng + b.width] as [number, number, number, number],
                  activityType: "Ride" as const,
                  minCat: b.minCat,
                  maxCat: Math.min(5, b.minCat + b.extra),
                };
                const tiles = (await exploreSegments(counting, q)).map((r) => Number(r.id));
                const scan = (await exploreSegmentsByScan(tx, q)).map((r) => Number(r.id));
                expect(tiles).toEqual(scan);
              }
            });
          },
        ),
        { numRuns: 15, endOnFailure: true },
      );
      // The finest level's direct read ran (the case this test is for).
      expect(direct).toBeGreaterThan(0);
    },
    300_000,
  );
});
