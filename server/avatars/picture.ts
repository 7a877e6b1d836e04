import { encode as encodePng } from "fast-png";
import { athletePictureStream } from "../../events/athlete-picture/events.ts";
import { pictureDecider } from "../../events/athlete-picture/decide.ts";
import { handleCommand } from "../../events/decider.ts";
import { MAX_PHOTO_BYTES, imageInfo } from "../activities/images.ts";
import { decodeImage, type RgbaImage, resizeRgba, UndecodableImage } from "../activities/renditions.ts";
import { putBlob } from "../blobs.ts";
import { badRequest } from "../http/errors.ts";
import type { Platform } from "../platform.ts";
import { AVATAR_SIZES } from "./identicon.ts";

/**
 * An athlete's own profile picture: a JPEG, PNG or GIF (≤ 10 MB) cropped to its centre square and
 * scaled to Strava's two sizes (profile 124 px, profile_medium 62 px), stored as blobs, recorded by
 * an AthletePictureChanged event (through the picture decider). Transparent pictures are laid on
 * white; every rendition is an RGB PNG (the avatar URLs end in .png; at 124 px a PNG stays small).
 */

/** The centre square of an image. */
export function centreSquare(image: RgbaImage): RgbaImage {
  const side = Math.min(image.width, image.height);
  const x0 = Math.floor((image.width - side) / 2), y0 = Math.floor((image.height - side) / 2);
  const data = new Uint8Array(side * side * 4);
  for (let y = 0; y < side; y++) {
    const from = ((y0 + y) * image.width + x0) * 4;
    data.set(image.data.subarray(from, from + side * 4), y * side * 4);
  }
  return { width: side, height: side, data };
}

function onWhitePng(image: RgbaImage): Uint8Array {
  const rgb = new Uint8Array(image.width * image.height * 3);
  for (let i = 0, j = 0; i < image.data.length; i += 4, j += 3) {
    const a = image.data[i + 3] / 255;
    for (let c = 0; c < 3; c++) rgb[j + c] = Math.round(image.data[i + c] * a + 255 * (1 - a));
  }
  return encodePng({ width: image.width, height: image.height, data: rgb, channels: 3, depth: 8 });
}

/** The two renditions of a picture file (400 Athlete/file invalid or too large for anything else). */
export function avatarRenditions(bytes: Uint8Array): { large: Uint8Array; medium: Uint8Array } {
  if (bytes.length > MAX_PHOTO_BYTES) throw badRequest("Athlete", "file", "too large");
  const info = imageInfo(bytes);
  if (!info) throw badRequest("Athlete", "file", "invalid");
  let square: RgbaImage;
  try {
    square = centreSquare(decodeImage(bytes, info));
  } catch (error) {
    if (error instanceof UndecodableImage) throw badRequest("Athlete", "file", "invalid");
    throw error;
  }
  const scaled = (side: number) => (square.width <= side ? square : resizeRgba(square, side, side));
  const large = scaled(AVATAR_SIZES.large);
  return { large: onWhitePng(large), medium: onWhitePng(resizeRgba(large, AVATAR_SIZES.medium, AVATAR_SIZES.medium)) };
}

/** Stores the renditions, then records the change (blobs first: an event never names missing bytes). */
export async function setAthletePicture(platform: Platform, athleteId: number, bytes: Uint8Array, metadata: Record<string, unknown>): Promise<void> {
  const { large, medium } = avatarRenditions(bytes);
  const [largeSha, mediumSha] = [await putBlob(platform.db, large), await putBlob(platform.db, medium)];
  await handleCommand(platform.store, athletePictureStream(athleteId), pictureDecider, {
    type: "set",
    athleteId,
    large: largeSha,
    medium: mediumSha,
    contentType: "image/png",
  }, { metadata });
}

export async function removeAthletePicture(platform: Platform, athleteId: number, metadata: Record<string, unknown>): Promise<void> {
  await handleCommand(platform.store, athletePictureStream(athleteId), pictureDecider, { type: "remove", athleteId }, { metadata });
}
