import type { Queryable } from "../../events/db/types.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import type { BulkLoader, BulkLog } from "../bulk.ts";

/**
 * Uploads from the whole log (projections/bulk.ts). Per upload, the last success or failure after
 * its receipt gives the status (none: still processing), the last success its notes; a deletion of
 * its activity after a last success marks it deleted (the first such sets updated_at). A
 * fingerprint is the first success of an activity after the activity's last deletion.
 */
export const uploadsBulk: BulkLoader = {
  writtenFor: "2b2b38964fa581a1",
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `with received as (
         select (data->>'uploadId')::bigint as id, (data->>'activityId')::bigint as activity_id, position, at, data
           from public.replay_log where type = 'UploadReceived' and position <= $1),
       outcomes as (
         select (data->>'uploadId')::bigint as id, type, position, at, data
           from public.replay_log where type in ('UploadSucceeded', 'UploadFailed') and position <= $1),
       last as (
         select distinct on (r.id) r.id, o.type, o.position, o.at, o.data
           from received r join outcomes o on o.id = r.id and o.position > r.position
          order by r.id, o.position desc),
       notes as (
         select distinct on (r.id) r.id, o.data->'notes' as notes
           from received r join outcomes o on o.id = r.id and o.position > r.position and o.type = 'UploadSucceeded'
          order by r.id, o.position desc),
       deleted as (
         select l.id, min(d.at) as at
           from last l join received r on r.id = l.id
           join public.replay_log d on d.type = 'ActivityDeleted' and d.position <= $1 and d.position > l.position
            and (d.data->>'activityId')::bigint = r.activity_id
          where l.type = 'UploadSucceeded' group by l.id)
       insert into uploads (id, athlete_id, activity_id, external_id, file_name, data_type, original_sha256, content_sha256,
         status, error, notes, created_at, updated_at)
       select r.id, (r.data->>'athleteId')::bigint, r.activity_id, r.data->>'externalId', r.data->>'fileName',
              r.data->>'dataType', r.data->>'originalSha256', r.data->>'contentSha256',
              case when l.type is null then $2 when l.type = 'UploadFailed' then $3 when d.id is not null then $4 else $5 end,
              case when l.type = 'UploadFailed' then l.data->>'error' end,
              coalesce(n.notes, '[]'::jsonb), r.at, coalesce(d.at, l.at, r.at)
         from received r left join last l on l.id = r.id left join notes n on n.id = r.id
         left join deleted d on d.id = r.id`,
      [log.until, UPLOAD_STATUS.processing, UPLOAD_STATUS.error, UPLOAD_STATUS.deleted, UPLOAD_STATUS.ready],
    );
    await tx.query(
      `with deleted as (
         select (data->>'activityId')::bigint as activity_id, max(position) as position
           from public.replay_log where type = 'ActivityDeleted' and position <= $1 group by 1)
       insert into upload_fingerprints (activity_id, athlete_id, start_date, device_name, content_sha256)
       select distinct on (s.activity_id) s.activity_id, (s.data->>'athleteId')::bigint, (s.data->>'startDate')::timestamptz,
              s.data->>'deviceName', s.data->>'contentSha256'
         from (select (data->>'activityId')::bigint as activity_id, position, data
                 from public.replay_log where type = 'UploadSucceeded' and position <= $1) s
         left join deleted d on d.activity_id = s.activity_id
        where s.position > coalesce(d.position, 0)
        order by s.activity_id, s.position`,
      [log.until],
    );
  },
};
