import { webcrypto } from "node:crypto";

/**
 * A heatmap id: 52 cryptographically random bits above 2^52, so every id is a 16-digit JSON
 * integer below 2^53 (exact in every JSON parser), unrelated to any other id and hopeless to guess
 * (one chance in 4.5 × 10^15 per try). Never from a sequence.
 */
export function randomHeatmapId(): number {
  const words = webcrypto.getRandomValues(new Uint32Array(2));
  return 2 ** 52 + (words[0] & 0xfffff) * 2 ** 32 + words[1];
}

export const HEATMAP_ID_MIN = 2 ** 52;
