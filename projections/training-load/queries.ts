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

/** Each activity's load, oldest day first, of the activities of these visibilities (those the caller may see). */
export async function activityLoads(
  db: Queryable,
  athleteId: number,
  visibilities: readonly Visibility[],
): Promise<{ activityId: number; day: string; load: number; method: LoadMethod }[]> {
  const rows = await db.query<{ activity_id: number; day: string; load: number; method: LoadMethod }>(
    `select activity_id, day, load, method from training_load_activities
      where athlete_id = $1 and visibility = any($2::text[]) order by day, activity_id`,
    [athleteId, visibilities],
  );
  return rows.map((r) => ({ activityId: Number(r.activity_id), day: r.day, load: Number(r.load), method: r.method }));
}
