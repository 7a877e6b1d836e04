import { createHash } from "node:crypto";
import { uploadReceived, uploadStream } from "../../events/upload/events.ts";
import type { ActivityType } from "../../shared/activity-types.ts";
import type { SportType } from "../../shared/sport-types.ts";
import { UPLOAD_STATUS, type UploadStatusBody } from "../../shared/upload-status.ts";
import { putBlob } from "../blobs.ts";
import { ApiError } from "../http/errors.ts";
import { nextId } from "../ids.ts";
import { type DataType, inflate, sniff, TooLargeError } from "../ingest/decode.ts";
import { IngestError } from "../ingest/types.ts";
import type { Platform } from "../platform.ts";
import { duplicateAtSubmission, duplicateMessage } from "./duplicates.ts";
import { rememberReceivedOriginal } from "./originals.ts";
import { refusedStatusBody } from "./status.ts";

export interface UploadSubmission {
  athleteId: number;
  applicationId?: number;
  requestId?: string;
  fileName: string;
  bytes: Uint8Array;
  dataType: DataType;
  activityType: ActivityType | null;
  /** sport_type field (activityType is then its type). */
  sportType?: SportType | null;
  name: string | null;
  description: string | null;
  private: boolean;
  trainer: boolean;
  commute: boolean;
  externalId: string | null;
}

export const tooLarge = (limit: number) =>
  new ApiError(413, "Payload Too Large", [{ resource: "Upload", field: "file", code: `larger than ${limit} bytes` }]);

/**
 * Accepts a device file: size and gzip checks, a content sniff against data_type and the
 * duplicate-content check run now (400 with an upload status when they fail); everything else
 * runs in the upload job. Records UploadReceived with the reserved activity id.
 */
export async function submitUpload(platform: Platform, input: UploadSubmission): Promise<UploadStatusBody> {
  const limit = platform.config.maxUploadBytes;
  if (input.bytes.byteLength > limit) throw tooLarge(limit);
  const externalId = input.externalId ?? input.fileName;
  let content: Uint8Array;
  try {
    content = inflate(input.bytes, input.dataType, limit);
    sniff(content, input.dataType);
  } catch (error) {
    if (error instanceof TooLargeError) throw tooLarge(limit);
    if (error instanceof IngestError) {
      const id = await nextId(platform.db, "upload");
      throw new ApiError(400, "Bad Request", [], refusedStatusBody(id, externalId, error.message));
    }
    throw error;
  }
  const contentSha256 = createHash("sha256").update(content).digest("hex");
  const duplicateOf = await duplicateAtSubmission(platform.db, input.athleteId, contentSha256);
  if (duplicateOf !== null) {
    const id = await nextId(platform.db, "upload");
    throw new ApiError(400, "Bad Request", [], refusedStatusBody(id, externalId, duplicateMessage(input.fileName, duplicateOf)));
  }
  const originalSha256 = await putBlob(platform.db, input.bytes);
  rememberReceivedOriginal(originalSha256, input.bytes);
  const uploadId = await nextId(platform.db, "upload");
  const activityId = await nextId(platform.db, "activity");
  await platform.store.append(uploadStream(uploadId), 0, [
    uploadReceived.create({
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
      name: input.name,
      description: input.description,
      private: input.private,
      trainer: input.trainer,
      commute: input.commute,
    }),
  ], { metadata: { athleteId: input.athleteId, applicationId: input.applicationId, requestId: input.requestId } });
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
