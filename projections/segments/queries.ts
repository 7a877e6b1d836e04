import type { Visibility } from "../../shared/visibility.ts";
import type { Queryable } from "../../events/db/types.ts";
import { exploreTopIds } from "./tiles.ts";

/**
 * The queries of the segments read model (projection.ts: segments, segment_stars, segment_efforts,
 * segment_bests, segment_period_bests, segment_board_counts, segment_activity_facts): the only SQL
 * naming its tables (the leaderboard's statements are in leaderboard.ts beside it). Which efforts and
 * segments a viewer may see is the privacy engine's decision (server/privacy/engine.ts): callers pass
 * its predicate as a `Predicate`, which these queries place over their alias and parameter numbers.
 */

/** A privacy engine predicate over a table alias, its parameters numbered from `firstParam`. */
export type Predicate = (alias: string, firstParam: number) => { sql: string; params: unknown[] };

export interface SegmentRow {
  id: number;
  athlete_id: number | null;
  activity_id: number | null;
  name: string;
  activity_type: string;
  distance: number;
  average_grade: number;
  maximum_grade: number;
  elevation_high: number | null;
  elevation_low: number | null;
  total_elevation_gain: number;
  climb_category: number;
  start_lat: number;
  start_lng: number;
  end_lat: number;
  end_lng: number;
  polyline: string;
  city: string | null;
  state: string | null;
  country: string | null;
  private: boolean;
  hazardous: boolean;
  effort_count: number;
  athlete_count: number;
  star_count: number;
  created_at: string;
  updated_at: string;
}

export const SEGMENT_COLUMNS = `s.id, s.athlete_id, s.activity_id, s.name, s.activity_type, s.distance, s.average_grade,
  s.maximum_grade, s.elevation_high, s.elevation_low, s.total_elevation_gain, s.climb_category, s.start_lat, s.start_lng,
  s.end_lat, s.end_lng, s.polyline, s.city, s.state, s.country, s.private, s.hazardous, s.effort_count, s.athlete_count,
  s.star_count, s.created_at, s.updated_at`;

export interface EffortRow {
  id: number | bigint;
  segment_id: number;
  activity_id: number;
  athlete_id: number;
  name: string;
  start_index: number;
  end_index: number;
  start_date: string;
  start_date_local: string;
  elapsed_time: number;
  moving_time: number;
  distance: number;
  average_heartrate: number | null;
  max_heartrate: number | null;
  average_watts: number | null;
  average_cadence: number | null;
  kom_rank: number | null;
  pr_rank: number | null;
  achievements: { type_id: number; type: string; rank: number }[];
  hidden: boolean;
  /** Its activity's visibility. */
  visibility: Visibility;
  /** Whether the effort holds the segment's overall record now (isKomSql). */
  is_kom: boolean;
}

/**
 * SQL: whether effort `e` is a current KOM/QOM — first place (rank 0) on the segment's overall
 * leaderboard as it stands now: it is its athlete's best public effort (segment_bests) and no other
 * athlete's best is strictly faster (ties share first place, as they share the leaderboard's rank).
 * Private efforts never are. Unlike kom_rank (frozen at upload), this follows later efforts.
 */
export function isKomSql(e: string): string {
  return `exists (select 1 from segment_bests kb
     where kb.segment_id = ${e}.segment_id and kb.athlete_id = ${e}.athlete_id and kb.effort_id = ${e}.id
       and not exists (select 1 from segment_bests ko where ko.segment_id = kb.segment_id and ko.elapsed_time < kb.elapsed_time))`;
}

export const EFFORT_COLUMNS =
  `e.id, e.segment_id, e.activity_id, e.athlete_id, e.name, e.start_index, e.end_index, e.start_date,
  e.start_date_local, e.elapsed_time, e.moving_time, e.distance, e.average_heartrate, e.max_heartrate, e.average_watts,
  e.average_cadence, e.kom_rank, e.pr_rank, e.achievements, e.hidden, e.visibility, ${isKomSql("e")} as is_kom`;

// --- segments ---------------------------------------------------------------------------------

