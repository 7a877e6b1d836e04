import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, LogMisfit, none } from "../bulk.ts";
import { created, DELETED, EDITS, REDERIVATIONS, UTC_ISO } from "../activity-timeline.ts";

/**
 * The activities read model from the whole log (projections/bulk.ts), one statement per table.
 * Per activity, what `apply` leaves event by event:
 *
 * - a deletion wipes the activity's row, kudos, comments and photos, so only events after its last
 *   deletion count; the row is the first creation after it (a later creation of the same id finds
 *   the row and changes nothing);
 * - each edited column holds the value of the last edit after the creation that names it, else the
 *   creation's; the facts take, key by key, the last value an edit (sportType, hideFromHome) or a
 *   re-derivation (its measured facts; a crop's polylineSha256 null when absent, a reprocessing's
 *   when it gives a polyline without one) gave after the creation; the measured columns come from
 *   the last re-derivation (a reprocessing, a crop or its undoing), the start (date, local date,
 *   time zone) from the last crop or undoing, else the creation's;
 * - kudos: the first of each athlete after the last deletion; comments and photos: those added after
 *   the last deletion and not deleted since; the counters are what the last recount after the
 *   creation counted — every row, when such an event exists, else 0 (a kudos or comment before the
 *   creation was counted by none).
 *
 * `fits` checks what the deciders keep and the statements rely on: a comment or photo is added once,
 * a comment is deleted under the activity it was added to.
 */

/** The keys of ActivityRecorded kept as columns (the facts are the rest). */
const COLUMN_KEYS = [
  "activityId",
  "athleteId",
  "name",
  "type",
  "description",
  "externalId",
  "uploadId",
  "startDate",
  "startDateLocal",
  "timezone",
  "distance",
  "movingTime",
  "elapsedTime",
  "totalElevationGain",
  "visibility",
  "trainer",
  "commute",
];

/** The keys of ActivityUpdated that set a column when its data names them (as apply's UPDATE_COLUMNS). */
const EDITED = { name: 1, type: 1, visibility: 1, commute: 1, trainer: 1, gearId: 1, description: 1 } as const;

/**
 * The activities' creations after their last deletion, their edits and re-derivations (reprocessings,
 * crops and their undoing: events/activity/rederived.ts) after the creation (CTEs; $1 = until).
 */
const TIMELINE = `${DELETED},${
  created(
    `"activityId" bigint, "athleteId" bigint, "uploadId" bigint, "externalId" text, name text, type text,
     description text, "startDate" text, "startDateLocal" text, timezone text, distance float8, "movingTime" int,
     "elapsedTime" int, "totalElevationGain" float8, visibility text, commute boolean, trainer boolean, "sportType" text`,
    { select: "e.data," },
  )
},${EDITS},${REDERIVATIONS}`;

/** SQL: the column an edit names (the last edit's value, in the object \`edited.set\`), else the creation's. */
const edit = (key: keyof typeof EDITED, creation: string, type: "text" | "boolean" = "text") =>
  `case when u.set ? '${key}' then ${
    type === "text" ? `u.set->>'${key}'` : `(u.set->'${key}')::boolean`
  } else ${creation} end`;

