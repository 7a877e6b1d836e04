import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, LogMisfit } from "../bulk.ts";
import { localEpochSeconds } from "./sources.ts";
import { REDERIVATION_TYPES } from "../../events/activity/rederived.ts";
import { WINDOW_FACT_TYPES } from "../../events/activity/cropped.ts";

/** The re-derivations (events/activity/rederived.ts), and those of them that move the start (SQL lists). */
const REDERIVED = REDERIVATION_TYPES.map((t) => `'${t}'`).join(", ");
const WINDOWED = WINDOW_FACT_TYPES.map((t) => `'${t}'`).join(", ");

/** A local time PostgreSQL reads as localEpochSeconds does (ISO 8601, in UTC or without a zone). */
const LOCAL_ISO = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z?$";

/**
 * What heatmap builds need, from the whole log (projections/bulk.ts). Per activity, its last
 * recording after its last deletion, then, in log order, the edits of its type or visibility and its
 * re-derivations (a reprocessing, a crop or its undoing: events/activity/rederived.ts) after it, each
 * field carried forward from the last event that sets it: the streams from the last re-derivation,
 * the local start from the last crop or undoing, the end from the last re-derivation's elapsed time
 * after the start it leaves. `changed_position` is the last of those events that changed what its
 * row held (the recording always; an edit that changed the type or visibility; a re-derivation that
 * changed the streams, start or end), as apply's guarded updates leave it. Per athlete, the
 * position of the last event that changed what may be shown: a zone created or deleted, an activity
 * deleted, or an edit that changed a recorded activity's visibility (its visibility just before the
 * edit, from the recording or an edit after it).
 *
 * Local start times are read in SQL when they are ISO 8601 (as localEpochSeconds reads them); a
 * recording's other start is read in JavaScript afterwards, unless the activity has re-derivations
 * (their comparisons need it in SQL), and a crop's other start is not read at all: both throw a
 * LogMisfit (the projection then rebuilds event by event). The deciders write ISO 8601.
 */
