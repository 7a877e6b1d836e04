import type { Queryable } from "../../events/db/types.ts";
import { activityLoad } from "./model.ts";
import type { Visibility } from "../../shared/visibility.ts";

/** What an activity's load is computed from. */
export interface LoadInput {
  activityId: number;
  athleteId: number;
  startDate: string;
  startDateLocal: string;
  visibility: Visibility;
  movingTime: number;
  normalizedPower: number | null;
  averageHeartrate: number | null;
}

/** What the model needs of an athlete (a row of training_load_athletes). */
export interface AthleteSettings {
  ftp: number | null;
  birthdate: string | null;
  sex: string | null;
}

export const NO_SETTINGS: AthleteSettings = { ftp: null, birthdate: null, sex: null };

/** Upserts activities' load rows, each computed with the athlete's settings given beside it. */
export async function putLoads(tx: Queryable, inputs: [LoadInput, AthleteSettings][]) {
  const rows = inputs.map(([a, athlete]) => {
    const { load, method } = activityLoad(a, athlete);
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
    `insert into training_load_activities (activity_id, athlete_id, day, start_date, visibility, moving_time,
       normalized_power, average_heartrate, load, method)
     select r.id, r.athlete, r.day, r.start, r.visibility, r.moving, r.np, r.hr, r.load, r.method
       from jsonb_to_recordset($1::jsonb) as r(id bigint, athlete bigint, day text, start text, visibility text,
            moving integer, np integer, hr double precision, load double precision, method text)
     on conflict (activity_id) do update set moving_time = excluded.moving_time, normalized_power = excluded.normalized_power,
       average_heartrate = excluded.average_heartrate, load = excluded.load, method = excluded.method`,
    [JSON.stringify(rows)],
  );
}
