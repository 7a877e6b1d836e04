import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { goalDeleted, goalSet } from "../../events/goal/events.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { REDERIVATION_TYPES, rederivationOf } from "../../events/activity/rederived.ts";
import type { Projection } from "../projection.ts";
import { goalsBulk } from "./bulk.ts";
import { type ActivityStart, applyInRuns } from "../runs.ts";

/**
 * Goals and what they are measured against, kept from the log (issue #47 item 3):
 *
 * - `goals`: each athlete's goals (sport = activity type, period, dimension, target);
 * - `goal_activities`: each activity's contribution — type, local start day, visibility, distance,
 *   moving time, elevation gain — so an edit (type, visibility), a re-derivation or a deletion
 *   takes the old contribution back;
 * - `goal_totals`: per athlete, type, period and visibility, the sums of the activities that started
 *   in that period (local dates: `w2026-03-02` the week from its Monday, `m2026-03`, `y2026`). A
 *   goal's progress is its period's row per visibility the reader may see (the privacy engine's
 *   `visibilitiesSeen`: the owner's token without read_all does not count only_me activities) —
 *   a read is at most three rows per goal, never a sum over the athlete's history. Sums are numeric,
 *   so adding and taking back the same values leaves no float residue (live and replay agree).
 */
export const goalsProjection: Projection = {
  name: "goals",
  tables: ["goals", "goal_activities", "goal_totals"],
  schema: `
    create table if not exists goals (
      id bigint primary key,
      athlete_id bigint not null,
      type text not null,
      period text not null,
      dimension text not null,
      goal double precision not null,
      created_at timestamptz not null
    );
    create index if not exists goals_athlete on goals (athlete_id, id);
    create table if not exists goal_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      type text not null,
      day text not null,
      visibility text not null,
      distance double precision not null,
      moving_time integer not null,
      elevation_gain double precision not null
    );
    create table if not exists goal_totals (
      athlete_id bigint not null,
      type text not null,
      period text not null,
      visibility text not null,
      count integer not null,
      distance numeric not null,
      moving_time bigint not null,
      elevation_gain numeric not null,
      primary key (athlete_id, type, period, visibility)
    );
  `,
  isolated: true,
  bulk: goalsBulk,
  handles: [
    goalSet.type,
    goalDeleted.type,
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    ...REDERIVATION_TYPES,
    activityDeleted.type,
  ],
  /** Runs of recordings and creations in a few statements; edits that change no contribution passed over. */
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    await applyInRuns(
      events,
      (e) =>
        e.type === activityRecorded.type || e.type === activityCreated.type
          ? String(e.data.activityId)
          : e.type === activityUpdated.type && e.data.type === undefined && e.data.visibility === undefined
          ? false
          : null,
      (run) => insertActivities(tx, run as ActivityStart[]),
      (e) => goalsProjection.apply(tx, e),
    );
  },
  async apply(tx: Queryable, event: StoredEvent) {
    switch (event.type) {
      case goalSet.type: {
        const d = event.data;
        await tx.query(
          `insert into goals (id, athlete_id, type, period, dimension, goal, created_at)
           values ($1, $2, $3, $4, $5, $6, $7) on conflict (id) do nothing`,
          [d.goalId, d.athleteId, d.type, d.period, d.dimension, d.goal, event.recordedAt],
        );
        return;
      }
      case goalDeleted.type:
        await tx.query("delete from goals where id = $1 and athlete_id = $2", [
          event.data.goalId,
          event.data.athleteId,
        ]);
        return;
      case activityRecorded.type:
      case activityCreated.type:
        return insertActivities(tx, [event]);
      case activityUpdated.type: {
        const d = event.data;
        if (d.type === undefined && d.visibility === undefined) return;
        return change(tx, d.activityId, {
          sql:
            "update goal_activities set type = coalesce($2, type), visibility = coalesce($3, visibility) where activity_id = $1",
          params: [d.activityId, d.type ?? null, d.visibility ?? null],
        });
      }
      case activityDeleted.type:
        return change(tx, event.data.activityId, {
          sql: "delete from goal_activities where activity_id = $1",
          params: [event.data.activityId],
        });
      default: {
        // Re-derived figures (reprocess, crop, split, undo), and the day when the start moved.
        const derived = rederivationOf(event);
        if (!derived) return;
        const { activityId, facts, start } = derived;
        return change(tx, activityId, {
          sql: `update goal_activities set day = coalesce($5, day), distance = $2, moving_time = $3, elevation_gain = $4
                 where activity_id = $1`,
          params: [
            activityId,
            facts.distance,
            facts.movingTime,
            facts.totalElevationGain,
            start ? start.startDateLocal.slice(0, 10) : null,
          ],
        });
      }
    }
  },
};

