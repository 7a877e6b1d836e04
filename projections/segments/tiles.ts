import type { Queryable } from "../../events/db/types.ts";

/**
 * The most attempted public segments of each map tile, kept as the segments' counts change, so
 * that explore (the 10 most attempted segments starting in a view) reads a few short lists instead
 * of every segment in the view (its cost follows the answer, not the density of segments).
 *
 * `segment_tile_tops` holds, per zoom level (tiles of 2^-level degrees, by start point), tile and
 * activity type, the up to TOP best public segments by explore's order — athlete_count desc,
 * effort_count desc, id — with their place in that order (1…TOP: the list's last is its highest
 * place, and a list is full when it has place TOP), counts, climb category and start. Exactly those: a list
 * changes when one of its tile's segments is created, changes counts or climb category (see
 * `refreshTileTops`), and a rebuild computes every list at its end (`rebuildTileTops`).
 */
export const TILE_LEVELS = [0, 2, 4, 6] as const;
/** How many segments each tile keeps (explore answers 10). */
export const TOP = 10;

export const tileTopsSchema = `
  create table if not exists segment_tile_tops (
    level smallint not null,
    tile bigint not null,
    activity_type text not null,
    segment_id bigint not null,
    athlete_count integer not null,
    effort_count integer not null,
    climb_category integer not null,
    place smallint not null,
    start_lat double precision not null,
    start_lng double precision not null,
    primary key (level, tile, activity_type, segment_id)
  );
  create index if not exists segment_tile_tops_segment on segment_tile_tops (segment_id);`;

/** A tile's number at a level (rows of 2^-level degrees from the south pole, columns from 180° W). */
export function tileOf(level: number, lat: number, lng: number): number {
  const n = 2 ** level;
  return Math.floor((lat + 90) * n) * 360 * n + Math.floor((lng + 180) * n);
}

/** The same in SQL. */
const TILE_SQL = (level: string, lat: string, lng: string) =>
  `(floor((${lat} + 90) * 2 ^ ${level})::bigint * 360 * (2 ^ ${level})::bigint + floor((${lng} + 180) * 2 ^ ${level})::bigint)`;

/** A tile's bounds [south, west, north, east]. */
export function tileBounds(level: number, tile: number): [number, number, number, number] {
  const n = 2 ** level;
  const columns = 360 * n;
  const row = Math.floor(tile / columns), column = tile - row * columns;
  return [row / n - 90, column / n - 180, (row + 1) / n - 90, (column + 1) / n - 180];
}

const LEVELS_SQL = `(values ${TILE_LEVELS.map((l) => `(${l})`).join(", ")}) as l(level)`;

/** Every list from the segments as they stand (a rebuild's end). */
export async function rebuildTileTops(tx: Queryable): Promise<void> {
  await tx.query("delete from segment_tile_tops");
  await tx.query(
    `insert into segment_tile_tops (level, tile, activity_type, segment_id, athlete_count, effort_count, climb_category,
       place, start_lat, start_lng)
     select level, tile, activity_type, id, athlete_count, effort_count, climb_category, place, start_lat, start_lng
       from (select l.level, ${TILE_SQL("l.level", "s.start_lat", "s.start_lng")} as tile, s.*,
                    row_number() over (partition by l.level, ${TILE_SQL("l.level", "s.start_lat", "s.start_lng")},
                                       s.activity_type
                                       order by s.athlete_count desc, s.effort_count desc, s.id) as place
               from segments s cross join ${LEVELS_SQL} where not s.private) ranked
      where place <= ${TOP}`,
  );
}

/**
 * Brings the lists of these segments' tiles up to date after they were created or changed counts or
 * climb category. A list none of whose members got worse is the best TOP of its members and the
 * changed segments (every other segment of the tile ranks below its last member, and is unchanged);
 * one whose member got worse (counts down, now private) is recomputed from its tile's segments.
 * Only the lists that can change are read and written: a full list that does not hold a changed
 * segment, and whose last (its place TOP) ranks above every changed segment of its tile, stays as it
 * is — an upload's hundreds of matched segments mostly rank below the lists of the coarse tiles — and
 * a row whose counts, category and place are unchanged is not rewritten.
 */