/** A segment row by id, whoever may see it (the caller applies the engine: server/segments/access.ts). */
export async function segmentById(db: Queryable, id: number): Promise<SegmentRow | undefined> {
  const [row] = await db.query<SegmentRow>(`select ${SEGMENT_COLUMNS} from segments s where s.id = $1`, [id]);
  return row ? { ...row, id: Number(row.id) } : undefined;
}

export function segmentsByIds(db: Queryable, ids: number[]): Promise<SegmentRow[]> {
  return db.query<SegmentRow>(`select ${SEGMENT_COLUMNS} from segments s where s.id = any($1::bigint[])`, [ids]);
}

/** A segment's geometry as JSON text: its points and (when known) its altitudes. */
export async function segmentGeometry(
  db: Queryable,
  id: number,
): Promise<{ points: string; altitudes: string | null } | undefined> {
  const [row] = await db.query<{ points: string; altitudes: string | null }>(
    "select points::text as points, altitudes::text as altitudes from segments where id = $1",
    [id],
  );
  return row;
}

/**
 * Up to 10 public segments of a sport starting inside a box and of a climb category range, most
 * attempted first: picked from the tiles' lists (tiles.ts), then read.
 */
export async function exploreSegments(
  db: Queryable,
  q: { bounds: [number, number, number, number]; activityType: "Ride" | "Run"; minCat: number; maxCat: number },
): Promise<(SegmentRow & { elev_difference: number })[]> {
  const ids = await exploreTopIds(db, q);
  if (ids.length === 0) return [];
  const rows = await db.query<SegmentRow & { elev_difference: number }>(
    `select ${SEGMENT_COLUMNS}, s.elevation_difference as elev_difference from segments s where s.id = any($1::bigint[])`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The same answer read from every segment of the box (what the lists must agree with). */
export function exploreSegmentsByScan(
  db: Queryable,
  q: { bounds: [number, number, number, number]; activityType: "Ride" | "Run"; minCat: number; maxCat: number },
): Promise<{ id: number }[]> {
  const [south, west, north, east] = q.bounds;
  return db.query(
    `select s.id from segments s
      where s.activity_type = $1 and s.start_lat between $2 and $4 and s.start_lng between $3 and $5
        and s.climb_category between $6 and $7 and not s.private
      order by s.athlete_count desc, s.effort_count desc, s.id
      limit 10`,
    [q.activityType, south, west, north, east, q.minCat, q.maxCat],
  );
}

/** Segments with ids above `afterId`, in id order, for the matching index (points as JSON text). */
export function segmentsAfter(
  db: Queryable,
  afterId: number,
  limit: number,
): Promise<
  { id: number; activity_type: string; points: string; private: boolean; athlete_id: number | null; name: string }[]
> {
  return db.query(
    `select id, activity_type, points::text as points, private, athlete_id, name from segments
      where id > $1 order by id limit ${Math.trunc(limit)}`,
    [afterId],
  );
}

/** Of these segments, those whose elevation a measurement from `source` ("gps" or "barometric") would set. */
export function segmentsToMeasure(
  db: Queryable,
  ids: number[],
  source: string,
): Promise<{ id: number; distance: number }[]> {
  return db.query<{ id: number; distance: number }>(
    `select id, distance from segments
      where id = any($1::bigint[]) and altitudes is null
        and (elevation_source is null or (elevation_source = 'gps' and $2 = 'barometric'))`,
    [ids, source],
  );
}

/** What matching needs to know of segments for one athlete: popularity, age, and whether the athlete starred them. */
export function segmentMatchStats(
  db: Queryable,
  ids: number[],
  athleteId: number,
): Promise<{ id: number; star_count: number; effort_count: number; created_at: string; starred: boolean }[]> {
  return db.query(
    `select s.id, s.star_count, s.effort_count, s.created_at,
            exists (select 1 from segment_stars t where t.segment_id = s.id and t.athlete_id = $2) as starred
       from segments s where s.id = any($1::bigint[])`,
    [ids, athleteId],
  );
}

// --- stars ------------------------------------------------------------------------------------

export async function starredBy(db: Queryable, athleteId: number, segmentIds: number[]): Promise<Set<number>> {
  if (segmentIds.length === 0) return new Set();
  const rows = await db.query<{ segment_id: number }>(
    "select segment_id from segment_stars where athlete_id = $1 and segment_id = any($2::bigint[])",
    [athleteId, segmentIds],
  );
  return new Set(rows.map((r) => Number(r.segment_id)));
}

/** Segments an athlete starred that pass the engine's predicate over segments `s`, most recently starred first. */
export function starredSegments(
  db: Queryable,
  q: { athleteId: number; visible: Predicate; offset: number; limit: number },
): Promise<(SegmentRow & { starred_date: string })[]> {
  const visible = q.visible("s", 4);
  return db.query(
    `select ${SEGMENT_COLUMNS}, t.starred_at as starred_date
       from segment_stars t join segments s on s.id = t.segment_id
      where t.athlete_id = $1 and ${visible.sql}
      order by t.starred_at desc, s.id desc offset $2 limit $3`,
    [q.athleteId, q.offset, q.limit, ...visible.params],
  );
}

// --- efforts ----------------------------------------------------------------------------------

/** An athlete's best effort on a segment (their PR): the fastest, then the earliest. */
export interface PrEffortRow {
  segment_id: number;
  effort_id: number | bigint;
  activity_id: number;
  elapsed_time: number;
  moving_time: number;
  distance: number;
  start_date: string;
  start_date_local: string;
  kom: boolean;
  /** How many of the athlete's efforts on the segment pass the predicate. */
  effort_count: number;
}

/**
 * An athlete's PR effort on each of these segments, among the efforts that pass the engine's
 * predicate over efforts `e` (the reader's view of them): the fastest, then the earliest; with how
 * many such efforts the athlete has there.
 */
export async function prEfforts(
  db: Queryable,
  q: { athleteId: number; segmentIds: number[]; visible: Predicate },
): Promise<Map<number, PrEffortRow>> {
  if (q.segmentIds.length === 0) return new Map();
  const visible = q.visible("e", 3);
  const rows = await db.query<PrEffortRow>(
    `select distinct on (e.segment_id) e.segment_id, e.id as effort_id, e.activity_id, e.elapsed_time, e.moving_time,
            e.distance, e.start_date, e.start_date_local, ${isKomSql("e")} as kom,
            (count(*) over (partition by e.segment_id))::int as effort_count
       from segment_efforts e
      where e.athlete_id = $1 and e.segment_id = any($2::bigint[]) and ${visible.sql}
      order by e.segment_id, e.elapsed_time, e.start_date, e.id`,
    [q.athleteId, q.segmentIds, ...visible.params],
  );
  return new Map(rows.map((r) => [Number(r.segment_id), r]));
}

/**
 * Efforts on a segment that pass the engine's predicate over efforts `e`, ascending by
 * start_date_local (then id); optionally one athlete's and within local bounds (inclusive, ISO text).
 */
export function effortsOnSegment(
  db: Queryable,
  q: {
    segmentId: number;
    visible: Predicate;
    athleteId?: number;
    from?: string;
    to?: string;
    offset: number;
    limit: number;
  },
): Promise<EffortRow[]> {
  const visible = q.visible("e", 2);
  const sql: string[] = ["e.segment_id = $1", visible.sql];
  const values: unknown[] = [q.segmentId, ...visible.params];
  if (q.athleteId !== undefined) {
    values.push(q.athleteId);
    sql.push(`e.athlete_id = $${values.length}`);
  }
  if (q.from !== undefined && q.to !== undefined) {
    values.push(q.from, q.to);
    sql.push(`e.start_date_local between $${values.length - 1}::timestamp and $${values.length}::timestamp`);
  }
  values.push(q.offset, q.limit);
  return db.query<EffortRow>(
    `select ${EFFORT_COLUMNS} from segment_efforts e where ${sql.join(" and ")}
      order by e.start_date_local, e.id offset $${values.length - 1} limit $${values.length}`,
    values,
  );
}

/** An effort by id with its `shielded` flag (whoever may see it: the caller asks the engine's canSeeEffort). */
export async function effortById(
  db: Queryable,
  id: bigint | number | string,
): Promise<(EffortRow & { shielded: boolean }) | undefined> {
  const [effort] = await db.query<EffortRow & { shielded: boolean }>(
    `select ${EFFORT_COLUMNS}, e.shielded from segment_efforts e where e.id = $1::bigint`,
    [id.toString()],
  );
  return effort;
}

/** An activity's efforts in order, hidden ones only when `includeHidden`, passing the engine's predicate over `e`. */
export function effortsOfActivity(
  db: Queryable,
  q: { activityId: number; includeHidden: boolean; visible: Predicate },
): Promise<EffortRow[]> {
  const shown = q.visible("e", 2);
  return db.query<EffortRow>(
    `select ${EFFORT_COLUMNS} from segment_efforts e where e.activity_id = $1 ${
      q.includeHidden ? "" : "and not e.hidden"
    }
        and ${shown.sql}
      order by e.ord`,
    [q.activityId, ...shown.params],
  );
}

/** The PR and achievement counts frozen at upload time, by activity id. */
export async function activityFacts(
  db: Queryable,
  ids: number[],
): Promise<Map<number, { pr_count: number; achievement_count: number }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ activity_id: number; pr_count: number; achievement_count: number }>(
    "select activity_id, pr_count, achievement_count from segment_activity_facts where activity_id = any($1::bigint[])",
    [ids],
  );
  return new Map(rows.map((r) => [Number(r.activity_id), r]));
}

