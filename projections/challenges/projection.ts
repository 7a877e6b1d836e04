import type { EventData } from "../../events/catalogue.ts";
import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { challengeCreated, challengeJoined, challengeLeft } from "../../events/challenge/events.ts";
import { segmentEffortsMatched, segmentEffortsRematched } from "../../events/segment/events.ts";
import { activityCropped, activityCropUndone } from "../../events/activity/cropped.ts";
import { privacyZoneCreated, privacyZoneDeleted } from "../../events/privacy-zone/events.ts";
import type { Projection } from "../projection.ts";
import { challengesBulk } from "./bulk.ts";
import { countRankKey, rankCountsSchema, rankKeySql } from "./rank-counts.ts";
import { everyoneSeesSql } from "../../shared/visibility.ts";

type Created = EventData<typeof challengeCreated>;

interface ChallengeRule {
  type: string;
  dimension: string;
  goal: number;
  start_date: string;
  end_date: string;
  activity_type: string | null;
  segment_id: number | null;
}

/** The measured value of one activity for a dimension (pace: average speed in m/s, higher is better). */
const VALUE: Record<string, string> = {
  distance: "a.distance",
  elevation: "a.elevation_gain",
  time: "a.moving_time::double precision",
  pace: "case when a.moving_time > 0 then a.distance / a.moving_time else 0 end",
};

/** The goal in the measured value's unit: pace goals are seconds per kilometre, turned into m/s. */
export function goalValue(dimension: string, goal: number): number {
  if (dimension === "pace") return goal > 0 ? 1000 / goal : 0;
  return goal;
}

/**
 * Recomputes one participant's progress from the activities and efforts in the challenge's window
 * (local start dates, inclusive; the challenge's activity type when it has one; a challenge's board
 * is read by everyone, so only activities and efforts everyone may see count: never only_me nor
 * followers-only ones), and moves the challenge's counters by the difference.
 */
