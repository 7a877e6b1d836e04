import { athleteAvatarUrl } from "../avatars/url.ts";
import type { Queryable } from "../../events/db/types.ts";
import { boardPlaces } from "../../projections/challenges/rank-counts.ts";

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
  firstname: string | null;
  lastname: string | null;
  /** Whole board: 0 for the page, 1 for the requester's context. */
  part?: number;
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

interface Ranked {
  row: BoardRow;
  rank: number;
  overall: number;
}

/** Competition ranks of consecutive board rows, given the first one's rank and position. */
function runRanks(rows: readonly BoardRow[], firstRank: number, firstPosition: number): number[] {
  const ranks: number[] = [];
  rows.forEach((r, i) => {
    if (i === 0) ranks.push(firstRank);
    else ranks.push(Number(r.score) === Number(rows[i - 1].score) ? ranks[i - 1] : firstPosition + i);
  });
  return ranks;
}

const point = (r: BoardRow) => ({ key: r.rank_key, score: Number(r.score), athleteId: Number(r.athlete_id) });

/**
 * The whole board in one statement: the page in index order (challenge_id, score desc, athlete_id)
 * and, on page 1, the requester with the neighbours before and after by keyset on that index, names
 * joined. Ranks follow from positions; the only other statement places one row in the count tree —
 * the page's first row after page 1, or the first context row — and the rest follow from it.
 */
async function wholeBoard(db: Queryable, q: BoardRequest): Promise<Ranked[]> {
  const rows = await db.query<BoardRow>(
    `with page as (
       select ${COLS} from challenge_participants p where ${BOARD} order by p.score desc, p.athlete_id limit $2 offset $3
     ), me as (
       select ${COLS} from challenge_participants p where ${BOARD} and p.athlete_id = $4 and $5::boolean
     ), ahead as (
       select n.* from me m cross join lateral (
         select ${COLS} from challenge_participants p
          where ${BOARD} and p.score >= m.score and (p.score > m.score or p.athlete_id < m.athlete_id)
          order by p.score asc, p.athlete_id desc limit $6) n
     ), behind as (
       select n.* from me m cross join lateral (
         select ${COLS} from challenge_participants p
          where ${BOARD} and p.score <= m.score and (p.score < m.score or p.athlete_id > m.athlete_id)
          order by p.score desc, p.athlete_id limit $6) n
     ), shown as (
       select 0 as part, * from page
       union all select 1, * from ahead union all select 1, * from me union all select 1, * from behind
     )
     select s.*, a.firstname, a.lastname from shown s left join athletes a on a.id = s.athlete_id
      order by s.part, s.score desc, s.athlete_id`,
    [q.challengeId, q.perPage, q.offset, q.viewerId, q.page === 1, CHALLENGE_LEADERBOARD_CONTEXT],
  );
  const page = rows.filter((r) => Number(r.part) === 0);
  const onPage = new Set(page.map((r) => Number(r.athlete_id)));
  const context = onPage.has(q.viewerId) ? [] : rows.filter((r) => Number(r.part) === 1);
  // At most one of these needs the count tree: page 1 starts at rank 1, later pages have no context.
  const first = q.offset > 0 && page.length ? page[0] : context[0];
  const [place] = first ? await boardPlaces(db, q.challengeId, [point(first)]) : [];
  const pageRanks = runRanks(page, q.offset > 0 && place ? place.above + 1 : 1, q.offset + 1);
  const out: Ranked[] = page.map((row, i) => ({ row, rank: pageRanks[i], overall: pageRanks[i] }));
  if (context.length && place) {
    const contextRanks = runRanks(context, place.above + 1, place.ahead + 1);
    context.forEach((row, i) => {
      if (!onPage.has(Number(row.athlete_id))) out.push({ row, rank: contextRanks[i], overall: contextRanks[i] });
    });
  }
  return out;
}

/** A filtered board (friends, club): ranked inside the filter with a window; overall ranks from the count tree. */
async function filteredBoard(db: Queryable, q: BoardRequest, filter: { sql: string; params: unknown[] }): Promise<Ranked[]> {
  const n = filter.params.length;
  const rows = await db.query<BoardRow>(
    `with board as (
       select ${COLS}, rank() over (order by p.score desc)::int as rank,
              row_number() over (order by p.score desc, p.athlete_id)::int as pos
         from challenge_participants p where ${BOARD} and ${filter.sql}
     ), me as (select pos from board where athlete_id = $${n + 2})
     select b.*, a.firstname, a.lastname from board b left join athletes a on a.id = b.athlete_id
      where (b.pos > $${n + 3} and b.pos <= $${n + 3} + $${n + 4})
         or ($${n + 5}::boolean and b.pos between (select pos from me) - $${n + 6} and (select pos from me) + $${n + 6})
      order by b.pos`,
    [q.challengeId, ...filter.params, q.viewerId, q.offset, q.perPage, q.page === 1, CHALLENGE_LEADERBOARD_CONTEXT],
  );
  const page = rows.filter((r) => Number(r.pos) > q.offset && Number(r.pos) <= q.offset + q.perPage);
  const ordered = page.some((r) => Number(r.athlete_id) === q.viewerId)
    ? page
    : [...page, ...rows.filter((r) => !page.includes(r))];
  const places = await boardPlaces(db, q.challengeId, ordered.map(point));
  return ordered.map((row, i) => ({ row, rank: Number(row.rank), overall: places[i].above + 1 }));
}

/** Leaderboard entries as the spec lists them (rank, overall_rank, athlete_id, athlete_name, …). */
export async function challengeLeaderboard(db: Queryable, q: BoardRequest) {
  const ranked = q.filter ? await filteredBoard(db, q, q.filter) : await wholeBoard(db, q);
  return ranked.map(({ row, rank, overall }) => ({
    rank,
    overall_rank: overall,
    athlete_id: Number(row.athlete_id),
    athlete_name: row.firstname === null ? "" : `${row.firstname} ${row.lastname}`,
    athlete_profile: athleteAvatarUrl(Number(row.athlete_id), "large"),
    total_dimension: Number(row.value),
    activity_id: row.activity_id === null ? null : Number(row.activity_id),
    activity_count: Number(row.activity_count),
    success_count: Number(row.success_count),
  }));
}
