import { z } from "zod";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { int, model, nullableInt, nullableStr } from "../http/schema.ts";

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
    id: 8412345678,
    id_str: "8412345678",
    external_id: "morning-ride.fit",
    error: null,
    status: UPLOAD_STATUS.processing,
    activity_id: null,
  },
);