export async function refreshTileTops(tx: Queryable, segmentIds: readonly (number | string)[]): Promise<void> {
  if (segmentIds.length === 0) return;
  const ids = [...new Set(segmentIds.map(String))];
  await tx.query(
    `with changed as (
       select s.id, s.activity_type, s.athlete_count, s.effort_count, s.climb_category, s.start_lat, s.start_lng, s.private
         from segments s where s.id = any($1::bigint[])),
     -- Each changed public segment in its tile at each level (computed once: joined by equality below).
     placed as (
       select l.level, ${TILE_SQL("l.level", "c.start_lat", "c.start_lng")} as tile, c.*
         from changed c cross join ${LEVELS_SQL} where not c.private),
     -- A full list's last member as it is now (the members' current counts): a changed segment that is
     -- not a member and ranks below it cannot enter a list whose members did not get worse.
     lasts as (
       select d.level, d.tile, d.activity_type, w.athlete_count, w.effort_count, w.id
         from (select distinct level, tile, activity_type from placed) d
         cross join lateral (
           select s.athlete_count, s.effort_count, s.id, max(t.place) over () as size
             from segment_tile_tops t join segments s on s.id = t.segment_id
            where t.level = d.level and t.tile = d.tile and t.activity_type = d.activity_type
            order by s.athlete_count, s.effort_count, s.id desc limit 1) w
        where w.size = ${TOP}),
     entering as (
       select p.* from placed p left join lasts w using (level, tile, activity_type)
        where w.id is null or (-p.athlete_count, -p.effort_count, p.id) <= (-w.athlete_count, -w.effort_count, w.id)),
     -- The lists to bring up to date: those these segments may enter, and those that listed them.
     lists as (
       select level, tile, activity_type from entering
       union
       select t.level, t.tile, t.activity_type from segment_tile_tops t where t.segment_id = any($1::bigint[])),
     -- Their rows (by the key, list by list).
     members as materialized (
       select k.level, k.tile, k.activity_type, t.segment_id, t.athlete_count, t.effort_count, t.climb_category,
              t.start_lat, t.start_lng
         from lists k
         cross join lateral (select * from segment_tile_tops t where t.level = k.level and t.tile = k.tile
                               and t.activity_type = k.activity_type offset 0) t),
     worse as (
       select distinct t.level, t.tile, t.activity_type
         from members t join changed c on c.id = t.segment_id
        where c.private or (c.athlete_count, c.effort_count) < (t.athlete_count, t.effort_count)),
     kept_lists as (select * from lists except select * from worse),
     candidates as (
       -- Lists kept: their members (the changed ones as they are now) and the changed segments that may enter.
       select e.level, e.tile, e.activity_type, e.id, e.athlete_count, e.effort_count, e.climb_category, e.start_lat,
              e.start_lng
         from entering e join kept_lists k using (level, tile, activity_type)
       union
       select t.level, t.tile, t.activity_type, t.segment_id, t.athlete_count, t.effort_count, t.climb_category,
              t.start_lat, t.start_lng
         from members t join kept_lists k using (level, tile, activity_type)
        where t.segment_id <> all($1::bigint[])
       union
       -- Lists recomputed: the tile's best public segments (through the explore index, by the tile's bounds).
       select w.level, w.tile, w.activity_type, s.id, s.athlete_count, s.effort_count, s.climb_category, s.start_lat,
              s.start_lng
         from worse w
         cross join lateral (
           select s.* from segments s
            where s.activity_type = w.activity_type and not s.private
              -- The tile's band of latitudes (widened a hair: the tile number decides) for the index.
              and s.start_lat >= floor(w.tile / (360 * (2 ^ w.level)::bigint)) / 2 ^ w.level - 90 - 1e-9
              and s.start_lat <= (floor(w.tile / (360 * (2 ^ w.level)::bigint)) + 1) / 2 ^ w.level - 90 + 1e-9
              and ${TILE_SQL("w.level", "s.start_lat", "s.start_lng")} = w.tile
            order by s.athlete_count desc, s.effort_count desc, s.id limit ${TOP}) s),
     ranked as (
       select *, row_number() over (partition by level, tile, activity_type
                                    order by athlete_count desc, effort_count desc, id) as place
         from candidates),
     kept as (select level, tile, activity_type, id from ranked where place <= ${TOP}),
     -- Each row changed once in the statement: dropped when it left its list, upserted when in it.
     dropped as (
       delete from segment_tile_tops t
        using (select level, tile, activity_type, segment_id from members
               except select level, tile, activity_type, id from kept) d
        where t.level = d.level and t.tile = d.tile and t.activity_type = d.activity_type
          and t.segment_id = d.segment_id
       returning 1)
     insert into segment_tile_tops as t (level, tile, activity_type, segment_id, athlete_count, effort_count,
       climb_category, place, start_lat, start_lng)
     select level, tile, activity_type, id, athlete_count, effort_count, climb_category, place, start_lat, start_lng
       from ranked where place <= ${TOP}
     on conflict (level, tile, activity_type, segment_id) do update set athlete_count = excluded.athlete_count,
       effort_count = excluded.effort_count, climb_category = excluded.climb_category, place = excluded.place
       where (t.athlete_count, t.effort_count, t.climb_category, t.place)
             is distinct from (excluded.athlete_count, excluded.effort_count, excluded.climb_category, excluded.place)`,
    [ids],
  );
}

