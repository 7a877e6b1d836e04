import type { Queryable } from "../../events/db/types.ts";
import { countsAbove } from "../../projections/challenges/rank-counts.ts";
import { findAthletes } from "./athlete.ts";

/** Entries shown before and after the requester on the first page (spec: Limits). */
export const CHALLENGE_LEADERBOARD_CONTEXT = 2;

interface BoardRow {
  athlete_id: number;
  value: number;
  score: number;
  rank_key: string;
  activity_id: number | null;
  activity_count: number;
  success_count: number;
  /** Filtered boards only: competition rank and 1-based position inside the filter. */
  rank?: number;
  pos?: number;
}

export interface BoardRequest {
  challengeId: number;
  viewerId: number;
  /** SQL predicate over participant alias p (parameters from $2), or null for the whole board. */
  filter: { sql: string; params: unknown[] } | null;
  page: number;
  perPage: number;
  offset: number;
}

const COLS = "p.athlete_id, p.value, p.score, p.rank_key, p.activity_id, p.activity_count, p.success_count";
const BOARD = "p.challenge_id = $1 and p.activity_count > 0";

/** Competition ranks of consecutive board rows, given the rank of the first one. */
function runRanks(rows: readonly BoardRow[], firstRank: number, firstPosition: number): number[] {
  const ranks: number[] = [];
  rows.forEach((r, i) => {
    if (i === 0) ranks.push(firstRank);
    else ranks.push(Number(r.score) === Number(rows[i - 1].score) ? ranks[i - 1] : firstPosition + i);
  });
  return ranks;
}

/**
 * The whole board: a page by keyset-friendly index order (challenge_id, score desc, athlete_id),
 * ranks from the page's position (one count tree lookup for pages after the first), and the
 * requester's neighbours by keyset around the requester's score.
 */
async function wholeBoard(db: Queryable, q: BoardRequest): Promise<{ row: BoardRow; rank: number; overall: number }[]> {
  const rows = await db.query<BoardRow>(
    `select ${COLS} from challenge_participants p where ${BOARD}
      order by p.score desc, p.athlete_id limit $2 offset $3`,
    [q.challengeId, q.perPage, q.offset],
  );
  const firstRank = rows.length && q.offset > 0 ? 1 + (await countsAbove(db, q.challengeId, [{ key: rows[0].rank_key, score: Number(rows[0].score) }]))[0] : 1;
  const ranks = runRanks(rows, firstRank, q.offset + 1);
  const out = rows.map((row, i) => ({ row, rank: ranks[i], overall: ranks[i] }));
  if (q.page !== 1 || rows.some((r) => Number(r.athlete_id) === q.viewerId)) return out;
  const [me] = await db.query<BoardRow>(`select ${COLS} from challenge_participants p where ${BOARD} and p.athlete_id = $2`, [q.challengeId, q.viewerId]);
  if (!me) return out;
  const n = CHALLENGE_LEADERBOARD_CONTEXT;
  const args = [q.challengeId, me.score, q.viewerId, n];
  const ahead = await db.query<BoardRow>(
    `select ${COLS} from challenge_participants p
      where ${BOARD} and p.score >= $2 and (p.score > $2 or p.athlete_id < $3)
      order by p.score asc, p.athlete_id desc limit $4`,
    args,
  );
  const behind = await db.query<BoardRow>(
    `select ${COLS} from challenge_participants p
      where ${BOARD} and p.score <= $2 and (p.score < $2 or p.athlete_id > $3)
      order by p.score desc, p.athlete_id limit $4`,
    args,
  );
  const context = [...ahead.reverse(), me, ...behind];
  const above = await countsAbove(db, q.challengeId, context.map((r) => ({ key: r.rank_key, score: Number(r.score) })));
  const shown = new Set(rows.map((r) => Number(r.athlete_id)));
  context.forEach((row, i) => {
    if (!shown.has(Number(row.athlete_id))) out.push({ row, rank: above[i] + 1, overall: above[i] + 1 });
  });
  return out;
}

/** A filtered board (friends, club): ranked inside the filter with a window; overall ranks from the count tree. */
async function filteredBoard(db: Queryable, q: BoardRequest, filter: { sql: string; params: unknown[] }) {
  const n = filter.params.length;
  const rows = await db.query<BoardRow>(
    `with board as (
       select ${COLS}, rank() over (order by p.score desc)::int as rank,
              row_number() over (order by p.score desc, p.athlete_id)::int as pos
         from challenge_participants p where ${BOARD} and ${filter.sql}
     ), me as (select pos from board where athlete_id = $${n + 2})
     select * from board
      where (pos > $${n + 3} and pos <= $${n + 3} + $${n + 4})
         or ($${n + 5}::boolean and pos between (select pos from me) - $${n + 6} and (select pos from me) + $${n + 6})
      order by pos`,
    [q.challengeId, ...filter.params, q.viewerId, q.offset, q.perPage, q.page === 1, CHALLENGE_LEADERBOARD_CONTEXT],
  );
  const page = rows.filter((r) => Number(r.pos) > q.offset && Number(r.pos) <= q.offset + q.perPage);
  const ordered = page.some((r) => Number(r.athlete_id) === q.viewerId)
    ? page
    : [...page, ...rows.filter((r) => !page.includes(r))];
  const above = await countsAbove(db, q.challengeId, ordered.map((r) => ({ key: r.rank_key, score: Number(r.score) })));
  return ordered.map((row, i) => ({ row, rank: Number(row.rank), overall: above[i] + 1 }));
}

/** Leaderboard entries as the spec lists them (rank, overall_rank, athlete_id, athlete_name, …). */
export async function challengeLeaderboard(db: Queryable, q: BoardRequest) {
  const ranked = q.filter ? await filteredBoard(db, q, q.filter) : await wholeBoard(db, q);
  const athletes = await findAthletes(db, ranked.map((r) => Number(r.row.athlete_id)));
  return ranked.map(({ row, rank, overall }) => {
    const athlete = athletes.get(Number(row.athlete_id));
    return {
      rank,
      overall_rank: overall,
      athlete_id: Number(row.athlete_id),
      athlete_name: athlete ? `${athlete.firstname} ${athlete.lastname}` : "",
      athlete_profile: "avatar/athlete/large.png",
      total_dimension: Number(row.value),
      activity_id: row.activity_id === null ? null : Number(row.activity_id),
      activity_count: Number(row.activity_count),
      success_count: Number(row.success_count),
    };
  });
}
