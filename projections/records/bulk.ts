import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, LogMisfit } from "../bulk.ts";
import { created, DELETED, EDITS, LAST_VISIBILITY, lastEdit, moved, REDERIVED, UTC_ISO } from "../activity-timeline.ts";

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
      `with ${DELETED},${
        created(
          `"activityId" bigint, "athleteId" bigint, type text, visibility text, private boolean, "startDate" text,
           "startDateLocal" text`,
          {
            select: "e.data - array['laps', 'splitsMetric', 'splitsStandard', 'polyline'] as facts,",
            recordedOnly: true,
            materialized: true,
          },
        )
      },${EDITS},${lastEdit("sports", "data->>'type' as sport", "data ? 'type'")},${LAST_VISIBILITY},${REDERIVED},${
        moved("w.facts->>'startDate' as start, w.facts->>'startDateLocal' as local")
      },
       keys as materialized (
         select c."activityId" as id, c."athleteId" as athlete,
                coalesce(v.visibility,
                         case when c.visibility in ('everyone', 'followers_only', 'only_me') then c.visibility
                              when c.private then 'only_me' else 'everyone' end) as visibility,
                substr(coalesce(m.local, c."startDateLocal"), 1, 4)::int as year, coalesce(s.sport, c.type) as sport,
                coalesce(m.start, c."startDate") as start, coalesce(r.facts, c.facts) as facts
           from created c left join sports s on s.id = c."activityId" left join visibilities v on v.id = c."activityId"
           left join rederived r on r.id = c."activityId" left join moved m on m.id = c."activityId"),
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
