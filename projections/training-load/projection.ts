import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { athleteErased, athleteProfileUpdated, athleteRegistered } from "../../events/athlete/events.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityReprocessed } from "../../events/activity/reprocessed.ts";
import { activityCropped, activityCropUndone } from "../../events/activity/cropped.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import type { Projection } from "../projection.ts";
import { activityLoad } from "./model.ts";
import { type ActivityStart, applyActivityRuns } from "../runs.ts";
import type { Visibility } from "../../shared/visibility.ts";

/**
 * Training load (docs/numbers.md, "Training load"; the fitness page and GET /v3/athletes/:id/fitness):
 * each activity's load — power TSS with the athlete's FTP as it stood when the activity was recorded
 * (or reprocessed, cropped, split), else heart-rate TRIMP, else 0 — with what it was computed from, and the athlete
 * settings the model needs (FTP, birthdate, sex), kept from the athlete's own events. Fitness,
 * fatigue and form are folded from these rows when asked (model.ts), so the tables stay a plain
 * function of the log.
 */
export const trainingLoadProjection: Projection = {
  name: "training-load",
  tables: ["training_load_athletes", "training_load_activities"],
  schema: `
    create table if not exists training_load_athletes (
      athlete_id bigint primary key,
      ftp integer,
      birthdate text,
      sex text
    );
    create table if not exists training_load_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      day text not null,
      start_date text not null,
      visibility text not null,
      moving_time integer not null,
      normalized_power integer,
      average_heartrate double precision,
      load double precision not null,
      method text not null
    );
    create index if not exists training_load_activities_athlete on training_load_activities (athlete_id, day);
  `,
  isolated: true,
  handles: [
    athleteRegistered.type,
    athleteProfileUpdated.type,
    athleteErased.type,
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    activityReprocessed.type,
    activityCropped.type,
    activityCropUndone.type,
    activityDeleted.type,
  ],
  /** Runs of recorded/created activities: their athletes read once, their rows in one upsert. */
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    await applyActivityRuns(
      events,
      (run) => putAll(tx, run.map(loadInput)),
      (e) => trainingLoadProjection.apply(tx, e),
    );
  },
  async apply(tx: Queryable, event: StoredEvent) {
    switch (event.type) {
      case athleteRegistered.type: {
        const d = event.data;
        await tx.query(
          `insert into training_load_athletes (athlete_id, ftp, birthdate, sex) values ($1, null, $2, $3)
           on conflict (athlete_id) do update set birthdate = $2, sex = $3`,
          [d.athleteId, d.birthdate, d.sex],
        );
        return;
      }
      case athleteProfileUpdated.type: {
        const d = event.data;
        if (d.ftp === undefined && d.birthdate === undefined && d.sex === undefined) return;
        await tx.query(
          `update training_load_athletes set
             ftp = case when $2 then $3::int else ftp end,
             birthdate = case when $4 then $5::text else birthdate end,
             sex = case when $6 then $7::text else sex end
           where athlete_id = $1`,
          [
            d.athleteId,
            d.ftp !== undefined,
            d.ftp ?? null,
            d.birthdate !== undefined,
            d.birthdate ?? null,
            d.sex !== undefined,
            d.sex ?? null,
          ],
        );
        return;
      }
      case athleteErased.type: {
        const { athleteId } = event.data;
        await tx.query("delete from training_load_activities where athlete_id = $1", [athleteId]);
        await tx.query("delete from training_load_athletes where athlete_id = $1", [athleteId]);
        return;
      }
      case activityRecorded.type:
      case activityCreated.type:
        await put(tx, loadInput(event));
        return;
      case activityUpdated.type: {
        const d = event.data;
        if (d.visibility === undefined) return;
        await tx.query("update training_load_activities set visibility = $2 where activity_id = $1", [
          d.activityId,
          d.visibility,
        ]);
        return;
      }
      case activityReprocessed.type: {
        const { activityId, facts } = event.data;
        const [row] = await tx.query<{ athlete_id: number; start_date: string; day: string; visibility: Visibility }>(
          "select athlete_id, start_date, day, visibility from training_load_activities where activity_id = $1",
          [activityId],
        );
        if (!row) return;
        await put(tx, {
          activityId,
          athleteId: Number(row.athlete_id),
          startDate: row.start_date,
          startDateLocal: row.day,
          visibility: row.visibility,
          movingTime: facts.movingTime,
          normalizedPower: facts.weightedAverageWatts,
          averageHeartrate: facts.averageHeartrate,
        });
        return;
      }
      case activityCropped.type:
      case activityCropUndone.type: {
        // A crop, a split or its undoing: the figures over the window, and its start.
        const { activityId, facts } = event.data;
        const [row] = await tx.query<{ athlete_id: number; visibility: Visibility }>(
          "select athlete_id, visibility from training_load_activities where activity_id = $1",
          [activityId],
        );
        if (!row) return;
        await put(tx, {
          activityId,
          athleteId: Number(row.athlete_id),
          startDate: facts.startDate,
          startDateLocal: facts.startDateLocal,
          visibility: row.visibility,
          movingTime: facts.movingTime,
          normalizedPower: facts.weightedAverageWatts,
          averageHeartrate: facts.averageHeartrate,
        });
        return;
      }
      case activityDeleted.type: {
        const { activityId } = event.data;
        await tx.query("delete from training_load_activities where activity_id = $1", [activityId]);
        return;
      }
    }
  },
};

