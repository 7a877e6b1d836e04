import type { Sample } from "./types.ts";

/**
 * Streams never carry null inside a numeric series (clients expect numbers). One rule for a sensor's
 * gaps, the same for its stream and for every average, maximum and estimate taken from it (the samples
 * are filled by it before anything is derived: `holdReadings`):
 * - heart rate, cadence and power: a reading stands for at most HOLD_HEARTRATE_S / HOLD_CADENCE_S /
 *   HOLD_POWER_S after it (and the first reading for as long before it); beyond, there is no reading:
 *   the stream shows 0, averages leave heart rate and cadence out there and count power as 0 (what the
 *   stream shows: no power);
 * - position, altitude and temperature: linear in time between the readings around a gap; before the
 *   first reading the first, after the last reading the last (temperature's average is over these too).
 *
 * A channel is one Float64Array per activity with NaN where a sample has no reading (parsers never
 * let NaN through as a value), so filling a gap allocates nothing per sample.
 */
export const HOLD_HEARTRATE_S = 30;
export const HOLD_CADENCE_S = 10;
export const HOLD_POWER_S = 5;

type HeldKey = "heartrate" | "cadence" | "watts";

/**
 * Fills the samples' heart rate, cadence and power by the gap rule above: a sample without a reading
 * takes the last reading when it is at most the sensor's hold old (before the first reading, the
 * first when the interval the sample closes lies within the hold before it); otherwise it has none
 * (null). A value then never stands for more than the hold away from its reading: averages weigh each
 * sample's value by the interval it closes, and a held value's interval lies within the hold. Temperature
 * is filled linearly across gaps like the stream.
 */
export function holdReadings(samples: Sample[], times: ArrayLike<number>): void {
  holdChannel(samples, "heartrate", HOLD_HEARTRATE_S);
  holdChannel(samples, "cadence", HOLD_CADENCE_S);
  holdChannel(samples, "watts", HOLD_POWER_S);
  let gap = false;
  for (let i = 0; i < samples.length && !gap; i++) gap = samples[i].temp === null;
  if (!gap) return;
  const temp = interpolated(channel(samples, (s) => s.temp), times);
  if (temp) { for (let i = 0; i < samples.length; i++) samples[i].temp = temp[i]; }
}

function holdChannel(samples: Sample[], key: HeldKey, holdSeconds: number): void {
  const hold = holdSeconds * 1000;
  let gap = false;
  for (let i = 0; i < samples.length && !gap; i++) gap = samples[i][key] === null;
  if (!gap) return;
  let first = -1;
  let lastTime = 0;
  let lastValue: number | null = null;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    const v = s[key];
    if (v !== null) {
      if (first === -1) first = i;
      lastTime = s.time;
      lastValue = v;
    } else if (lastValue !== null && s.time - lastTime <= hold) s[key] = lastValue;
  }
  if (first <= 0) return;
  // Before the first reading: the samples whose interval (the one they close, over which averages
  // count their value) lies within the hold before it, and the very first sample when it does.
  const at = samples[first].time;
  const value = samples[first][key];
  for (let i = first - 1; i >= 0 && at - samples[i > 0 ? i - 1 : 0].time <= hold; i--) samples[i][key] = value;
}

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

/** A sensor's stream as served: its samples' values (filled by `holdReadings`), 0 where none; null without any reading. */
export function sensorStream(samples: readonly Sample[], key: HeldKey | "temp", digits?: number): number[] | null {
  const n = samples.length;
  let any = false;
  for (let i = 0; i < n && !any; i++) any = samples[i][key] !== null;
  if (!any) return null;
  const f = digits === undefined ? 1 : 10 ** digits;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const v = samples[i][key];
    out[i] = v === null ? 0 : digits === undefined ? v : Math.round(v * f) / f;
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
