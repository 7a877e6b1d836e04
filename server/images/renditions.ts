import { convertIndexedToRgb, decode as decodePng, encode as encodePng } from "fast-png";
import omggif from "omggif";
import { type ImageHeader, MAX_DECODE_BYTES, MAX_IMAGE_PIXELS } from "./header.ts";
import { decode as decodeJpeg } from "./jpeg-decode.js";
import { encode as encodeJpeg } from "./jpeg-encode.js";
import { stripMetadata } from "./metadata.ts";

/*
 * Decoding and resizing, pure and synchronous: they run in an image worker (server/images/pool.ts),
 * only ever on an image whose header passed the budget (server/images/header.ts).
 */

// omggif ships no types: GifReader(bytes) with width, height and decodeAndBlitFrameRGBA(frame, pixels).
const { GifReader } = omggif as unknown as {
  GifReader: new (
    bytes: Uint8Array,
  ) => { width: number; height: number; decodeAndBlitFrameRGBA(frame: number, pixels: Uint8Array): void };
};

/** Long sides (px) of the resized renditions made for a native photo, below the original's long side. */
export const RENDITION_SIZES = [100, 600, 1800] as const;
/** Largest image decoded (pixels); more → 400 {Photo, file, too large}. See server/images/header.ts. */
export const MAX_PHOTO_PIXELS = MAX_IMAGE_PIXELS;
/** JPEG quality of resized JPEG renditions. */
const JPEG_QUALITY = 85;

/** Raw 8-bit RGBA pixels. */
export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A produced rendition: its size label (long side), real dimensions, bytes and content type. */
export interface RenditionBytes {
  size: number;
  width: number;
  height: number;
  bytes: Uint8Array;
  contentType: string;
}

/** The image could not be decoded (corrupt or unsupported data behind valid magic bytes). */
export class UndecodableImage extends Error {}

function expandPngToRgba(png: ReturnType<typeof decodePng>): Uint8Array {
  const { width, height } = png;
  // 8-bit RGBA is RGBA already: no copy (of up to 35 MB).
  if (!png.palette && png.channels === 4 && png.depth === 8 && png.data instanceof Uint8Array) return png.data;
  const n = width * height;
  const out = new Uint8Array(n * 4);
  if (png.palette) {
    const rgb = convertIndexedToRgb(png);
    const channels = png.palette[0]?.length ?? 3;
    for (let i = 0; i < n; i++) {
      out[i * 4] = rgb[i * channels];
      out[i * 4 + 1] = rgb[i * channels + 1];
      out[i * 4 + 2] = rgb[i * channels + 2];
      out[i * 4 + 3] = channels === 4 ? rgb[i * channels + 3] : 255;
    }
    return out;
  }
  const channels = png.channels;
  const depth = png.depth;
  const data = png.data;
  const max = (1 << depth) - 1;
  const stride = Math.ceil((width * channels * depth) / 8);
  /** Sample c of pixel (x, y), scaled to 0…255. */
  const sample = (x: number, y: number, c: number): number => {
    if (depth === 8) return data[(y * width + x) * channels + c];
    if (depth === 16) return data[(y * width + x) * channels + c] >> 8;
    const bit = (x * channels + c) * depth;
    const byte = data[y * stride + (bit >> 3)];
    const value = (byte >> (8 - depth - (bit & 7))) & max;
    return Math.round((value * 255) / max);
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      if (channels <= 2) {
        const g = sample(x, y, 0);
        out[o] = g;
        out[o + 1] = g;
        out[o + 2] = g;
        out[o + 3] = channels === 2 ? sample(x, y, 1) : 255;
      } else {
        out[o] = sample(x, y, 0);
        out[o + 1] = sample(x, y, 1);
        out[o + 2] = sample(x, y, 2);
        out[o + 3] = channels === 4 ? sample(x, y, 3) : 255;
      }
    }
  }
  return out;
}

/**
 * Decodes a recognised image (first frame of a GIF) into RGBA pixels. Throws UndecodableImage when
 * the data behind the magic bytes is corrupt or its dimensions differ from its header.
 */
