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

/**
 * What the fitness series of a window needs (days `from` … `through`, YYYY-MM-DD): the state after
 * the athlete's last day with activities before the window (null: none), and each day of the window
 * with activities, its load and the state after it; in one scope (private activities counted or
 * not). A read of the window, whatever the history before it.
 */
export async function fitnessWindow(
  db: Queryable,
  athleteId: number,
  withPrivate: boolean,
  from: string,
  through: string,
): Promise<{
  before: { day: string; ctl: number; atl: number } | null;
  days: { day: string; load: number }[];
}> {
  const scope = withPrivate ? "all" : "public";
  const [before] = await db.query<{ day: string; ctl: number; atl: number }>(
    `select day, ctl, atl from training_load_days where athlete_id = $1 and scope = $2 and day < $3
      order by day desc limit 1`,
    [athleteId, scope, from],
  );
  const days = await db.query<{ day: string; load: number }>(
    `select day, load from training_load_days where athlete_id = $1 and scope = $2 and day >= $3 and day <= $4
      order by day`,
    [athleteId, scope, from, through],
  );
  return {
    before: before ? { day: before.day, ctl: Number(before.ctl), atl: Number(before.atl) } : null,
    days: days.map((d) => ({ day: d.day, load: Number(d.load) })),
  };
}

/** The athlete's activities' loads between two days (inclusive), oldest day first; private ones only when `withPrivate`. */
export async function activityLoadsBetween(
  db: Queryable,
  athleteId: number,
  withPrivate: boolean,
  from: string,
  through: string,
): Promise<{ activityId: number; day: string; load: number; method: LoadMethod }[]> {
  const rows = await db.query<{ activity_id: number; day: string; load: number; method: LoadMethod }>(
    `select activity_id, day, load, method from training_load_activities
      where athlete_id = $1 and ($2 or visibility <> 'only_me') and day >= $3 and day <= $4 order by day, activity_id`,
    [athleteId, withPrivate, from, through],
  );
  return rows.map((r) => ({ activityId: Number(r.activity_id), day: r.day, load: Number(r.load), method: r.method }));
}

/** The last day with an activity (null: none), in one scope. */
export async function lastLoadDay(db: Queryable, athleteId: number, withPrivate: boolean): Promise<string | null> {
  const [row] = await db.query<{ day: string }>(
    "select day from training_load_days where athlete_id = $1 and scope = $2 order by day desc limit 1",
    [athleteId, withPrivate ? "all" : "public"],
  );
  return row?.day ?? null;
}
