/**
 * The one gate every image goes through before it is decoded (profile pictures, activity photos,
 * photos of an imported archive, and anything later): its kind and dimensions are read from the
 * header alone — a PNG's IHDR, a JPEG's SOF segment (with each component's sampling), a GIF's
 * logical screen and every frame descriptor — and the image is refused ("too large") when decoding
 * it would cost more than the budget, before a single pixel buffer is allocated.
 *
 * Why a budget: a 35-byte GIF may declare 65,535 × 65,535 pixels (16 GiB of RGBA), a 285 KiB PNG
 * 10,000 × 10,000. The decoders allocate what the header says.
 *
 * The budget (see docs/images.md): at most MAX_IMAGE_PIXELS pixels on any buffer decoded (the
 * canvas, and any frame), and at most MAX_DECODE_BYTES of memory allocated by the decode, as
 * estimated per format from the header (bytes per pixel: a JPEG 4:2:0 7, 4:4:4 10; an 8-bit RGB
 * PNG 19, RGBA 20; a GIF 5). So a 20 MP camera JPEG (4:2:0) passes, a 4:4:4 one up to 14 MP, an
 * RGBA PNG up to 7.1 MP. Measured on the Deno server, the first decode at the top of the budget,
 * made into renditions in the worker, moved the resident memory by 181 MB for an estimate of
 * 142 MB (the worker's heap grows, and Deno's workers collect little mid-decode): under 256 MB.
 */

/** Image kinds accepted, recognised by their magic bytes. */
export type ImageType = "image/jpeg" | "image/png" | "image/gif";

/** Largest image file accepted (bytes). */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;

/** Most pixels on any buffer decoded: 24 megapixels (6000 × 4000, a 24 MP camera; every phone's default mode). */
export const MAX_IMAGE_PIXELS = 24_000_000;

/** Most working memory a decode may be estimated to need (bytes); see the estimates below. */
export const MAX_DECODE_BYTES = 136 * 1024 * 1024;

/** What the header says. */
export interface ImageHeader {
  contentType: ImageType;
  width: number;
  height: number;
  /** Pixels of the largest buffer the decoder allocates (the canvas, or a larger GIF frame). */
  pixels: number;
  /** Estimated peak working memory of decoding it (bytes). */
  decodeBytes: number;
  /** GIF: where the first frame's data ends (the decoder is given only that much and a trailer). */
  firstFrameEnd?: number;
}

/** Why an image is refused, as the API's error code. */
export type ImageRefusal = "invalid" | "too large";

export type ImageCheck = { ok: true; header: ImageHeader } | { ok: false; code: ImageRefusal };

const u16be = (b: Uint8Array, i: number) => (b[i] << 8) | b[i + 1];
const u16le = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8);
const u32be = (b: Uint8Array, i: number) => ((b[i] << 24) | (b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]) >>> 0;

function png(b: Uint8Array): ImageHeader | undefined | null {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (b.length < 8 || !sig.every((v, i) => b[i] === v)) return undefined;
  if (b.length < 29 || u32be(b, 8) !== 13 || String.fromCharCode(...b.subarray(12, 16)) !== "IHDR") return null;
  const width = u32be(b, 16), height = u32be(b, 20), depth = b[24], colorType = b[25];
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[colorType];
  const depths = colorType === 0 ? [1, 2, 4, 8, 16] : colorType === 3 ? [1, 2, 4, 8] : [8, 16];
  if (!channels || !depths.includes(depth)) return null;
  const pixels = width * height;
  // Inflated rows (+1 filter byte each) four times over (fast-png: inflated in chunks, joined,
  // unfiltered, copied; measured, a collection does not come in between) and once more for what
  // encoding the PNG renditions leaves, then the RGBA the pixels are expanded to (none for 8-bit
  // RGBA), and the RGB of a palette image on the way.
  const raw = height * (Math.ceil((width * channels * depth) / 8) + 1);
  const rgba = colorType === 6 && depth === 8 ? 0 : pixels * 4;
  const decodeBytes = 5 * raw + rgba + (colorType === 3 ? pixels * 4 : 0);
  return { contentType: "image/png", width, height, pixels, decodeBytes };
}

