import type { Queryable } from "../../events/db/types.ts";
import type { BulkLoader, BulkLog } from "../bulk.ts";

/**
 * The club feed's ordering table from the whole log (projections/bulk.ts): per activity, its last
 * recording or creation after its last deletion (each one replaces the row), with the visibility of
 * the last edit after it that names one, and the start of the last crop or undoing after it
 * (ActivityCropped, ActivityCropUndone move the start).
 */
export const clubFeedBulk: BulkLoader = {
  writtenFor: "a77b22bdd9c0b50d",
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `with deleted as (
         select (data->>'activityId')::bigint as id, max(position) as position
           from public.replay_log where type = 'ActivityDeleted' and position <= $1 group by 1),
       created as (
         select distinct on (c.id) c.*
           from (select e.position, f."activityId" as id, f."athleteId" as athlete, f."startDate" as start, f.visibility
                   from public.replay_log e
                  cross join lateral jsonb_to_record(e.data)
                        as f("activityId" bigint, "athleteId" bigint, "startDate" timestamptz, visibility text)
                  where e.type in ('ActivityRecorded', 'ActivityCreated') and e.position <= $1) c
           left join deleted d on d.id = c.id
          where c.position > coalesce(d.position, 0)
          order by c.id, c.position desc),
       visibility as (
         select distinct on (u.id) u.id, u.visibility
           from (select (data->>'activityId')::bigint as id, position, data->>'visibility' as visibility
                   from public.replay_log where type = 'ActivityUpdated' and position <= $1 and data ? 'visibility') u
           join created c on c.id = u.id and u.position > c.position
          order by u.id, u.position desc),
       moved as (
         select distinct on (w.id) w.id, w.start
           from (select (data->>'activityId')::bigint as id, position, (data->'facts'->>'startDate')::timestamptz as start
                   from public.replay_log
                  where type in ('ActivityCropped', 'ActivityCropUndone') and position <= $1) w
           join created c on c.id = w.id and w.position > c.position
          order by w.id, w.position desc)
       insert into club_feed_activities (activity_id, athlete_id, start_date, visibility)
       select c.id, c.athlete, coalesce(m.start, c.start), coalesce(v.visibility, c.visibility)
         from created c left join visibility v on v.id = c.id left join moved m on m.id = c.id`,
      [log.until],
    );
  },
};
