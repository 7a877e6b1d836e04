import type { Sample } from "./types.ts";

/**
 * Mean of a channel over samples (from, to], each value weighted by the duration of the interval it
 * ends (i − 1, i), over moving intervals only (`mask` when given narrows further, e.g. to one sport's
 * sessions). Irregular recording intervals then do not skew the result. Falls back to all intervals
 * when nothing was moving, and to the plain mean when no interval has a duration.
 */
export function timeWeightedMean(
  samples: readonly Sample[],
  value: (s: Sample) => number | null,
  moving: Uint8Array,
  options: { from?: number; to?: number; mask?: Uint8Array; skipZero?: boolean } = {},
): number | null {
  const from = options.from ?? 0;
  const to = options.to ?? samples.length - 1;
  const pass = (onlyMoving: boolean): number | null => {
    let sum = 0;
    let weight = 0;
    for (let i = Math.max(1, from + 1); i <= to; i++) {
      if (onlyMoving && !moving[i]) continue;
      if (options.mask && !options.mask[i]) continue;
      const v = value(samples[i]);
      if (v === null || (options.skipZero && v === 0)) continue;
      const dt = (samples[i].time - samples[i - 1].time) / 1000;
      if (dt <= 0) continue;
      sum += v * dt;
      weight += dt;
    }
    return weight > 0 ? sum / weight : null;
  };
  const result = pass(true) ?? pass(false);
  if (result !== null) return result;
  let sum = 0;
  let count = 0;
  for (let i = from; i <= to; i++) {
    const v = value(samples[i]);
    if (v === null || (options.skipZero && v === 0)) continue;
    sum += v;
    count++;
  }
  return count ? sum / count : null;
}

/** Largest value of a channel over [from, to] without spreading the array. */
export function maxOf(
  samples: readonly Sample[],
  value: (s: Sample) => number | null,
  from = 0,
  to = samples.length - 1,
): number | null {
  let best: number | null = null;
  for (let i = from; i <= to; i++) {
    const v = value(samples[i]);
    if (v !== null && (best === null || v > best)) best = v;
  }
  return best;
}
