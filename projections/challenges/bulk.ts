import type { Queryable } from "../../events/db/types.ts";
import { type BulkLoader, type BulkLog, LogMisfit, none, ONE_CREATION_PER_STREAM } from "../bulk.ts";

/**
 * Challenges and the facts their progress is computed from, from the whole log
 * (projections/bulk.ts); every participant's progress, the challenges' counters beyond
 * participant_count and the rank counts are then computed by `finishRebuild`, as in any rebuild
 * (each recompute moves the counters by its difference, and differences of the same values cancel
 * exactly in numeric, so they end as the sums over the participants whatever came before).
 *
 * - A participant is a pair whose last event is a join, since the first join after its last leave.
 * - An activity's facts are its creation (its only one) unless deleted since, with the last type and
 *   visibility its edits gave, and the start (local) and figures of its last crop or undoing
 *   (ActivityCropped, ActivityCropUndone) when it has one (a reprocessing changes none of them).
 * - An activity's efforts are those of its last re-match after its last deletion and of the matchings
 *   after both, the first of each id; its visibility the activity's at the end of the log when it still
 *   exists, else as the last edit after the matching said, else as the matching said.
 *
 * `fits`: each activity is created once (one creation per stream, each on its activity's stream,
 * checked as the creations are decoded) and before its matchings; each challenge is created once and
 * before its joins and leaves (as the deciders keep them).
 */
