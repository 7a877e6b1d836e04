/** Image kinds accepted for native photos, recognised by their magic bytes, with real dimensions. */
export interface ImageInfo {
  contentType: "image/jpeg" | "image/png" | "image/gif";
  width: number;
  height: number;
}

/** Largest native photo accepted (bytes). */
export const MAX_PHOTO_BYTES = 10 * 1024 * 1024;

function png(b: Uint8Array): ImageInfo | undefined {
  const sig = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (b.length < 24 || !sig.every((v, i) => b[i] === v)) return undefined;
  if (String.fromCharCode(...b.subarray(12, 16)) !== "IHDR") return undefined;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return { contentType: "image/png", width: view.getUint32(16), height: view.getUint32(20) };
}

function gif(b: Uint8Array): ImageInfo | undefined {
  const head = String.fromCharCode(...b.subarray(0, 6));
  if (b.length < 10 || (head !== "GIF87a" && head !== "GIF89a")) return undefined;
  return { contentType: "image/gif", width: b[6] | (b[7] << 8), height: b[8] | (b[9] << 8) };
}

function jpeg(b: Uint8Array): ImageInfo | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8 || b[2] !== 0xff) return undefined;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1];
    if (marker === 0xff) {
      i++;
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    const length = (b[i + 2] << 8) | b[i + 3];
    if (length < 2) return undefined;
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      const height = (b[i + 5] << 8) | b[i + 6];
      const width = (b[i + 7] << 8) | b[i + 8];
      return { contentType: "image/jpeg", width, height };
    }
    i += 2 + length;
  }
  return undefined;
}

/** The image's kind and dimensions, or undefined when the bytes are not a JPEG, PNG or GIF image. */
export function imageInfo(bytes: Uint8Array): ImageInfo | undefined {
  const info = png(bytes) ?? jpeg(bytes) ?? gif(bytes);
  return info && info.width > 0 && info.height > 0 ? info : undefined;
}