interface LoadInput {
  activityId: number;
  athleteId: number;
  startDate: string;
  startDateLocal: string;
  visibility: Visibility;
  movingTime: number;
  normalizedPower: number | null;
  averageHeartrate: number | null;
}

/** What an activity's load is computed from. A manual activity has neither power nor heart rate: load 0 (kept, so the day is known). */
function loadInput(event: ActivityStart): LoadInput {
  const d = event.data;
  const base = {
    activityId: d.activityId,
    athleteId: d.athleteId,
    startDate: d.startDate,
    startDateLocal: d.startDateLocal,
    visibility: d.visibility,
  };
  if (event.type === activityCreated.type) {
    return { ...base, movingTime: event.data.elapsedTime, normalizedPower: null, averageHeartrate: null };
  }
  const r = event.data;
  return {
    ...base,
    movingTime: r.movingTime,
    normalizedPower: r.weightedAverageWatts,
    averageHeartrate: r.averageHeartrate,
  };
}

/** `put` of several activities (distinct ids, no athlete change among them): one read, one upsert. */
async function putAll(tx: Queryable, inputs: LoadInput[]) {
  if (inputs.length === 0) return;
  const athletes = await tx.query<
    { athlete_id: number; ftp: number | null; birthdate: string | null; sex: string | null }
  >(
    "select athlete_id, ftp, birthdate, sex from training_load_athletes where athlete_id = any($1::bigint[])",
    [[...new Set(inputs.map((a) => a.athleteId))]],
  );
  const byId = new Map(athletes.map((a) => [Number(a.athlete_id), a]));
  const rows = inputs.map((a) => {
    const { load, method } = activityLoad(a, byId.get(a.athleteId) ?? { ftp: null, birthdate: null, sex: null });
    return {
      id: a.activityId,
      athlete: a.athleteId,
      day: a.startDateLocal.slice(0, 10),
      start: a.startDate,
      visibility: a.visibility,
      moving: a.movingTime,
      np: a.normalizedPower,
      hr: a.averageHeartrate,
      load,
      method,
    };
  });
  await tx.query(
    `insert into training_load_activities (activity_id, athlete_id, day, start_date, visibility, moving_time, normalized_power,
       average_heartrate, load, method)
     select r.id, r.athlete, r.day, r.start, r.visibility, r.moving, r.np, r.hr, r.load, r.method
       from jsonb_to_recordset($1::jsonb) as r(id bigint, athlete bigint, day text, start text, visibility text,
            moving integer, np integer, hr double precision, load double precision, method text)
     on conflict (activity_id) do update set moving_time = excluded.moving_time, normalized_power = excluded.normalized_power,
       average_heartrate = excluded.average_heartrate, load = excluded.load, method = excluded.method`,
    [JSON.stringify(rows)],
  );
}

/** One activity's load row (`putAll` of one). */
function put(tx: Queryable, a: LoadInput) {
  return putAll(tx, [a]);
}
