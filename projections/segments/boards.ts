import type { Queryable } from "../../events/db/types.ts";
import { everyoneSeesSql } from "../../shared/visibility.ts";

/**
 * The leaderboard's read model beyond `segment_bests` (each athlete's all-time best public effort —
 * "public": an effort everyone may see, of an activity whose visibility is `everyone`, not shielded
 * by the athlete's privacy zones; followers-only efforts are kept apart, follower-boards.ts):
 *
 * - `segment_period_bests`: each athlete's best public effort per calendar period of
 *   start_date_local — `y2026`, `m2026-11`, `w2026-11-16` (the Monday), `d2026-11-22` — so a
 *   `date_range` board is read like the all-time one.
 * - `segment_board_counts`: for every board (period `all`/`y…`/`m…`, alone or with one
 *   cohort: `|sex:F`, `|kg:75_84`, `|lb:150_164`, `|by:1985` = birth year), how many athletes'
 *   bests fall in each elapsed-time slot at three granularities (`shift` 0 = the exact second,
 *   6 = 64 s, 31 = the whole board). "How many are strictly faster than t" is then
 *   the sum of at most 64 + t/64 small rows, whatever the board's size, and the board's size is one row.
 *   Week and day boards (`w…`, `d…`) hold at most a week's athletes and are counted directly.
 *
 * Everything is maintained from event data only (deterministic; replay reproduces it).
 */

export const AGE_GROUPS = ["0_19", "20_24", "25_34", "35_44", "45_54", "55_64", "65_69", "70_74", "75_plus"] as const;
export const WEIGHT_CLASSES_LB = [
  "0_74",
  "75_99",
  "100_124",
  "125_149",
  "150_164",
  "165_179",
  "180_199",
  "200_224",
  "225_249",
  "250_plus",
] as const;
export const WEIGHT_CLASSES_KG = [
  "0_34",
  "35_44",
  "45_54",
  "55_64",
  "65_74",
  "75_84",
  "85_94",
  "95_104",
  "105_114",
  "115_plus",
] as const;
export const WEIGHT_CLASSES = [...WEIGHT_CLASSES_LB, ...WEIGHT_CLASSES_KG] as const;

const LB = 0.45359237;

/** Lower (inclusive) and upper (exclusive) bounds in kg of a weight class; null = open. */
export function weightBounds(weightClass: string): [number | null, number | null] {
  const pounds = (WEIGHT_CLASSES_LB as readonly string[]).includes(weightClass);
  const [lo, hi] = weightClass.split("_");
  const factor = pounds ? LB : 1;
  const lower = Number(lo) === 0 ? null : Number(lo) * factor;
  const upper = hi === "plus" ? null : (Number(hi) + 1) * factor;
  return [lower, upper];
}

/** The cohort key of a weight class (`kg:75_84`, `lb:150_164`). */
export function weightCohort(weightClass: string): string {
  return `${(WEIGHT_CLASSES_LB as readonly string[]).includes(weightClass) ? "lb" : "kg"}:${weightClass}`;
}

/** SQL mapping `weight` (kg) to its class key among `classes` (the same bounds the filter uses). */
function weightCaseSql(classes: readonly string[], column: string): string {
  const arms = classes.map((c) => {
    const [lower, upper] = weightBounds(c);
    const conds = [`${column} is not null`];
    if (lower !== null) conds.push(`${column} >= ${lower}::float8`);
    if (upper !== null) conds.push(`${column} < ${upper}::float8`);
    return `when ${conds.join(" and ")} then '${weightCohort(c)}'`;
  });
  return `case ${arms.join(" ")} end`;
}

/** First letters of the periods whose boards have counts: all-time, years, months. */
export const COUNTED_PERIODS = ["a", "y", "m"] as const;

/** Time slot granularities of `segment_board_counts` (bit shifts of elapsed_time); 31 = the whole board. */
export const SHIFTS = [0, 6, 31] as const;

