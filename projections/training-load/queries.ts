import type { Queryable } from "../../events/db/types.ts";
import type { LoadMethod } from "./model.ts";

/** The training-load read model's reads (GET /v3/athletes/:id/fitness). */

/** The athlete's FTP as the read model holds it (null without one). */
export async function trainingLoadFtp(db: Queryable, athleteId: number): Promise<number | null> {
  const [row] = await db.query<{ ftp: number | null }>("select ftp from training_load_athletes where athlete_id = $1", [
    athleteId,
  ]);
  return row?.ftp ?? null;
}

/** Each activity's load, oldest day first; private ones only when `withPrivate`. */
export async function activityLoads(
  db: Queryable,
  athleteId: number,
  withPrivate: boolean,
): Promise<{ activityId: number; day: string; load: number; method: LoadMethod }[]> {
  const rows = await db.query<{ activity_id: number; day: string; load: number; method: LoadMethod }>(
    `select activity_id, day, load, method from training_load_activities
      where athlete_id = $1 and ($2 or not private) order by day, activity_id`,
    [athleteId, withPrivate],
  );
  return rows.map((r) => ({ activityId: Number(r.activity_id), day: r.day, load: Number(r.load), method: r.method }));
}
