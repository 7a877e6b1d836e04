import type { Queryable } from "../../events/db/types.ts";

/**
 * Competition ranks on a deep challenge leaderboard without counting every row above: a radix-16
 * count tree over each participant's `rank_key` (the score quantized to 1/1000, offset to be
 * non-negative and clamped to 48 bits — never decreasing as the score grows).
 *
 * Level k holds, per node `rank_key >> 4k`, how many board participants (activity_count > 0) sit
 * under it. The participants above a key K are those whose highest differing hex digit is larger:
 * at each level k, the (at most 15) siblings of `K >> 4k` that are larger — 12 short index ranges.
 * Ties on the quantized key are settled by comparing the exact score (a tiny index range).
 * Kept by the challenges projection from participant updates, so replay rebuilds it exactly.
 */
export const RANK_LEVELS = 12;

export const rankCountsSchema = `
  create table if not exists challenge_rank_counts (
    challenge_id bigint not null,
    level smallint not null,
    node bigint not null,
    n integer not null,
    primary key (challenge_id, level, node)
  );`;

/** SQL: the rank key of a score expression (same in the projection, the queries and the bench). */
export function rankKeySql(score: string): string {
  return `(least(greatest(floor((${score}) * 1000), -140737488355328), 140737488355327)::bigint + 140737488355328)`;
}

/** Adds delta (+1/-1) for one key at every level; rows that reach 0 are removed. */
export async function countRankKey(
  tx: Queryable,
  challengeId: number,
  key: number | string,
  delta: 1 | -1,
): Promise<void> {
  await tx.query(
    `insert into challenge_rank_counts (challenge_id, level, node, n)
       select $1, k, $2::bigint >> (4 * k), $3 from generate_series(0, ${RANK_LEVELS - 1}) k
     on conflict (challenge_id, level, node) do update set n = challenge_rank_counts.n + excluded.n`,
    [challengeId, String(key), delta],
  );
  if (delta < 0) {
    await tx.query(
      `delete from challenge_rank_counts where challenge_id = $1 and n = 0
         and (level, node) in (select k, $2::bigint >> (4 * k) from generate_series(0, ${RANK_LEVELS - 1}) k)`,
      [challengeId, String(key)],
    );
  }
}

export interface BoardPoint {
  key: number | string;
  score: number;
  athleteId: number;
}

/**
 * For each point on a challenge's board: `above`, how many participants have a strictly higher score
 * (competition rank − 1), and `ahead`, how many come before it in board order (score desc, athlete_id)
 * — its position − 1. One statement for all points: per point, the larger siblings of its node at each
 * of the 12 levels (short ranges of the count tree's primary key), the exact ties on its rank key, and
 * the equal scores with a smaller athlete id.
 */
export async function boardPlaces(
  db: Queryable,
  challengeId: number,
  points: readonly BoardPoint[],
): Promise<{ above: number; ahead: number }[]> {
  if (points.length === 0) return [];
  const rows = await db.query<{ i: number; above: number; same: number }>(
    `select t.i,
        (select coalesce(sum(c.n), 0) from generate_series(0, ${RANK_LEVELS - 1}) k
           join challenge_rank_counts c on c.challenge_id = $1 and c.level = k
            and c.node > (t.key >> (4 * k)) and c.node <= ((t.key >> (4 * k)) | 15))
      + (select count(*) from challenge_participants q
          where q.challenge_id = $1 and q.activity_count > 0 and q.rank_key = t.key and q.score > t.score) as above,
        (select count(*) from challenge_participants q
          where q.challenge_id = $1 and q.activity_count > 0 and q.score = t.score and q.athlete_id < t.athlete_id) as same
       from unnest($2::bigint[], $3::double precision[], $4::bigint[]) with ordinality as t(key, score, athlete_id, i)`,
    [challengeId, points.map((p) => String(p.key)), points.map((p) => p.score), points.map((p) => p.athleteId)],
  );
  const out = points.map(() => ({ above: 0, ahead: 0 }));
  for (const r of rows) out[Number(r.i) - 1] = { above: Number(r.above), ahead: Number(r.above) + Number(r.same) };
  return out;
}