export const activitiesBulk: BulkLoader = {
  writtenFor: "7d3f8e897f8ceafb",
  async fits(tx: Queryable, log: BulkLog) {
    const [row] = await tx.query<{ fits: boolean }>(
      `select ${
        none(`select 1 from public.replay_log where type = 'CommentAdded' and position <= $1
                group by data->>'commentId' having count(*) > 1`)
      } and ${
        none(`select 1 from public.replay_log where type in ('PhotoAdded', 'PhotoLinked') and position <= $1
                group by type, coalesce(data->>'uniqueId', data->>'photoId') having count(*) > 1`)
      } and ${
        none(`select 1 from public.replay_log d
                 join public.replay_log a on a.data->>'commentId' = d.data->>'commentId'
                where d.type = 'CommentDeleted' and d.position <= $1 and a.type = 'CommentAdded' and a.position <= $1
                  and a.data->>'activityId' <> d.data->>'activityId'`)
      } as fits`,
      [log.until],
    );
    return row.fits;
  },
  async load(tx: Queryable, log: BulkLog) {
    const edited = Object.keys(EDITED);
    await tx.query(
      `with ${TIMELINE},
       edit_values as (
         select distinct on (e.id, k.key) e.id, k.key, e.data->k.key as value
           from edits e cross join (values ${edited.map((key) => `('${key}')`).join(", ")}) as k(key)
          where e.data ? k.key
          order by e.id, k.key, e.position desc),
       edited as (select id, jsonb_object_agg(key, value) as set from edit_values group by id),
       measured as (
         select distinct on (id) id, facts from rederivations order by id, position desc),
       moved as (
         select distinct on (id) id, facts->>'startDate' as "startDate", facts->>'startDateLocal' as "startDateLocal",
                facts->>'timezone' as timezone
           from rederivations where type <> 'ActivityReprocessed' order by id, position desc),
       fact_changes as (
         select distinct on (id, key) id, key, value
           from (select e.id, k.key, e.data->k.key as value, e.position
                   from edits e cross join (values ('sportType'), ('hideFromHome')) as k(key) where e.data ? k.key
                 union all
                 select r.id, f.key, f.value, r.position
                   from rederivations r,
                        jsonb_each(r.facts - array['distance', 'movingTime', 'elapsedTime', 'totalElevationGain',
                                                   'startDate', 'startDateLocal', 'timezone']
                          || case when not r.facts ? 'polylineSha256'
                                   and (r.type <> 'ActivityReprocessed' or r.facts ? 'polyline')
                                  then '{"polylineSha256": null}'::jsonb else '{}'::jsonb end) as f) x
          order by id, key, position desc),
       fact_sets as (select id, jsonb_object_agg(key, value) as changes from fact_changes group by id),
       rows as (
         select c.*, c.event = 'ActivityRecorded' as recorded,
                case when c.event = 'ActivityRecorded' then c.data - array[${
        COLUMN_KEYS.map((k) => `'${k}'`).join(", ")
      }]
                else case when c."sportType" is not null then jsonb_build_object('sportType', c."sportType") else '{}'::jsonb end
                     || jsonb_build_object(
                          'elevHigh', null, 'elevLow', null, 'startLatlng', null, 'endLatlng', null,
                          'averageSpeed', case when c."elapsedTime" > 0 then c.distance / c."elapsedTime" else 0 end,
                          'maxSpeed', 0, 'averageCadence', null, 'averageTemp', null, 'averageWatts', null,
                          'maxWatts', null, 'weightedAverageWatts', null, 'kilojoules', null, 'deviceWatts', null,
                          'hasHeartrate', false, 'averageHeartrate', null, 'maxHeartrate', null, 'calories', null,
                          'sufferScore', null, 'deviceName', null, 'workoutType', null, 'polyline', null,
                          'summaryPolyline', null, 'streamsSha256', null, 'laps', '[]'::jsonb,
                          'splitsMetric', '[]'::jsonb, 'splitsStandard', '[]'::jsonb, 'bestEfforts', '[]'::jsonb)
                end as facts
           from created c)
       insert into activities (id, athlete_id, upload_id, external_id, name, type, description, start_date, start_epoch,
         start_date_local, timezone, distance, moving_time, elapsed_time, total_elevation_gain, visibility, commute, trainer,
         manual, gear_id, facts, recorded_position)
       select r."activityId", r."athleteId", case when r.recorded then r."uploadId" end,
              case when r.recorded then r."externalId" end,
              ${edit("name", "r.name")}, ${edit("type", "r.type")}, ${edit("description", "r.description")},
              coalesce(v."startDate", r."startDate"),
              case when coalesce(v."startDate", r."startDate") ~ '${UTC_ISO}'
                   then floor(extract(epoch from coalesce(v."startDate", r."startDate")::timestamptz))::bigint else 0 end,
              coalesce(v."startDateLocal", r."startDateLocal"), coalesce(v.timezone, r.timezone),
              coalesce((m.facts->>'distance')::float8, r.distance),
              coalesce((m.facts->>'movingTime')::int, case when r.recorded then r."movingTime" else r."elapsedTime" end),
              coalesce((m.facts->>'elapsedTime')::int, r."elapsedTime"),
              coalesce((m.facts->>'totalElevationGain')::float8, case when r.recorded then r."totalElevationGain" else 0 end),
              ${edit("visibility", "r.visibility")}, ${edit("commute", "r.commute", "boolean")},
              ${edit("trainer", "r.trainer", "boolean")}, not r.recorded, ${edit("gearId", "null")},
              r.facts || coalesce(f.changes, '{}'::jsonb), r.position
         from rows r
         left join edited u on u.id = r."activityId"
         left join measured m on m.id = r."activityId"
         left join moved v on v.id = r."activityId"
         left join fact_sets f on f.id = r."activityId"`,
      [log.until],
    );
    await tx.query(
      `with ${DELETED}
       insert into activity_kudos (activity_id, athlete_id, position)
       select distinct on (k.activity_id, k.athlete_id) k.activity_id, k.athlete_id, k.position
         from (select (data->>'activityId')::bigint as activity_id, (data->>'athleteId')::bigint as athlete_id, position
                 from public.replay_log where type = 'KudosGiven' and position <= $1) k
         left join deleted d on d.id = k.activity_id
        where k.position > coalesce(d.at, 0)
        order by k.activity_id, k.athlete_id, k.position`,
      [log.until],
    );
    await tx.query(
      `with ${DELETED}
       insert into activity_comments (id, activity_id, athlete_id, text, created_at, position)
       select (c.data->>'commentId')::bigint, (c.data->>'activityId')::bigint, (c.data->>'athleteId')::bigint,
              c.data->>'text', c.at_text, c.position
         from public.replay_log c left join deleted d on d.id = (c.data->>'activityId')::bigint
        where c.type = 'CommentAdded' and c.position <= $1 and c.position > coalesce(d.at, 0)
          and not exists (select 1 from public.replay_log x
                           where x.type = 'CommentDeleted' and x.position <= $1 and x.position > c.position
                             and x.data->>'commentId' = c.data->>'commentId')`,
      [log.until],
    );
    await tx.query(
      `with ${DELETED}
       insert into activity_photos (key, activity_id, source, position, data)
       select case when p.type = 'PhotoAdded' then 'n:' || (p.data->>'uniqueId') else 'e:' || (p.data->>'photoId') end,
              (p.data->>'activityId')::bigint, case when p.type = 'PhotoAdded' then 1 else 2 end, p.position,
              p.data || jsonb_build_object(case when p.type = 'PhotoAdded' then 'uploadedAt' else 'createdAt' end, p.at_text)
         from public.replay_log p left join deleted d on d.id = (p.data->>'activityId')::bigint
        where p.type in ('PhotoAdded', 'PhotoLinked') and p.position <= $1 and p.position > coalesce(d.at, 0)`,
      [log.until],
    );
    // The counters: what the last recount after the creation counted (every row), else 0.
    await tx.query(
      `with created as (select id, recorded_position as position from activities),
       recounted as (
         select c.id, bool_or(e.type = 'KudosGiven') as kudos,
                bool_or(e.type in ('CommentAdded', 'CommentDeleted')) as comments,
                bool_or(e.type in ('PhotoAdded', 'PhotoLinked')) as photos
           from public.replay_log e join created c on c.id = (e.data->>'activityId')::bigint and e.position > c.position
          where e.type in ('KudosGiven', 'CommentAdded', 'CommentDeleted', 'PhotoAdded', 'PhotoLinked') and e.position <= $1
          group by c.id),
       kudos as (select activity_id as id, count(*)::int as n from activity_kudos group by 1),
       comments as (select activity_id as id, count(*)::int as n from activity_comments group by 1),
       photos as (select activity_id as id, (count(*) filter (where source = 2))::int as linked, count(*)::int as n
                    from activity_photos group by 1)
       update activities a set
         kudos_count = case when r.kudos then coalesce(k.n, 0) else 0 end,
         comment_count = case when r.comments then coalesce(c.n, 0) else 0 end,
         photo_count = case when r.photos then coalesce(p.linked, 0) else 0 end,
         total_photo_count = case when r.photos then coalesce(p.n, 0) else 0 end
         from recounted r left join kudos k on k.id = r.id left join comments c on c.id = r.id
         left join photos p on p.id = r.id
        where a.id = r.id`,
      [log.until],
    );
    // PostgreSQL reads a UTC ISO 8601 start date as JavaScript's Date.parse does (what every way in
    // writes); any other is read by Date.parse, as apply does.
    const odd = await tx.query<{ id: string; start_date: string }>(
      `select id::text as id, start_date from activities where start_date !~ '${UTC_ISO}'`,
    );
    for (const { id, start_date } of odd) {
      const epoch = Math.floor(Date.parse(start_date) / 1000);
      if (!Number.isFinite(epoch)) throw new LogMisfit(`activity ${id}: start date ${start_date} unreadable`);
      await tx.query("update activities set start_epoch = $2 where id = $1", [id, epoch]);
    }
  },
};
