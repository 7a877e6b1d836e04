import type { EventData } from "../../events/catalogue.ts";
import type { Queryable } from "../../events/db/types.ts";
import type { uploadReceived } from "../../events/upload/events.ts";
import { activityTypeOf } from "../../shared/activity-types.ts";
import type { DeriveContext } from "../ingest/derive.ts";
import type { DecodedUpload } from "./decode-derive.ts";
import { derivePool, type SegmentSource } from "./derive-pool.ts";
import { derivationProfile } from "../../projections/athletes/queries.ts";

type Received = EventData<typeof uploadReceived>;

/** How an upload is derived: what the upload asked for, and the athlete's defaults and profile now. */
export async function deriveContextOf(db: Queryable, received: Received): Promise<DeriveContext> {
  const athlete = await derivationProfile(db, received.athleteId);
  return {
    uploadId: received.uploadId,
    externalId: received.externalId,
    activityType: received.activityType,
    sportType: received.sportType ?? null,
    activityTypeWins: received.activityTypeWins === true,
    defaultType: activityTypeOf(athlete?.default_activity_type ?? "Ride") ?? "Ride",
    name: received.name,
    description: received.description,
    visibility: received.visibility,
    trainer: received.trainer,
    commute: received.commute,
    athlete: {
      premium: athlete?.premium ?? false,
      weight: athlete?.weight ?? null,
      birthdate: athlete?.birthdate ?? null,
      sex: athlete?.sex === "M" || athlete?.sex === "F" ? athlete.sex : null,
    },
  };
}

/**
 * The uploaded file (possibly gzipped) parsed and derived in a derive worker, off the event loop;
 * throws on a file that can't become an activity. `workers` bounds how many files are derived at
 * once (the server's DERIVE_WORKERS; 0 derives in place).
 */
export function deriveFile(
  original: Uint8Array | string,
  received: Received,
  context: DeriveContext,
  maxUploadBytes: number,
  workers?: number,
  segments?: SegmentSource,
  /** Where file blobs live: a large streams document is stored there by the worker (see derive-pool.ts). */
  streamsBlobDir?: string,
  /** Only this part of the recording (crop and split; ms since the epoch). */
  window?: { start: number; end: number },
): Promise<DecodedUpload> {
  return derivePool(workers).derive({
    original,
    dataType: received.dataType,
    context,
    maxUploadBytes,
    segments,
    streamsBlobDir,
    ...(window ? { window } : {}),
  });
}
