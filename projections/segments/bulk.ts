import type { Queryable } from "../../events/db/types.ts";
import { privacyZoneBounds } from "../../shared/privacy-zones.ts";
import { type BulkLoader, type BulkLog, LogMisfit } from "../bulk.ts";
import { shieldedBy } from "./zones.ts";

/**
 * Segments, stars and efforts from the whole log (projections/bulk.ts); the boards and the
 * segments' counters are then computed by `finishRebuild` as in any rebuild.
 *
 * - A segment is its creation, with the last profile measured after it (elevation facts, updated_at).
 * - A star is a pair whose last event is a star, since the first star after its last unstar.
 * - An activity's efforts are those of its last re-match after its last deletion and of the matchings
 *   after both (a re-match replaces the efforts; a deletion removes them), the first of each effort id;
 *   each effort's visibility is its event's, or the last edit of the activity's visibility after it
 *   (crops, splits and their undoing reach the efforts as re-matches and matchings).
 *   Its ends are the event's recorded positions, else the segment's (created before the match).
 * - Shielded: every zone change recomputes all of the athlete's efforts against the zones it leaves,
 *   and a match shields against the zones standing, so each effort ends shielded exactly when its
 *   ends lie in the athlete's zones at the end of the log. Those zones are the privacy_zones read
 *   model, rebuilt before (listed earlier); the test is `shieldedBy` in JavaScript, on the efforts
 *   inside a zone's bounding box.
 * - An activity's pr and achievement counts are those of its last matching after its last deletion.
 *
 * The load checks that no effort id is matched on two activities (ids come from one sequence).
 */
const ELEVATION_DIFFERENCE = (altitudes: string) =>
  // elevationDifference in projection.ts: Math.round((last − first) × 10) / 10, ties up as Math.round.
  `case when coalesce(jsonb_array_length(${altitudes}), 0) < 2 then 0::float8 else
     (select case when v - floor(v) >= 0.5 then ceil(v) else floor(v) end / 10
        from (select ((${altitudes}->>-1)::float8 - (${altitudes}->>0)::float8) * 10 as v) x) end`;