/** The period keys of the periods containing a local date (`YYYY-MM-DD`…). */
export const PERIODS_SQL = (column: string) =>
  `(values
  ('y' || to_char(${column}, 'YYYY')),
  ('m' || to_char(${column}, 'YYYY-MM')),
  ('w' || to_char(date_trunc('week', ${column}), 'YYYY-MM-DD')),
  ('d' || to_char(${column}, 'YYYY-MM-DD')))`;

/**
 * Upserts the count deltas of board rows read from `source` (columns s, p, t, x, b, w, d = ±1), at
 * every granularity of `shifts`; `upsert` false: a plain insert (no row of those boards exists).
 */
function countsSql(source: string, shifts: readonly number[] = SHIFTS, upsert = true): string {
  return `insert into segment_board_counts (segment_id, board, shift, slot, n)
     select r.s, k.board, h.shift, r.t >> h.shift, sum(r.d)::int
       from ${source}
      cross join lateral (values (r.p), (r.p || '|sex:' || nullif(r.x, '')),
              (r.p || '|' || ${weightCaseSql(WEIGHT_CLASSES_KG, "r.w")}),
              (r.p || '|' || ${weightCaseSql(WEIGHT_CLASSES_LB, "r.w")}),
              (r.p || '|by:' || substring(r.b from '^(\\d{4})-'))) k(board)
      cross join (values ${shifts.map((s) => `(${s})`).join(", ")}) h(shift)
      where k.board is not null and left(r.p, 1) in (${COUNTED_PERIODS.map((c) => `'${c}'`).join(", ")})
      group by 1, 2, 3, 4
     having sum(r.d) <> 0${
    upsert
      ? "\n     on conflict (segment_id, board, shift, slot) do update set n = segment_board_counts.n + excluded.n"
      : ""
  }`;
}

const BEST_COLUMNS =
  "segment_id, athlete_id, effort_id, activity_id, elapsed_time, moving_time, start_date, start_date_local, sex, birthdate, weight";

/** Inserts the all-time bests (best public effort per segment and athlete) of the efforts matching `where` (alias e). */
function insertBestsSql(where: string): string {
  return `insert into segment_bests (${BEST_COLUMNS})
     select distinct on (e.segment_id, e.athlete_id) e.segment_id, e.athlete_id, e.id, e.activity_id, e.elapsed_time,
            e.moving_time, e.start_date, e.start_date_local, a.sex, a.birthdate, a.weight
       from segment_efforts e left join athletes a on a.id = e.athlete_id
      where ${where} and ${everyoneSeesSql("e")} and not e.shielded
      order by e.segment_id, e.athlete_id, e.elapsed_time, e.start_date, e.id`;
}

/** Inserts the per-period bests of the efforts matching `where` (alias e). */
function insertPeriodBestsSql(where: string): string {
  return `insert into segment_period_bests (period, ${BEST_COLUMNS})
     select distinct on (e.segment_id, e.athlete_id, p.period) p.period, e.segment_id, e.athlete_id, e.id, e.activity_id,
            e.elapsed_time, e.moving_time, e.start_date, e.start_date_local, a.sex, a.birthdate, a.weight
       from segment_efforts e left join athletes a on a.id = e.athlete_id
      cross join lateral ${PERIODS_SQL("e.start_date_local")} p(period)
      where ${where} and ${everyoneSeesSql("e")} and not e.shielded
      order by e.segment_id, e.athlete_id, p.period, e.elapsed_time, e.start_date, e.id`;
}

/**
 * Rebuilds the whole leaderboard read model of some segments from their efforts, set-based (one
 * statement per table): what `refreshBoards` over every athlete would produce. For bulk loads;
 * run it inside a transaction.
 */
