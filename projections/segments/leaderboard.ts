import type { Queryable } from "../../events/db/types.ts";
import {
  AGE_GROUPS, COUNTED_PERIODS, SHIFTS, WEIGHT_CLASSES, WEIGHT_CLASSES_KG, WEIGHT_CLASSES_LB, weightBounds, weightCohort,
} from "./boards.ts";

export { AGE_GROUPS, WEIGHT_CLASSES, WEIGHT_CLASSES_KG, WEIGHT_CLASSES_LB, weightBounds };

/**
 * The segment leaderboard's statements over the segments read model (segment_bests,
 * segment_period_bests, segment_board_counts; follows and club_members for those filters, athletes
 * for the names shown): the board's page and the viewer's context rows, with their competition ranks.
 */
export const DATE_RANGES = ["this_year", "this_month", "this_week", "today"] as const;

export interface LeaderboardFilters {
  gender?: "M" | "F";
  ageGroup?: (typeof AGE_GROUPS)[number];
  weightClass?: (typeof WEIGHT_CLASSES)[number];
  /** Only athletes the viewer follows (and the viewer). */
  following?: boolean;
  /** Only members of this club (the caller checked membership). */
  clubId?: number;
  dateRange?: (typeof DATE_RANGES)[number];
}

export interface LeaderboardRequest {
  segmentId: number;
  viewerId: number;
  filters: LeaderboardFilters;
  page: number;
  perPage: number;
  contextEntries: number;
  today?: Date;
}

const isoDate = (d: Date) => d.toISOString().slice(0, 10);

function yearsBefore(today: Date, years: number): string {
  return isoDate(new Date(Date.UTC(today.getUTCFullYear() - years, today.getUTCMonth(), today.getUTCDate())));
}

/** Birthdates (ISO text) of an age group today: [after (exclusive), atMost (inclusive)]; null = open. */
export function birthdateBounds(ageGroup: string, today: Date): [string | null, string | null] {
  const [lo, hi] = ageGroup.split("_");
  // Age ≥ lo ⇔ born on or before today − lo years; age ≤ hi ⇔ born after today − (hi + 1) years.
  const atMost = Number(lo) === 0 ? null : yearsBefore(today, Number(lo));
  const after = hi === "plus" ? null : yearsBefore(today, Number(hi) + 1);
  return [after, atMost];
}

/** The first local instant of a date range (start_date_local is compared as local wall time). */
export function rangeStart(range: (typeof DATE_RANGES)[number], today: Date): string {
  const y = today.getUTCFullYear(), m = today.getUTCMonth(), d = today.getUTCDate();
  let start: Date;
  if (range === "this_year") start = new Date(Date.UTC(y, 0, 1));
  else if (range === "this_month") start = new Date(Date.UTC(y, m, 1));
  else if (range === "this_week") start = new Date(Date.UTC(y, m, d - ((today.getUTCDay() + 6) % 7)));
  else start = new Date(Date.UTC(y, m, d));
  return start.toISOString().slice(0, 19);
}

/** The period key (segment_period_bests.period) of a date range today: y2026, m2026-11, w2026-11-16, d2026-11-22. */
export function periodKey(range: (typeof DATE_RANGES)[number], today: Date): string {
  const start = rangeStart(range, today);
  if (range === "this_year") return `y${start.slice(0, 4)}`;
  if (range === "this_month") return `m${start.slice(0, 7)}`;
  return `${range === "this_week" ? "w" : "d"}${start.slice(0, 10)}`;
}

export interface BoardRow {
  athlete_id: number;
  effort_id: number | bigint;
  activity_id: number;
  elapsed_time: number;
  moving_time: number;
  start_date: string;
  start_date_local: string;
  firstname: string | null;
  lastname: string | null;
  athlete_sex: string | null;
}

/**
 * Collects SQL parameters: `p(v)` answers a marker, and `query` numbers the markers a statement
 * uses ($1, $2, …) and passes only those values (unused ones could not be typed by the server).
 */
class Sql {
  private readonly values: unknown[] = [];
  p(value: unknown): string {
    this.values.push(value);
    return `\u0001${this.values.length - 1}\u0001`;
  }
  query<T>(db: Queryable, text: string): Promise<T[]> {
    const params: unknown[] = [];
    const numbers = new Map<string, number>();
    const sql = text.replace(/\u0001(\d+)\u0001/g, (_, k: string) => {
      if (!numbers.has(k)) {
        params.push(this.values[Number(k)]);
        numbers.set(k, params.length);
      }
      return `$${numbers.get(k)}`;
    });
    return db.query<T>(sql, params);
  }
}