export function decodeImage(bytes: Uint8Array, info: ImageHeader): RgbaImage {
  let image: RgbaImage;
  try {
    if (info.contentType === "image/jpeg") {
      // The decoder's own limits stand behind the header's budget (its memory count only adds up,
      // never subtracting what was freed: twice the budget is the same bound).
      const decoded = decodeJpeg(bytes, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: MAX_IMAGE_PIXELS / 1e6,
        maxMemoryUsageInMB: Math.ceil((2 * MAX_DECODE_BYTES) / 1024 / 1024),
      });
      image = { width: decoded.width, height: decoded.height, data: decoded.data };
    } else if (info.contentType === "image/png") {
      const decoded = decodePng(bytes);
      image = { width: decoded.width, height: decoded.height, data: expandPngToRgba(decoded) };
    } else {
      // Only the first frame is decoded: the reader is given the bytes up to its end and a trailer,
      // so the frames after it (any number of them) cost nothing.
      const end = info.firstFrameEnd ?? bytes.length;
      const first = new Uint8Array(end + 1);
      first.set(bytes.subarray(0, end));
      first[end] = 0x3b;
      const reader = new GifReader(first);
      const data = new Uint8Array(reader.width * reader.height * 4);
      reader.decodeAndBlitFrameRGBA(0, data);
      image = { width: reader.width, height: reader.height, data };
    }
  } catch (error) {
    throw new UndecodableImage(error instanceof Error ? error.message : String(error));
  }
  if (
    image.width !== info.width || image.height !== info.height || image.data.length < image.width * image.height * 4
  ) {
    throw new UndecodableImage("decoded dimensions differ from the header");
  }
  return image;
}

/** Per output index along one axis: the source range it covers and each source pixel's weight (area averaging). */
function axisWeights(source: number, target: number) {
  const scale = source / target;
  const start = new Int32Array(target);
  const count = new Int32Array(target);
  const taps = Math.ceil(scale) + 1;
  const weights = new Float32Array(target * taps);
  for (let i = 0; i < target; i++) {
    const a = i * scale;
    const b = Math.min(source, (i + 1) * scale);
    const first = Math.floor(a);
    const last = Math.min(source - 1, Math.ceil(b) - 1);
    start[i] = first;
    count[i] = last - first + 1;
    for (let j = first; j <= last; j++) {
      weights[i * taps + (j - first)] = (Math.min(b, j + 1) - Math.max(a, j)) / scale;
    }
  }
  return { start, count, taps, weights };
}

/** A rectangle of an image (a crop). */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Down-scales RGBA pixels (or the `crop` rectangle of them) to width × height by area averaging
 * (each output pixel is the mean of the source area it covers), in premultiplied alpha so
 * transparent pixels do not darken edges. Row by row: a source row is scaled horizontally when an
 * output row first needs it and forgotten once passed, so the working memory is a few rows, not a
 * scaled copy of the whole image (115 MB for 6000 × 4000 pixels to 1800).
 */
