import { z } from "zod";
import { dateTime, int, model, nullableStr } from "../http/schema.ts";

export const zImportRun = model(
  "ImportRun",
  z.object({
    id: z.string(),
    file_name: z.string(),
    status: z.string().meta({
      description:
        "running, done, failed or interrupted (kept across restarts; an interrupted run resumes when the server is up)",
    }),
    layout: nullableStr,
    total: int,
    done: int,
    imported: int,
    duplicates: int,
    skipped: int,
    failed: z.array(z.object({ file: z.string(), error: z.string() })).meta({
      description:
        "the first failures (at most 100); failed_count counts them all (the page /settings/import/{id}/failures.csv lists every one)",
    }),
    failed_count: int,
    error: nullableStr,
    resumed: int.meta({ description: "how many times a restarted server resumed this import" }),
    started_at: dateTime,
    finished_at: dateTime.nullable(),
  }),
  "Extension: an archive import (a Strava/Garmin/… export zip) and its progress.",
  {
    id: "k3j5h2g7",
    file_name: "export_134815.zip",
    status: "running",
    layout: "strava",
    total: 412,
    done: 120,
    imported: 117,
    duplicates: 3,
    skipped: 0,
    failed: [],
    failed_count: 0,
    error: null,
    resumed: 0,
    started_at: "2024-05-06T07:08:09Z",
    finished_at: null,
  },
);
