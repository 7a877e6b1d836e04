/**
 * The FIT file type (file_id.type) read from a file's first messages, without decoding it: Garmin
 * exports hold mostly non-workout FIT files (monitoring, sleep, settings, …) that are skipped.
 */

/** FIT file type 4: an activity (a workout recording). */
export const FIT_ACTIVITY = 4;

interface Definition {
  global: number;
  fields: { num: number; size: number }[];
  devBytes: number;
}

/** file_id.type of a FIT file, or null when it cannot be found in the first few KiB. */
export function fitFileType(bytes: Uint8Array): number | null {
  if (bytes.length < 14) return null;
  const headerSize = bytes[0];
  if (headerSize < 12 || String.fromCharCode(bytes[8], bytes[9], bytes[10], bytes[11]) !== ".FIT") return null;
  const defs = new Map<number, Definition>();
  let at = headerSize;
  const end = Math.min(bytes.length, headerSize + 8192);
  while (at < end) {
    const header = bytes[at++];
    if (header & 0x80) {
      // Compressed-timestamp data message: never file_id (which comes first); skip it.
      const def = defs.get((header >> 5) & 0x03);
      if (!def) return null;
      at += def.fields.reduce((n, f) => n + f.size, 0) + def.devBytes;
      continue;
    }
    const local = header & 0x0f;
    if (header & 0x40) {
      if (at + 5 > end) return null;
      const bigEndian = bytes[at + 1] === 1;
      const global = bigEndian ? (bytes[at + 2] << 8) | bytes[at + 3] : bytes[at + 2] | (bytes[at + 3] << 8);
      const count = bytes[at + 4];
      at += 5;
      const fields = [];
      for (let i = 0; i < count; i++, at += 3) fields.push({ num: bytes[at], size: bytes[at + 1] });
      let devBytes = 0;
      if (header & 0x20) {
        const devCount = bytes[at++];
        for (let i = 0; i < devCount; i++, at += 3) devBytes += bytes[at + 1];
      }
      defs.set(local, { global, fields, devBytes });
      continue;
    }
    const def = defs.get(local);
    if (!def) return null;
    for (const field of def.fields) {
      if (def.global === 0 && field.num === 0) return bytes[at];
      at += field.size;
    }
    at += def.devBytes;
  }
  return null;
}
