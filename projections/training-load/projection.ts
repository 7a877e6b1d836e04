import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { athleteErased, athleteProfileUpdated, athleteRegistered } from "../../events/athlete/events.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { REDERIVATION_TYPES, rederivationOf } from "../../events/activity/rederived.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import type { Projection } from "../projection.ts";
import { trainingLoadBulk } from "./bulk.ts";
import { type LoadInput, NO_SETTINGS, putLoads } from "./loads.ts";
import { type ActivityStart, applyActivityRuns } from "../runs.ts";
import { DAYS_SCHEMA, foldAllDays, refoldDays } from "./days.ts";
import type { Visibility } from "../../shared/visibility.ts";

/**
 * Training load (docs/numbers.md, "Training load"; the fitness page and GET /v3/athletes/:id/fitness):
 * each activity's load — power TSS with the athlete's FTP as it stood when the activity was recorded
 * (or reprocessed), else heart-rate TRIMP, else 0 — with what it was computed from, and the athlete
 * settings the model needs (FTP, birthdate, sex), kept from the athlete's own events; and by day the
 * fitness model's state after each day with activities (days.ts), refolded from a changed day on, so
 * a request folds only its own window.
 */
export const trainingLoadProjection: Projection = {
  name: "training-load",
  tables: ["training_load_athletes", "training_load_activities", "training_load_days"],
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
    ${DAYS_SCHEMA}
  `,
  isolated: true,
  bulk: trainingLoadBulk,
  handles: [
    athleteRegistered.type,
    athleteProfileUpdated.type,
    athleteErased.type,
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    activityDeleted.type,
    ...REDERIVATION_TYPES,
  ],
  /**
   * Runs of recorded/created activities: their athletes read once, their rows in one upsert. Live,
   * the days of the athletes touched are then refolded from the earliest day a change lands on (a
   * rebuild folds them all at its end).
   */
  async applyBatch(tx: Queryable, events: StoredEvent[], rebuilding?: boolean) {
    const touched = rebuilding ? null : await daysTouched(tx, events);
    await applyActivityRuns(events, (run) => putAll(tx, run.map(loadInput)), (e) => applyOne(tx, e));
    if (!touched) return;
    // The days of what the events changed, as they are now (a recording's new day included).
    for (const [athleteId, day] of await daysTouched(tx, events, touched)) await refoldDays(tx, athleteId, day);
  },
  apply(tx: Queryable, event: StoredEvent, rebuilding?: boolean) {
    return trainingLoadProjection.applyBatch!(tx, [event], rebuilding);
  },
  finishRebuild(tx: Queryable) {
    return foldAllDays(tx);
  },
};

/**
 * The earliest day per athlete that the events' activities are on (their rows as they stand, and the
 * recordings' and creations' own days), added to `into`.
 */
async function daysTouched(
  tx: Queryable,
  events: StoredEvent[],
  into = new Map<number, string>(),
): Promise<Map<number, string>> {
  const ids: number[] = [];
  const note = (athleteId: number, day: string) => {
    const held = into.get(athleteId);
    if (held === undefined || day < held) into.set(athleteId, day);
  };
  for (const e of events) {
    if (e.type === activityRecorded.type || e.type === activityCreated.type) {
      note(e.data.athleteId, e.data.startDateLocal.slice(0, 10));
    } else if ("activityId" in e.data && typeof e.data.activityId === "number") ids.push(e.data.activityId);
    if (e.type === athleteErased.type) {
      await tx.query("delete from training_load_days where athlete_id = $1", [e.data.athleteId]);
    }
  }
  if (ids.length) {
    const rows = await tx.query<{ athlete_id: number | string; day: string }>(
      "select athlete_id, day from training_load_activities where activity_id = any($1::bigint[])",
      [ids],
    );
    for (const r of rows) note(Number(r.athlete_id), r.day);
  }
  return into;
}

/** One event's change of the rows (the days are the caller's). */
async function applyOne(tx: Queryable, event: StoredEvent) {
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
    case activityDeleted.type: {
      const { activityId } = event.data;
      await tx.query("delete from training_load_activities where activity_id = $1", [activityId]);
      return;
    }
  }
  const derived = rederivationOf(event);
  if (!derived) return;
  // The load follows the re-derived figures (and the day the start moves to).
  const { activityId, facts, start } = derived;
  const [row] = await tx.query<{ athlete_id: number; start_date: string; day: string; visibility: Visibility }>(
    "select athlete_id, start_date, day, visibility from training_load_activities where activity_id = $1",
    [activityId],
  );
  if (!row) return;
  if (start) {
    await tx.query("update training_load_activities set start_date = $2, day = $3 where activity_id = $1", [
      activityId,
      start.startDate,
      start.startDateLocal.slice(0, 10),
    ]);
  }
  await put(tx, {
    activityId,
    athleteId: Number(row.athlete_id),
    startDate: start?.startDate ?? row.start_date,
    startDateLocal: start?.startDateLocal ?? row.day,
    visibility: row.visibility,
    movingTime: facts.movingTime,
    normalizedPower: facts.weightedAverageWatts,
    averageHeartrate: facts.averageHeartrate,
  });
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
  await putLoads(tx, inputs.map((a) => [a, byId.get(a.athleteId) ?? NO_SETTINGS]));
}

/** One activity's load row (`putAll` of one). */
function put(tx: Queryable, a: LoadInput) {
  return putAll(tx, [a]);
}
