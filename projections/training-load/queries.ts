import type { Queryable } from "../../events/db/types.ts";
import type { LoadMethod } from "./model.ts";
import type { Visibility } from "../../shared/visibility.ts";

/** The training-load read model's reads (GET /v3/athletes/:id/fitness). */

/** The athlete's FTP as the read model holds it (null without one). */
export async function trainingLoadFtp(db: Queryable, athleteId: number): Promise<number | null> {
  const [row] = await db.query<{ ftp: number | null }>("select ftp from training_load_athletes where athlete_id = $1", [
    athleteId,
  ]);
  return row?.ftp ?? null;
}

/**
 * The load of each day through `through` (YYYY-MM-DD) on which the athlete has activities, oldest
 * first; of the activities of these visibilities (those the caller may see). Days after `through` are never read.
 */
export async function dailyLoadsThrough(
  db: Queryable,
  athleteId: number,
  visibilities: readonly Visibility[],
  through: string,
): Promise<[string, number][]> {
  const rows = await db.query<{ day: string; load: number }>(
    `select day, sum(load)::float8 as load from training_load_activities
      where athlete_id = $1 and visibility = any($2::text[]) and day <= $3 group by day order by day`,
    [athleteId, visibilities, through],
  );
  return rows.map((r) => [r.day, Number(r.load)]);
}

/** The athlete's latest activity day no later than `atMost` (YYYY-MM-DD), or null. */
export async function latestLoadDay(
  db: Queryable,
  athleteId: number,
  visibilities: readonly Visibility[],
  atMost: string,
): Promise<string | null> {
  const [row] = await db.query<{ day: string | null }>(
    `select max(day) as day from training_load_activities
      where athlete_id = $1 and visibility = any($2::text[]) and day <= $3`,
    [athleteId, visibilities, atMost],
  );
  return row?.day ?? null;
}

/** Each activity's load on the days `from`…`through` (YYYY-MM-DD), oldest day first; of the activities of these visibilities (those the caller may see). */
export async function activityLoads(
  db: Queryable,
  athleteId: number,
  visibilities: readonly Visibility[],
  from: string,
  through: string,
): Promise<{ activityId: number; day: string; load: number; method: LoadMethod }[]> {
  const rows = await db.query<{ activity_id: number; day: string; load: number; method: LoadMethod }>(
    `select activity_id, day, load, method from training_load_activities
      where athlete_id = $1 and visibility = any($2::text[]) and day >= $3 and day <= $4 order by day, activity_id`,
    [athleteId, visibilities, from, through],
  );
  return rows.map((r) => ({ activityId: Number(r.activity_id), day: r.day, load: Number(r.load), method: r.method }));
}
