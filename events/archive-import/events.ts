import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

/**
 * An archive import started over HTTP (POST /v3/athlete/imports, /settings/import) is a durable run
 * on stream `archive-import-<id>`: ArchiveImportStarted → ArchiveImportProgressed (checkpoints: the
 * archive entries finished since the last one) … → ArchiveImportFinished. A server that stops
 * mid-run leaves it started but not finished; the next start resumes it (ArchiveImportResumed),
 * skipping the entries already checkpointed. The activities themselves are recorded by the upload
 * pipeline's own events; these only say how far the run got.
 */

const importId = z.string().regex(/^[0-9a-f]{16}$/);
const failure = z.object({ file: z.string(), error: z.string() });

export const archiveImportStarted = defineEvent({
  type: "ArchiveImportStarted",
  description:
    "An athlete posted an export archive (Strava or Garmin Connect) for import; it waits in the server's import inbox.",
  schema: z.object({
    importId,
    athleteId: z.number().int().positive(),
    /** The file name as sent. */
    fileName: z.string(),
    via: z.enum(["web", "api"]),
    /** The archive's file name in the server's import inbox (DATA_DIR/imports). */
    archiveFile: z.string().regex(/^[0-9a-f]+\.zip$/),
    /** Its size in bytes. */
    bytes: z.number().int().nonnegative(),
  }),
});

export const archiveImportProgressed = defineEvent({
  type: "ArchiveImportProgressed",
  description:
    "A checkpoint of a running archive import: the layout and activity count found so far, the entries finished since the last checkpoint (by outcome) and new failures.",
  schema: z.object({
    importId,
    athleteId: z.number().int().positive(),
    layout: z.enum(["strava", "garmin"]).nullable(),
    /** Activities found in the archive so far (a Garmin export's nested zips add theirs as they are opened). */
    total: z.number().int().nonnegative(),
    /** Entries finished since the last checkpoint: their key in the archive and what became of them. */
    entries: z.array(z.object({ key: z.string(), outcome: z.enum(["imported", "duplicate", "skipped", "failed"]) })),
    /** Files (recordings, photos, gear rows) that could not be imported, with why. */
    failed: z.array(failure),
  }),
});

export const archiveImportResumed = defineEvent({
  type: "ArchiveImportResumed",
  description:
    "A server started again found an archive import that had not finished and resumed it (entries already checkpointed are skipped).",
  schema: z.object({
    importId,
    athleteId: z.number().int().positive(),
  }),
});

export const archiveImportFinished = defineEvent({
  type: "ArchiveImportFinished",
  description:
    "An archive import ended: done (every entry imported, a duplicate, skipped or failed), refused (not a zip, unknown layout, zip bomb, unsafe names: nothing imported) or interrupted (its archive was no longer on disk).",
  schema: z.object({
    importId,
    athleteId: z.number().int().positive(),
    outcome: z.enum(["done", "refused", "interrupted"]),
    error: z.string().nullable(),
  }),
});

export const archiveImportStream = (id: string) => `archive-import-${id}`;

/** The events of an archive import's stream (`archiveImportStream`, `archiveImportDecider`). */
export type ArchiveImportEvent = EventOf<
  | typeof archiveImportStarted
  | typeof archiveImportProgressed
  | typeof archiveImportResumed
  | typeof archiveImportFinished
>;
