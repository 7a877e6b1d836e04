import { segmentRanges } from "./distance.ts";
import type { Sample } from "./types.ts";

/**
 * Fastest vertical speed (m/s) an altitude reading may change by and still be climbing: beyond it a
 * step is an altimeter settling at the start or a GPS fix jumping, and is not counted.
 */
export const MAX_VERTICAL_SPEED = 5;

/** Half-width (s) of the moving average applied before counting: GPS altitudes and barometric ones. */
export const GPS_SMOOTHING_S = 5;
export const BAROMETRIC_SMOOTHING_S = 2;
/**
 * Non-barometric altitude (GPS, phones) is averaged over ±GPS_SMOOTHING_M metres of distance (and at
 * least ±GPS_SMOOTHING_S seconds, so standing still averages its readings too): noise of a few metres
 * per reading then cancels however often the device records, where a window in seconds keeps more of
 * it the slower one goes.
 */
export const GPS_SMOOTHING_M = 20;
/** Smallest climb (m) counted from non-barometric altitude once smoothed. */
export const GPS_THRESHOLD_M = 2;

/** Gain with hysteresis: a climb counts once the altitude rose `threshold` metres above the last low. */
export function hysteresisGain(altitudes: ArrayLike<number>, from: number, to: number, threshold: number): number {
  if (to - from < 2) return 0;
  let gain = 0;
  let ref = altitudes[from];
  for (let i = from; i < to; i++) {
    const alt = altitudes[i];
    if (alt - ref >= threshold) {
      gain += alt - ref;
      ref = alt;
    } else if (alt < ref) {
      ref = alt;
    }
  }
  return gain;
}

/**
 * Elevation gain (m) over the samples [from, to) of each track segment: altitude jumps faster than
 * MAX_VERTICAL_SPEED are taken out (the series is shifted, not climbed), the result is averaged over
 * ±`smoothing` seconds, then climbs of at least `threshold` metres are summed. Nothing counts across
 * the gap between two segments.
 */
export function elevationGain(
  samples: readonly Sample[],
  options: {
    from?: number;
    to?: number;
    segmentStarts?: readonly number[];
    barometric: boolean;
    /** The distance stream: non-barometric altitude is averaged over distance, not time. */
    cum?: Float64Array;
    /** Overrides: half-width of the distance window and smallest climb, in metres. */
    smoothingMetres?: number;
    threshold?: number;
  },
): number {
  const from = options.from ?? 0;
  const to = options.to ?? samples.length;
  const smoothing = (options.barometric ? BAROMETRIC_SMOOTHING_S : GPS_SMOOTHING_S) * 1000;
  const threshold = options.threshold ?? (options.barometric ? 1 : GPS_THRESHOLD_M);
  const cum = options.barometric ? undefined : options.cum;
  const metres = options.smoothingMetres ?? GPS_SMOOTHING_M;
  let gain = 0;
  for (const [segFrom, segTo] of segmentRanges(samples.length, options.segmentStarts)) {
    const a = Math.max(from, segFrom);
    const b = Math.min(to, segTo);
    if (b - a < 2) continue;
    const times = new Float64Array(b - a);
    const alts = new Float64Array(b - a);
    const along = new Float64Array(b - a);
    let k = 0;
    let shift = 0;
    for (let i = a; i < b; i++) {
      const alt = samples[i].altitude;
      if (alt === null) continue;
      if (k > 0) {
        const raw = alt - shift;
        const dz = raw - alts[k - 1];
        const dt = (samples[i].time - times[k - 1]) / 1000;
        if (Math.abs(dz) > MAX_VERTICAL_SPEED * Math.max(dt, 1)) shift += dz;
      }
      times[k] = samples[i].time;
      if (cum) along[k] = cum[i];
      alts[k++] = alt - shift;
    }
    const smoothed = cum
      ? smoothOverDistance(times.subarray(0, k), along.subarray(0, k), alts.subarray(0, k), smoothing, metres)
      : smoothOverTime(times.subarray(0, k), alts.subarray(0, k), smoothing);
    gain += hysteresisGain(smoothed, 0, k, threshold);
  }
  return gain;
}

/** Centred moving average over ±halfWidth ms (prefix sums and two pointers: linear). */
export function smoothOverTime(times: ArrayLike<number>, values: ArrayLike<number>, halfWidth: number): Float64Array {
  const n = values.length;
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + values[i];
  const out = new Float64Array(n);
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) {
    while (times[lo] < times[i] - halfWidth) lo++;
    if (hi < i) hi = i;
    while (hi + 1 < n && times[hi + 1] <= times[i] + halfWidth) hi++;
    out[i] = (prefix[hi + 1] - prefix[lo]) / (hi - lo + 1);
  }
  return out;
}

/**
 * Centred moving average over the readings within ±`metres` of distance or ±`halfWidth` ms of time
 * of each one, whichever takes in more (prefix sums and two pointers: linear).
 */
export function smoothOverDistance(
  times: ArrayLike<number>,
  along: ArrayLike<number>,
  values: ArrayLike<number>,
  halfWidth: number,
  metres: number,
): Float64Array {
  const n = values.length;
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + values[i];
  const out = new Float64Array(n);
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < n; i++) {
    while (lo < i && along[i] - along[lo] > metres && times[i] - times[lo] > halfWidth) lo++;
    if (hi < i) hi = i;
    while (hi + 1 < n && (along[hi + 1] - along[i] <= metres || times[hi + 1] - times[i] <= halfWidth)) hi++;
    out[i] = (prefix[hi + 1] - prefix[lo]) / (hi - lo + 1);
  }
  return out;
}
