/**
 * The one read-model query of the archive import (everything else goes through existing query
 * functions): uploads of an athlete's activity still being processed, e.g. left behind by an import
 * that was killed, so the import run again can finish them at once instead of after their lease.
 */
import type { Queryable } from "../../events/db/types.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";

export async function processingUploadsOfActivity(db: Queryable, athleteId: number, activityId: number): Promise<number[]> {
  const rows = await db.query<{ id: number }>(
    "select id from uploads where athlete_id = $1 and activity_id = $2 and status = $3 order by id",
    [athleteId, activityId, UPLOAD_STATUS.processing],
  );
  return rows.map((r) => Number(r.id));
}