interface Candidate {
  id: number;
  athlete_count: number;
  effort_count: number;
}

/** A candidate from a row of the database (ids and counts may come back as text). */
function candidate(r: { id: unknown; athlete_count: unknown; effort_count: unknown }): Candidate {
  return { id: Number(r.id), athlete_count: Number(r.athlete_count), effort_count: Number(r.effort_count) };
}

/** Explore's order: more athletes, then more efforts, then the lower id. */
function better(a: Candidate, b: Candidate): boolean {
  if (a.athlete_count !== b.athlete_count) return a.athlete_count > b.athlete_count;
  if (a.effort_count !== b.effort_count) return a.effort_count > b.effort_count;
  return a.id < b.id;
}

/**
 * A row of a level's statement: one of the 10 best listed in the box ("top"), or a tile to descend
 * into ("open", with its list's last segment).
 */
interface LevelRow {
  kind: "top" | "open";
  id: string | null;
  athlete_count: number | null;
  effort_count: number | null;
  tile: string | null;
}

/**
 * One level's lists over the box, answered in the database (one statement, at most 10 + the open
 * tiles' rows back, whatever the number of tiles or of segments in them): the 10 best listed
 * segments inside the box and the category range, and the tiles to descend into — a full list
 * holding a segment outside the box or the range, whose last one still beats the 10th best of
 * this level (the caller checks that again against the 10th of every level read).
 */
const LEVEL_SQL = `
  with list as (
    select tile, segment_id, athlete_count, effort_count, place,
           start_lat between $4 and $6 and start_lng between $5 and $7 and climb_category between $8 and $9 as hit
      from segment_tile_tops where level = $1 and tile = any($2::bigint[]) and activity_type = $3),
  top as (
    select segment_id, athlete_count, effort_count from list where hit
     order by athlete_count desc, effort_count desc, segment_id limit 10),
  -- The last of each full list (its place TOP) whose list holds a segment outside the box or range.
  last as (
    select tile, segment_id, athlete_count, effort_count from list
     where place = ${TOP} and tile in (select tile from list where not hit))
  select 'top' as kind, segment_id::text as id, athlete_count, effort_count, null as tile from top
  union all
  select 'open', l.segment_id::text, l.athlete_count, l.effort_count, l.tile::text from last l
   -- Its last beats the 10th found here (computed once), or fewer than 10 were found.
   where coalesce((-l.athlete_count, -l.effort_count, l.segment_id) < (
           select -athlete_count, -effort_count, segment_id from top
            order by athlete_count desc, effort_count desc, segment_id offset 9 limit 1), true)`;

/**
 * The last level's open tiles: their segments inside the box and the category range, read directly
 * from segments (small tiles), the 10 best of each, in one statement.
 */
const DIRECT_SQL = `
  select s.id::text as id, s.athlete_count, s.effort_count
    from unnest($1::bigint[], $2::float8[], $3::float8[], $4::float8[], $5::float8[]) as t(tile, s, w, n, e)
    cross join lateral (
      select id, athlete_count, effort_count from segments
       where activity_type = $6 and start_lat between $7 and $9 and start_lng between $8 and $10
         and start_lat between t.s and t.n and start_lng between t.w and t.e
         and ${TILE_SQL("$13::int", "start_lat", "start_lng")} = t.tile
         and climb_category between $11 and $12 and not private
       order by athlete_count desc, effort_count desc, id limit 10) s`;