/**
 * Which rows make the board: the all-time bests or one period's, narrowed by the filters; and how
 * to count "entries strictly faster than t" — from `segment_board_counts` when the filters form
 * one cohort (none, gender, weight class, age group = whole birth years plus the two partial
 * years counted directly), else by counting rows.
 */
class Board {
  readonly table: string;
  readonly source: string;
  readonly filters: string[] = [];
  /** Boards of segment_board_counts summed for counting; null = count rows. */
  readonly boards: string[] | null;
  /** Extra conditions (birthdate ranges) whose rows are counted directly on top of `boards`. */
  readonly partials: string[] = [];
  /** The segment id's placeholder. */
  readonly seg: string;

  constructor(readonly sql: Sql, req: LeaderboardRequest) {
    const today = req.today ?? new Date();
    const f = req.filters;
    const seg = this.seg = sql.p(req.segmentId);
    const period = f.dateRange ? periodKey(f.dateRange, today) : "all";
    if (f.dateRange) {
      this.table = "segment_period_bests";
      this.source = `b.segment_id = ${seg} and b.period = ${sql.p(period)}`;
    } else {
      this.table = "segment_bests";
      this.source = `b.segment_id = ${seg}`;
    }
    const cohorts = [f.gender, f.ageGroup, f.weightClass].filter((v) => v !== undefined).length;
    const counted = (COUNTED_PERIODS as readonly string[]).includes(period[0]);
    let boards: string[] | null = cohorts <= 1 && counted ? [period] : null;
    if (f.gender) {
      this.filters.push(`b.sex = ${sql.p(f.gender)}`);
      if (boards) boards = [`${period}|sex:${f.gender}`];
    }
    if (f.weightClass) {
      const [lower, upper] = weightBounds(f.weightClass);
      this.filters.push("b.weight is not null");
      if (lower !== null) this.filters.push(`b.weight >= ${sql.p(lower)}`);
      if (upper !== null) this.filters.push(`b.weight < ${sql.p(upper)}`);
      if (boards) boards = [`${period}|${weightCohort(f.weightClass)}`];
    }
    if (f.ageGroup) {
      const [after, atMost] = birthdateBounds(f.ageGroup, today);
      const age = ["b.birthdate is not null"];
      if (after) age.push(`b.birthdate > ${sql.p(after)}`);
      if (atMost) age.push(`b.birthdate <= ${sql.p(atMost)}`);
      for (const condition of age) this.filters.push(condition);
      if (boards) {
        // Whole birth years come from the counts; the partial years at either end are counted.
        const first = after ? Number(after.slice(0, 4)) + 1 : 1900;
        const last = atMost ? Number(atMost.slice(0, 4)) - 1 : today.getUTCFullYear() + 1;
        boards = [];
        for (let y = first; y <= last; y++) boards.push(`${period}|by:${String(y).padStart(4, "0")}`);
        const lowerPart = after ? `b.birthdate > ${sql.p(after)}` : "true";
        this.partials.push(`${lowerPart} and b.birthdate < ${sql.p(String(first).padStart(4, "0"))}`);
        const upperPart = atMost ? `b.birthdate <= ${sql.p(atMost)}` : "true";
        this.partials.push(`b.birthdate >= ${sql.p(String(last + 1).padStart(4, "0"))} and ${upperPart}`);
        if (first > last) {
          boards = [];
          this.partials.splice(0, 2, age.join(" and "));
        }
      }
    }
    this.boards = boards;
  }

  /** The board's rows: `from … where …` over alias b. */
  get from(): string {
    return `from ${this.table} b where ${[this.source, ...this.filters].join(" and ")}`;
  }