export async function rebuildBoards(tx: Queryable, segmentIds: (number | string)[]): Promise<void> {
  const ids = [segmentIds];
  // Sorting and grouping ~100k efforts' rows: keep them in memory (this transaction only).
  await tx.query("set local work_mem = '256MB'");
  for (const table of ["segment_bests", "segment_period_bests", "segment_board_counts"]) {
    await tx.query(`delete from ${table} where segment_id = any($1::bigint[])`, ids);
  }
  await tx.query(insertBestsSql("e.segment_id = any($1::bigint[])"), ids);
  await tx.query(insertPeriodBestsSql("e.segment_id = any($1::bigint[])"), ids);
  // The exact seconds' counts from the bests (their rows were just deleted: plain inserts), then
  // the coarser slots summed from those (fewer rows than expanding every best at every shift again).
  const [exact, ...coarser] = SHIFTS;
  await tx.query(
    countsSql(
      `(select segment_id, 'all', elapsed_time, sex, birthdate, weight, 1 from segment_bests where segment_id = any($1::bigint[])
                union all
                select segment_id, period, elapsed_time, sex, birthdate, weight, 1 from segment_period_bests
                 where segment_id = any($1::bigint[])) as r(s, p, t, x, b, w, d)`,
      [exact],
      false,
    ),
    ids,
  );
  await tx.query(
    `insert into segment_board_counts (segment_id, board, shift, slot, n)
     select c.segment_id, c.board, h.shift, c.slot >> (h.shift - ${exact}), sum(c.n)::int
       from segment_board_counts c cross join (values ${coarser.map((s) => `(${s})`).join(", ")}) h(shift)
      where c.shift = ${exact} and c.segment_id = any($1::bigint[])
      group by 1, 2, 3, 4`,
    ids,
  );
}

/**
 * Every segment's boards and its effort_count / athlete_count, from the efforts as they stand:
 * what the incremental handlers reach event by event (a rebuild's end; `cli verify` and
 * tests/unit/replay-batch.test.ts compare the two). effort_count is the number of public
 * (seen by everyone, not shielded) efforts, athlete_count the all-time board's entries.
 */
export async function rebuildAllBoards(tx: Queryable): Promise<void> {
  const rows = await tx.query<{ ids: string[] }>(
    "select coalesce(array_agg(distinct segment_id::text), '{}') as ids from segment_efforts",
  );
  const ids = rows[0]?.ids ?? [];
  if (ids.length) await rebuildBoards(tx, ids);
  await tx.query(
    `with e as (select segment_id, count(*)::int as n from segment_efforts e
                where ${everyoneSeesSql("e")} and not e.shielded group by 1),
          b as (select segment_id, count(*)::int as n from segment_bests group by 1)
     update segments s set effort_count = coalesce(e.n, 0), athlete_count = coalesce(b.n, 0)
       from segments t left join e on e.segment_id = t.id left join b on b.segment_id = t.id
      where s.id = t.id and (s.effort_count <> coalesce(e.n, 0) or s.athlete_count <> coalesce(b.n, 0))`,
  );
}

/**
 * Recomputes the all-time and per-period bests of the given (segment, athlete) pairs from their
 * public efforts (for efforts removed or hidden from everyone), writes only the rows that changed, keeps
 * the board counts in step (a changed or removed best −1, a changed or new one +1), and moves the
 * segments' effort_count by `effortDeltas` (segment id → public efforts added/removed) and
 * athlete_count by the all-time entries gained or lost. One statement, plus one deleting count
 * slots that dropped to 0, whatever the number of pairs.
 */
