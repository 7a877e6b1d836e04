import type { Queryable } from "../../events/db/types.ts";
import type { BulkLoader, BulkLog } from "../bulk.ts";

/**
 * Follows from the whole log: a pair is followed when its last event is a follow, since the first
 * follow after its last unfollow (a repeated follow keeps the row it found).
 */
export const followsBulk: BulkLoader = {
  writtenFor: "908d0c407cdcc322",
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `insert into follows (follower_id, followee_id, created_at)
       select distinct on (follower, followee) follower, followee, at
         from (select (data->>'athleteId')::bigint as follower, (data->>'targetId')::bigint as followee, type, position, at,
                      max(position) filter (where type = 'AthleteUnfollowed')
                        over (partition by data->>'athleteId', data->>'targetId') as unfollowed
                 from public.replay_log
                where type in ('AthleteFollowed', 'AthleteUnfollowed') and position <= $1) e
        where type = 'AthleteFollowed' and position > coalesce(unfollowed, 0)
        order by follower, followee, position`,
      [log.until],
    );
  },
};
