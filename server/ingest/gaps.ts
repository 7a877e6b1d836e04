/**
 * Streams never carry null inside a numeric series (clients expect numbers). The rules:
 * - position, altitude and temperature: linear in time between the readings around a gap; before the
 *   first reading the first, after the last reading the last;
 * - heart rate: the last reading is held for gaps up to HOLD_HEARTRATE_S, longer gaps are bridged
 *   linearly between the readings around them;
 * - cadence and power: the last reading is held for gaps up to HOLD_CADENCE_S / HOLD_POWER_S, after
 *   that 0 (not pedalling, no power).
 */
export const HOLD_HEARTRATE_S = 30;
export const HOLD_CADENCE_S = 10;
export const HOLD_POWER_S = 5;

/** Linear interpolation over time across nulls; ends hold the nearest reading. Null when no reading. */
export function interpolated(values: readonly (number | null)[], times: readonly number[]): number[] | null {
  const n = values.length;
  const out = new Array<number>(n);
  let last = -1;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null) continue;
    if (last === -1) {
      for (let k = 0; k < i; k++) out[k] = v;
    } else {
      const v0 = values[last] as number;
      const span = times[i] - times[last];
      for (let k = last + 1; k < i; k++) out[k] = span > 0 ? v0 + (v - v0) * ((times[k] - times[last]) / span) : v0;
    }
    out[i] = v;
    last = i;
  }
  if (last === -1) return null;
  for (let k = last + 1; k < n; k++) out[k] = values[last] as number;
  return out;
}

/**
 * Holds the last reading for gaps up to `holdSeconds`; beyond, `fallback` ("interpolate" bridges
 * linearly, a number is used as is). Null when no reading.
 */
export function held(
  values: readonly (number | null)[],
  times: readonly number[],
  holdSeconds: number,
  fallback: number | "interpolate",
): number[] | null {
  const bridged = fallback === "interpolate" ? interpolated(values, times) : null;
  const n = values.length;
  const out = new Array<number>(n);
  let last = -1;
  let any = false;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v !== null) {
      out[i] = v;
      last = i;
      any = true;
      continue;
    }
    if (last !== -1 && times[i] - times[last] <= holdSeconds * 1000) out[i] = values[last] as number;
    else out[i] = bridged ? bridged[i] : (fallback as number);
  }
  return any ? out : null;
}

/** Positions filled like altitude: latitude and longitude interpolated separately over time. */
export function interpolatedLatlng(points: readonly ([number, number] | null)[], times: readonly number[]): [number, number][] | null {
  const lat = interpolated(points.map((p) => (p ? p[0] : null)), times);
  const lng = interpolated(points.map((p) => (p ? p[1] : null)), times);
  if (!lat || !lng) return null;
  return lat.map((la, i) => [la, lng[i]]);
}
