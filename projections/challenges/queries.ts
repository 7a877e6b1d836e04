import type { Queryable } from "../../events/db/types.ts";
import { boardPlaces } from "./rank-counts.ts";

/**
 * The queries of the challenges read model (projection.ts: challenges, challenge_counters,
 * challenge_participants; rank-counts.ts: challenge_rank_counts): the only SQL naming its tables.
 * Filtered boards join club_members and follows: those joins are spelled here, where the board's
 * index order is known (see `filteredBoard`).
 */

export interface ChallengeRow {
  id: number;
  name: string;
  type: string;
  dimension: string;
  goal: number;
  start_date: string;
  end_date: string;
  activity_type: string | null;
  segment_id: number | null;
  external_url: string | null;
  description: string;
  mobile_description: string;
  additional_info: string;
  rules: string;
  prizes: string;
  teaser: string;
  url: string;
  logo_url: string;
  color: string;
  social_hashtag: string;
  participant_count: number;
  /** numeric in the read model: arrives as a string. */
  total_dimension: number | string;
  attempt_count: number;
  completed_count: number;
  leaderboard_count: number;
  joined: boolean;
}

/** Challenge columns, its counters (one row kept by the challenges projection) and `joined` for $viewer. */
const columns = (viewer: string) =>
  `c.id, c.name, c.type, c.dimension, c.goal, c.start_date, c.end_date, c.activity_type,
  c.segment_id, c.external_url, c.description, c.mobile_description, c.additional_info, c.rules, c.prizes, c.teaser,
  c.url, c.logo_url, c.color, c.social_hashtag,
  s.participant_count, s.total_dimension, s.attempt_count, s.completed_count, s.leaderboard_count,
  exists (select 1 from challenge_participants j where j.challenge_id = c.id and j.athlete_id = ${viewer}) as joined`;

export async function findChallenge(db: Queryable, id: number, viewerId: number): Promise<ChallengeRow | undefined> {
  const [row] = await db.query<ChallengeRow>(
    `select ${columns("$2")} from challenges c join challenge_counters s on s.challenge_id = c.id where c.id = $1`,
    [id, viewerId],
  );
  return row;
}

export async function challengeExists(db: Queryable, id: number): Promise<boolean> {
  const [row] = await db.query("select 1 from challenges where id = $1", [id]);
  return row !== undefined;
}

export async function joinedChallenges(db: Queryable, athleteId: number): Promise<ChallengeRow[]> {
  return db.query<ChallengeRow>(
    `select ${columns("$1")} from challenges c
       join challenge_participants me on me.challenge_id = c.id and me.athlete_id = $1
       join challenge_counters s on s.challenge_id = c.id
      order by c.start_date desc, c.id desc`,
    [athleteId],
  );
}

// --- the leaderboard -------------------------------------------------------------------------

export interface BoardRow {
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

/** Which participants a board lists: everyone, the viewer and whom they follow, or a club's members. */
export type BoardFilter = { kind: "none" } | { kind: "friends" } | { kind: "club"; clubId: number };

export interface BoardRequest {
  challengeId: number;
  viewerId: number;
  filter: BoardFilter;
  page: number;
  perPage: number;
  offset: number;
  /** Entries shown before and after the requester on the first page. */
  context: number;
}

/** A board entry: its row, its rank on this board and its rank on the whole board. */
export interface RankedEntry {
  row: BoardRow;
  rank: number;
  overall: number;
}

const COLS = "p.athlete_id, p.value, p.score, p.rank_key, p.activity_id, p.activity_count, p.success_count";
const BOARD = "p.challenge_id = $1 and p.activity_count > 0";

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
async function wholeBoard(db: Queryable, q: BoardRequest): Promise<RankedEntry[]> {
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
    [q.challengeId, q.perPage, q.offset, q.viewerId, q.page === 1, q.context],
  );
  const page = rows.filter((r) => Number(r.part) === 0);
  const onPage = new Set(page.map((r) => Number(r.athlete_id)));
  const context = onPage.has(q.viewerId) ? [] : rows.filter((r) => Number(r.part) === 1);
  // At most one of these needs the count tree: page 1 starts at rank 1, later pages have no context.
  const first = q.offset > 0 && page.length ? page[0] : context[0];
  const [place] = first ? await boardPlaces(db, q.challengeId, [point(first)]) : [];
  const pageRanks = runRanks(page, q.offset > 0 && place ? place.above + 1 : 1, q.offset + 1);
  const out: RankedEntry[] = page.map((row, i) => ({ row, rank: pageRanks[i], overall: pageRanks[i] }));
  if (context.length && place) {
    const contextRanks = runRanks(context, place.above + 1, place.ahead + 1);
    context.forEach((row, i) => {
      if (!onPage.has(Number(row.athlete_id))) out.push({ row, rank: contextRanks[i], overall: contextRanks[i] });
    });
  }
  return out;
}

/** The SQL predicate over participant alias p of a filter (parameters from $2). */
function filterSql(
  filter: Exclude<BoardFilter, { kind: "none" }>,
  viewerId: number,
): { sql: string; params: unknown[] } {
  if (filter.kind === "club") {
    return {
      sql:
        "exists (select 1 from club_members m where m.club_id = $2 and m.athlete_id = p.athlete_id and m.membership = 'member')",
      params: [filter.clubId],
    };
  }
  return {
    sql:
      "(p.athlete_id = $2 or exists (select 1 from follows fo where fo.follower_id = $2 and fo.followee_id = p.athlete_id))",
    params: [viewerId],
  };
}

/** A filtered board (friends, club): ranked inside the filter with a window; overall ranks from the count tree. */
async function filteredBoard(
  db: Queryable,
  q: BoardRequest,
  board: Exclude<BoardFilter, { kind: "none" }>,
): Promise<RankedEntry[]> {
  const filter = filterSql(board, q.viewerId);
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
    [q.challengeId, ...filter.params, q.viewerId, q.offset, q.perPage, q.page === 1, q.context],
  );
  const page = rows.filter((r) => Number(r.pos) > q.offset && Number(r.pos) <= q.offset + q.perPage);
  const ordered = page.some((r) => Number(r.athlete_id) === q.viewerId)
    ? page
    : [...page, ...rows.filter((r) => !page.includes(r))];
  const places = await boardPlaces(db, q.challengeId, ordered.map(point));
  return ordered.map((row, i) => ({ row, rank: Number(row.rank), overall: places[i].above + 1 }));
}

/** The leaderboard's entries (page, then the requester's context on page 1), ranked. */
export function challengeBoard(db: Queryable, q: BoardRequest): Promise<RankedEntry[]> {
  return q.filter.kind === "none" ? wholeBoard(db, q) : filteredBoard(db, q, q.filter);
}