async function recompute(tx: Queryable, challengeId: number, athleteId: number): Promise<void> {
  const [rule] = await tx.query<ChallengeRule>(
    `select c.type, c.dimension, c.goal, c.start_date, c.end_date, c.activity_type, c.segment_id
       from challenges c join challenge_participants p on p.challenge_id = c.id and p.athlete_id = $2
      where c.id = $1`,
    [challengeId, athleteId],
  );
  if (!rule) return;
  let row: {
    value: number;
    score: number;
    activity_id: number | null;
    activity_count: number;
    success_count: number;
    completed: boolean;
  };
  if (rule.type === "SegmentChallenge") {
    const [r] = await tx.query<{ n: number; best: number | null; activity_id: number | null }>(
      `select count(*)::int as n, min(e.elapsed_time) as best,
              (select e2.activity_id from challenge_efforts e2
                where e2.athlete_id = $1 and e2.segment_id = $2 and ${
        everyoneSeesSql("e2")
      } and substr(e2.start_date_local, 1, 10) between $3 and $4
                  and not exists (select 1 from segment_efforts se where se.id = e2.effort_id::bigint and se.shielded)
                order by e2.elapsed_time, e2.effort_id limit 1) as activity_id
         from challenge_efforts e
        where e.athlete_id = $1 and e.segment_id = $2 and ${
        everyoneSeesSql("e")
      } and substr(e.start_date_local, 1, 10) between $3 and $4
          and not exists (select 1 from segment_efforts se where se.id = e.effort_id::bigint and se.shielded)`,
      [athleteId, rule.segment_id, rule.start_date, rule.end_date],
    );
    const n = Number(r.n);
    row = {
      value: n ? Number(r.best) : 0,
      score: n ? -Number(r.best) : 0,
      activity_id: r.activity_id === null ? null : Number(r.activity_id),
      activity_count: n,
      success_count: n,
      completed: n > 0,
    };
  } else {
    const value = VALUE[rule.dimension];
    const where = `a.athlete_id = $1 and ${everyoneSeesSql("a")} and substr(a.start_date_local, 1, 10) between $2 and $3
      and ($4::text is null or a.type = $4)`;
    const params = [athleteId, rule.start_date, rule.end_date, rule.activity_type];
    const goal = goalValue(rule.dimension, Number(rule.goal));
    if (rule.type === "CumulativeChallenge") {
      const [r] = await tx.query<{ n: number; total: number; last: number | null }>(
        // Summed in one order (by activity), so the total does not depend on where the rows lie in
        // the table: a rebuild writes them in another order than the log did.
        `select count(*)::int as n, coalesce(sum(${value} order by a.activity_id), 0)::double precision as total,
                (select a.activity_id from challenge_activities a where ${where}
                  order by a.start_date_local desc, a.activity_id desc limit 1) as last
           from challenge_activities a where ${where}`,
        params,
      );
      const total = Number(r.total);
      row = {
        value: total,
        score: total,
        activity_id: r.last === null ? null : Number(r.last),
        activity_count: Number(r.n),
        success_count: Number(r.n) > 0 && total >= goal ? 1 : 0,
        completed: Number(r.n) > 0 && total >= goal,
      };
    } else {
      const [r] = await tx.query<{ n: number; best: number | null; success: number; best_id: number | null }>(
        `select count(*)::int as n, max(${value})::double precision as best,
                count(*) filter (where ${value} >= $5)::int as success,
                (select a.activity_id from challenge_activities a where ${where}
                  order by ${value} desc, a.activity_id limit 1) as best_id
           from challenge_activities a where ${where}`,
        [...params, goal],
      );
      const best = r.best === null ? 0 : Number(r.best);
      row = {
        value: best,
        score: best,
        activity_id: r.best_id === null ? null : Number(r.best_id),
        activity_count: Number(r.n),
        success_count: Number(r.success),
        completed: Number(r.n) > 0 && best >= goal,
      };
    }
  }
  // One statement: the participant's new progress, and the challenge's counters moved by the
  // difference (all sub-statements see the row as it was before the update).
  const [moved] = await tx.query<{ before_count: number; before_key: string; after_key: string }>(
    `with before as (
       select value, activity_count, completed, rank_key from challenge_participants
        where challenge_id = $1 and athlete_id = $2
     ), after as (
       update challenge_participants set value = $3, score = $4, activity_id = $5, activity_count = $6,
         success_count = $7, completed = $8, rank_key = ${rankKeySql("$4::double precision")}
        where challenge_id = $1 and athlete_id = $2 returning rank_key
     ), counted as (
       update challenge_counters c set
         total_dimension = c.total_dimension + ($3::double precision::numeric - b.value::numeric),
         attempt_count = c.attempt_count + ($6::int - b.activity_count),
         completed_count = c.completed_count + ($8::boolean::int - b.completed::int),
         leaderboard_count = c.leaderboard_count + ((($6::int) > 0)::int - (b.activity_count > 0)::int)
         from before b where c.challenge_id = $1
     )
     select b.activity_count as before_count, b.rank_key as before_key, a.rank_key as after_key from before b, after a`,
    [
      challengeId,
      athleteId,
      row.value,
      row.score,
      row.activity_id,
      row.activity_count,
      row.success_count,
      row.completed,
    ],
  );
  const wasOnBoard = Number(moved.before_count) > 0;
  const isOnBoard = row.activity_count > 0;
  if (wasOnBoard && isOnBoard && String(moved.before_key) === String(moved.after_key)) return;
  if (wasOnBoard) await countRankKey(tx, challengeId, moved.before_key, -1);
  if (isOnBoard) await countRankKey(tx, challengeId, moved.after_key, 1);
}

async function recomputeAthlete(tx: Queryable, athleteId: number): Promise<void> {
  const rows = await tx.query<{ challenge_id: number }>(
    "select challenge_id from challenge_participants where athlete_id = $1 order by challenge_id",
    [athleteId],
  );
  for (const r of rows) await recompute(tx, Number(r.challenge_id), athleteId);
}

/**
 * Challenges, their participants' progress (kept by projection from the activity and segment
 * efforts), and the activity/effort facts progress is computed from.
 */
