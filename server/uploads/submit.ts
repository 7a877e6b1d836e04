import type { ActivityType } from "../../shared/activity-types.ts";
import type { Visibility } from "../../shared/visibility.ts";
import type { SportType } from "../../shared/sport-types.ts";
import { UPLOAD_STATUS, type UploadStatusBody } from "../../shared/upload-status.ts";
import type { Actor } from "../actor.ts";
import { newActivityVisibility } from "../athletes/commands.ts";
import { putBlob, putBlobFromFile } from "../blobs.ts";
import { ApiError } from "../http/errors.ts";
import { nextId } from "../ids.ts";
import { type DataType, TooLargeError } from "../ingest/decode.ts";
import { IngestError } from "../ingest/types.ts";
import type { Platform } from "../platform.ts";
import { receiveUpload } from "./commands.ts";
import { duplicateAtSubmission, duplicateMessage } from "./duplicates.ts";
import { inspectBytes, type Inspected, inspectFile } from "./inspect.ts";
import { rememberReceivedOriginal } from "./originals.ts";
import { refusedStatusBody } from "./status.ts";

export interface UploadSubmission {
  athleteId: number;
  fileName: string;
  /** The file in memory, or (a large file received over HTTP) `spooled`: written to disk and synced. */
  bytes?: Uint8Array;
  spooled?: { path: string; size: number; sha256?: string };
  dataType: DataType;
  activityType: ActivityType | null;
  /** sport_type field (activityType is then its type). */
  sportType?: SportType | null;
  /** activityType wins over the file's own sport (an archive's activities.csv type). */
  activityTypeWins?: boolean;
  name: string | null;
  description: string | null;
  /** Strava's visibility; default: the athlete's default for new activities. */
  visibility?: Visibility;
  /** The spec's flag (true = only_me, false = not only me); must agree with visibility when both are given. */
  private?: boolean;
  trainer: boolean;
  commute: boolean;
  externalId: string | null;
}

export const tooLarge = (limit: number) =>
  new ApiError(413, "Payload Too Large", [{ resource: "Upload", field: "file", code: `larger than ${limit} bytes` }]);

/**
 * Accepts a device file: size and gzip checks, a content sniff against data_type and the
 * duplicate-content check run now (400 with an upload status when they fail); everything else
 * runs in the upload job. Records UploadReceived with the reserved activity id; `actor` says who
 * sent the file (an API request, an archive import…), recorded in the event's metadata.
 */
export async function submitUpload(
  platform: Platform,
  input: UploadSubmission,
  actor: Actor,
): Promise<UploadStatusBody> {
  const limit = platform.config.maxUploadBytes;
  const size = input.spooled?.size ?? input.bytes?.byteLength ?? 0;
  if (size > limit) throw tooLarge(limit);
  if (!input.spooled && !input.bytes) throw new Error("an upload needs bytes or a spooled file");
  // Decided before anything is stored: a contradiction is a 400 with nothing written.
  const visibility = await newActivityVisibility(platform.db, input.athleteId, input);
  const externalId = input.externalId ?? input.fileName;
  let inspected: Inspected;
  try {
    // A spooled file is read, hashed and inflated as a stream (never whole, never for long on the
    // event loop); a small one in memory.
    inspected = input.spooled
      ? await inspectFile(input.spooled.path, input.spooled.size, input.dataType, limit, input.spooled.sha256)
      : inspectBytes(input.bytes!, input.dataType, limit);
  } catch (error) {
    if (error instanceof TooLargeError) throw tooLarge(limit);
    if (error instanceof IngestError) {
      const id = await nextId(platform.db, "upload");
      throw new ApiError(400, "Bad Request", [], refusedStatusBody(id, externalId, error.message));
    }
    throw error;
  }
  const { contentSha256 } = inspected;
  const duplicateOf = await duplicateAtSubmission(platform.db, input.athleteId, contentSha256);
  if (duplicateOf !== null) {
    const id = await nextId(platform.db, "upload");
    throw new ApiError(
      400,
      "Bad Request",
      [],
      refusedStatusBody(id, externalId, duplicateMessage(input.fileName, duplicateOf)),
    );
  }
  // The original is a blob before any event names it (a large one: the spooled file, moved).
  let originalSha256: string;
  if (input.spooled) {
    originalSha256 = await putBlobFromFile(
      platform.db,
      input.spooled.path,
      inspected.originalSha256,
      input.spooled.size,
    );
  } else {
    originalSha256 = await putBlob(platform.db, input.bytes!, { file: true });
    rememberReceivedOriginal(originalSha256, input.bytes!);
  }
  const uploadId = await nextId(platform.db, "upload");
  const activityId = await nextId(platform.db, "activity");
  await receiveUpload(platform, {
    uploadId,
    athleteId: input.athleteId,
    activityId,
    fileName: input.fileName,
    dataType: input.dataType,
    originalSha256,
    contentSha256,
    externalId,
    activityType: input.activityType,
    ...(input.sportType ? { sportType: input.sportType } : {}),
    ...(input.activityTypeWins && input.activityType ? { activityTypeWins: true } : {}),
    name: input.name,
    description: input.description,
    visibility,
    trainer: input.trainer,
    commute: input.commute,
  }, actor);
  platform.jobs.kick();
  return {
    id: uploadId,
    id_str: String(uploadId),
    external_id: externalId,
    error: null,
    status: UPLOAD_STATUS.processing,
    activity_id: null,
  };
}
