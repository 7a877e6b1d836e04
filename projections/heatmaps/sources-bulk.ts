import type { Queryable } from "../../events/db/types.ts";
import type { BulkLoader, BulkLog } from "../bulk.ts";
import { localEpochSeconds } from "./sources.ts";

/** A local time PostgreSQL reads as localEpochSeconds does (ISO 8601, in UTC or without a zone). */
const LOCAL_ISO = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z?$";

/**
 * What heatmap builds need, from the whole log (projections/bulk.ts). Per activity, its last
 * recording after its last deletion, with the type and privacy of the last edits after it that
 * name them. Per athlete, the position of the last event that changed what may be shown: a zone
 * created or deleted, an activity deleted, or an edit that changed a recorded activity's privacy
 * (its privacy just before the edit, from the recording or an edit after it).
 */
export const heatmapSourcesBulk: BulkLoader = {
  writtenFor: "bad513ed9b9f642c",
  async load(tx: Queryable, log: BulkLog) {
    // One statement: the recordings decoded once, both tables written; it answers the recordings
    // whose local start time is not UTC ISO 8601, which localEpochSeconds then reads as apply does.
    const odd = await tx.query<{ id: string; local: string; elapsed: number }>(
      `with recordings as materialized (
         select e.position, f."activityId" as id, f."athleteId" as athlete, f.type, f.private,
                f."startDateLocal" as local, f."elapsedTime" as elapsed, f."streamsSha256" as streams
           from public.replay_log e
          cross join lateral jsonb_to_record(e.data) as f("activityId" bigint, "athleteId" bigint, type text,
                private boolean, "startDateLocal" text, "elapsedTime" int, "streamsSha256" text)
          where e.type = 'ActivityRecorded' and e.position <= $1),
       deleted as (
         select (data->>'activityId')::bigint as id, (data->>'athleteId')::bigint as athlete, position
           from public.replay_log where type = 'ActivityDeleted' and position <= $1),
       updates as (
         select (data->>'activityId')::bigint as id, (data->>'athleteId')::bigint as athlete, position, data
           from public.replay_log where type = 'ActivityUpdated' and position <= $1),
       recorded as (
         select distinct on (r.id) r.*,
                case when r.local ~ '${LOCAL_ISO}'
                     then floor(extract(epoch from regexp_replace(r.local, 'Z?$', 'Z')::timestamptz))::bigint end as start
           from recordings r left join (select id, max(position) as position from deleted group by id) d on d.id = r.id
          where r.position > coalesce(d.position, 0)
          order by r.id, r.position desc),
       edits as (
         select u.id, (array_agg(u.data->>'type' order by u.position desc) filter (where u.data ? 'type'))[1] as type,
                (array_agg((u.data->>'private')::boolean order by u.position desc) filter (where u.data ? 'private'))[1]
                  as private
           from updates u join recorded r on r.id = u.id and u.position > r.position
          group by u.id),
       written as (
         insert into heatmap_activities (activity_id, athlete_id, type, private, start_local, end_local, streams_sha256)
         select r.id, r.athlete, coalesce(e.type, r.type), coalesce(e.private, r.private), r.start, r.start + r.elapsed,
                r.streams
           from recorded r left join edits e on e.id = r.id
         returning 1),
       -- (A data-modifying CTE runs whether or not the statement reads it.)
       seq as (
         select id, athlete, 'ActivityRecorded' as type, position, private from recordings
         union all
         select id, athlete, 'ActivityDeleted', position, null from deleted
         union all
         select id, athlete, 'ActivityUpdated', position, (data->>'private')::boolean from updates where data ? 'private'),
       before as (
         select s.*,
                max(position) filter (where type = 'ActivityRecorded') over w as recorded,
                max(position) filter (where type = 'ActivityDeleted') over w as deleted,
                max(position) filter (where type <> 'ActivityDeleted') over w as setter
           from seq s
         window w as (partition by id order by position rows between unbounded preceding and 1 preceding)),
       bumps as (
         select b.athlete, b.position from before b join seq p on p.id = b.id and p.position = b.setter
          where b.type = 'ActivityUpdated' and b.recorded > coalesce(b.deleted, 0) and p.private <> b.private
         union all
         select athlete, position from deleted
         union all
         select (data->>'athleteId')::bigint, position from public.replay_log
          where type in ('PrivacyZoneCreated', 'PrivacyZoneDeleted') and position <= $1),
       epochs as (
         insert into heatmap_privacy_epochs (athlete_id, position)
         select athlete, max(position) from bumps group by athlete
         returning 1)
       select r.id::text as id, r.local, r.elapsed from recorded r where r.start is null`,
      [log.until],
    );
    for (const r of odd) {
      const start = localEpochSeconds(r.local);
      await tx.query("update heatmap_activities set start_local = $2, end_local = $3 where activity_id = $1", [
        r.id,
        start,
        start === null ? null : start + Number(r.elapsed),
      ]);
    }
  },
};
