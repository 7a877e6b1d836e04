import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, LogMisfit, ONE_CREATION_PER_STREAM } from "../bulk.ts";
import { GROUPS } from "./groups.ts";
import { REDERIVED_TYPES as REDERIVED, WINDOWED_TYPES as WINDOWED } from "../activity-timeline.ts";

/**
 * Athlete stats from the whole log (projections/bulk.ts), in two statements.
 *
 * Each activity's row is its creation with, field by field, the last change after it (an edit's
 * sport and visibility, a re-derivation's measures and best-effort achievements — a reprocessing, a
 * crop or its undoing, the last two with the day they move the start to — a matching's segment
 * achievements), unless deleted since. The day totals are what the live path's additions leave,
 * bit for bit: `apply` takes an activity's contribution out of its day and puts the new one in at
 * every change, and a day (of one visibility) whose count falls to 0 is deleted (its next addition starts afresh). So
 * the statement lists every such move in log order (the old contribution before the new one), cuts
 * each day's moves after its last deletion, and sums the rest in that order (float8 additions in the
 * same order give the same doubles). `fits`: each activity is created once (as the deciders keep it:
 * one creation per stream, each on its activity's stream, checked as the creations are decoded).
 */
const GROUP_SQL = (sport: string) =>
  `case ${sport} ${Object.entries(GROUPS).map(([s, g]) => `when '${s}' then '${g}'`).join(" ")} end`;

/** Best-effort PRs: efforts whose prRank is not null (a missing one counts, as in apply). */
const BEST_EFFORT_ACHIEVEMENTS = (efforts: string) =>
  `(select count(*)::int from jsonb_array_elements(${efforts}) as b
     where (b->'prRank') is distinct from 'null'::jsonb)`;

/** Every change to each activity's row after its creation, up to its first deletion, with each field carried forward. */
const STATES = `
  created as materialized (
    select e.position, e.type as event, e.stream_id, f.*
      from public.replay_log e
     cross join lateral jsonb_to_record(e.data) as f("activityId" bigint, "athleteId" bigint, "startDateLocal" text,
           "sportType" text, type text, visibility text, distance float8, "movingTime" int, "elapsedTime" int,
           "totalElevationGain" float8, "bestEfforts" jsonb)
     where e.type in ('ActivityRecorded', 'ActivityCreated') and e.position <= $1),
  changes as (
    select c."activityId" as id, c.position, 'created' as kind, c."athleteId" as athlete,
           substr(c."startDateLocal", 1, 10) as day, coalesce(c."sportType", c.type) as sport, c.visibility, c.distance,
           case when c.event = 'ActivityRecorded' then c."movingTime" else c."elapsedTime" end as moving_time,
           c."elapsedTime" as elapsed_time,
           case when c.event = 'ActivityRecorded' then c."totalElevationGain" else 0 end as elevation_gain,
           case when c.event = 'ActivityRecorded' then ${BEST_EFFORT_ACHIEVEMENTS('c."bestEfforts"')} else 0 end
             as best_efforts,
           0 as segments
      from created c
    union all
    select c."activityId", e.position, case when e.type = 'ActivityDeleted' then 'deleted' else 'changed' end, null,
           case when e.type in (${WINDOWED}) then substr(e.data->'facts'->>'startDateLocal', 1, 10) end,
           case when e.type = 'ActivityUpdated' then coalesce(e.data->>'sportType', e.data->>'type') end,
           case when e.type = 'ActivityUpdated' then e.data->>'visibility' end,
           case when e.type in (${REDERIVED}) then (e.data->'facts'->>'distance')::float8 end,
           case when e.type in (${REDERIVED}) then (e.data->'facts'->>'movingTime')::int end,
           case when e.type in (${REDERIVED}) then (e.data->'facts'->>'elapsedTime')::int end,
           case when e.type in (${REDERIVED}) then (e.data->'facts'->>'totalElevationGain')::float8 end,
           case when e.type in (${REDERIVED}) then ${BEST_EFFORT_ACHIEVEMENTS("e.data->'facts'->'bestEfforts'")} end,
           case when e.type in ('SegmentEffortsMatched', 'SegmentEffortsRematched') then (e.data->>'achievementCount')::int end
      from public.replay_log e join created c on c."activityId" = (e.data->>'activityId')::bigint and e.position > c.position
     where e.type in ('ActivityUpdated', ${REDERIVED}, 'SegmentEffortsMatched', 'SegmentEffortsRematched',
                      'ActivityDeleted')
       and e.position <= $1
       and (e.type <> 'ActivityUpdated' or coalesce(e.data->>'sportType', e.data->>'type', e.data->>'visibility') is not null)),
  live as (
    select * from (select ch.*, min(position) filter (where kind = 'deleted') over (partition by id) as deleted_at
                     from changes ch) x
     where position <= coalesce(deleted_at, position)),
  carried as (
    select id, position, kind,
           ${
  [
    "athlete",
    "day",
    "sport",
    "visibility",
    "distance",
    "moving_time",
    "elapsed_time",
    "elevation_gain",
    "best_efforts",
    "segments",
  ]
    .map((f) => `(array_agg(${f}) filter (where ${f} is not null) over w)[count(${f}) over w] as ${f}`).join(
      ",\n           ",
    )
}
      from live
    window w as (partition by id order by position rows between unbounded preceding and current row)),
  states as (
    select c.*, ${GROUP_SQL("c.sport")} as grp,
           c.segments + case when c.sport = 'Run' then c.best_efforts else 0 end as achievement_count
      from carried c)`;