export function resizeRgba(
  src: RgbaImage,
  width: number,
  height: number,
  crop: Rect = { x: 0, y: 0, width: src.width, height: src.height },
): RgbaImage {
  const h = axisWeights(crop.width, width);
  const v = axisWeights(crop.height, height);
  const rows = new Map<number, Float32Array>();
  // Rows passed are reused: a new array per source row made 90 MB of garbage for 3,200 rows to
  // 1800 px, which Deno's workers did not collect before the decode's peak.
  const spare: Float32Array[] = [];
  /** Source row y of the crop scaled horizontally (premultiplied floats). */
  const scaledRow = (y: number): Float32Array => {
    let row = rows.get(y);
    if (row) return row;
    row = spare.pop() ?? new Float32Array(width * 4);
    const base = ((crop.y + y) * src.width + crop.x) * 4;
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0, al = 0;
      const first = h.start[x];
      for (let k = 0; k < h.count[x]; k++) {
        const w = h.weights[x * h.taps + k];
        const o = base + (first + k) * 4;
        const alpha = src.data[o + 3] * w;
        r += src.data[o] * alpha;
        g += src.data[o + 1] * alpha;
        b += src.data[o + 2] * alpha;
        al += alpha;
      }
      const t = x * 4;
      row[t] = r;
      row[t + 1] = g;
      row[t + 2] = b;
      row[t + 3] = al;
    }
    rows.set(y, row);
    return row;
  };
  // Vertical pass, then un-premultiply.
  const out = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const first = v.start[y];
    for (const [kept, row] of rows) {
      if (kept < first) {
        rows.delete(kept);
        spare.push(row);
      }
    }
    const taps: Float32Array[] = [];
    for (let k = 0; k < v.count[y]; k++) taps.push(scaledRow(first + k));
    for (let x = 0; x < width; x++) {
      let r = 0, g = 0, b = 0, al = 0;
      const t = x * 4;
      for (let k = 0; k < taps.length; k++) {
        const w = v.weights[y * v.taps + k];
        const row = taps[k];
        r += row[t] * w;
        g += row[t + 1] * w;
        b += row[t + 2] * w;
        al += row[t + 3] * w;
      }
      const o = (y * width + x) * 4;
      if (al > 0) {
        out[o] = Math.min(255, Math.round(r / al));
        out[o + 1] = Math.min(255, Math.round(g / al));
        out[o + 2] = Math.min(255, Math.round(b / al));
      }
      out[o + 3] = Math.min(255, Math.round(al));
    }
  }
  return { width, height, data: out };
}

/** Dimensions of a rendition whose long side is `size`, keeping the aspect ratio (each side ≥ 1). */
export function fitLongSide(width: number, height: number, size: number): { width: number; height: number } {
  return width >= height
    ? { width: size, height: Math.max(1, Math.round((height * size) / width)) }
    : { width: Math.max(1, Math.round((width * size) / height)), height: size };
}

function opaque(image: RgbaImage): boolean {
  for (let i = 3; i < image.data.length; i += 4) if (image.data[i] !== 255) return false;
  return true;
}

function encodeRendition(image: RgbaImage, jpegOut: boolean): { bytes: Uint8Array; contentType: string } {
  if (jpegOut) {
    const encoded = encodeJpeg({ data: image.data, width: image.width, height: image.height }, JPEG_QUALITY);
    return { bytes: new Uint8Array(encoded.data), contentType: "image/jpeg" };
  }
  if (opaque(image)) {
    const rgb = new Uint8Array(image.width * image.height * 3);
    for (let i = 0, j = 0; i < image.data.length; i += 4, j += 3) {
      rgb[j] = image.data[i];
      rgb[j + 1] = image.data[i + 1];
      rgb[j + 2] = image.data[i + 2];
    }
    return {
      bytes: encodePng({ width: image.width, height: image.height, data: rgb, channels: 3, depth: 8 }),
      contentType: "image/png",
    };
  }
  return {
    bytes: encodePng({ width: image.width, height: image.height, data: image.data, channels: 4, depth: 8 }),
    contentType: "image/png",
  };
}

/**
 * The renditions of a native photo: one per RENDITION_SIZES entry smaller than the original's long
 * side (JPEG for a JPEG, PNG for a PNG or GIF), each resized from the next larger one, plus the
 * original bytes themselves (size label = its long side). Smallest first.
 * Throws UndecodableImage for corrupt data.
 */
export function makeRenditions(bytes: Uint8Array, info: ImageHeader): RenditionBytes[] {
  const image = decodeImage(bytes, info);
  const long = Math.max(image.width, image.height);
  // The original is kept without its EXIF, XMP and comments (where the photo was taken).
  const original: RenditionBytes = {
    size: long,
    width: image.width,
    height: image.height,
    bytes: stripMetadata(bytes, info.contentType),
    contentType: info.contentType,
  };
  const resized: RenditionBytes[] = [];
  let source = image;
  for (const size of [...RENDITION_SIZES].filter((s) => s < long).sort((a, b) => b - a)) {
    const { width, height } = fitLongSide(image.width, image.height, size);
    source = resizeRgba(source, width, height);
    resized.unshift({ size, width, height, ...encodeRendition(source, info.contentType === "image/jpeg") });
  }
  return [...resized, original];
}
