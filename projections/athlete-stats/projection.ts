import type { Queryable } from "../../events/db/types.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { REDERIVATION_TYPES, rederivationOf } from "../../events/activity/rederived.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { segmentEffortsMatched, segmentEffortsRematched } from "../../events/segment/events.ts";
import type { Projection } from "../projection.ts";
import { athleteStatsBulk } from "./bulk.ts";
import { type Contribution, statsGroupOf } from "./groups.ts";
import { foldRun } from "./batch.ts";
import type { StoredEvent } from "../../events/index.ts";

/** Best-effort PRs count as achievements of runs only (as the activity's own achievement_count). */
function bestEffortAchievements(efforts: { prRank: number | null }[]): number {
  return efforts.filter((e) => e.prRank !== null).length;
}

const dayOf = (startDateLocal: string) => startDateLocal.slice(0, 10);

/**
 * Athlete stats (GET /v3/athletes/:id/stats and /totals): per athlete, sport group (ride / run /
 * swim), local start day and visibility, the count, distance, moving and elapsed time, elevation
 * gain and achievements of the activities (a reader sums the visibilities its viewer may see: the
 * privacy engine's `visibilitiesSeen`); per activity its contribution (for edits, deletions and the biggest
 * ride and climb). Totals are moved incrementally: an event takes an activity's old contribution
 * out of its day and puts the new one in. "Recent" and "year to date" are ranges of days read by
 * queries.ts with today's date, so the handlers never read the clock.
 */
export const athleteStatsProjection: Projection = {
  name: "athlete-stats",
  tables: ["athlete_stats_activities", "athlete_stats_days"],
  schema: `
    create table if not exists athlete_stats_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      sport text not null,
      grp text,
      day text not null,
      visibility text not null,
      distance double precision not null,
      moving_time integer not null,
      elapsed_time integer not null,
      elevation_gain double precision not null,
      segment_achievements integer not null default 0,
      best_effort_achievements integer not null default 0,
      achievement_count integer not null default 0
    );
    create index if not exists athlete_stats_activities_biggest on athlete_stats_activities (athlete_id, grp);
    create table if not exists athlete_stats_days (
      athlete_id bigint not null,
      grp text not null,
      day text not null,
      visibility text not null,
      count integer not null,
      distance double precision not null,
      moving_time bigint not null,
      elapsed_time bigint not null,
      elevation_gain double precision not null,
      achievement_count integer not null,
      primary key (athlete_id, grp, day, visibility)
    );
  `,
  isolated: true,
  bulk: athleteStatsBulk,
  handles: [
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    activityDeleted.type,
    ...REDERIVATION_TYPES,
    segmentEffortsMatched.type,
    segmentEffortsRematched.type,
  ],
  applyBatch(tx: Queryable, events: StoredEvent[]) {
    // One event (the live path) through apply's statements; a run folded in memory (batch.ts).
    if (events.length === 1) return this.apply(tx, events[0]);
    return foldRun(tx, events);
  },
  async apply(tx: Queryable, event: StoredEvent) {
    switch (event.type) {
      case activityRecorded.type: {
        const d = event.data;
        const sport = d.sportType ?? d.type;
        await tx.query(
          `insert into athlete_stats_activities (activity_id, athlete_id, sport, grp, day, visibility, distance, moving_time,
             elapsed_time, elevation_gain, best_effort_achievements)
           values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) on conflict (activity_id) do nothing`,
          [
            d.activityId,
            d.athleteId,
            sport,
            statsGroupOf(sport),
            dayOf(d.startDateLocal),
            d.visibility,
            d.distance,
            d.movingTime,
            d.elapsedTime,
            d.totalElevationGain,
            bestEffortAchievements(d.bestEfforts),
          ],
        );
        return change(tx, d.activityId, null);
      }
      case activityCreated.type: {
        const d = event.data;
        const sport = d.sportType ?? d.type;
        await tx.query(
          `insert into athlete_stats_activities (activity_id, athlete_id, sport, grp, day, visibility, distance, moving_time,
             elapsed_time, elevation_gain)
           values ($1,$2,$3,$4,$5,$6,$7,$8,$9,0) on conflict (activity_id) do nothing`,
          [
            d.activityId,
            d.athleteId,
            sport,
            statsGroupOf(sport),
            dayOf(d.startDateLocal),
            d.visibility,
            d.distance,
            d.elapsedTime,
            d.elapsedTime,
          ],
        );
        return change(tx, d.activityId, null);
      }
      case activityUpdated.type: {
        const d = event.data;
        const sport = d.sportType ?? d.type;
        if (sport === undefined && d.visibility === undefined) return;
        return change(tx, d.activityId, {
          sql:
            `update athlete_stats_activities set sport = coalesce($2, sport), grp = case when $2::text is null then grp else $3 end,
                  visibility = coalesce($4, visibility) where activity_id = $1`,
          params: [d.activityId, sport ?? null, sport === undefined ? null : statsGroupOf(sport), d.visibility ?? null],
        });
      }
      case segmentEffortsMatched.type:
      case segmentEffortsRematched.type: {
        // As the activity's own achievement_count: the latest matching's count.
        const d = event.data;
        return change(tx, d.activityId, {
          sql: "update athlete_stats_activities set segment_achievements = $2 where activity_id = $1",
          params: [d.activityId, d.achievementCount],
        });
      }
      case activityDeleted.type: {
        const { activityId } = event.data;
        return change(tx, activityId, {
          sql: "delete from athlete_stats_activities where activity_id = $1",
          params: [activityId],
        });
      }
      default: {
        // Re-derived figures (reprocess, crop, split, undo), and the day when the start moved.
        const derived = rederivationOf(event);
        if (!derived) return;
        const { activityId, facts, start } = derived;
        return change(tx, activityId, {
          sql: `update athlete_stats_activities set day = coalesce($2, day), distance = $3, moving_time = $4,
                  elapsed_time = $5, elevation_gain = $6, best_effort_achievements = $7 where activity_id = $1`,
          params: [
            activityId,
            start ? dayOf(start.startDateLocal) : null,
            facts.distance,
            facts.movingTime,
            facts.elapsedTime,
            facts.totalElevationGain,
            bestEffortAchievements(facts.bestEfforts),
          ],
        });
      }
    }
  },
};

