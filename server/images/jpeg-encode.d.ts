/** Types of jpeg-encode.js (the JPEG encoder of jpeg-js, changed to make less garbage). */
export function encode(
  image: { data: Uint8Array; width: number; height: number; comments?: string[]; exifBuffer?: Uint8Array },
  quality?: number,
): { data: Uint8Array; width: number; height: number };