/** The period keys of a local date (YYYY-MM-DD): its week (from Monday), month and year. */
export function periodKeys(day: string): string[] {
  const d = new Date(`${day.slice(0, 10)}T00:00:00Z`);
  const monday = new Date(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000).toISOString().slice(0, 10);
  return [`w${monday}`, `m${day.slice(0, 7)}`, `y${day.slice(0, 4)}`];
}

interface Contribution {
  athlete_id: number | string;
  type: string;
  day: string;
  visibility: string;
  distance: number;
  moving_time: number;
  elevation_gain: number;
}

/** Activities recorded or created: their contributions, inserted and added to their periods' totals. */
async function insertActivities(tx: Queryable, run: ActivityStart[]) {
  if (run.length === 0) return;
  const rows = run.map((e) => ({
    activity_id: e.data.activityId,
    athlete_id: e.data.athleteId,
    type: e.data.type,
    day: e.data.startDateLocal.slice(0, 10),
    visibility: e.data.visibility,
    distance: e.data.distance,
    // A manual activity's moving time is its elapsed time (as the activities read model keeps it).
    moving_time: e.type === activityRecorded.type ? e.data.movingTime : e.data.elapsedTime,
    elevation_gain: e.type === activityRecorded.type ? e.data.totalElevationGain : 0,
  }));
  const added = await tx.query<Contribution>(
    `insert into goal_activities (activity_id, athlete_id, type, day, visibility, distance, moving_time, elevation_gain)
     select r.* from jsonb_to_recordset($1::jsonb) as r(activity_id bigint, athlete_id bigint, type text, day text,
       visibility text, distance double precision, moving_time integer, elevation_gain double precision)
     on conflict (activity_id) do nothing
     returning athlete_id, type, day, visibility, distance, moving_time, elevation_gain`,
    [JSON.stringify(rows)],
  );
  await move(tx, added, 1);
}

/** Takes an activity's contribution out of its periods, runs the edit, puts the new contribution in. */
async function change(tx: Queryable, activityId: number, edit: { sql: string; params: unknown[] }) {
  const columns = "athlete_id, type, day, visibility, distance, moving_time, elevation_gain";
  const before = await tx.query<Contribution>(`select ${columns} from goal_activities where activity_id = $1`, [
    activityId,
  ]);
  if (before.length === 0) return;
  await move(tx, before, -1);
  await tx.query(edit.sql, edit.params);
  await move(
    tx,
    await tx.query<Contribution>(`select ${columns} from goal_activities where activity_id = $1`, [
      activityId,
    ]),
    1,
  );
}

/** Adds (+1) or removes (−1) contributions from their periods' totals; rows left with no activity go. */
async function move(tx: Queryable, contributions: Contribution[], sign: 1 | -1) {
  if (contributions.length === 0) return;
  const deltas = contributions.flatMap((c) =>
    periodKeys(c.day).map((period) => ({
      athlete: Number(c.athlete_id),
      type: c.type,
      period,
      visibility: c.visibility,
      distance: c.distance,
      moving: c.moving_time,
      elevation: c.elevation_gain,
    }))
  );
  // Each delta its own row, summed per key in SQL (numeric): the same additions live and in replay.
  await tx.query(
    `insert into goal_totals as t (athlete_id, type, period, visibility, count, distance, moving_time, elevation_gain)
     select r.athlete, r.type, r.period, r.visibility, $2::int * count(*)::int,
            $2::int * sum(r.distance::float8::numeric), $2::int * sum(r.moving)::bigint,
            $2::int * sum(r.elevation::float8::numeric)
       from jsonb_to_recordset($1::jsonb) as r(athlete bigint, type text, period text, visibility text,
            distance double precision, moving integer, elevation double precision)
      group by r.athlete, r.type, r.period, r.visibility
     on conflict (athlete_id, type, period, visibility) do update set
       count = t.count + excluded.count, distance = t.distance + excluded.distance,
       moving_time = t.moving_time + excluded.moving_time, elevation_gain = t.elevation_gain + excluded.elevation_gain`,
    [JSON.stringify(deltas), sign],
  );
  if (sign < 0) {
    await tx.query(
      `delete from goal_totals t using jsonb_to_recordset($1::jsonb) as r(athlete bigint, type text, period text, visibility text)
        where t.athlete_id = r.athlete and t.type = r.type and t.period = r.period and t.visibility = r.visibility
          and t.count <= 0`,
      [JSON.stringify(deltas)],
    );
  }
}
