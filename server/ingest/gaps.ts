import type { Sample } from "./types.ts";

/**
 * Streams never carry null inside a numeric series (clients expect numbers). The rules:
 * - position, altitude and temperature: linear in time between the readings around a gap; before the
 *   first reading the first, after the last reading the last;
 * - heart rate: the last reading is held for gaps up to HOLD_HEARTRATE_S, longer gaps are bridged
 *   linearly between the readings around them;
 * - cadence and power: the last reading is held for gaps up to HOLD_CADENCE_S / HOLD_POWER_S, after
 *   that 0 (not pedalling, no power).
 *
 * A channel is one Float64Array per activity with NaN where a sample has no reading (parsers never
 * let NaN through as a value), so filling a gap allocates nothing per sample.
 */
export const HOLD_HEARTRATE_S = 30;
export const HOLD_CADENCE_S = 10;
export const HOLD_POWER_S = 5;

/** One value per sample, NaN where the sample has none; null when no sample has one. */
export function channel(samples: readonly Sample[], value: (s: Sample) => number | null): Float64Array | null {
  const n = samples.length;
  const out = new Float64Array(n);
  let any = false;
  for (let i = 0; i < n; i++) {
    const v = value(samples[i]);
    if (v === null) out[i] = NaN;
    else {
      out[i] = v;
      any = true;
    }
  }
  return any ? out : null;
}

/** Linear interpolation over time across gaps (NaN); ends hold the nearest reading. Null when no reading. */
export function interpolated(values: Float64Array | null, times: ArrayLike<number>): Float64Array | null {
  if (values === null) return null;
  const n = values.length;
  const out = new Float64Array(n);
  let last = -1;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== v) continue;
    if (last === -1) {
      for (let k = 0; k < i; k++) out[k] = v;
    } else if (last < i - 1) {
      const v0 = values[last];
      const t0 = times[last];
      const span = times[i] - t0;
      for (let k = last + 1; k < i; k++) out[k] = span > 0 ? v0 + (v - v0) * ((times[k] - t0) / span) : v0;
    }
    out[i] = v;
    last = i;
  }
  if (last === -1) return null;
  const tail = values[last];
  for (let k = last + 1; k < n; k++) out[k] = tail;
  return out;
}

/**
 * Holds the last reading for gaps up to `holdSeconds`; beyond, `fallback` ("interpolate" bridges
 * linearly, a number is used as is). Null when no reading.
 */
export function held(
  values: Float64Array | null,
  times: ArrayLike<number>,
  holdSeconds: number,
  fallback: number | "interpolate",
): Float64Array | null {
  if (values === null) return null;
  const bridged = fallback === "interpolate" ? interpolated(values, times) : null;
  const constant = fallback === "interpolate" ? 0 : fallback;
  const hold = holdSeconds * 1000;
  const n = values.length;
  const out = new Float64Array(n);
  let last = -1;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === v) {
      out[i] = v;
      last = i;
      continue;
    }
    if (last !== -1 && times[i] - times[last] <= hold) out[i] = values[last];
    else out[i] = bridged ? bridged[i] : constant;
  }
  return out;
}

/** A stream as served: plain numbers, rounded to `digits` decimals (none: as they are). */
export function streamOf(values: ArrayLike<number>, digits?: number): number[] {
  const n = values.length;
  const out: number[] = [];
  if (digits === undefined) {
    for (let i = 0; i < n; i++) out.push(values[i]);
    return out;
  }
  const f = 10 ** digits;
  for (let i = 0; i < n; i++) out.push(Math.round(values[i] * f) / f);
  return out;
}

/**
 * The latlng stream: positions filled like altitude (latitude and longitude interpolated separately
 * over time across samples without a position), rounded to `digits` decimals. Null without positions.
 */
export function latlngStream(
  samples: readonly Sample[],
  times: ArrayLike<number>,
  digits: number,
): [number, number][] | null {
  const lat = interpolated(channel(samples, (s) => (s.lat !== null && s.lng !== null ? s.lat : null)), times);
  const lng = interpolated(channel(samples, (s) => (s.lat !== null && s.lng !== null ? s.lng : null)), times);
  if (!lat || !lng) return null;
  const f = 10 ** digits;
  const out: [number, number][] = [];
  for (let i = 0; i < lat.length; i++) out.push([Math.round(lat[i] * f) / f, Math.round(lng[i] * f) / f]);
  return out;
}