function jpeg(b: Uint8Array): ImageHeader | undefined | null {
  if (b.length < 3 || b[0] !== 0xff || b[1] !== 0xd8 || b[2] !== 0xff) return undefined;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // an end, or a scan, before any frame header
    const length = u16be(b, i + 2);
    if (length < 2) return null;
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (i + 2 + length > b.length || length < 8) return null;
      const height = u16be(b, i + 5), width = u16be(b, i + 7), count = b[i + 9];
      if (![1, 3, 4].includes(count) || length < 8 + 3 * count) return null;
      const sampling: { h: number; v: number }[] = [];
      for (let c = 0; c < count; c++) {
        const hv = b[i + 11 + c * 3];
        const h = hv >> 4, v = hv & 15;
        if (h < 1 || h > 4 || v < 1 || v > 4) return null;
        sampling.push({ h, v });
      }
      const maxH = Math.max(...sampling.map((s) => s.h)), maxV = Math.max(...sampling.map((s) => s.v));
      const mcusPerLine = Math.ceil(width / 8 / maxH), mcusPerColumn = Math.ceil(height / 8 / maxV);
      // The decoder (jpeg-decode.js) keeps every coefficient of every component (2 bytes each, over
      // whole MCUs), writes the samples over them, then the RGBA output (CMYK: CMYK, then RGBA).
      let samples = 0;
      for (const s of sampling) samples += mcusPerLine * s.h * 8 * mcusPerColumn * s.v * 8;
      const pixels = width * height;
      const decodeBytes = 2 * samples + (count === 4 ? 7 : 4) * pixels;
      return { contentType: "image/jpeg", width, height, pixels, decodeBytes };
    }
    i += 2 + length;
  }
  return null;
}

/** Skips GIF data sub-blocks from `p` (at a size byte); where the terminator ends, or -1 when cut short. */
function skipSubBlocks(b: Uint8Array, p: number): number {
  while (p < b.length) {
    const size = b[p];
    if (size === 0) return p + 1;
    p += size + 1;
  }
  return -1;
}

function gif(b: Uint8Array): ImageHeader | undefined | null {
  const head = String.fromCharCode(...b.subarray(0, 6));
  if (head !== "GIF87a" && head !== "GIF89a") return undefined;
  if (b.length < 13) return null;
  const width = u16le(b, 6), height = u16le(b, 8), flags = b[10];
  let p = 13 + (flags & 0x80 ? 3 * (1 << ((flags & 7) + 1)) : 0);
  let largestFrame = 0;
  let firstFrameEnd: number | undefined;
  while (p < b.length) {
    const block = b[p];
    if (block === 0x3b) break; // trailer
    if (block === 0x21) {
      if (p + 2 > b.length) return null;
      p = skipSubBlocks(b, p + 2);
    } else if (block === 0x2c) {
      if (p + 10 > b.length) return null;
      // Every frame descriptor counts: a decoder sizes its index buffer by the frame, not the screen.
      const fw = u16le(b, p + 5), fh = u16le(b, p + 7), fflags = b[p + 9];
      largestFrame = Math.max(largestFrame, fw * fh);
      if (fw === 0 || fh === 0) return null;
      p += 10 + (fflags & 0x80 ? 3 * (1 << ((fflags & 7) + 1)) : 0);
      p = p < b.length ? skipSubBlocks(b, p + 1) : -1; // LZW minimum code size, then the data
      firstFrameEnd ??= p;
    } else return null;
    if (p < 0) return null;
  }
  if (firstFrameEnd === undefined) return null;
  const canvas = width * height;
  const pixels = Math.max(canvas, largestFrame);
  // omggif: an index per pixel of the frame, then RGBA of the canvas.
  return { contentType: "image/gif", width, height, pixels, decodeBytes: canvas * 4 + largestFrame, firstFrameEnd };
}

/**
 * The image's kind and header, undefined when the bytes are not a JPEG, PNG or GIF (or its header
 * is cut short, malformed, or declares no pixels).
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader | undefined {
  for (const read of [png, jpeg, gif]) {
    const header = read(bytes);
    if (header === undefined) continue;
    if (header === null || header.width <= 0 || header.height <= 0) return undefined;
    return header;
  }
  return undefined;
}

/** The gate: is this an image we will decode? ("invalid": not one; "too large": over a budget.) */
export function checkImage(bytes: Uint8Array): ImageCheck {
  if (bytes.byteLength > MAX_IMAGE_BYTES) return { ok: false, code: "too large" };
  const header = readImageHeader(bytes);
  if (!header) return { ok: false, code: "invalid" };
  if (header.pixels > MAX_IMAGE_PIXELS || header.decodeBytes > MAX_DECODE_BYTES) {
    return { ok: false, code: "too large" };
  }
  return { ok: true, header };
}
