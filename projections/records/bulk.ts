import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, LogMisfit } from "../bulk.ts";
import { REDERIVATION_TYPES } from "../../events/activity/rederived.ts";
import { WINDOW_FACT_TYPES } from "../../events/activity/cropped.ts";

/** The re-derivations (events/activity/rederived.ts), and those of them that move the start (SQL lists). */
const REDERIVED = REDERIVATION_TYPES.map((t) => `'${t}'`).join(", ");
const WINDOWED = WINDOW_FACT_TYPES.map((t) => `'${t}'`).join(", ");
const UTC_ISO = "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$";

/** SQL: `legacyStreams` of facts (jsonb): the streams of a recording with power but no power curve. */
const LEGACY_STREAMS = (f: string) =>
  `case when not ${f} ? 'powerCurve' and (${f}->'averageWatts') is distinct from 'null'::jsonb
             and coalesce(${f}->>'streamsSha256', '') <> '' then ${f}->>'streamsSha256' end`;

/**
 * Records' activities and candidates from the whole log (projections/bulk.ts), in one statement;
 * the bests are then picked by `finishRebuild`, as in any rebuild. Per recorded activity, what
 * `apply` leaves while rebuilding: its first recording after its last deletion (a later one adds
 * nothing); its sport (the type) and visibility from the last edits naming them; its year and start
 * from the last crop or undoing after it; its legacy streams and candidates from the facts of its
 * last re-derivation (a reprocessing, a crop or its undoing), else its recording's — the first
 * best effort of each name with a numeric time, the power curve's points of positive watts, each
 * candidate with the activity's final key. A start that is not UTC ISO 8601 (the deciders write
 * it) is a LogMisfit: the projection then rebuilds event by event, reading it with Date.parse.
 */
export const recordsBulk: BulkLoader = {
  writtenFor: "c30b630ab45be72d",
  async load(tx: Queryable, log: BulkLog) {
    const [misfit] = await tx.query<{ odd: number }>(
      `with deleted as (
         select (data->>'activityId')::bigint as id, max(position) as at
           from public.replay_log where type = 'ActivityDeleted' and position <= $1 group by 1),
       created as materialized (
         select distinct on (c.id) c.*
           from (select e.position, (e.data->>'activityId')::bigint as id, (e.data->>'athleteId')::bigint as athlete,
                        e.data->>'type' as type, e.data->>'visibility' as visibility,
                        (e.data->>'private')::boolean as private, e.data->>'startDate' as start,
                        e.data->>'startDateLocal' as local,
                        e.data - array['laps', 'splitsMetric', 'splitsStandard', 'polyline'] as facts
                   from public.replay_log e
                  where e.type = 'ActivityRecorded' and e.position <= $1) c
           left join deleted d on d.id = c.id
          where c.position > coalesce(d.at, 0)
          order by c.id, c.position),
       edits as (
         select u.id, u.position, u.data
           from (select (data->>'activityId')::bigint as id, position, data
                   from public.replay_log where type = 'ActivityUpdated' and position <= $1) u
           join created c on c.id = u.id and u.position > c.position),
       sports as (
         select distinct on (id) id, data->>'type' as sport from edits where data ? 'type' order by id, position desc),
       visibilities as (
         select distinct on (id) id, data->>'visibility' as visibility
           from edits where data ? 'visibility' order by id, position desc),
       rederived as (
         select distinct on (r.id) r.id, r.facts
           from (select (data->>'activityId')::bigint as id, position, data->'facts' as facts
                   from public.replay_log where type in (${REDERIVED}) and position <= $1) r
           join created c on c.id = r.id and r.position > c.position
          order by r.id, r.position desc),
       moved as (
         select distinct on (w.id) w.id, w.facts->>'startDate' as start, w.facts->>'startDateLocal' as local
           from (select (data->>'activityId')::bigint as id, position, data->'facts' as facts
                   from public.replay_log where type in (${WINDOWED}) and position <= $1) w
           join created c on c.id = w.id and w.position > c.position
          order by w.id, w.position desc),
       keys as materialized (
         select c.id, c.athlete,
                coalesce(v.visibility,
                         case when c.visibility in ('everyone', 'followers_only', 'only_me') then c.visibility
                              when c.private then 'only_me' else 'everyone' end) as visibility,
                substr(coalesce(m.local, c.local), 1, 4)::int as year, coalesce(s.sport, c.type) as sport,
                coalesce(m.start, c.start) as start, coalesce(r.facts, c.facts) as facts
           from created c left join sports s on s.id = c.id left join visibilities v on v.id = c.id
           left join rederived r on r.id = c.id left join moved m on m.id = c.id),
       activities as (
         insert into record_activities (activity_id, athlete_id, visibility, year, sport, start_epoch, legacy_streams)
         select id, athlete, visibility, year, sport,
                case when start ~ '${UTC_ISO}' then floor(extract(epoch from start::timestamptz))::bigint else 0 end,
                ${LEGACY_STREAMS("facts")}
           from keys
         returning 1),
       candidates as (
         insert into record_candidates (activity_id, athlete_id, visibility, year, sport, start_epoch, kind, key, score,
           value, moving_time, distance, effort_start)
         select distinct on (k.id, x.kind, x.key) k.id, k.athlete, k.visibility, k.year, k.sport,
                case when k.start ~ '${UTC_ISO}' then floor(extract(epoch from k.start::timestamptz))::bigint else 0 end,
                x.kind, x.key, x.score, x.value, x.moving_time, x.distance, x.effort_start
           from keys k
           cross join lateral (
             select 'effort' as kind, 1 as part, o, b->>'name' as key, -(b->>'elapsedTime')::float8 as score,
                    (b->>'elapsedTime')::float8 as value, (b->>'movingTime')::int as moving_time,
                    (b->>'distance')::float8 as distance, b->>'startDate' as effort_start
               from jsonb_array_elements(case when jsonb_typeof(k.facts->'bestEfforts') = 'array'
                                              then k.facts->'bestEfforts' else '[]'::jsonb end) with ordinality as e(b, o)
              where jsonb_typeof(b->'elapsedTime') = 'number'
             union all
             select 'power', 2, o, p->>'duration', (p->>'watts')::float8, (p->>'watts')::float8, null, null, null
               from jsonb_array_elements(case when jsonb_typeof(k.facts->'powerCurve') = 'array'
                                              then k.facts->'powerCurve' else '[]'::jsonb end) with ordinality as q(p, o)
              where jsonb_typeof(p->'watts') = 'number' and (p->>'watts')::float8 > 0) x
          order by k.id, x.kind, x.key, x.o
         returning 1)
       select count(*)::int as odd from keys where start !~ '${UTC_ISO}'`,
      [log.until],
    );
    if (misfit.odd > 0) throw new LogMisfit(`${misfit.odd} recorded activities start other than in UTC ISO 8601`);
  },
};
