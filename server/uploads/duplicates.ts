import type { Queryable } from "../../events/db/types.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";

/** Seconds within which two recordings of one athlete on one device count as the same. */
export const DUPLICATE_START_SECONDS = 5;

export function duplicateMessage(fileName: string, activityId: number): string {
  return `${fileName} duplicate of activity ${activityId}`;
}

/** The same content already uploaded by this athlete (processing or ready), at submission. */
export async function duplicateAtSubmission(db: Queryable, athleteId: number, contentSha256: string): Promise<number | null> {
  const [row] = await db.query<{ activity_id: number }>(
    `select activity_id from uploads where athlete_id = $1 and content_sha256 = $2 and status in ($3, $4)
      order by id limit 1`,
    [athleteId, contentSha256, UPLOAD_STATUS.processing, UPLOAD_STATUS.ready],
  );
  return row ? Number(row.activity_id) : null;
}

/** An activity of this athlete from the same content, or starting within seconds on the same device. */
export async function duplicateAtProcessing(
  db: Queryable,
  input: { athleteId: number; activityId: number; contentSha256: string; startDate: string; deviceName: string | null },
): Promise<number | null> {
  const [row] = await db.query<{ activity_id: number }>(
    `select activity_id from upload_fingerprints
      where athlete_id = $1 and activity_id <> $2
        and (content_sha256 = $3
             or (abs(extract(epoch from (start_date - $4::timestamptz))) <= $6
                 and device_name is not distinct from $5))
      order by activity_id limit 1`,
    [input.athleteId, input.activityId, input.contentSha256, input.startDate, input.deviceName, DUPLICATE_START_SECONDS],
  );
  return row ? Number(row.activity_id) : null;
}