export const segmentsBulk: BulkLoader = {
  writtenFor: "719695485f8eb7d4",
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `with created as materialized (
         select e.position, e.at, f.*
           from public.replay_log e
          cross join lateral jsonb_to_record(e.data) as f("segmentId" bigint, "athleteId" bigint, "activityId" bigint,
                name text, "activityType" text, points jsonb, altitudes jsonb, distance float8, "averageGrade" float8,
                "maximumGrade" float8, "elevationHigh" float8, "elevationLow" float8, "totalElevationGain" float8,
                "climbCategory" int, "startLatlng" jsonb, "endLatlng" jsonb, polyline text, city text, state text,
                country text, private boolean, hazardous boolean)
          where e.type = 'SegmentCreated' and e.position <= $1),
       measured as (
         select distinct on (m.id) m.id, m.at, m.data
           from (select (data->>'segmentId')::bigint as id, position, at, data
                   from public.replay_log where type = 'SegmentProfileMeasured' and position <= $1) m
           join created c on c."segmentId" = m.id and c.position < m.position
          order by m.id, m.position desc)
       insert into segments (id, athlete_id, activity_id, name, activity_type, points, altitudes, distance,
         average_grade, maximum_grade, elevation_high, elevation_low, total_elevation_gain, climb_category,
         start_lat, start_lng, end_lat, end_lng, polyline, city, state, country, private, hazardous,
         created_at, updated_at, elevation_difference, elevation_source)
       select c."segmentId", c."athleteId", c."activityId", c.name, c."activityType", c.points, c.altitudes, c.distance,
              coalesce((m.data->>'averageGrade')::float8, c."averageGrade"),
              coalesce((m.data->>'maximumGrade')::float8, c."maximumGrade"),
              case when m.id is null then c."elevationHigh" else (m.data->>'elevationHigh')::float8 end,
              case when m.id is null then c."elevationLow" else (m.data->>'elevationLow')::float8 end,
              coalesce((m.data->>'totalElevationGain')::float8, c."totalElevationGain"),
              coalesce((m.data->>'climbCategory')::int, c."climbCategory"),
              (c."startLatlng"->>0)::float8, (c."startLatlng"->>1)::float8,
              (c."endLatlng"->>0)::float8, (c."endLatlng"->>1)::float8,
              c.polyline, c.city, c.state, c.country, c.private, c.hazardous, c.at, coalesce(m.at, c.at),
              case when m.id is null then ${ELEVATION_DIFFERENCE("c.altitudes")}
              else ${
        ELEVATION_DIFFERENCE(`(select jsonb_agg(p->1 order by o) from jsonb_array_elements(m.data->'profile')
                                             with ordinality as q(p, o))`)
      } end,
              m.data->>'source'
         from created c left join measured m on m.id = c."segmentId"`,
      [log.until],
    );
    await tx.query(
      `insert into segment_stars (athlete_id, segment_id, starred_at)
       select distinct on (athlete, segment) athlete, segment, at
         from (select (data->>'athleteId')::bigint as athlete, (data->>'segmentId')::bigint as segment, type, position, at,
                      max(position) filter (where type = 'SegmentUnstarred')
                        over (partition by data->>'athleteId', data->>'segmentId') as unstarred
                 from public.replay_log
                where type in ('SegmentStarred', 'SegmentUnstarred') and position <= $1) e
        where type = 'SegmentStarred' and position > coalesce(unstarred, 0)
        order by athlete, segment, position`,
      [log.until],
    );
    // Every matching's efforts expanded once: those that leave efforts (after the activity's last
    // deletion and last re-match), and the check that no effort id is matched on two activities.
    const [misfit] = await tx.query<{ shared: number }>(
      `with deleted as (
         select (data->>'activityId')::bigint as id, max(position) as position
           from public.replay_log where type = 'ActivityDeleted' and position <= $1 group by 1),
       matches as (
         select m.*, m.position > coalesce(d.position, 0) and m.position >= coalesce(m.rematched, 0) as stays
           from (select (data->>'activityId')::bigint as id, position, data,
                        max(position) filter (where type = 'SegmentEffortsRematched')
                          over (partition by (data->>'activityId')::bigint) as rematched
                   from public.replay_log
                  where type in ('SegmentEffortsMatched', 'SegmentEffortsRematched') and position <= $1) m
           left join deleted d on d.id = m.id),
       facts as (
         insert into segment_activity_facts (activity_id, pr_count, achievement_count)
         select distinct on (id) id, (data->>'prCount')::int, (data->>'achievementCount')::int
           from matches where stays order by id, position desc
         returning 1),
       expanded as materialized (
         select m.id, m.position, m.stays, (m.data->>'athleteId')::bigint as athlete, m.data->>'visibility' as visibility,
                t.o, t.e, (t.e->>'effortId')::bigint as effort
           from matches m cross join jsonb_array_elements(m.data->'efforts') with ordinality as t(e, o)),
       privacy as (
         select distinct on (m.id, m.position) m.id, m.position, u.visibility
           from (select distinct id, position from expanded where stays) m
           join (select (data->>'activityId')::bigint as id, position, data->>'visibility' as visibility
                   from public.replay_log where type = 'ActivityUpdated' and position <= $1 and data ? 'visibility') u
             on u.id = m.id and u.position > m.position
          order by m.id, m.position, u.position desc),
       starts as (
         select e.position, f."segmentId" as id, f."startLatlng" as first, f."endLatlng" as last
           from public.replay_log e
          cross join lateral jsonb_to_record(e.data) as f("segmentId" bigint, "startLatlng" jsonb, "endLatlng" jsonb)
          where e.type = 'SegmentCreated' and e.position <= $1),
       efforts as (
         insert into segment_efforts (id, segment_id, activity_id, athlete_id, ord, name, start_index, end_index,
           start_date, start_date_local, elapsed_time, moving_time, distance, average_heartrate, max_heartrate,
           average_watts, average_cadence, kom_rank, pr_rank, achievements, hidden, visibility,
           start_lat, start_lng, end_lat, end_lng)
         select distinct on (x.effort)
                x.effort, (e->>'segmentId')::bigint, x.id, x.athlete, (x.o - 1)::int,
                e->>'name', (e->>'startIndex')::int, (e->>'endIndex')::int, (e->>'startDate')::timestamptz,
                regexp_replace(e->>'startDateLocal', 'Z$', '')::timestamp, (e->>'elapsedTime')::int,
                (e->>'movingTime')::int, (e->>'distance')::float8, (e->>'averageHeartrate')::float8,
                (e->>'maxHeartrate')::float8, (e->>'averageWatts')::float8, (e->>'averageCadence')::float8,
                (e->>'komRank')::int, (e->>'prRank')::int,
                (select coalesce(jsonb_agg(jsonb_build_object('type_id', a->'typeId', 'type', a->'type', 'rank', a->'rank')
                                           order by n), '[]'::jsonb)
                   from jsonb_array_elements(e->'achievements') with ordinality as y(a, n)),
                (e->>'hidden')::boolean, coalesce(p.visibility, x.visibility),
                coalesce((e->'startLatlng'->>0)::float8, (s.first->>0)::float8),
                coalesce((e->'startLatlng'->>1)::float8, (s.first->>1)::float8),
                coalesce((e->'endLatlng'->>0)::float8, (s.last->>0)::float8),
                coalesce((e->'endLatlng'->>1)::float8, (s.last->>1)::float8)
           from expanded x
           left join privacy p on p.id = x.id and p.position = x.position
           left join starts s on s.id = (e->>'segmentId')::bigint and s.position < x.position
            and (e->'startLatlng' is null or e->'endLatlng' is null)
          where x.stays
          order by x.effort, x.position, x.o
         returning 1)
       select count(*)::int as shared
         from (select effort from expanded group by effort having count(distinct id) > 1) s`,
      [log.until],
    );
    if (misfit.shared > 0) throw new LogMisfit(`${misfit.shared} effort ids matched on two activities`);
    await shieldByFinalZones(tx);
  },
};

