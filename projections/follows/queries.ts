import type { Queryable } from "../../events/db/types.ts";

/**
 * Reads of the follows read model that the privacy engine (server/privacy/) builds its
 * followers-only rule on: whether a viewer follows an activity's owner today, for one activity and
 * as an SQL fragment for lists.
 */

/** Whether `followerId` follows `followeeId` now (one primary-key probe). */
export async function isFollowing(db: Queryable, followerId: number, followeeId: number): Promise<boolean> {
  const [row] = await db.query("select 1 from follows where follower_id = $1 and followee_id = $2", [
    followerId,
    followeeId,
  ]);
  return row !== undefined;
}

/** Of these athletes, those `followerId` follows now. */
export async function followedAmong(db: Queryable, followerId: number, athleteIds: readonly number[]) {
  if (athleteIds.length === 0) return new Set<number>();
  const rows = await db.query<{ followee_id: number | string }>(
    "select followee_id from follows where follower_id = $1 and followee_id = any($2::bigint[])",
    [followerId, [...new Set(athleteIds)]],
  );
  return new Set(rows.map((r) => Number(r.followee_id)));
}

/**
 * SQL: the athlete `follower` (an SQL expression, e.g. a placeholder) follows the athlete `followee`
 * (e.g. `a.athlete_id`). The subquery's alias is its own, so it never shadows the caller's.
 */
export function followsSql(follower: string, followee: string): string {
  return `exists (select 1 from follows viewer_follows
                   where viewer_follows.follower_id = ${follower} and viewer_follows.followee_id = ${followee})`;
}