/**
 * The ids of up to 10 public segments of a sport starting inside a box, in a climb category range,
 * most attempted first (explore's order): the same answer as filtering every segment of the box,
 * from the tiles' lists. From a level where the box spans at most a few tiles: a tile inside the box
 * gives its list; a tile across the box's edge gives its listed segments that are inside, and when
 * its full list also holds segments outside the box or the category range, the tile's other
 * segments (all ranked below its last listed one) may still count — unless that last one already
 * ranks below the 10th best found — so its quarter-tiles of the next level are read the same way,
 * and at the last level its segments inside the box are read directly. Each level is one statement
 * that sends back only the 10 best it found and the tiles to descend into (LEVEL_SQL): what crosses
 * from the database follows the answer, not the segments in view.
 */
export async function exploreTopIds(
  db: Queryable,
  q: { bounds: [number, number, number, number]; activityType: string; minCat: number; maxCat: number },
): Promise<number[]> {
  const [south, west, north, east] = q.bounds;
  const span = Math.max(north - south, east - west);
  let index = TILE_LEVELS.length - 1;
  while (index > 0 && span * 2 ** TILE_LEVELS[index] > 4) index--;
  let level: number = TILE_LEVELS[index];
  let tiles = tilesOver(level, q.bounds);
  const found = new Map<number, Candidate>();
  const add = (r: Candidate) => found.set(r.id, r);
  for (;;) {
    const rows = await db.query<LevelRow>(LEVEL_SQL, [
      level,
      tiles,
      q.activityType,
      south,
      west,
      north,
      east,
      q.minCat,
      q.maxCat,
    ]);
    for (const r of rows) if (r.kind === "top") add(candidate(r));
    if (!rows.some((r) => r.kind === "open")) break;
    // The statement kept the tiles whose last beats its own 10th; the 10th of every level read so far
    // may rank higher: those whose unlisted segments rank below it are closed here.
    const limit = found.size < 10 ? undefined : [...found.values()].sort((a, b) => (better(a, b) ? -1 : 1))[9];
    const open = rows.flatMap((r) => {
      if (r.kind !== "open") return [];
      return !limit || better(candidate(r), limit) ? [Number(r.tile)] : [];
    });
    if (open.length === 0) break;
    if (index === TILE_LEVELS.length - 1) {
      // The last level: the open tiles' segments inside the box, read directly (few: small tiles).
      const bounds = open.map((tile) => tileBounds(level, tile));
      const direct = await db.query<{ id: string; athlete_count: number; effort_count: number }>(DIRECT_SQL, [
        open,
        bounds.map((b) => b[0] - 1e-9),
        bounds.map((b) => b[1] - 1e-9),
        bounds.map((b) => b[2] + 1e-9),
        bounds.map((b) => b[3] + 1e-9),
        q.activityType,
        south,
        west,
        north,
        east,
        q.minCat,
        q.maxCat,
        level,
      ]);
      for (const c of direct) add(candidate(c));
      break;
    }
    index++;
    const next = TILE_LEVELS[index];
    tiles = open.flatMap((tile) => tilesOver(next, clip(tileBounds(level, tile), q.bounds)));
    level = next;
  }
  return [...found.values()].sort((a, b) => (better(a, b) ? -1 : 1)).slice(0, 10).map((c) => c.id);
}

/** The tiles of a level a box touches. */
function tilesOver(level: number, [south, west, north, east]: [number, number, number, number]): number[] {
  const n = 2 ** level;
  const out: number[] = [];
  const rows = [Math.floor((south + 90) * n), Math.floor((Math.min(north, 90 - 1e-9) + 90) * n)];
  const columns = [Math.floor((west + 180) * n), Math.floor((Math.min(east, 180 - 1e-9) + 180) * n)];
  for (let row = rows[0]; row <= rows[1]; row++) {
    for (let column = columns[0]; column <= columns[1]; column++) out.push(row * 360 * n + column);
  }
  return out;
}

function clip(
  a: [number, number, number, number],
  b: [number, number, number, number],
): [number, number, number, number] {
  return [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
}