export const heatmapSourcesBulk: BulkLoader = {
  writtenFor: "7c23ff0feaa51dca",
  async load(tx: Queryable, log: BulkLog) {
    // One statement: the recordings decoded once, both tables written; it answers the recordings
    // whose local start time is not ISO 8601, which localEpochSeconds then reads as apply does.
    const odd = await tx.query<{ id: string; local: string; elapsed: number; rederived: boolean; crop: boolean }>(
      `with recordings as materialized (
         select e.position, f."activityId" as id, f."athleteId" as athlete, f.type, f.visibility,
                f."startDateLocal" as local, f."elapsedTime" as elapsed, f."streamsSha256" as streams
           from public.replay_log e
          cross join lateral jsonb_to_record(e.data) as f("activityId" bigint, "athleteId" bigint, type text,
                visibility text, "startDateLocal" text, "elapsedTime" int, "streamsSha256" text)
          where e.type = 'ActivityRecorded' and e.position <= $1),
       deleted as (
         select (data->>'activityId')::bigint as id, (data->>'athleteId')::bigint as athlete, position
           from public.replay_log where type = 'ActivityDeleted' and position <= $1),
       updates as (
         select (data->>'activityId')::bigint as id, (data->>'athleteId')::bigint as athlete, position, data
           from public.replay_log where type = 'ActivityUpdated' and position <= $1),
       rederivations as (
         select (data->>'activityId')::bigint as id, position, type in (${WINDOWED}) as moves,
                data->'facts'->>'streamsSha256' as streams, data->'facts'->>'startDateLocal' as local,
                (data->'facts'->>'elapsedTime')::int as elapsed
           from public.replay_log where type in (${REDERIVED}) and position <= $1),
       recorded as (
         select distinct on (r.id) r.*, ${START("r.local")} as start
           from recordings r left join (select id, max(position) as position from deleted group by id) d on d.id = r.id
          where r.position > coalesce(d.position, 0)
          order by r.id, r.position desc),
       timeline as (
         select r.id, r.position, 'recorded' as kind, r.type, r.visibility, r.streams, r.start, r.elapsed,
                true as moves, null as local
           from recorded r
         union all
         select u.id, u.position, 'edited', u.data->>'type', u.data->>'visibility', null, null, null, false, null
           from updates u join recorded r on r.id = u.id and u.position > r.position
          where u.data ? 'type' or u.data ? 'visibility'
         union all
         select d.id, d.position, 'rederived', null, null, d.streams, case when d.moves then ${START("d.local")} end,
                d.elapsed, d.moves, case when d.moves then d.local end
           from rederivations d join recorded r on r.id = d.id and d.position > r.position),
       carried as (
         select t.*, ${carry("type", "type is not null")} as type_now,
                ${carry("visibility", "visibility is not null")} as visibility_now,
                ${carry("streams", "kind <> 'edited'")} as streams_now, ${carry("start", "moves")} as start_now
           from timeline t
         window w as (partition by id order by position rows between unbounded preceding and current row)),
       ended as (
         select c.*, ${carry("case when kind <> 'edited' then start_now + elapsed end", "kind <> 'edited'")} as end_now
           from carried c
         window w as (partition by id order by position rows between unbounded preceding and current row)),
       steps as (
         select e.*, lag(type_now) over p as type_was, lag(visibility_now) over p as visibility_was,
                lag(streams_now) over p as streams_was, lag(start_now) over p as start_was, lag(end_now) over p as end_was
           from ended e window p as (partition by id order by position)),
       changed as (
         select id, max(position) as position from steps
          where kind = 'recorded'
             or (kind = 'edited' and (type_now <> type_was or visibility_now <> visibility_was))
             or (kind = 'rederived' and (streams_now is distinct from streams_was or start_now is distinct from start_was
                                         or end_now is distinct from end_was))
          group by id),
       final as (select distinct on (id) * from steps order by id, position desc),
       written as (
         insert into heatmap_activities (activity_id, athlete_id, type, visibility, start_local, end_local, streams_sha256,
           changed_position)
         select r.id, r.athlete, f.type_now, f.visibility_now, f.start_now, f.end_now, f.streams_now, c.position
           from recorded r join final f on f.id = r.id join changed c on c.id = r.id
         returning 1),
       -- (A data-modifying CTE runs whether or not the statement reads it.)
       seq as (
         select id, athlete, 'ActivityRecorded' as type, position, visibility from recordings
         union all
         select id, athlete, 'ActivityDeleted', position, null from deleted
         union all
         select id, athlete, 'ActivityUpdated', position, data->>'visibility' from updates where data ? 'visibility'),
       before as (
         select s.*,
                max(position) filter (where type = 'ActivityRecorded') over w as recorded,
                max(position) filter (where type = 'ActivityDeleted') over w as deleted,
                max(position) filter (where type <> 'ActivityDeleted') over w as setter
           from seq s
         window w as (partition by id order by position rows between unbounded preceding and 1 preceding)),
       bumps as (
         select b.athlete, b.position from before b join seq p on p.id = b.id and p.position = b.setter
          where b.type = 'ActivityUpdated' and b.recorded > coalesce(b.deleted, 0) and p.visibility <> b.visibility
         union all
         select athlete, position from deleted
         union all
         select (data->>'athleteId')::bigint, position from public.replay_log
          where type in ('PrivacyZoneCreated', 'PrivacyZoneDeleted') and position <= $1),
       epochs as (
         insert into heatmap_privacy_epochs (athlete_id, position)
         select athlete, max(position) from bumps group by athlete
         returning 1)
       select r.id::text as id, r.local, r.elapsed,
              exists (select 1 from timeline t where t.id = r.id and t.kind = 'rederived') as rederived, false as crop
         from recorded r where r.start is null
       union all
       select id::text, local, elapsed, true, true from timeline
        where kind = 'rederived' and local is not null and start is null`,
      [log.until],
    );
    const misfit = odd.find((r) => r.rederived);
    if (misfit) {
      throw new LogMisfit(
        `activity ${misfit.id}: a local start not in ISO 8601 (${misfit.local}) beside re-derivations`,
      );
    }
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

/** SQL: epoch seconds of an ISO 8601 local time (as localEpochSeconds reads it), else null. */
const START = (local: string) =>
  `case when ${local} ~ '${LOCAL_ISO}'
        then floor(extract(epoch from regexp_replace(${local}, 'Z?$', 'Z')::timestamptz))::bigint end`;

/** SQL: the value of the last event in window w (up to the current one) for which `sets` holds (nulls kept). */
const carry = (value: string, sets: string) =>
  `(array_agg(${value}) filter (where ${sets}) over w)[count(*) filter (where ${sets}) over w]`;
