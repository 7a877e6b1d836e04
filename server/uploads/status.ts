import type { Queryable } from "../../events/db/types.ts";
import { uploadRow } from "../../projections/uploads/queries.ts";
import { UPLOAD_STATUS, type UploadStatusBody, type UploadStatusText } from "../../shared/upload-status.ts";

export interface UploadRow {
  id: number;
  athlete_id: number;
  activity_id: number;
  external_id: string | null;
  file_name: string;
  data_type: string;
  original_sha256: string;
  content_sha256: string;
  status: UploadStatusText;
  error: string | null;
  notes: string[];
}

export async function findUpload(db: Queryable, id: number): Promise<UploadRow | undefined> {
  const row = await uploadRow<UploadRow>(db, id);
  if (!row) return undefined;
  return { ...row, id: Number(row.id), athlete_id: Number(row.athlete_id), activity_id: Number(row.activity_id) };
}

/** The upload status body (spec "Upload status" plus id_str as the real service sends it). */
export function uploadStatusBody(row: UploadRow): UploadStatusBody {
  return {
    id: row.id,
    id_str: String(row.id),
    external_id: row.external_id,
    error: row.error,
    status: row.status,
    activity_id: row.status === UPLOAD_STATUS.ready ? row.activity_id : null,
  };
}

/** The body of a refused submission (HTTP 400): the error status with its reason. */
export function refusedStatusBody(id: number, externalId: string | null, error: string): UploadStatusBody {
  return { id, id_str: String(id), external_id: externalId, error, status: UPLOAD_STATUS.error, activity_id: null };
}