/**
 * Takes the activity's contribution out of its day's totals, runs the edit, and puts the new
 * contribution in. A null edit: the row was just inserted (nothing to take out).
 */
async function change(tx: Queryable, activityId: number, edit: { sql: string; params: unknown[] } | null) {
  if (edit) {
    const [before] = await contributionOf(tx, activityId);
    if (before) await move(tx, before, -1);
    await tx.query(edit.sql, edit.params);
  }
  await tx.query(
    `update athlete_stats_activities
        set achievement_count = segment_achievements + case when sport = 'Run' then best_effort_achievements else 0 end
      where activity_id = $1`,
    [activityId],
  );
  const [after] = await contributionOf(tx, activityId);
  if (after) await move(tx, after, 1);
}

function contributionOf(tx: Queryable, activityId: number) {
  return tx.query<Contribution>(
    `select activity_id, athlete_id, grp, day, visibility, distance, moving_time, elapsed_time, elevation_gain, achievement_count
       from athlete_stats_activities where activity_id = $1`,
    [activityId],
  );
}

/** Adds (+1) or removes (-1) a contribution from its day and visibility; only activities of a group count. */
async function move(tx: Queryable, c: Contribution, sign: 1 | -1) {
  if (c.grp === null) return;
  await tx.query(
    `insert into athlete_stats_days as t (athlete_id, grp, day, visibility, count, distance, moving_time, elapsed_time,
       elevation_gain, achievement_count)
     values ($1, $2, $3, $10, $4, $5, $6, $7, $8, $9)
     on conflict (athlete_id, grp, day, visibility) do update set
       count = t.count + excluded.count, distance = t.distance + excluded.distance,
       moving_time = t.moving_time + excluded.moving_time, elapsed_time = t.elapsed_time + excluded.elapsed_time,
       elevation_gain = t.elevation_gain + excluded.elevation_gain,
       achievement_count = t.achievement_count + excluded.achievement_count`,
    [
      c.athlete_id,
      c.grp,
      c.day,
      sign,
      sign * c.distance,
      sign * c.moving_time,
      sign * c.elapsed_time,
      sign * c.elevation_gain,
      sign * c.achievement_count,
      c.visibility,
    ],
  );
  if (sign < 0) {
    await tx.query(
      "delete from athlete_stats_days where athlete_id = $1 and grp = $2 and day = $3 and visibility = $4 and count <= 0",
      [c.athlete_id, c.grp, c.day, c.visibility],
    );
  }
}
