import { athletePictureStream } from "../../events/athlete-picture/events.ts";
import { pictureDecider } from "../../events/athlete-picture/decide.ts";
import { handleCommand } from "../../events/decider.ts";
import { UndecodableImage } from "../images/renditions.ts";
import { putBlob } from "../blobs.ts";
import { badRequest } from "../http/errors.ts";
import { checkImage } from "../images/header.ts";
import { avatarRenditionsOffLoop } from "../images/pool.ts";
import type { Platform } from "../platform.ts";
import { type Actor, appendOptions } from "../actor.ts";

/**
 * An athlete's own profile picture: a JPEG, PNG or GIF (≤ 10 MB, within the decoding budget)
 * cropped to its centre square and scaled to Strava's two sizes (see renditions.ts), stored as
 * blobs, recorded by an AthletePictureChanged event (through the picture decider).
 */

/**
 * The two renditions of a picture file: its header checked first (400 Athlete/file invalid, or too
 * large past the decoding budget of images/header.ts), then decoded and scaled in the image pool.
 */
async function pictureRenditions(bytes: Uint8Array): Promise<{ large: Uint8Array; medium: Uint8Array }> {
  const check = checkImage(bytes);
  if (!check.ok) throw badRequest("Athlete", "file", check.code);
  try {
    return await avatarRenditionsOffLoop(bytes, check.header);
  } catch (error) {
    if (error instanceof UndecodableImage) throw badRequest("Athlete", "file", "invalid");
    throw error;
  }
}

/** Stores the renditions, then records the change (blobs first: an event never names missing bytes). */
export async function setAthletePicture(
  platform: Platform,
  athleteId: number,
  bytes: Uint8Array,
  actor: Actor,
): Promise<void> {
  const { large, medium } = await pictureRenditions(bytes);
  const [largeSha, mediumSha] = [await putBlob(platform.db, large), await putBlob(platform.db, medium)];
  await handleCommand(platform.store, athletePictureStream(athleteId), pictureDecider, {
    type: "set",
    athleteId,
    large: largeSha,
    medium: mediumSha,
    contentType: "image/png",
  }, appendOptions(actor));
}

/** Back to the default picture (the identicon). */
export async function removeAthletePicture(platform: Platform, athleteId: number, actor: Actor): Promise<void> {
  await handleCommand(
    platform.store,
    athletePictureStream(athleteId),
    pictureDecider,
    { type: "remove", athleteId },
    appendOptions(actor),
  );
}