  /** SQL of the number of entries strictly faster than `t`, an SQL int expression (null: all entries). */
  count(t: string | null): string {
    const sql = this.sql;
    const faster = t === null ? "" : ` and b.elapsed_time < ${t}`;
    if (!this.boards) return `(select count(*) ${this.from}${faster})`;
    const parts: string[] = [];
    const boards = this.boards.length ? sql.p(this.boards) : null;
    const seg = this.seg;
    if (boards) {
      // Slots of each granularity below t: [(t >> up) << (up − shift), t >> shift).
      const ranges: [number, string | null, string][] = t === null
        ? [[31, null, ""]]
        : SHIFTS.slice(0, -1).map((shift, k) => {
          const up = SHIFTS[k + 1];
          return [shift, up >= 31 ? "0" : `((${t}) >> ${up}) << ${up - shift}`, `(${t}) >> ${shift}`];
        });
      for (const [shift, from, to] of ranges) {
        const slots = from === null ? "" : ` and slot >= ${from} and slot < ${to}`;
        parts.push(`(select coalesce(sum(n), 0) from segment_board_counts
                      where segment_id = ${seg} and board = any(${boards}::text[]) and shift = ${shift}${slots})`);
      }
    }
    for (const partial of this.partials) {
      parts.push(`(select count(*) from ${this.table} b where ${this.source} and ${partial}${faster})`);
    }
    return parts.length ? `(${parts.join(" + ")})` : "0";
  }
}

const BEST_COLUMNS = `b.athlete_id, b.effort_id, b.activity_id, b.elapsed_time, b.moving_time, b.start_date,
  b.start_date_local`;
const ORDER = "b.elapsed_time, b.start_date, b.effort_id";

/** A board row with its competition rank (from 0) and its position on the board (from 0). */
export type Ranked = BoardRow & { rank: number; position: number };

/** Competition ranks of consecutive rows starting at `position`, the first being `firstRank`. */
function rankRun(rows: BoardRow[], position: number, firstRank: number): Ranked[] {
  let rank = firstRank;
  return rows.map((row, k) => {
    if (k > 0 && row.elapsed_time !== rows[k - 1].elapsed_time) rank = position + k;
    return { ...row, rank, position: position + k };
  });
}

/**
 * The segment leaderboard: the number of entries, and the requested page and the viewer's entry
 * with context_entries rows either side (no repeats), in board order. rank is the competition rank
 * starting at 0 (ties share it, the next is skipped).
 */
export async function segmentBoard(db: Queryable, req: LeaderboardRequest): Promise<{ count: number; entries: Ranked[] }> {
  const f = req.filters;
  const { count, entries } = f.following || f.clubId !== undefined ? await smallBoard(db, req) : await countedBoard(db, req);
  return { count, entries: [...entries.values()].sort((a, b) => a.position - b.position) };
}

/**
 * following / club_id: the board is at most the (small) follow or member list, so it is read whole —
 * driven from that list, each athlete's best found by primary key — and ranked in memory.
 */
async function smallBoard(db: Queryable, req: LeaderboardRequest) {
  const sql = new Sql();
  const board = new Board(sql, req);
  const f = req.filters;
  const me = sql.p(req.viewerId);
  const lists: string[] = [];
  if (f.following) lists.push(`select followee_id as athlete_id from follows where follower_id = ${me} union select ${me}::bigint`);
  if (f.clubId !== undefined) {
    lists.push(`select athlete_id from club_members where club_id = ${sql.p(f.clubId)} and membership = 'member'`);
  }
  const [driver, ...others] = lists;
  const offset = (req.page - 1) * req.perPage;
  const k = req.contextEntries;
  // Each listed athlete's best by primary key (lateral; `limit 1` keeps the planner from turning it
  // into a join over the whole board), ranked over the list; names only for the rows shown.
  const rows = await sql.query<Ranked & { total: number; athlete_id: number | null }>(
    db,
    `with l as (${driver}),
     r as (select b.*, (rank() over (order by b.elapsed_time))::int - 1 as rank, (row_number() over w)::int - 1 as position
             from l cross join lateral (
               select b.athlete_id, b.effort_id, b.activity_id, b.elapsed_time, b.moving_time, b.start_date, b.start_date_local
                 from ${board.table} b
                where ${[board.source, "b.athlete_id = l.athlete_id", ...board.filters, ...others.map((o) => `b.athlete_id in (${o})`)].join(" and ")}
                limit 1) b
           window w as (order by ${ORDER})),
     mine as (select position from r where athlete_id = ${me})
     select t.total, x.*
       from (select count(*)::int as total from r) t
       left join (
         select r.*, a.firstname, a.lastname, a.sex as athlete_sex
           from r left join athletes a on a.id = r.athlete_id
          where (r.position >= ${sql.p(offset)}::int and r.position < ${sql.p(offset + req.perPage)}::int)
             or r.position between (select position from mine) - ${sql.p(k)}::int and (select position from mine) + ${sql.p(k)}::int) x on true
      order by x.position`,
  );
  const entries = new Map<number, Ranked>();
  for (const row of rows) if (row.athlete_id !== null) entries.set(row.position, row);
  return { count: rows[0].total, entries };
}

