import type { Queryable } from "../../events/db/types.ts";
import { fingerprintMatch, uploadWithContent } from "../../projections/uploads/queries.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";

/** Seconds within which two recordings of one athlete on one device count as the same. */
export const DUPLICATE_START_SECONDS = 5;

export function duplicateMessage(fileName: string, activityId: number): string {
  return `${fileName} duplicate of activity ${activityId}`;
}

/** The same content already uploaded by this athlete (processing or ready), at submission. */
export async function duplicateAtSubmission(
  db: Queryable,
  athleteId: number,
  contentSha256: string,
): Promise<number | null> {
  const row = await uploadWithContent(db, athleteId, contentSha256, [UPLOAD_STATUS.processing, UPLOAD_STATUS.ready]);
  return row ? Number(row.activity_id) : null;
}

/** An activity of this athlete from the same content, or starting within seconds on the same device. */
export async function duplicateAtProcessing(
  db: Queryable,
  input: { athleteId: number; activityId: number; contentSha256: string; startDate: string; deviceName: string | null },
): Promise<number | null> {
  const row = await fingerprintMatch(db, input, DUPLICATE_START_SECONDS);
  return row ? Number(row.activity_id) : null;
}
