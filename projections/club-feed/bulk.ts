import type { Queryable } from "../../events/db/types.ts";
import type { BulkLoader, BulkLog } from "../bulk.ts";

/**
 * The club feed's ordering table from the whole log (projections/bulk.ts): per activity, its last
 * recording or creation after its last deletion (each one replaces the row), with the privacy of the
 * last edit after it that names one.
 */
export const clubFeedBulk: BulkLoader = {
  writtenFor: "0d07e802d286560b",
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `with deleted as (
         select (data->>'activityId')::bigint as id, max(position) as position
           from public.replay_log where type = 'ActivityDeleted' and position <= $1 group by 1),
       created as (
         select distinct on (c.id) c.*
           from (select e.position, f."activityId" as id, f."athleteId" as athlete, f."startDate" as start, f.private
                   from public.replay_log e
                  cross join lateral jsonb_to_record(e.data)
                        as f("activityId" bigint, "athleteId" bigint, "startDate" timestamptz, private boolean)
                  where e.type in ('ActivityRecorded', 'ActivityCreated') and e.position <= $1) c
           left join deleted d on d.id = c.id
          where c.position > coalesce(d.position, 0)
          order by c.id, c.position desc),
       privacy as (
         select distinct on (u.id) u.id, u.private
           from (select (data->>'activityId')::bigint as id, position, (data->>'private')::boolean as private
                   from public.replay_log where type = 'ActivityUpdated' and position <= $1 and data ? 'private') u
           join created c on c.id = u.id and u.position > c.position
          order by u.id, u.position desc)
       insert into club_feed_activities (activity_id, athlete_id, start_date, private)
       select c.id, c.athlete, c.start, coalesce(p.private, c.private)
         from created c left join privacy p on p.id = c.id`,
      [log.until],
    );
  },
};