/**
 * Every other board, in two statements: (1) the page (offset on the board's ordered index) and the
 * context rows before and from the viewer's own entry (found by primary key; keyset on the same
 * index); (2) entry_count, the viewer's position and the ranks of the first row of each run, from
 * `Board.count` (the maintained counts) with the times known as constants, and the athletes' names.
 * (One statement with the times as subqueries plans about twice as slowly.)
 */
async function countedBoard(db: Queryable, req: LeaderboardRequest) {
  const sql = new Sql();
  const board = new Board(sql, req);
  const offset = (req.page - 1) * req.perPage;
  const k = req.contextEntries;
  const from = board.from;
  const key = "(select m.elapsed_time, m.start_date, m.effort_id from me m)";
  const parts = [`(select 0 as part, ${BEST_COLUMNS} ${from} order by ${ORDER} offset ${sql.p(offset)}::int limit ${sql.p(req.perPage)}::int)`];
  if (k > 0) {
    parts.push(`(select 1 as part, ${BEST_COLUMNS} ${from} and (${ORDER}) < ${key}
                  order by b.elapsed_time desc, b.start_date desc, b.effort_id desc limit ${sql.p(k)}::int)`);
  }
  parts.push(`(select 2 as part, ${BEST_COLUMNS} ${from} and (${ORDER}) >= ${key} order by ${ORDER} limit ${sql.p(k + 1)}::int)`);
  const rows = await sql.query<BoardRow & { part: number; start_key: string }>(
    db,
    `with me as (select b.elapsed_time, b.start_date, b.effort_id ${from} and b.athlete_id = ${sql.p(req.viewerId)})
     select r.*, r.start_date::text as start_key from (${parts.join(" union all ")}) r
      order by r.part, r.elapsed_time, r.start_date, r.effort_id`,
  );
  const page = rows.filter((r) => r.part === 0);
  const before = rows.filter((r) => r.part === 1);
  const after = rows.filter((r) => r.part === 2);
  const me = after.length && Number(after[0].athlete_id) === req.viewerId ? after[0] : undefined;
  const context = me ? [...before, ...after] : [];

  const counts = new Sql();
  const countBoard = new Board(counts, req);
  // Times are parameters, so one prepared statement serves every viewer and page of a board's shape.
  const int = (n: number) => `${counts.p(Math.trunc(n))}::int`;
  const ids = [...new Set(rows.map((r) => String(r.athlete_id)))];
  const exprs = [
    `${countBoard.count(null)}::int as total`,
    `(select coalesce(json_agg(json_build_array(a.id, a.firstname, a.lastname, a.sex)), '[]')::text
        from athletes a where a.id = any(${counts.p(ids)}::bigint[])) as athletes`,
  ];
  if (me) {
    exprs.push(`${countBoard.count(int(me.elapsed_time))}::int as mine`);
    exprs.push(`(select count(*) ${countBoard.from} and b.elapsed_time = ${int(me.elapsed_time)}
      and (b.start_date, b.effort_id) < (${counts.p(me.start_key)}::timestamptz, ${counts.p(String(me.effort_id))}::bigint))::int as ties`);
    // The first context row often shares the viewer's time: then its count is the viewer's.
    if (context[0].elapsed_time !== me.elapsed_time) exprs.push(`${countBoard.count(int(context[0].elapsed_time))}::int as context_first`);
  }
  if (page.length && offset > 0 && !(me && page[0].elapsed_time === me.elapsed_time)) exprs.push(`${countBoard.count(int(page[0].elapsed_time))}::int as page_first`);
  const [n] = await counts.query<{ total: number; athletes: string; mine?: number; ties?: number; context_first?: number; page_first?: number }>(
    db,
    `select ${exprs.join(", ")}`,
  );
  const names = new Map((JSON.parse(n.athletes) as [number, string, string, string | null][]).map(([id, ...rest]) => [String(id), rest]));
  for (const row of rows) [row.firstname, row.lastname, row.athlete_sex] = names.get(String(row.athlete_id)) ?? [null, null, null];

  const entries = new Map<number, Ranked>();
  if (offset < n.total) for (const row of rankRun(page, offset, offset === 0 ? 0 : n.page_first ?? n.mine!)) entries.set(row.position, row);
  if (me) {
    for (const row of rankRun(context, n.mine! + n.ties! - before.length, n.context_first ?? n.mine!)) entries.set(row.position, row);
  }
  return { count: n.total, entries };
}
