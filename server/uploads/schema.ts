import { z } from "zod";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { dateTime, int, model, nullableInt, nullableStr } from "../http/schema.ts";

/** Uploads (Strava's Upload) and archive imports (ours). */
export const zUpload = model(
  "Upload",
  z.object({
    id: int,
    id_str: z.string(),
    external_id: nullableStr,
    error: nullableStr,
    status: z.enum(Object.values(UPLOAD_STATUS) as [string, ...string[]]),
    activity_id: nullableInt,
  }),
  "An upload's status: poll GET /v3/uploads/{id} until activity_id or error is set.",
  {
    id: 8412345678, id_str: "8412345678", external_id: "morning-ride.fit", error: null,
    status: UPLOAD_STATUS.processing, activity_id: null,
  },
);

export const zImportRun = model(
  "ImportRun",
  z.object({
    id: z.string(),
    file_name: z.string(),
    status: z.string().meta({ description: "running, done, failed or interrupted (kept across restarts; an interrupted run resumes when the server is up)" }),
    layout: nullableStr,
    total: int,
    done: int,
    imported: int,
    duplicates: int,
    skipped: int,
    failed: z.array(z.object({ file: z.string(), error: z.string() })).meta({
      description: "the first failures (at most 100); failed_count counts them all (the page /settings/import/{id}/failures.csv lists every one)",
    }),
    failed_count: int,
    error: nullableStr,
    resumed: int.meta({ description: "how many times a restarted server resumed this import" }),
    started_at: dateTime,
    finished_at: dateTime.nullable(),
  }),
  "Extension: an archive import (a Strava/Garmin/… export zip) and its progress.",
  {
    id: "k3j5h2g7", file_name: "export_134815.zip", status: "running", layout: "strava", total: 412, done: 120, imported: 117,
    duplicates: 3, skipped: 0, failed: [], failed_count: 0, error: null, resumed: 0, started_at: "2024-05-06T07:08:09Z", finished_at: null,
  },
);