export const challengesProjection: Projection = {
  name: "challenges",
  tables: [
    "challenges",
    "challenge_counters",
    "challenge_participants",
    "challenge_rank_counts",
    "challenge_activities",
    "challenge_efforts",
  ],
  schema: `
    create table if not exists challenges (
      id bigint primary key,
      name text not null,
      type text not null,
      dimension text not null,
      goal bigint not null,
      start_date text not null,
      end_date text not null,
      activity_type text,
      segment_id bigint,
      external_url text,
      description text not null,
      mobile_description text not null,
      additional_info text not null,
      rules text not null,
      prizes text not null,
      teaser text not null,
      url text not null,
      logo_url text not null,
      color text not null,
      social_hashtag text not null,
      created_at timestamptz not null
    );
    -- The challenge's counters, moved by every participant change (a read is one row, not a sum).
    -- total_dimension is numeric so that adding and taking back the same values leaves no float residue.
    create table if not exists challenge_counters (
      challenge_id bigint primary key,
      participant_count integer not null default 0,
      total_dimension numeric not null default 0,
      attempt_count integer not null default 0,
      completed_count integer not null default 0,
      leaderboard_count integer not null default 0
    );
    create table if not exists challenge_participants (
      challenge_id bigint not null,
      athlete_id bigint not null,
      joined_at timestamptz not null,
      value double precision not null default 0,
      score double precision not null default 0,
      activity_id bigint,
      activity_count integer not null default 0,
      success_count integer not null default 0,
      completed boolean not null default false,
      rank_key bigint not null default 0,
      primary key (challenge_id, athlete_id)
    );
    create index if not exists challenge_participants_athlete on challenge_participants (athlete_id);
    create index if not exists challenge_participants_leaderboard on challenge_participants (challenge_id, score desc, athlete_id)
      where activity_count > 0;
    create index if not exists challenge_participants_rank_key on challenge_participants (challenge_id, rank_key, score)
      where activity_count > 0;
    ${rankCountsSchema}
    create table if not exists challenge_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      type text not null,
      start_date_local text not null,
      distance double precision not null,
      elevation_gain double precision not null,
      moving_time integer not null,
      elapsed_time integer not null,
      visibility text not null
    );
    create index if not exists challenge_activities_athlete on challenge_activities (athlete_id, start_date_local);
    create table if not exists challenge_efforts (
      effort_id text primary key,
      activity_id bigint not null,
      athlete_id bigint not null,
      segment_id bigint not null,
      start_date_local text not null,
      elapsed_time integer not null,
      visibility text not null
    );
    create index if not exists challenge_efforts_athlete on challenge_efforts (athlete_id, segment_id);
    create index if not exists challenge_efforts_activity on challenge_efforts (activity_id);
  `,
  // A segment challenge counts the efforts the segments projection has not shielded.
  reads: ["segments"],
  bulk: challengesBulk,
  handles: [
    challengeCreated.type,
    challengeJoined.type,
    challengeLeft.type,
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    activityDeleted.type,
    activityCropped.type,
    activityCropUndone.type,
    segmentEffortsMatched.type,
    segmentEffortsRematched.type,
    privacyZoneCreated.type,
    privacyZoneDeleted.type,
  ],
  /** Every participant's progress, once, after a rebuild that left it to the end (see apply). */
  async finishRebuild(tx: Queryable) {
    const rows = await tx.query<{ challenge_id: number; athlete_id: number }>(
      "select challenge_id, athlete_id from challenge_participants order by challenge_id, athlete_id",
    );
    for (const r of rows) await recompute(tx, Number(r.challenge_id), Number(r.athlete_id));
  },
  async apply(tx: Queryable, event: StoredEvent, rebuilding = false) {
    // While rebuilding, activities, efforts and zones change the facts as live, but the
    // participants' progress is computed once at the end (finishRebuild) from the final facts.
    const progress = rebuilding ? () => Promise.resolve() : (athleteId: number) => recomputeAthlete(tx, athleteId);
    switch (event.type) {
      case challengeCreated.type: {
        const c = event.data;
        await tx.query(
          `insert into challenges (id, name, type, dimension, goal, start_date, end_date, activity_type, segment_id,
             external_url, description, mobile_description, additional_info, rules, prizes, teaser, url, logo_url,
             color, social_hashtag, created_at)
           values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21)`,
          [
            c.challengeId,
            c.name,
            c.type,
            c.dimension,
            c.goal,
            c.startDate,
            c.endDate,
            c.activityType,
            c.segmentId,
            c.externalUrl,
            c.description,
            c.mobileDescription,
            c.additionalInfo,
            c.rules,
            c.prizes,
            c.teaser,
            c.url,
            c.logoUrl,
            c.color,
            c.socialHashtag,
            event.recordedAt,
          ],
        );
        await tx.query("insert into challenge_counters (challenge_id) values ($1) on conflict do nothing", [
          c.challengeId,
        ]);
        return;
      }
      case challengeJoined.type: {
        const d = event.data;
        await tx.query(
          `with joined as (
             insert into challenge_participants (challenge_id, athlete_id, joined_at) values ($1,$2,$3)
             on conflict do nothing returning 1
           )
           update challenge_counters set participant_count = participant_count + (select count(*)::int from joined)
            where challenge_id = $1`,
          [d.challengeId, d.athleteId, event.recordedAt],
        );
        await recompute(tx, d.challengeId, d.athleteId);
        return;
      }
      case challengeLeft.type: {
        const d = event.data;
        const [gone] = await tx.query<{ activity_count: number; rank_key: string }>(
          `with gone as (
             delete from challenge_participants where challenge_id = $1 and athlete_id = $2
             returning value, activity_count, completed, rank_key
           ), counted as (
             update challenge_counters c set participant_count = c.participant_count - 1,
               total_dimension = c.total_dimension - g.value::numeric,
               attempt_count = c.attempt_count - g.activity_count,
               completed_count = c.completed_count - g.completed::int,
               leaderboard_count = c.leaderboard_count - (g.activity_count > 0)::int
               from gone g where c.challenge_id = $1
           )
           select activity_count, rank_key from gone`,
          [d.challengeId, d.athleteId],
        );
        if (gone && Number(gone.activity_count) > 0) await countRankKey(tx, d.challengeId, gone.rank_key, -1);
        return;
      }
      case activityRecorded.type:
      case activityCreated.type: {
        const d = event.data;
        await tx.query(
          `insert into challenge_activities (activity_id, athlete_id, type, start_date_local, distance, elevation_gain,
             moving_time, elapsed_time, visibility) values ($1,$2,$3,$4,$5,$6,$7,$8,$9) on conflict do nothing`,
          [
            d.activityId,
            d.athleteId,
            d.type,
            d.startDateLocal,
            d.distance,
            ("totalElevationGain" in d ? d.totalElevationGain : 0) ?? 0,
            ("movingTime" in d ? d.movingTime : undefined) ?? d.elapsedTime,
            d.elapsedTime,
            d.visibility,
          ],
        );
        await progress(d.athleteId);
        return;
      }
      case activityUpdated.type: {
        const d = event.data;
        if (d.type === undefined && d.visibility === undefined) return;
        await tx.query(
          "update challenge_activities set type = coalesce($2, type), visibility = coalesce($3, visibility) where activity_id = $1",
          [d.activityId, d.type ?? null, d.visibility ?? null],
        );
        if (d.visibility !== undefined) {
          await tx.query("update challenge_efforts set visibility = $2 where activity_id = $1", [
            d.activityId,
            d.visibility,
          ]);
        }
        await progress(d.athleteId);
        return;
      }
      case activityCropped.type:
      case activityCropUndone.type: {
        // A crop, a split or its undoing: the figures over the window, and its (local) start.
        const { activityId, athleteId, facts } = event.data;
        await tx.query(
          `update challenge_activities set start_date_local = $2, distance = $3, elevation_gain = $4, moving_time = $5,
                  elapsed_time = $6 where activity_id = $1`,
          [
            activityId,
            facts.startDateLocal,
            facts.distance,
            facts.totalElevationGain,
            facts.movingTime,
            facts.elapsedTime,
          ],
        );
        await progress(athleteId);
        return;
      }
      case activityDeleted.type: {
        const d = event.data;
        await tx.query("delete from challenge_activities where activity_id = $1", [d.activityId]);
        await tx.query("delete from challenge_efforts where activity_id = $1", [d.activityId]);
        await progress(d.athleteId);
        return;
      }
      case privacyZoneCreated.type:
      case privacyZoneDeleted.type:
        // The segments projection (applied before this one) has just shielded or released the athlete's
        // efforts whose start or end lies in the zone: a segment challenge counts only efforts others may see.
        await progress(event.data.athleteId);
        return;
      case segmentEffortsMatched.type:
      case segmentEffortsRematched.type: {
        const d = event.data;
        // A re-match (cli reprocess) replaces the activity's efforts.
        if (event.type === segmentEffortsRematched.type) {
          await tx.query("delete from challenge_efforts where activity_id = $1", [d.activityId]);
        }
        // One statement for all efforts; the activity's visibility as this projection knows it now.
        await tx.query(
          `insert into challenge_efforts (effort_id, activity_id, athlete_id, segment_id, start_date_local, elapsed_time, visibility)
           select r.effort_id, $2, $3, r.segment_id, r.start_date_local, r.elapsed_time,
                  coalesce((select visibility from challenge_activities where activity_id = $2), $4)
             from jsonb_to_recordset($1::jsonb) as r(effort_id text, segment_id bigint, start_date_local text, elapsed_time integer)
           on conflict do nothing`,
          [
            JSON.stringify(
              d.efforts.map((e) => ({
                effort_id: e.effortId,
                segment_id: e.segmentId,
                start_date_local: e.startDateLocal,
                elapsed_time: e.elapsedTime,
              })),
            ),
            d.activityId,
            d.athleteId,
            d.visibility,
          ],
        );
        if (d.efforts.length || event.type === segmentEffortsRematched.type) await progress(d.athleteId);
        return;
      }
    }
  },
};
