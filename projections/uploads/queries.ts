import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import type { Queryable } from "../../events/db/types.ts";

/** The queries of the uploads read model (projection.ts). Upload pipeline reads still live in server/uploads (to be moved). */

/** How many uploads are in each status. */
export async function uploadCountsByStatus(db: Queryable): Promise<{ status: string; n: number }[]> {
  return await db.query<{ status: string; n: number }>(
    "select status, count(*)::int as n from uploads group by status",
  );
}

/** An upload's row (typed by the caller), or undefined. */
export async function uploadRow<Row>(db: Queryable, id: number): Promise<Row | undefined> {
  const [row] = await db.query<Row>("select * from uploads where id = $1", [id]);
  return row;
}

/** Uploads in a status (the upload job's pending work), oldest first. */
export async function uploadsInStatus(db: Queryable, status: string, limit: number): Promise<{ id: number }[]> {
  return await db.query<{ id: number }>("select id from uploads where status = $1 order by id limit $2", [
    status,
    limit,
  ]);
}

/** The activity of an upload of this athlete with the same content in one of the statuses, or undefined. */
export async function uploadWithContent(
  db: Queryable,
  athleteId: number,
  contentSha256: string,
  statuses: [string, string],
) {
  const [row] = await db.query<{ activity_id: number }>(
    `select activity_id from uploads where athlete_id = $1 and content_sha256 = $2 and status in ($3, $4)
      order by id limit 1`,
    [athleteId, contentSha256, ...statuses],
  );
  return row;
}

/** Another activity of this athlete from the same content, or starting within `seconds` on the same device. */
export async function fingerprintMatch(
  db: Queryable,
  input: { athleteId: number; activityId: number; contentSha256: string; startDate: string; deviceName: string | null },
  seconds: number,
) {
  const [row] = await db.query<{ activity_id: number }>(
    `select activity_id from upload_fingerprints
      where athlete_id = $1 and activity_id <> $2
        and (content_sha256 = $3
             or (abs(extract(epoch from (start_date - $4::timestamptz))) <= $6
                 and device_name is not distinct from $5))
      order by activity_id limit 1`,
    [input.athleteId, input.activityId, input.contentSha256, input.startDate, input.deviceName, seconds],
  );
  return row;
}

/**
 * Uploads of an athlete's activity still being processed, e.g. left behind by an archive import that
 * was killed, so the import run again can finish them at once instead of after their lease.
 */
export async function processingUploadsOfActivity(
  db: Queryable,
  athleteId: number,
  activityId: number,
): Promise<number[]> {
  const rows = await db.query<{ id: number }>(
    "select id from uploads where athlete_id = $1 and activity_id = $2 and status = $3 order by id",
    [athleteId, activityId, UPLOAD_STATUS.processing],
  );
  return rows.map((r) => Number(r.id));
}

/**
 * Whether an activity id belongs to an upload that is still processing (the upload reserves the id
 * when it is received); such an activity reads resource_state -1 until ActivityRecorded lands.
 */
export async function processingUploadOf(
  db: Queryable,
  activityId: number,
): Promise<{ athleteId: number } | undefined> {
  const [exists] = await db.query<{ t: string | null }>("select to_regclass('uploads')::text as t");
  if (!exists?.t) return undefined;
  const [row] = await db.query<{ athlete_id: number }>(
    "select athlete_id from uploads where activity_id = $1 and status = $2",
    [activityId, UPLOAD_STATUS.processing],
  );
  return row ? { athleteId: Number(row.athlete_id) } : undefined;
}
