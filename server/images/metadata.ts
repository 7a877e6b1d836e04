/**
 * Strips what a camera or an editor writes about a photo from the photo's bytes — above all the
 * EXIF GPS position of where it was taken, and the XMP, IPTC, comments and thumbnails that may hold
 * it again — while keeping the pixels and what displays them right (the JFIF header, the ICC
 * colour profile, Adobe's colour transform, a GIF's loop count). Nothing is decoded: segments and
 * chunks are dropped, the rest copied as it is, so a photo that carries none comes out unchanged.
 *
 * Applied to the original of every native photo when stored, and again to every rendition when
 * served (photos stored before this was applied carry their EXIF in their blob).
 */
import type { ImageType } from "./header.ts";
import { concatBytes } from "../../shared/bytes.ts";

const ascii = (b: Uint8Array, from: number, length: number) =>
  String.fromCharCode(...b.subarray(from, Math.min(b.length, from + length)));

/**
 * A JPEG's segments: APP0 (JFIF), APP2 holding an ICC profile and APP14 (Adobe) are kept; every
 * other APPn (APP1 EXIF and XMP, APP13 IPTC, APP2 MPF…) and COM are dropped, in the headers and
 * between scans alike. The image ends at its EOI: what follows (a second image of a
 * multi-picture file, with EXIF of its own) is dropped.
 */
function stripJpeg(b: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [b.subarray(0, 2)];
  let i = 2;
  let copyFrom = 2;
  let inScan = false;
  while (i < b.length) {
    if (inScan) {
      // Entropy-coded data: FF 00 is a stuffed byte, FF D0–D7 a restart; any other FF xx a marker.
      const next = b.indexOf(0xff, i);
      if (next < 0 || next + 1 >= b.length) {
        i = b.length;
        break;
      }
      const m = b[next + 1];
      if (m === 0x00 || (m >= 0xd0 && m <= 0xd7) || m === 0xff) {
        i = next + (m === 0xff ? 1 : 2);
        continue;
      }
      inScan = false;
      i = next;
    }
    if (b[i] !== 0xff || i + 1 >= b.length) {
      i = b.length;
      break;
    }
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd9) {
      i += 2;
      break;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    if (i + 4 > b.length) {
      i = b.length;
      break;
    }
    const end = Math.min(b.length, i + 2 + ((b[i + 2] << 8) | b[i + 3]));
    const app = marker >= 0xe0 && marker <= 0xef;
    const keep = !app && marker !== 0xfe ||
      marker === 0xe0 || marker === 0xee || (marker === 0xe2 && ascii(b, i + 4, 12) === "ICC_PROFILE\0");
    if (!keep) {
      parts.push(b.subarray(copyFrom, i));
      copyFrom = end;
    }
    if (marker === 0xda) inScan = true;
    i = end;
  }
  parts.push(b.subarray(copyFrom, i));
  return concatBytes(parts);
}

/** PNG chunks that may carry metadata: EXIF, text (XMP is an iTXt), the time of the last change. */
const PNG_DROPPED = new Set(["eXIf", "tEXt", "zTXt", "iTXt", "tIME"]);

/** A PNG's chunks but those, up to IEND. */
function stripPng(b: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [b.subarray(0, 8)];
  let i = 8;
  while (i + 12 <= b.length) {
    const length = ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;
    const type = ascii(b, i + 4, 4);
    const end = Math.min(b.length, i + 12 + length);
    if (!PNG_DROPPED.has(type)) parts.push(b.subarray(i, end));
    i = end;
    if (type === "IEND") break;
  }
  return concatBytes(parts);
}

/**
 * A GIF's blocks but comments, plain text and application extensions other than the loop count
 * (NETSCAPE2.0, ANIMEXTS1.0: XMP lives in an application extension), up to the trailer.
 */
function stripGif(b: Uint8Array): Uint8Array {
  if (b.length < 13) return b;
  const flags = b[10];
  let i = 13 + (flags & 0x80 ? 3 * (1 << ((flags & 7) + 1)) : 0);
  const parts: Uint8Array[] = [b.subarray(0, Math.min(i, b.length))];
  const subBlocksEnd = (p: number) => {
    while (p < b.length && b[p] !== 0) p += b[p] + 1;
    return Math.min(b.length, p + 1);
  };
  while (i < b.length) {
    const block = b[i];
    if (block === 0x3b) {
      parts.push(b.subarray(i, i + 1));
      break;
    }
    if (block === 0x21) {
      const label = b[i + 1];
      const end = subBlocksEnd(i + 2);
      const application = label === 0xff ? ascii(b, i + 3, 11) : "";
      const keep = label === 0xf9 || application === "NETSCAPE2.0" || application === "ANIMEXTS1.0";
      if (keep) parts.push(b.subarray(i, end));
      i = end;
    } else if (block === 0x2c) {
      const fflags = b[i + 9];
      const dataAt = i + 10 + (fflags & 0x80 ? 3 * (1 << ((fflags & 7) + 1)) : 0);
      const end = subBlocksEnd(dataAt + 1);
      parts.push(b.subarray(i, end));
      i = end;
    } else break;
  }
  return concatBytes(parts);
}

/** The image's bytes without their metadata (see above); bytes of another kind are returned as they are. */
export function stripMetadata(bytes: Uint8Array, contentType: ImageType | string): Uint8Array {
  if (contentType === "image/jpeg") return stripJpeg(bytes);
  if (contentType === "image/png") return stripPng(bytes);
  if (contentType === "image/gif") return stripGif(bytes);
  return bytes;
}
