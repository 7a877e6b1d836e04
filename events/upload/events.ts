import { z } from "zod";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { SPORT_TYPES } from "../../shared/sport-types.ts";
import { defineEvent, type EventOf } from "../catalogue.ts";
import { VISIBILITIES, visibilityOfPrivate } from "../../shared/visibility.ts";

/**
 * Uploads are a durable job whose steps are events on stream `upload-<id>`:
 * UploadReceived → (ActivityRecorded + processor events on `activity-<id>`) → UploadSucceeded,
 * or UploadReceived → UploadFailed. A restart finds uploads still "processing" and resumes.
 */

export const uploadReceived = defineEvent({
  type: "UploadReceived",
  version: 2,
  upcasters: {
    1: ({ private: isPrivate, ...rest }) => ({ ...rest, visibility: visibilityOfPrivate(isPrivate === true) }),
  },
  description:
    "A device file was accepted for processing; its bytes are a blob, the activity id is reserved. v2: `visibility` of the activity to be (everyone, followers_only, only_me) instead of v1's `private`.",
  schema: z.object({
    uploadId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    /** Reserved for the activity this upload will create (reads resource_state -1 meanwhile). */
    activityId: z.number().int().positive(),
    fileName: z.string(),
    dataType: z.enum(["fit", "fit.gz", "tcx", "tcx.gz", "gpx", "gpx.gz"]),
    /** sha-256 of the bytes as uploaded (possibly gzipped), kept for reprocessing. */
    originalSha256: z.string(),
    /** sha-256 of the decompressed content: the same file twice is a duplicate. */
    contentSha256: z.string(),
    externalId: z.string().nullable(),
    activityType: z.enum(ACTIVITY_TYPES).nullable(),
    /** sport_type field (its type is then activityType); absent on uploads received before it was kept. */
    sportType: z.enum(SPORT_TYPES).nullable().optional(),
    /**
     * activityType is the activity's type whatever sport the file names (an archive's activities.csv
     * type: the athlete set it on the original platform); absent or false: a single-sport file's sport wins.
     */
    activityTypeWins: z.boolean().optional(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    visibility: z.enum(VISIBILITIES),
    trainer: z.boolean(),
    commute: z.boolean(),
  }),
});

export const uploadSucceeded = defineEvent({
  type: "UploadSucceeded",
  description: "Processing created the activity (ActivityRecorded was appended before this).",
  schema: z.object({
    uploadId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    activityId: z.number().int().positive(),
    /** What duplicate checks compare later: start, device, content. */
    startDate: z.string(),
    deviceName: z.string().nullable(),
    contentSha256: z.string(),
    /** Remarks about the file (e.g. a tolerated CRC error); not errors. */
    notes: z.array(z.string()),
  }),
});

export const uploadFailed = defineEvent({
  type: "UploadFailed",
  description: "Processing refused the file (malformed data, duplicate); no activity was created.",
  schema: z.object({
    uploadId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    /** Human-readable English, shown as the upload's error. */
    error: z.string(),
    /** The existing activity when the file was a duplicate. */
    duplicateOf: z.number().int().positive().nullable(),
  }),
});

export const uploadStream = (uploadId: number) => `upload-${uploadId}`;

/** The events of an upload's stream (`uploadStream`, `uploadDecider`). */
export type UploadEvent = EventOf<
  | typeof uploadReceived
  | typeof uploadSucceeded
  | typeof uploadFailed
>;
