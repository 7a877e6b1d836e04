/**
 * Image kinds accepted for native photos and pictures, recognised by their magic bytes, with the
 * dimensions their header declares. The gate itself (the budget) is server/images/header.ts.
 */
import { type ImageHeader, MAX_IMAGE_BYTES, readImageHeader } from "./header.ts";

export type ImageInfo = ImageHeader;

/** Largest native photo accepted (bytes). */
export const MAX_PHOTO_BYTES = MAX_IMAGE_BYTES;

/** The image's kind and header, or undefined when the bytes are not a JPEG, PNG or GIF image. */
export function imageInfo(bytes: Uint8Array): ImageInfo | undefined {
  return readImageHeader(bytes);
}
