import { encode as encodePng } from "fast-png";
import { decodeImage, type Rect, resizeRgba, type RgbaImage } from "./renditions.ts";
import type { ImageHeader } from "./header.ts";

/** Strava's avatar sizes: profile (large) 124 px, profile_medium 62 px. */
export const AVATAR_SIZES = { large: 124, medium: 62 } as const;
export type AvatarSize = keyof typeof AVATAR_SIZES;

/**
 * The two renditions of a profile picture (pure: run in an image worker, see server/images/pool.ts):
 * the centre square scaled to Strava's two sizes (profile 124 px, profile_medium 62 px), laid on
 * white when transparent, each an RGB PNG (the avatar URLs end in .png; at 124 px a PNG stays small).
 */

/** The centre square of an image (a rectangle of it: the pixels are not copied). */
export function centreSquare(image: { width: number; height: number }): Rect {
  const side = Math.min(image.width, image.height);
  return {
    x: Math.floor((image.width - side) / 2),
    y: Math.floor((image.height - side) / 2),
    width: side,
    height: side,
  };
}

function crop(image: RgbaImage, rect: Rect): RgbaImage {
  const data = new Uint8Array(rect.width * rect.height * 4);
  for (let y = 0; y < rect.height; y++) {
    const from = ((rect.y + y) * image.width + rect.x) * 4;
    data.set(image.data.subarray(from, from + rect.width * 4), y * rect.width * 4);
  }
  return { width: rect.width, height: rect.height, data };
}

function onWhitePng(image: RgbaImage): Uint8Array {
  const rgb = new Uint8Array(image.width * image.height * 3);
  for (let i = 0, j = 0; i < image.data.length; i += 4, j += 3) {
    const a = image.data[i + 3] / 255;
    for (let c = 0; c < 3; c++) rgb[j + c] = Math.round(image.data[i + c] * a + 255 * (1 - a));
  }
  return encodePng({ width: image.width, height: image.height, data: rgb, channels: 3, depth: 8 });
}

/** The two renditions of a picture whose header passed the budget. Throws UndecodableImage for corrupt data. */
export function avatarRenditions(bytes: Uint8Array, header: ImageHeader): { large: Uint8Array; medium: Uint8Array } {
  const image = decodeImage(bytes, header);
  const square = centreSquare(image);
  const large = square.width <= AVATAR_SIZES.large
    ? crop(image, square)
    : resizeRgba(image, AVATAR_SIZES.large, AVATAR_SIZES.large, square);
  return { large: onWhitePng(large), medium: onWhitePng(resizeRgba(large, AVATAR_SIZES.medium, AVATAR_SIZES.medium)) };
}