export const athleteStatsBulk: BulkLoader = {
  writtenFor: "a0fdda89eb39195c",
  async fits(tx: Queryable, log: BulkLog) {
    const [row] = await tx.query<{ fits: boolean }>(`select ${ONE_CREATION_PER_STREAM} as fits`, [log.until]);
    return row.fits;
  },
  async load(tx: Queryable, log: BulkLog) {
    // One statement (the creations decoded once): the activities' rows, then the day totals.
    const [misfit] = await tx.query<{ streams: number }>(
      `with ${STATES},
       rows as (
         insert into athlete_stats_activities (activity_id, athlete_id, sport, grp, day, visibility, distance, moving_time,
           elapsed_time, elevation_gain, segment_achievements, best_effort_achievements, achievement_count)
         select id, athlete, sport, grp, day, visibility, distance, moving_time, elapsed_time, elevation_gain, segments,
                best_efforts, achievement_count
           from (select distinct on (id) * from states order by id, position desc) last
          where kind <> 'deleted'
         returning 1),
       steps as (
         select s.*, lag(s.grp) over p as old_grp, lag(s.day) over p as old_day, lag(s.visibility) over p as old_visibility,
                lag(s.distance) over p as old_distance,
                lag(s.moving_time) over p as old_moving_time, lag(s.elapsed_time) over p as old_elapsed_time,
                lag(s.elevation_gain) over p as old_elevation_gain, lag(s.achievement_count) over p as old_achievement_count
           from states s window p as (partition by id order by position)),
       moves as (
         select athlete, old_grp as grp, old_day as day, old_visibility as visibility, position, 0 as sub, -1 as sign,
                -old_distance as distance, -old_moving_time::bigint as moving_time,
                -old_elapsed_time::bigint as elapsed_time, -old_elevation_gain as elevation_gain,
                -old_achievement_count as achievement_count
           from steps where kind <> 'created' and old_grp is not null
         union all
         select athlete, grp, day, visibility, position, 1, 1, distance, moving_time, elapsed_time, elevation_gain,
                achievement_count
           from steps where kind <> 'deleted' and grp is not null),
       counted as (
         select m.*, sum(sign) over (partition by athlete, grp, day, visibility order by position, sub) as running
           from moves m),
       lives as (
         select c.*, max(position * 2 + sub) filter (where sign < 0 and running <= 0)
                       over (partition by athlete, grp, day, visibility) as emptied
           from counted c),
       days as (
         insert into athlete_stats_days (athlete_id, grp, day, visibility, count, distance, moving_time, elapsed_time,
           elevation_gain, achievement_count)
         select athlete, grp, day, visibility, sum(sign), sum(distance order by position, sub), sum(moving_time),
                sum(elapsed_time), sum(elevation_gain order by position, sub), sum(achievement_count)
           from lives where position * 2 + sub > coalesce(emptied, -1)
          group by athlete, grp, day, visibility
         returning 1)
       select count(*)::int as streams from created where stream_id <> 'activity-' || "activityId"`,
      [log.until],
    );
    if (misfit.streams > 0) throw new LogMisfit(`${misfit.streams} creations off their activity's stream`);
  },
};