export const challengesBulk: BulkLoader = {
  writtenFor: "09d4d6311fa110d8",
  async fits(tx: Queryable, log: BulkLog) {
    const [row] = await tx.query<{ fits: boolean }>(
      `with challenges as (
         select (data->>'challengeId')::bigint as id, min(position) as position, count(*) as n
           from public.replay_log where type = 'ChallengeCreated' and position <= $1 group by 1)
       select ${ONE_CREATION_PER_STREAM} and ${none("select 1 from challenges where n > 1")} and ${
        none(`select 1 from public.replay_log j left join challenges c on c.id = (j.data->>'challengeId')::bigint
             where j.type in ('ChallengeJoined', 'ChallengeLeft') and j.position <= $1
               and (c.position is null or c.position > j.position)`)
      } as fits`,
      [log.until],
    );
    return row.fits;
  },
  async load(tx: Queryable, log: BulkLog) {
    await tx.query(
      `insert into challenges (id, name, type, dimension, goal, start_date, end_date, activity_type, segment_id,
         external_url, description, mobile_description, additional_info, rules, prizes, teaser, url, logo_url,
         color, social_hashtag, created_at)
       select (data->>'challengeId')::bigint, data->>'name', data->>'type', data->>'dimension', (data->>'goal')::bigint,
              data->>'startDate', data->>'endDate', data->>'activityType', (data->>'segmentId')::bigint,
              data->>'externalUrl', data->>'description', data->>'mobileDescription', data->>'additionalInfo',
              data->>'rules', data->>'prizes', data->>'teaser', data->>'url', data->>'logoUrl', data->>'color',
              data->>'socialHashtag', at
         from public.replay_log where type = 'ChallengeCreated' and position <= $1`,
      [log.until],
    );
    await tx.query(
      `insert into challenge_participants (challenge_id, athlete_id, joined_at)
       select distinct on (challenge, athlete) challenge, athlete, at
         from (select (data->>'challengeId')::bigint as challenge, (data->>'athleteId')::bigint as athlete, type, position,
                      at, max(position) filter (where type = 'ChallengeLeft')
                            over (partition by data->>'challengeId', data->>'athleteId') as left_at
                 from public.replay_log where type in ('ChallengeJoined', 'ChallengeLeft') and position <= $1) e
        where type = 'ChallengeJoined' and position > coalesce(left_at, 0)
        order by challenge, athlete, position`,
      [log.until],
    );
    await tx.query(
      `insert into challenge_counters (challenge_id, participant_count)
       select c.id, (select count(*)::int from challenge_participants p where p.challenge_id = c.id) from challenges c`,
    );
    // The activities decoded once: their facts, and the privacy of their efforts (one statement).
    const [misfits] = await tx.query<{ streams: number; early: number }>(
      `with deleted as (
         select (data->>'activityId')::bigint as id, max(position) as position
           from public.replay_log where type = 'ActivityDeleted' and position <= $1 group by 1),
       privacy as (
         select (data->>'activityId')::bigint as id, position, data->>'visibility' as visibility
           from public.replay_log
          where type = 'ActivityUpdated' and position <= $1 and data->>'visibility' is not null),
       creations as materialized (
         select e.position, e.stream_id, f.*
           from public.replay_log e
          cross join lateral jsonb_to_record(e.data) as f("activityId" bigint, "athleteId" bigint, type text,
                "startDateLocal" text, distance float8, "totalElevationGain" float8, "movingTime" int,
                "elapsedTime" int, visibility text)
          where e.type in ('ActivityRecorded', 'ActivityCreated') and e.position <= $1),
       created as (
         select c.* from creations c left join deleted d on d.id = c."activityId"
          where c.position > coalesce(d.position, 0)),
       edits as (
         select c."activityId" as id,
                (array_agg(u.data->>'type' order by u.position desc) filter (where u.data->>'type' is not null))[1] as type,
                (array_agg(u.data->>'visibility' order by u.position desc)
                   filter (where u.data->>'visibility' is not null))[1] as visibility
           from created c
           join public.replay_log u on u.type = 'ActivityUpdated' and u.position <= $1 and u.position > c.position
            and (u.data->>'activityId')::bigint = c."activityId"
          group by c."activityId"),
       windows as (
         select distinct on (c."activityId") c."activityId" as id, w.data->'facts' as facts
           from created c
           join public.replay_log w on w.type in ('ActivityCropped', 'ActivityCropUndone') and w.position <= $1
            and w.position > c.position and (w.data->>'activityId')::bigint = c."activityId"
          order by c."activityId", w.position desc),
       facts as (
         insert into challenge_activities (activity_id, athlete_id, type, start_date_local, distance, elevation_gain,
           moving_time, elapsed_time, visibility)
         select c."activityId", c."athleteId", coalesce(e.type, c.type),
                case when w.id is null then c."startDateLocal" else w.facts->>'startDateLocal' end,
                case when w.id is null then c.distance else (w.facts->>'distance')::float8 end,
                case when w.id is null then coalesce(c."totalElevationGain", 0)
                     else (w.facts->>'totalElevationGain')::float8 end,
                case when w.id is null then coalesce(c."movingTime", c."elapsedTime")
                     else (w.facts->>'movingTime')::int end,
                case when w.id is null then c."elapsedTime" else (w.facts->>'elapsedTime')::int end,
                coalesce(e.visibility, c.visibility)
           from created c left join edits e on e.id = c."activityId" left join windows w on w.id = c."activityId"
         returning activity_id, visibility),
       matches as (
         select m.* from (
           select (data->>'activityId')::bigint as id, position, data,
                  max(position) filter (where type = 'SegmentEffortsRematched')
                    over (partition by (data->>'activityId')::bigint) as rematched
             from public.replay_log
            where type in ('SegmentEffortsMatched', 'SegmentEffortsRematched') and position <= $1) m
           left join deleted d on d.id = m.id
          where m.position > coalesce(d.position, 0) and m.position >= coalesce(m.rematched, 0)),
       later as (
         select distinct on (m.id, m.position) m.id, m.position, p.visibility
           from matches m join privacy p on p.id = m.id and p.position > m.position
          order by m.id, m.position, p.position desc),
       efforts as (
         insert into challenge_efforts (effort_id, activity_id, athlete_id, segment_id, start_date_local, elapsed_time,
           visibility)
         select distinct on (e->>'effortId') e->>'effortId', m.id, (m.data->>'athleteId')::bigint,
                (e->>'segmentId')::bigint, e->>'startDateLocal', (e->>'elapsedTime')::int,
                coalesce(a.visibility, l.visibility, m.data->>'visibility')
           from matches m
           cross join jsonb_array_elements(m.data->'efforts') with ordinality as t(e, o)
           left join facts a on a.activity_id = m.id
           left join later l on l.id = m.id and l.position = m.position
          order by e->>'effortId', m.position, o
         returning 1)
       select (select count(*)::int from creations where stream_id <> 'activity-' || "activityId") as streams,
              (select count(*)::int from matches m left join creations c on c."activityId" = m.id
                where c.position is null or c.position > m.position) as early`,
      [log.until],
    );
    if (misfits.streams > 0) throw new LogMisfit(`${misfits.streams} creations off their activity's stream`);
    if (misfits.early > 0) throw new LogMisfit(`${misfits.early} matchings before their activity's creation`);
  },
};