/** Efforts whose start or end lies in their athlete's zones (as they stand at the end of the log). */
async function shieldByFinalZones(tx: Queryable): Promise<void> {
  const zones = await tx.query<{ athlete_id: string; lat: number; lng: number; radius_m: number }>(
    "select athlete_id::text as athlete_id, lat, lng, radius_m from privacy_zones order by athlete_id, id",
  );
  if (zones.length === 0) return;
  const byAthlete = new Map<string, { lat: number; lng: number; radius_m: number }[]>();
  const boxes: { athlete: string; south: number; north: number; west: number; east: number }[] = [];
  for (const z of zones) {
    const zone = { lat: Number(z.lat), lng: Number(z.lng), radius_m: Number(z.radius_m) };
    byAthlete.set(z.athlete_id, [...(byAthlete.get(z.athlete_id) ?? []), zone]);
    boxes.push({ athlete: z.athlete_id, ...privacyZoneBounds(zone) });
  }
  // Only efforts with an end inside a zone's box can be inside the zone (the box surely holds it).
  const candidates = await tx.query<
    { id: string; athlete_id: string; start_lat: number; start_lng: number; end_lat: number; end_lng: number }
  >(
    `select distinct e.id::text as id, e.athlete_id::text as athlete_id, e.start_lat, e.start_lng, e.end_lat, e.end_lng
       from jsonb_to_recordset($1::jsonb) as b(athlete bigint, south float8, north float8, west float8, east float8)
       join segment_efforts e on e.athlete_id = b.athlete
        and ((e.start_lat between b.south and b.north and e.start_lng between b.west and b.east)
          or (e.end_lat between b.south and b.north and e.end_lng between b.west and b.east))`,
    [JSON.stringify(boxes)],
  );
  const shielded = candidates.filter((e) => shieldedBy(e, byAthlete.get(e.athlete_id) ?? [])).map((e) => e.id);
  if (shielded.length) {
    await tx.query("update segment_efforts set shielded = true where id = any($1::bigint[])", [shielded]);
  }
}
