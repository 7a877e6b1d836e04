import type { Queryable } from "../../events/db/types.ts";
import { exactInteger } from "../../shared/json.ts";

export const AGE_GROUPS = ["0_19", "20_24", "25_34", "35_44", "45_54", "55_64", "65_69", "70_74", "75_plus"] as const;
export const WEIGHT_CLASSES_LB = ["0_74", "75_99", "100_124", "125_149", "150_164", "165_179", "180_199", "200_224", "225_249", "250_plus"] as const;
export const WEIGHT_CLASSES_KG = ["0_34", "35_44", "45_54", "55_64", "65_74", "75_84", "85_94", "95_104", "105_114", "115_plus"] as const;
export const WEIGHT_CLASSES = [...WEIGHT_CLASSES_LB, ...WEIGHT_CLASSES_KG] as const;
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

const LB = 0.45359237;
const isoDate = (d: Date) => d.toISOString().slice(0, 10);

function yearsBefore(today: Date, years: number): string {
  const d = new Date(Date.UTC(today.getUTCFullYear() - years, today.getUTCMonth(), today.getUTCDate()));
  return isoDate(d);
}

/** Lower (inclusive) and upper (exclusive) bounds in kg of a weight class; null = open. */
export function weightBounds(weightClass: string): [number | null, number | null] {
  const pounds = (WEIGHT_CLASSES_LB as readonly string[]).includes(weightClass);
  const [lo, hi] = weightClass.split("_");
  const factor = pounds ? LB : 1;
  const lower = Number(lo) === 0 ? null : Number(lo) * factor;
  const upper = hi === "plus" ? null : (Number(hi) + 1) * factor;
  return [lower, upper];
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

interface BoardRow {
  athlete_id: number;
  effort_id: number | bigint;
  activity_id: number;
  elapsed_time: number;
  moving_time: number;
  start_date: string;
  start_date_local: string;
  firstname: string | null;
  lastname: string | null;
  sex: string | null;
}

/**
 * Builds the board (one row per athlete: their best public effort) as SQL over `board` plus params.
 * Without a date range it reads the maintained `segment_bests`; with one, the bests within the
 * range are computed from `segment_efforts`.
 */
function boardSql(req: LeaderboardRequest): { cte: string; params: unknown[] } {
  const today = req.today ?? new Date();
  const params: unknown[] = [req.segmentId];
  const where: string[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const f = req.filters;
  if (f.gender) where.push(`b.sex = ${p(f.gender)}`);
  if (f.ageGroup) {
    const [after, atMost] = birthdateBounds(f.ageGroup, today);
    where.push("b.birthdate is not null");
    if (after) where.push(`b.birthdate > ${p(after)}`);
    if (atMost) where.push(`b.birthdate <= ${p(atMost)}`);
  }
  if (f.weightClass) {
    const [lower, upper] = weightBounds(f.weightClass);
    where.push("b.weight is not null");
    if (lower !== null) where.push(`b.weight >= ${p(lower)}`);
    if (upper !== null) where.push(`b.weight < ${p(upper)}`);
  }
  if (f.following) {
    const me = p(req.viewerId);
    where.push(`(b.athlete_id = ${me} or b.athlete_id in (select followee_id from follows where follower_id = ${me}))`);
  }
  if (f.clubId !== undefined) {
    where.push(`b.athlete_id in (select athlete_id from club_members where club_id = ${p(f.clubId)} and membership = 'member')`);
  }
  const filter = where.length ? ` and ${where.join(" and ")}` : "";
  if (!f.dateRange) {
    return {
      cte: `board as (select b.athlete_id, b.effort_id, b.activity_id, b.elapsed_time, b.moving_time, b.start_date,
              b.start_date_local from segment_bests b where b.segment_id = $1${filter})`,
      params,
    };
  }
  const from = p(rangeStart(f.dateRange, today));
  return {
    cte: `board as (select * from (
              select distinct on (e.athlete_id) e.athlete_id, e.id as effort_id, e.activity_id, e.elapsed_time,
                     e.moving_time, e.start_date, e.start_date_local, a.sex, a.birthdate, a.weight
                from segment_efforts e left join athletes a on a.id = e.athlete_id
               where e.segment_id = $1 and not e.private and e.start_date_local >= ${from}::timestamp
               order by e.athlete_id, e.elapsed_time, e.start_date, e.id) b
            where true${filter})`,
    params,
  };
}

const ORDER = "order by elapsed_time, start_date, effort_id";

/**
 * The segment leaderboard: entry_count, the requested page, and the viewer's entry with
 * context_entries rows either side (no repeats). rank is the competition rank starting at 0
 * (ties share it, the next is skipped).
 */
export async function leaderboard(db: Queryable, req: LeaderboardRequest) {
  const { cte, params } = boardSql(req);
  const n = params.length;
  const [{ count }] = await db.query<{ count: number }>(`with ${cte} select count(*)::int as count from board`, params);
  const windows: { offset: number; limit: number }[] = [{ offset: (req.page - 1) * req.perPage, limit: req.perPage }];
  // The viewer's row, then how many rows come before it (one index range scan; the CTE is inlined).
  const [me] = await db.query<{ elapsed_time: number; start_date: string; effort_id: string }>(
    `with ${cte} select elapsed_time, start_date, effort_id::text as effort_id from board where athlete_id = $${n + 1}`,
    [...params, req.viewerId],
  );
  const mine = me
    ? (await db.query<{ position: number }>(
      `with ${cte} select count(*)::int as position from board
        where (elapsed_time, start_date, effort_id) < ($${n + 1}::int, $${n + 2}::timestamptz, $${n + 3}::bigint)`,
      [...params, me.elapsed_time, me.start_date, me.effort_id],
    ))[0]
    : undefined;
  if (mine) {
    const from = Math.max(0, mine.position - req.contextEntries);
    windows.push({ offset: from, limit: mine.position + req.contextEntries + 1 - from });
  }
  const entries = new Map<number, BoardRow & { rank: number }>();
  for (const w of windows) {
    if (w.offset >= count || w.limit <= 0) continue;
    const rows = await db.query<BoardRow>(
      `with ${cte}
       select b.athlete_id, b.effort_id, b.activity_id, b.elapsed_time, b.moving_time, b.start_date, b.start_date_local,
              a.firstname, a.lastname, a.sex
         from (select * from board ${ORDER} offset ${w.offset} limit ${w.limit}) b
         left join athletes a on a.id = b.athlete_id
        order by b.elapsed_time, b.start_date, b.effort_id`,
      params,
    );
    if (rows.length === 0) continue;
    const [{ faster }] = await db.query<{ faster: number }>(
      `with ${cte} select count(*)::int as faster from board where elapsed_time < $${n + 1}`,
      [...params, rows[0].elapsed_time],
    );
    let rank = faster;
    rows.forEach((row, k) => {
      if (k > 0 && row.elapsed_time !== rows[k - 1].elapsed_time) rank = w.offset + k;
      entries.set(w.offset + k, { ...row, rank });
    });
  }
  const ordered = [...entries.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => e);
  return {
    effort_count: count,
    entry_count: count,
    kom_type: "kom",
    entries: ordered.map((e) => ({
      athlete_name: `${e.firstname ?? ""} ${(e.lastname ?? "").slice(0, 1)}.`.trim(),
      athlete_id: Number(e.athlete_id),
      athlete_gender: e.sex,
      effort_id: exactInteger(e.effort_id),
      activity_id: Number(e.activity_id),
      elapsed_time: e.elapsed_time,
      moving_time: e.moving_time,
      start_date: e.start_date.replace(/\.\d{3}Z$/, "Z"),
      start_date_local: e.start_date_local.replace(/\.\d{3}Z$/, "Z"),
      rank: e.rank,
    })),
  };
}
