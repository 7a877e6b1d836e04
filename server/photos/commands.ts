import { randomUUID } from "node:crypto";
import { activityStream } from "../../events/activity/events.ts";
import { activityDecider } from "../../events/activity/decide.ts";
import { DomainError, handleCommand } from "../../events/decider.ts";
import { MAX_CAPTION } from "../activities/input.ts";
import { UndecodableImage } from "../images/renditions.ts";
import { checkImage } from "../images/header.ts";
import { photoRenditionsOffLoop } from "../images/pool.ts";
import { putBlob } from "../blobs.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { findActivity } from "../activities/read.ts";

export interface ExternalPhoto {
  activityId: number;
  /** Link to the image page at the external source. */
  ref: string;
  /** Image URL served for every size. */
  url: string;
  /** Id given by the external source (defaults to the ref). */
  uid?: string;
  caption?: string;
  /** When uploaded to the external source (ISO 8601; default now). */
  uploadedAt?: string;
  location?: [number, number] | null;
}

const URL_PATTERN = /^https?:\/\/\S+$/i;

/**
 * Links an external-source photo (source 2) to an activity, as its owner (recorded as `source`
 * acting for the owner, whom only the activity names). Returns the photo id.
 */
export async function linkExternalPhoto(platform: Platform, input: ExternalPhoto, source = "cli"): Promise<number> {
  const activity = await findActivity(platform.db, input.activityId);
  if (!activity) throw new DomainError("not_found", "Activity", "id", "invalid");
  if (!URL_PATTERN.test(input.ref)) throw new DomainError("invalid", "Photo", "ref", "invalid");
  if (!URL_PATTERN.test(input.url)) throw new DomainError("invalid", "Photo", "url", "invalid");
  const caption = input.caption ?? "";
  if (caption.length > MAX_CAPTION) throw new DomainError("invalid", "Photo", "caption", "invalid");
  const uploadedAt = input.uploadedAt ?? new Date().toISOString();
  if (Number.isNaN(Date.parse(uploadedAt))) throw new DomainError("invalid", "Photo", "uploaded_at", "invalid");
  const photoId = await nextId(platform.db, "photo");
  await handleCommand(platform.store, activityStream(activity.id), activityDecider, {
    type: "linkPhoto",
    activityId: activity.id,
    athleteId: activity.athlete_id,
    photo: {
      photoId,
      ref: input.ref,
      uid: input.uid ?? input.ref,
      caption,
      url: input.url,
      uploadedAt: new Date(uploadedAt).toISOString().replace(/\.\d{3}Z$/, "Z"),
      location: input.location ?? null,
    },
  }, appendOptions(systemActor(source, activity.athlete_id)));
  return photoId;
}

export interface NativePhoto {
  activityId: number;
  athleteId: number;
  bytes: Uint8Array;
  caption?: string;
  location?: [number, number] | null;
}

/**
 * Adds a native photo (source 1) to an athlete's own activity: the image is checked by its header
 * (kind, and the decoding budget), decoded in the image pool, and stored with its renditions (the
 * original without its EXIF/XMP metadata). Returns the photo's unique id. A repeated
 * `idempotencyKey` adds nothing (an archive import run again).
 */
export async function addNativePhoto(
  platform: Platform,
  input: NativePhoto,
  actor: Actor,
  idempotencyKey?: string,
): Promise<string> {
  // The header is read before anything is decoded; past the budget → too large (images/header.ts).
  const check = checkImage(input.bytes);
  if (!check.ok) throw new DomainError("invalid", "Photo", "file", check.code);
  let made;
  try {
    made = await photoRenditionsOffLoop(input.bytes, check.header);
  } catch (error) {
    if (error instanceof UndecodableImage) throw new DomainError("invalid", "Photo", "file", "invalid");
    throw error;
  }
  const renditions = [];
  for (const r of made) {
    // A large rendition (the original) is a file blob, not bytes pushed through the database on the event loop.
    const sha256 = await putBlob(platform.db, r.bytes, { file: true });
    renditions.push({ size: r.size, width: r.width, height: r.height, sha256, contentType: r.contentType });
  }
  const uniqueId = randomUUID().toUpperCase();
  await handleCommand(platform.store, activityStream(input.activityId), activityDecider, {
    type: "addPhoto",
    activityId: input.activityId,
    athleteId: input.athleteId,
    photo: {
      uniqueId,
      caption: input.caption ?? "",
      createdAt: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
      location: input.location ?? null,
      renditions,
    },
  }, { ...appendOptions(actor), idempotencyKey });
  return uniqueId;
}
