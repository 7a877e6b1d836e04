import { type Db, parseInt8, type Queryable } from "../../events/db/types.ts";
import {
  AGE_GROUPS,
  COUNTED_PERIODS,
  SHIFTS,
  WEIGHT_CLASSES,
  WEIGHT_CLASSES_KG,
  WEIGHT_CLASSES_LB,
  weightBounds,
  weightCohort,
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

/** The privacy engine's predicate over a row alias (athlete_id, visibility), parameters from firstParam. */
export type VisiblePredicate = (alias: string, firstParam: number) => { sql: string; params: unknown[] };

export interface LeaderboardRequest {
  segmentId: number;
  viewerId: number;
  /**
   * Which followers-only bests (segment_follower_bests, follower-boards.ts) this viewer may see:
   * the privacy engine's predicate. Absent: the board everyone sees.
   */
  followersOnly?: VisiblePredicate;
  filters: LeaderboardFilters;
  page: number;
  perPage: number;
  contextEntries: number;
  today?: Date;
}

/**
 * What GET /v3/segments/:id/leaderboard decides before answering, read by the board's own
 * statement (no round trip of its own): the segment's owner and privacy (null: no such segment),
 * whether the viewer is premium, and a member of the club a club board names.
 */
export interface BoardAccess {
  segment: { athlete_id: number | null; private: boolean } | null;
  premium: boolean;
  member: boolean | null;
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
  query<T>(run: (sql: string, params: unknown[]) => Promise<T[]>, text: string): Promise<T[]> {
    const params: unknown[] = [];
    const numbers = new Map<string, number>();
    // deno-lint-ignore no-control-regex -- U+0001 delimits the placeholders p() writes into the query text
    const sql = text.replace(/\u0001(\d+)\u0001/g, (_, k: string) => {
      if (!numbers.has(k)) {
        params.push(this.values[Number(k)]);
        numbers.set(k, params.length);
      }
      return `$${numbers.get(k)}`;
    });
    return run(sql, params);
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
  /** The period of `segment_follower_bests` rows ('all' or the date range's key). */
  readonly period: string;
  /** The placeholder of `boards`, once used. */
  private boardsParam?: string;

  constructor(readonly sql: Sql, req: LeaderboardRequest) {
    const today = req.today ?? new Date();
    const f = req.filters;
    const seg = this.seg = sql.p(req.segmentId);
    const period = this.period = f.dateRange ? periodKey(f.dateRange, today) : "all";
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

  /**
   * SQL of the number of entries strictly faster than `t` (an SQL int expression; null: all
   * entries) held in `segment_board_counts`: "0" when the board has no counts.
   */
  slots(t: string | null): string {
    if (!this.boards || this.boards.length === 0) return "0";
    const boards = this.boardsParam ??= this.sql.p(this.boards);
    // Slots of each granularity below t: [(t >> up) << (up − shift), t >> shift).
    const ranges: [number, string | null, string][] = t === null
      ? [[31, null, ""]]
      : SHIFTS.slice(0, -1).map((shift, k) => {
        const up = SHIFTS[k + 1];
        return [shift, up >= 31 ? "0" : `((${t}) >> ${up}) << ${up - shift}`, `(${t}) >> ${shift}`];
      });
    return `(${
      ranges.map(([shift, from, to]) => {
        const slots = from === null ? "" : ` and slot >= ${from} and slot < ${to}`;
        return `(select coalesce(sum(n), 0) from segment_board_counts
                   where segment_id = ${this.seg} and board = any(${boards}::text[]) and shift = ${shift}${slots})`;
      }).join(" + ")
    })`;
  }

  /**
   * The rows counted directly (those `slots` does not hold), as a statement yielding their
   * elapsed_time: the whole board when it has no counts, else an age group's partial birth years;
   * null when there are none.
   */
  get direct(): string | null {
    if (!this.boards) return `select b.elapsed_time ${this.from}`;
    if (this.partials.length === 0) return null;
    return this.partials.map((partial) =>
      `select b.elapsed_time from ${this.table} b where ${this.source} and ${partial}`
    )
      .join(" union all ");
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
 * How the leaderboard's statement is planned. It runs as a prepared statement (events/db/pglite.ts)
 * whose plan is made once and reused (`force_generic_plan`): left to itself PostgreSQL re-plans it
 * on every call (its custom plans, knowing `offset 0 limit 10`, always look cheaper than the
 * generic one), and planning this statement costs PGlite 1–5 ms, several times its execution.
 * Without the values, the planner would guess a filtered range (an age group's birthdates) to be
 * tiny and read it through its own index, then sort it all for the top 10; with sorts disabled it
 * walks the board's ordered index instead and stops after the rows it returns (sorts it cannot
 * avoid — a follow or club list's top rows — still run). Those disabled sorts make the plan look
 * very costly, which would make PostgreSQL (not PGlite, which has none) JIT-compile it: ~1 s per call.
 */
const PLANNING = { plan_cache_mode: "force_generic_plan", enable_sort: "off", jit: "off" };

/**
 * A database on which the leaderboard runs in its own transaction (for `PLANNING`) — in one call
 * when it offers `queryWithSettings` (embedded PGlite) —, or one already in a transaction.
 */
export type BoardDb = Queryable & Pick<Db, "queryWithSettings"> & {
  transaction?<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
};

/** Runs a board's statement planned as `PLANNING` says. */
function runPlanned<T>(db: BoardDb, sql: string, params: unknown[]): Promise<T[]> {
  if (db.queryWithSettings) return db.queryWithSettings<T>(PLANNING, sql, params);
  const set = Object.entries(PLANNING).map(([name, value]) => `set local ${name} = ${value}`).join("; ");
  return db.transaction
    ? db.transaction(async (tx) => {
      await tx.exec(set);
      return tx.query<T>(sql, params);
    })
    : db.query<T>(sql, params);
}

/**
 * The segment leaderboard: the number of entries, and the requested page and the viewer's entry
 * with context_entries rows either side (no repeats), in board order. rank is the competition rank
 * starting at 0 (ties share it, the next is skipped).
 *
 * One statement: the page (offset on the board's ordered index), the viewer's entry (by primary
 * key) with the context rows before and from it (keyset on the same index), the athletes' names of
 * those ≤ page + 2 × context + 1 rows only, and the counts that rank them: the number of entries,
 * the entries faster than the viewer, than the first context row and than the first page row, and
 * the viewer's ties ahead. Counts come from `segment_board_counts` (`Board.slots`) when the
 * filters form one counted cohort, plus one pass over the rows counted directly (`Board.direct`).
 * following / club_id boards are at most the (small) follow or member list: that list drives
 * (each athlete's best by primary key) and is counted in one pass.
 *
 * The same statement also asks which followers-only bests of this board
 * (segment_follower_bests) the viewer may see: usually none, and the board is answered in one
 * round trip; when some are, the board is read again with those bests in place of the athletes'
 * public rows.
 */
export async function segmentBoard(
  db: BoardDb,
  req: LeaderboardRequest,
): Promise<{ count: number; entries: Ranked[]; access: BoardAccess }> {
  const first = await boardQuery(db, req, []);
  return first.swapped.length ? await boardQuery(db, req, first.swapped) : first;
}

interface BoardResult {
  /** [part, athlete_id, effort_id, activity_id, elapsed_time, moving_time, start_date, start_date_local, firstname, lastname, sex] rows. */
  rows: string;
  /** BoardAccess as JSON text. */
  access: string;
  /** The followers-only bests' athletes the viewer may see, as a JSON array (absent once swapped). */
  swapped?: string;
  total: number;
  mine: number;
  ties: number;
  context_first: number;
  page_first: number;
}

/**
 * The athletes whose followers-only bests on this board the viewer may see, as a text column
 * `swapped` (a JSON array of ids; usually empty: one probe of segment_follower_bests' primary key
 * for the segment and period), read by the board's statement.
 */
function followersOnlySql(sql: Sql, board: Board, visible: VisiblePredicate): string {
  // The predicate numbers its parameters from `first`: placed as markers of `sql` here.
  const v = visible("b", 1);
  const text = v.sql.replace(/\$(\d+)/g, (_, k: string) => sql.p(v.params[Number(k) - 1]));
  return `(select coalesce(json_agg(b.athlete_id::text), '[]')::text from segment_follower_bests b
            where b.segment_id = ${board.seg} and b.period = ${sql.p(board.period)} and ${text}) as swapped`;
}

/** The BoardAccess of a request as a JSON text column (`access`), read in the board's statement. */
function accessSql(sql: Sql, req: LeaderboardRequest, me: string): string {
  const f = req.filters;
  return `json_build_object(
              'segment', (select json_build_object('athlete_id', s.athlete_id, 'private', s.private) from segments s
                           where s.id = ${sql.p(req.segmentId)}),
              'premium', coalesce((select a.premium from athletes a where a.id = ${me}), false),
              'member', ${
    f.clubId === undefined ? "null" : `exists (select 1 from club_members c where c.club_id = ${sql.p(f.clubId)}
                                             and c.athlete_id = ${me} and c.membership = 'member')`
  })::text as access`;
}

/** The rows of a board's JSON text: [part, athlete, effort, activity, elapsed, moving, start, start local, names…]. */
type JsonRow = [
  number,
  string,
  string,
  string,
  number,
  number,
  string,
  string,
  string | null,
  string | null,
  string | null,
];

function boardRows(text: string) {
  return (JSON.parse(text) as JsonRow[]).map((
    [
      part,
      athlete,
      effort,
      activity,
      elapsed_time,
      moving_time,
      start_date,
      start_date_local,
      firstname,
      lastname,
      athlete_sex,
    ],
  ) => ({
    part,
    athlete_id: Number(athlete),
    effort_id: parseInt8(effort),
    activity_id: Number(activity),
    elapsed_time,
    moving_time,
    start_date,
    start_date_local,
    firstname,
    lastname,
    athlete_sex,
  }));
}

const utc = (column: string) => `to_char(${column}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The JSON array of a row r (with its names a) as `boardRows` reads it, `first` being its first field. */
const jsonRow = (first: string) =>
  `json_build_array(${first}, r.athlete_id::text, r.effort_id::text, r.activity_id::text,
                    r.elapsed_time, r.moving_time, ${utc("r.start_date at time zone 'UTC'")}, ${
    utc("r.start_date_local")
  },
                    a.firstname, a.lastname, a.sex)`;

/** The names of a row r: one lookup by primary key per row shown (`limit 1` keeps it a per-row lookup). */
const NAMES =
  "left join lateral (select a.firstname, a.lastname, a.sex from athletes a where a.id = r.athlete_id limit 1) a on true";

async function boardQuery(
  db: BoardDb,
  req: LeaderboardRequest,
  swapped: string[],
): Promise<{ count: number; entries: Ranked[]; access: BoardAccess; swapped: string[] }> {
  const sql = new Sql();
  const board = new Board(sql, req);
  const f = req.filters;
  const small = f.following || f.clubId !== undefined;
  const offset = (req.page - 1) * req.perPage;
  const k = req.contextEntries;
  const me = sql.p(req.viewerId);
  const ctes: string[] = [];
  // The board everyone sees, with the swapped athletes' followers-only bests in place of their rows:
  // `u` those bests (under the board's filters), `o` the rows they replace (counted off the slots).
  let rows = board.from;
  if (swapped.length) {
    const ids = sql.p(swapped);
    const filters = board.filters.length ? ` and ${board.filters.join(" and ")}` : "";
    ctes.push(`u as (select ${BEST_COLUMNS} from segment_follower_bests b
                      where b.segment_id = ${board.seg} and b.period = ${sql.p(board.period)}${filters}
                        and b.athlete_id = any(${ids}::bigint[]))`);
    ctes.push(`o as (select b.elapsed_time ${board.from} and b.athlete_id = any(${ids}::bigint[]))`);
    rows = `from (select ${BEST_COLUMNS} ${board.from} and not (b.athlete_id = any(${ids}::bigint[]))
                  union all select * from u) b where true`;
  }
  let from: string;
  if (small) {
    const lists: string[] = [];
    if (f.following) {
      lists.push(`select followee_id from follows where follower_id = ${me} union all select ${me}::bigint`);
    }
    if (f.clubId !== undefined) {
      lists.push(`select athlete_id from club_members where club_id = ${sql.p(f.clubId)} and membership = 'member'`);
    }
    // The listed athletes' bests, by the primary key (segment_id, athlete_id).
    ctes.push(
      `m as (select ${BEST_COLUMNS} ${rows} ${lists.map((l) => `and b.athlete_id = any(array(${l}))`).join(" ")})`,
    );
    from = "from m b where true";
  } else {
    from = rows;
  }
  const key = "(select m.elapsed_time, m.start_date, m.effort_id from me m)";
  ctes.push(`me as (select b.elapsed_time, b.start_date, b.effort_id ${from} and b.athlete_id = ${me})`);
  ctes.push(
    `page as (select ${BEST_COLUMNS} ${from} order by ${ORDER} offset ${sql.p(offset)}::int limit ${
      sql.p(req.perPage)
    }::int)`,
  );
  ctes.push(`before as (select ${BEST_COLUMNS} ${from} and (${ORDER}) < ${key}
                order by b.elapsed_time desc, b.start_date desc, b.effort_id desc limit ${sql.p(k)}::int)`);
  ctes.push(
    `after as (select ${BEST_COLUMNS} ${from} and (${ORDER}) >= ${key} order by ${ORDER} limit ${sql.p(k + 1)}::int)`,
  );
  // The times ranked: the viewer's, the first context row's (the viewer's when none is before), the page's first.
  ctes.push(`t as (select m.elapsed_time as mine_t, m.start_date as mine_s, m.effort_id as mine_id,
                          coalesce((select min(elapsed_time) from before), m.elapsed_time) as context_t,
                          (select min(elapsed_time) from page) as page_t
                     from (select 1) one left join me m on true)`);
  const time = (column: string) => `(select ${column} from t)`;
  // The counts that rank: all entries, and those faster than the viewer, the first context row
  // and the first page row — maintained slot counts plus one pass over the rows counted directly
  // (the follow or club list's bests; a board without counts; an age group's partial birth years).
  const direct = small ? "select b.elapsed_time from m b" : board.direct;
  if (direct) {
    ctes.push(`d as (select count(*)::int as total, (count(*) filter (where b.elapsed_time < x.mine_t))::int as mine,
                            (count(*) filter (where b.elapsed_time < x.context_t))::int as context_first,
                            (count(*) filter (where b.elapsed_time < x.page_t))::int as page_first
                       from (${direct}) b, t x)`);
  }
  // Swapped rows: those of `u` faster than t in, those of `o` out (the slots and `d` count the board everyone sees).
  const swap = (t: string | null) =>
    t === null
      ? "((select count(*) from u) - (select count(*) from o))"
      : `((select count(*) from u where u.elapsed_time < ${t}) - (select count(*) from o where o.elapsed_time < ${t}))`;
  const count = (t: string | null, column: string) => {
    const parts = [
      small ? "0" : board.slots(t),
      ...direct ? [`(select ${column} from d)`] : [],
      ...swapped.length && !small ? [swap(t)] : [],
    ].filter((part) => part !== "0");
    return `(${parts.length ? parts.join(" + ") : "0"})::int as ${column}`;
  };
  // The viewer's ties ahead: few rows, on the board's index (elapsed_time, start_date, effort_id).
  const counts = `select ${count(null, "total")}, ${count(time("mine_t"), "mine")},
                         (select count(*) ${from} and b.elapsed_time = ${time("mine_t")}
                             and (b.start_date, b.effort_id) < (${time("mine_s")}, ${time("mine_id")}))::int as ties,
                         ${count(time("context_t"), "context_first")}, ${count(time("page_t"), "page_first")}`;
  // The rows come back as one JSON text (one field to decode instead of ~17 per row).
  const [n] = await sql.query<BoardResult>(
    (text, params) => runPlanned(db, text, params),
    `with ${ctes.join(",\n")},
     r as (select 0 as part, * from page union all select 1, * from before union all select 2, * from after)
     select n.*,
            (select coalesce(json_agg(${jsonRow("r.part")} order by r.part, r.elapsed_time, r.start_date, r.effort_id),
                              '[]')::text
               from r ${NAMES}) as rows,
            ${accessSql(sql, req, me)}${
      req.followersOnly && !swapped.length
        ? `,
            ${followersOnlySql(sql, board, req.followersOnly)}`
        : ""
    }
       from (${counts}) n`,
  );
  const listed = boardRows(n.rows);
  const page = listed.filter((r) => r.part === 0);
  const before = listed.filter((r) => r.part === 1);
  const after = listed.filter((r) => r.part === 2);
  const mine = after.length && after[0].athlete_id === req.viewerId ? after[0] : undefined;
  const entries = new Map<number, Ranked>();
  if (offset < n.total) {
    for (const row of rankRun(page, offset, offset === 0 ? 0 : n.page_first)) entries.set(row.position, row);
  }
  if (mine) {
    for (const row of rankRun([...before, ...after], n.mine + n.ties - before.length, n.context_first)) {
      entries.set(row.position, row);
    }
  }
  return {
    count: n.total,
    entries: [...entries.values()].sort((a, b) => a.position - b.position),
    access: JSON.parse(n.access) as BoardAccess,
    swapped: n.swapped ? JSON.parse(n.swapped) as string[] : [],
  };
}
