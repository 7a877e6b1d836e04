import type { Queryable } from "../../events/db/types.ts";
import type { BulkLoader, BulkLog } from "../bulk.ts";
import { REDERIVATION_TYPES } from "../../events/activity/rederived.ts";
import { WINDOW_FACT_TYPES } from "../../events/activity/cropped.ts";

/** The re-derivations (events/activity/rederived.ts), and those of them that move the start (SQL lists). */
const REDERIVED = REDERIVATION_TYPES.map((t) => `'${t}'`).join(", ");
const WINDOWED = WINDOW_FACT_TYPES.map((t) => `'${t}'`).join(", ");

/**
 * The activities' contributions to training volume from the whole log (projections/bulk.ts), in one
 * statement; the day and year sums are then computed by `finishRebuild`, as in any rebuild. Per
 * activity, what `apply` leaves while rebuilding: the first creation after its last deletion (a
 * later one finds the row and changes nothing); its sport from the last edit naming a sport type
 * or type (the sport type, else the type), its visibility from the last edit naming one; its
 * figures from the last re-derivation after it (a reprocessing, a crop or its undoing), its day
 * from the last crop or undoing.
 */
export const trainingVolumeBulk: BulkLoader = {
  writtenFor: "472961fca571d645",
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `with deleted as (
         select (data->>'activityId')::bigint as id, max(position) as at
           from public.replay_log where type = 'ActivityDeleted' and position <= $1 group by 1),
       created as (
         select distinct on (c."activityId") c.*
           from (select e.position, e.type as event, f.*
                   from public.replay_log e
                  cross join lateral jsonb_to_record(e.data) as f("activityId" bigint, "athleteId" bigint, type text,
                        "sportType" text, "startDateLocal" text, visibility text, private boolean, distance numeric,
                        "movingTime" int, "elapsedTime" int, "totalElevationGain" numeric)
                  where e.type in ('ActivityRecorded', 'ActivityCreated') and e.position <= $1) c
           left join deleted d on d.id = c."activityId"
          where c.position > coalesce(d.at, 0)
          order by c."activityId", c.position),
       edits as (
         select u.id, u.position, u.data
           from (select (data->>'activityId')::bigint as id, position, data
                   from public.replay_log where type = 'ActivityUpdated' and position <= $1) u
           join created c on c."activityId" = u.id and u.position > c.position),
       sports as (
         select distinct on (id) id, coalesce(data->>'sportType', data->>'type') as sport
           from edits where data ? 'sportType' or data ? 'type' order by id, position desc),
       visibilities as (
         select distinct on (id) id, data->>'visibility' as visibility
           from edits where data ? 'visibility' order by id, position desc),
       rederived as (
         select distinct on (r.id) r.id, r.facts
           from (select (data->>'activityId')::bigint as id, position, data->'facts' as facts
                   from public.replay_log where type in (${REDERIVED}) and position <= $1) r
           join created c on c."activityId" = r.id and r.position > c.position
          order by r.id, r.position desc),
       moved as (
         select distinct on (w.id) w.id, w.facts->>'startDateLocal' as local
           from (select (data->>'activityId')::bigint as id, position, data->'facts' as facts
                   from public.replay_log where type in (${WINDOWED}) and position <= $1) w
           join created c on c."activityId" = w.id and w.position > c.position
          order by w.id, w.position desc)
       insert into volume_activities (activity_id, athlete_id, visibility, day, sport, distance, moving_time,
         elapsed_time, elevation_gain)
       select c."activityId", c."athleteId",
              coalesce(v.visibility,
                       case when c.visibility in ('everyone', 'followers_only', 'only_me') then c.visibility
                            when c.private then 'only_me' else 'everyone' end),
              substr(coalesce(m.local, c."startDateLocal"), 1, 10), coalesce(s.sport, c."sportType", c.type),
              case when r.id is null then c.distance else (r.facts->>'distance')::numeric end,
              case when r.id is not null then (r.facts->>'movingTime')::int
                   when c.event = 'ActivityRecorded' then c."movingTime" else c."elapsedTime" end,
              case when r.id is null then c."elapsedTime" else (r.facts->>'elapsedTime')::int end,
              case when r.id is not null then (r.facts->>'totalElevationGain')::numeric
                   when c.event = 'ActivityRecorded' then c."totalElevationGain" else 0 end
         from created c left join sports s on s.id = c."activityId" left join visibilities v on v.id = c."activityId"
         left join rederived r on r.id = c."activityId" left join moved m on m.id = c."activityId"`,
      [log.until],
    );
  },
};