export async function refreshBoards(
  tx: Queryable,
  pairs: { segment_id: number | string; athlete_id: number | string }[],
  effortDeltas: Map<string, number>,
): Promise<string[]> {
  if (pairs.length === 0) return [];
  const seen = new Set<string>();
  const segs: string[] = [], aths: string[] = [];
  for (const p of pairs) {
    const key = `${p.segment_id}:${p.athlete_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    segs.push(String(p.segment_id));
    aths.push(String(p.athlete_id));
  }
  const deltaIds = [...effortDeltas.keys()];
  // The any() conditions let the (athlete_id, segment_id) / (segment_id, athlete_id, …) indexes
  // serve the lookups (an event concerns one athlete); the pair list keeps them exact.
  const pairList = "in (select * from unnest($1::bigint[], $2::bigint[]))";
  const inPairs = (alias: string) =>
    `${alias}.athlete_id = any($2::bigint[]) and ${alias}.segment_id = any($1::bigint[]) and (${alias}.segment_id, ${alias}.athlete_id) ${pairList}`;
  const row = (alias: string) =>
    `${alias}.segment_id, ${alias}.athlete_id, ${alias}.effort_id, ${alias}.activity_id, ${alias}.elapsed_time, ` +
    `${alias}.moving_time, ${alias}.start_date, ${alias}.start_date_local, ${alias}.sex, ${alias}.birthdate, ${alias}.weight`;
  const sameKey = (a: string, b: string) =>
    `${a}.segment_id = ${b}.segment_id and ${a}.athlete_id = ${b}.athlete_id and ${a}.period = ${b}.period`;
  const sets = BEST_COLUMNS.split(", ").filter((c) => c !== "segment_id" && c !== "athlete_id")
    .map((c) => `${c} = excluded.${c}`).join(", ");
  const [result] = await tx.query<{ zero: string[]; changed: string[] }>(
    `with src as (
       select e.segment_id, e.athlete_id, e.id as effort_id, e.activity_id, e.elapsed_time, e.moving_time, e.start_date,
              e.start_date_local, a.sex, a.birthdate, a.weight
         from segment_efforts e left join athletes a on a.id = e.athlete_id
        where ${inPairs("e")} and ${everyoneSeesSql("e")} and not e.shielded),
     fresh as (
       (select distinct on (c.segment_id, c.athlete_id) 'all'::text as period, c.* from src c
         order by c.segment_id, c.athlete_id, c.elapsed_time, c.start_date, c.effort_id)
       union all
       (select distinct on (c.segment_id, c.athlete_id, p.period) p.period, c.* from src c
         cross join lateral ${PERIODS_SQL("c.start_date_local")} p(period)
         order by c.segment_id, c.athlete_id, p.period, c.elapsed_time, c.start_date, c.effort_id)),
     stored as (
       select 'all'::text as period, ${row("b")} from segment_bests b where ${inPairs("b")}
       union all
       select b.period, ${row("b")} from segment_period_bests b where ${inPairs("b")}),
     gone as (select o.* from stored o where not exists (select 1 from fresh f where ${sameKey("f", "o")} and (${
      row("f")
    }) is not distinct from (${row("o")}))),
     come as (select f.* from fresh f where not exists (select 1 from stored o where ${sameKey("f", "o")} and (${
      row("f")
    }) is not distinct from (${row("o")}))),
     drop_all as (
       delete from segment_bests b using gone g
        where g.period = 'all' and b.segment_id = g.segment_id and b.athlete_id = g.athlete_id
          and not exists (select 1 from come c where ${sameKey("c", "g")})
       returning 1),
     drop_periods as (
       delete from segment_period_bests b using gone g
        where g.period <> 'all' and b.segment_id = g.segment_id and b.period = g.period and b.athlete_id = g.athlete_id
          and not exists (select 1 from come c where ${sameKey("c", "g")})
       returning 1),
     put_all as (
       insert into segment_bests (${BEST_COLUMNS}) select ${row("c")} from come c where c.period = 'all'
       on conflict (segment_id, athlete_id) do update set ${sets}
       returning 1),
     put_periods as (
       insert into segment_period_bests (period, ${BEST_COLUMNS}) select c.period, ${
      row("c")
    } from come c where c.period <> 'all'
       on conflict (segment_id, period, athlete_id) do update set ${sets}
       returning 1),
     deltas as (
       select segment_id, period, elapsed_time, sex, birthdate, weight, 1 from come
       union all
       select segment_id, period, elapsed_time, sex, birthdate, weight, -1 from gone),
     counted as (
       ${countsSql("deltas as r(s, p, t, x, b, w, d)")}
       returning segment_id, n),
     seg as (
       update segments s set effort_count = s.effort_count + d.efforts, athlete_count = s.athlete_count + d.athletes
         from (select segment_id, sum(e)::int as efforts, sum(a)::int as athletes
                 from (select x.segment_id, x.e, 0 as a from unnest($3::bigint[], $4::int[]) as x(segment_id, e)
                       union all select segment_id, 0, 1 from fresh where period = 'all'
                       union all select segment_id, 0, -1 from stored where period = 'all') z
                group by segment_id) d
        where s.id = d.segment_id and (d.efforts <> 0 or d.athletes <> 0)
       returning s.id)
     select coalesce((select array_agg(distinct segment_id::text) from counted where n = 0), '{}') as zero,
            coalesce((select array_agg(id::text) from seg), '{}') as changed`,
    [segs, aths, deltaIds, deltaIds.map((id) => effortDeltas.get(id) ?? 0)],
  );
  if (result && result.zero.length) {
    await tx.query("delete from segment_board_counts where n = 0 and segment_id = any($1::bigint[])", [result.zero]);
  }
  return result?.changed ?? [];
}

/**
 * Efforts only added (an activity's efforts recorded or made public): each best can only improve,
 * so the new best of a (segment, athlete, period) is the better of the stored one and this
 * change's best, never a rescan of the athlete's history. `addedSql` is a statement (an
 * `insert … returning` or a `select`) yielding the added efforts' columns id, segment_id,
 * athlete_id, activity_id, elapsed_time, moving_time, start_date, start_date_local, unlisted
 * (not seen by everyone, or shielded); only the others enter the boards. One statement writes the efforts (when `addedSql`
 * inserts them), the bests that improved, the board counts (old best −1, new best +1) and the
 * segments' effort_count / athlete_count; a second one, only when some slot
 * dropped to 0, deletes those slots. Same rows as `refreshBoards` over the touched pairs.
 */
export async function addToBoards(tx: Queryable, addedSql: string, params: unknown[]): Promise<string[]> {
  const sets = BEST_COLUMNS.split(", ").filter((c) => c !== "segment_id" && c !== "athlete_id")
    .map((c) => `${c} = excluded.${c}`).join(", ");
  const better =
    "(o.effort_id is null or (f.elapsed_time, f.start_date, f.effort_id) < (o.elapsed_time, o.start_date, o.effort_id))";
  const won =
    "f.period, f.segment_id, f.athlete_id, f.effort_id, f.activity_id, f.elapsed_time, f.moving_time, f.start_date, " +
    "f.start_date_local, f.sex, f.birthdate, f.weight, o.effort_id is not null as replaced, o.elapsed_time as old_t, " +
    "o.sex as old_x, o.birthdate as old_b, o.weight as old_w";
  const [result] = await tx.query<{ zero: string[]; changed: string[] }>(
    `with added as (${addedSql}),
     cand as (
       select x.segment_id, x.athlete_id, x.id as effort_id, x.activity_id, x.elapsed_time, x.moving_time, x.start_date,
              x.start_date_local, a.sex, a.birthdate, a.weight
         from added x left join athletes a on a.id = x.athlete_id
        where not x.unlisted),
     -- Each period (year, month, week, day) is a set of local days, so its best is the best of the
     -- days' bests: periods are derived from one row per (segment, athlete, day), not per effort
     -- (a ride passing a segment ten times gives one row there, not ten times four).
     daily as (
       select distinct on (c.segment_id, c.athlete_id, c.start_date_local::date) c.* from cand c
        order by c.segment_id, c.athlete_id, c.start_date_local::date, c.elapsed_time, c.start_date, c.effort_id),
     fresh as (
       (select distinct on (c.segment_id, c.athlete_id) 'all'::text as period, c.* from daily c
         order by c.segment_id, c.athlete_id, c.elapsed_time, c.start_date, c.effort_id)
       union all
       (select distinct on (c.segment_id, c.athlete_id, p.period) p.period, c.* from daily c
         cross join lateral ${PERIODS_SQL("c.start_date_local")} p(period)
         order by c.segment_id, c.athlete_id, p.period, c.elapsed_time, c.start_date, c.effort_id)),
     -- The stored best of each fresh row: one primary-key probe each (lateral, offset 0), never a
     -- hash join over the whole table, which the planner picks when it misjudges the CTE's size
     -- (a replay's fresh tables have no statistics) and which grows with every upload.
     win as (
       select ${won} from fresh f
         left join lateral (select o.* from segment_bests o
                             where o.segment_id = f.segment_id and o.athlete_id = f.athlete_id offset 0) o on true
        where f.period = 'all' and ${better}
       union all
       select ${won} from fresh f
         left join lateral (select o.* from segment_period_bests o
                             where o.segment_id = f.segment_id and o.period = f.period and o.athlete_id = f.athlete_id offset 0) o on true
        where f.period <> 'all' and ${better}),
     put_all as (
       insert into segment_bests (${BEST_COLUMNS})
       select segment_id, athlete_id, effort_id, activity_id, elapsed_time, moving_time, start_date, start_date_local, sex, birthdate, weight
         from win where period = 'all'
       on conflict (segment_id, athlete_id) do update set ${sets}
       returning 1),
     put_periods as (
       insert into segment_period_bests (period, ${BEST_COLUMNS})
       select period, segment_id, athlete_id, effort_id, activity_id, elapsed_time, moving_time, start_date, start_date_local, sex, birthdate, weight
         from win where period <> 'all'
       on conflict (segment_id, period, athlete_id) do update set ${sets}
       returning 1),
     deltas as (
       select segment_id, period, elapsed_time, sex, birthdate, weight, 1 from win
       union all
       select segment_id, period, old_t, old_x, old_b, old_w, -1 from win where replaced),
     counted as (
       ${countsSql("deltas as r(s, p, t, x, b, w, d)")}
       returning segment_id, n),
     seg as (
       update segments s set effort_count = s.effort_count + d.efforts, athlete_count = s.athlete_count + d.athletes
         from (select segment_id, sum(e)::int as efforts, sum(a)::int as athletes
                 from (select segment_id, 1 as e, 0 as a from added where not unlisted
                       union all
                       select segment_id, 0, 1 from win where period = 'all' and not replaced) z
                group by segment_id) d
        where s.id = d.segment_id and (d.efforts <> 0 or d.athletes <> 0)
       returning s.id)
     select coalesce((select array_agg(distinct segment_id::text) from counted where n = 0), '{}') as zero,
            coalesce((select array_agg(id::text) from seg), '{}') as changed`,
    params,
  );
  if (result && result.zero.length) {
    await tx.query("delete from segment_board_counts where n = 0 and segment_id = any($1::bigint[])", [result.zero]);
  }
  return result?.changed ?? [];
}

/** An athlete's sex / birthdate / weight changed: their board rows (and counts) follow. */
export async function updateBoardAthlete(
  tx: Queryable,
  athleteId: number,
  changes: { sex?: string | null; birthdate?: string | null; weight?: number | null },
): Promise<void> {
  const sets: string[] = [];
  const params: unknown[] = [athleteId];
  for (const key of ["sex", "birthdate", "weight"] as const) {
    if (changes[key] !== undefined) {
      params.push(changes[key]);
      sets.push(`${key} = $${params.length}`);
    }
  }
  if (sets.length === 0) return;
  // One statement: the rows as they were (this statement's snapshot) leave the counts, the
  // updated rows enter them; then the slots that dropped to 0 go.
  const [result] = await tx.query<{ zero: string[] }>(
    `with before as (
       select segment_id, 'all'::text as period, elapsed_time, sex, birthdate, weight from segment_bests where athlete_id = $1
       union all
       select segment_id, period, elapsed_time, sex, birthdate, weight from segment_period_bests where athlete_id = $1),
     after_all as (update segment_bests set ${sets.join(", ")} where athlete_id = $1
       returning segment_id, 'all'::text as period, elapsed_time, sex, birthdate, weight),
     after_periods as (update segment_period_bests set ${sets.join(", ")} where athlete_id = $1
       returning segment_id, period, elapsed_time, sex, birthdate, weight),
     deltas as (
       select *, -1 from before
       union all select *, 1 from after_all
       union all select *, 1 from after_periods),
     counted as (
       ${countsSql("deltas as r(s, p, t, x, b, w, d)")}
       returning segment_id, n)
     select coalesce((select array_agg(distinct segment_id::text) from counted where n = 0), '{}') as zero`,
    params,
  );
  if (result && result.zero.length) {
    await tx.query("delete from segment_board_counts where n = 0 and segment_id = any($1::bigint[])", [result.zero]);
  }
}