/**
 * A part of GET /v3/activities/:id's single statement (over the activity `a`; $2 the viewer's id,
 * $3 include_all_efforts, $4 whether the viewer reads with view_private): the frozen counts and the
 * efforts (hidden ones only with include_all_efforts; shielded ones — starting or ending in the
 * owner's zones — only for the owner with view_private, as the engine's effortsOthersSee rules),
 * each with its segment and whether the viewer starred it.
 */
export const ACTIVITY_SEGMENTS_PART_SQL = `select json_build_object(
      'facts', (select json_build_object('pr_count', f.pr_count, 'achievement_count', f.achievement_count)
                  from segment_activity_facts f where f.activity_id = a.id),
      'efforts', (select json_agg(json_build_object(
          'id', e.id, 'segment_id', e.segment_id, 'activity_id', e.activity_id, 'athlete_id', e.athlete_id,
          'name', e.name, 'start_index', e.start_index, 'end_index', e.end_index, 'start_date', e.start_date,
          'start_date_local', e.start_date_local, 'elapsed_time', e.elapsed_time, 'moving_time', e.moving_time,
          'distance', e.distance, 'average_heartrate', e.average_heartrate, 'max_heartrate', e.max_heartrate,
          'average_watts', e.average_watts, 'average_cadence', e.average_cadence, 'kom_rank', e.kom_rank,
          'pr_rank', e.pr_rank, 'achievements', e.achievements, 'hidden', e.hidden, 'visibility', e.visibility,
          'is_kom', ${isKomSql("e")},
          'segment', (select json_build_object('id', s.id, 'name', s.name, 'activity_type', s.activity_type,
              'distance', s.distance, 'average_grade', s.average_grade, 'maximum_grade', s.maximum_grade,
              'elevation_high', s.elevation_high, 'elevation_low', s.elevation_low, 'start_lat', s.start_lat,
              'start_lng', s.start_lng, 'end_lat', s.end_lat, 'end_lng', s.end_lng, 'climb_category', s.climb_category,
              'city', s.city, 'state', s.state, 'country', s.country, 'private', s.private, 'hazardous', s.hazardous)
            from segments s where s.id = e.segment_id),
          'starred', exists (select 1 from segment_stars st where st.athlete_id = $2 and st.segment_id = e.segment_id)
        ) order by e.ord)
        from segment_efforts e where e.activity_id = a.id and ($3 or not e.hidden)
         and (not e.shielded or ($4::boolean and e.athlete_id = $2))))`;

