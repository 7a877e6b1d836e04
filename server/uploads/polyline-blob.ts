import type { Queryable } from "../../events/db/types.ts";
import { putBlob } from "../blobs.ts";

/**
 * A full polyline longer than this is kept as a blob (a file beside the database, as the streams
 * are), and the activity's event and row hold its sha-256 instead: a 45 h track's polyline is
 * hundreds of kB that PGlite would otherwise parse, compress and write (WAL included) twice, in
 * the server's thread, holding the database while other requests wait. Read back with
 * `fullPolyline` (server/blobs.ts).
 */
export const POLYLINE_BLOB_ABOVE = 16 * 1024;

/** What the event records of a full polyline: the text itself, or null and its blob's sha-256. */
export async function keepPolyline(
  db: Queryable,
  polyline: string | null,
): Promise<{ polyline: string | null; polylineSha256?: string }> {
  if (polyline === null || polyline.length <= POLYLINE_BLOB_ABOVE) return { polyline };
  const polylineSha256 = await putBlob(db, new TextEncoder().encode(polyline), { file: true });
  return { polyline: null, polylineSha256 };
}