/**
 * The board counts behind a new effort's ranks, as the boards stand before its activity, for each
 * (segment, elapsed time, calendar year of its local start): the athlete's own faster efforts
 * (any privacy), other athletes' faster bests, and other athletes with a faster public effort that
 * year (= whose best public effort of that year is faster).
 *
 * Ranked once per segment, not per effort (a 6 h ride on a loop passes each of its segments ten
 * times): one statement reads, for each segment touched, the exact-second slots of its all-time
 * board and of the year boards its efforts need (`segment_board_counts`, boards.ts) below its
 * slowest effort — at most one row per distinct faster time, whatever the board's size — the
 * athlete's own efforts there below that time, and the athlete's own bests (which the counts
 * include: they are subtracted); the counting is then done here. Strictly faster only: ties share
 * a rank.
 */
export async function effortBoardCounts(
  db: Queryable,
  athleteId: number,
  efforts: { segmentId: number; elapsedTime: number; year: number }[],
): Promise<{ own: number; overall: number; yearly: number }[]> {
  if (efforts.length === 0) return [];
  // The year board's period key, as PERIODS_SQL (boards.ts) writes it: to_char(…, 'YYYY').
  const yearKey = (year: number) => `y${String(year).padStart(4, "0")}`;
  const [row] = await db.query<{ read: string }>(
    `with segs as (
       select seg, max(t) as hi, array['all'] || array_agg(distinct y) as boards
         from unnest($1::bigint[], $2::int[], $3::text[]) as x(seg, t, y) group by seg),
     -- Lateral with offset 0: one index range per segment, never a scan of a whole table.
     slots as (
       select s.seg, c.board, c.slot, c.n from segs s cross join lateral (
         select c.board, c.slot, c.n from segment_board_counts c
          where c.segment_id = s.seg and c.board = any(s.boards) and c.shift = 0 and c.slot < s.hi offset 0) c),
     own as (
       select s.seg, e.t from segs s cross join lateral (
         select e.elapsed_time as t from segment_efforts e
          where e.segment_id = s.seg and e.athlete_id = $4 and e.elapsed_time < s.hi offset 0) e),
     -- The athlete's own bests (the counts include them): one index scan each over the segments touched.
     mine as (
       select o.segment_id as seg, 'all' as board, o.elapsed_time as t from segment_bests o
        where o.athlete_id = $4 and o.segment_id = any($1::bigint[])
       union all
       select o.segment_id, o.period, o.elapsed_time from segment_period_bests o
        where o.athlete_id = $4 and o.segment_id = any($1::bigint[]) and o.period = any($3::text[]))
     select json_build_object(
       'slots', (select coalesce(json_agg(json_build_array(seg, board, slot, n)), '[]') from slots),
       'mine', (select coalesce(json_agg(json_build_array(seg, board, t)), '[]') from mine),
       'own', (select coalesce(json_agg(json_build_array(seg, t)), '[]') from own))::text as read`,
    [
      efforts.map((e) => e.segmentId),
      efforts.map((e) => e.elapsedTime),
      efforts.map((e) => yearKey(e.year)),
      athleteId,
    ],
  );
  const read = JSON.parse(row.read) as {
    slots: [number, string, number, number][];
    mine: [number, string, number][];
    own: [number, number][];
  };
  const slots = new Map<string, [number, number][]>();
  for (const [seg, board, slot, n] of read.slots) {
    const key = `${seg}|${board}`;
    const list = slots.get(key);
    if (list) list.push([slot, n]);
    else slots.set(key, [[slot, n]]);
  }
  const mine = new Map(read.mine.map(([seg, board, t]) => [`${seg}|${board}`, t]));
  const own = new Map<number, number[]>();
  for (const [seg, t] of read.own) {
    const list = own.get(seg);
    if (list) list.push(t);
    else own.set(seg, [t]);
  }
  /** Entries of a board strictly faster than t, less the athlete's own. */
  const faster = (key: string, t: number) => {
    let n = 0;
    for (const [slot, count] of slots.get(key) ?? []) if (slot < t) n += count;
    const best = mine.get(key);
    return best !== undefined && best < t ? n - 1 : n;
  };
  return efforts.map((e) => ({
    own: (own.get(e.segmentId) ?? []).filter((t) => t < e.elapsedTime).length,
    overall: faster(`${e.segmentId}|all`, e.elapsedTime),
    yearly: faster(`${e.segmentId}|${yearKey(e.year)}`, e.elapsedTime),
  }));
}
