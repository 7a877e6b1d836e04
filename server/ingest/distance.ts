import { haversine } from "./geo.ts";
import type { Sample } from "./types.ts";

/** Longest interval (s) over which a recorded speed alone is trusted to carry distance. */
const MAX_SPEED_ONLY_GAP_S = 10;

/**
 * Track segments as [start, end) index ranges: the whole recording, or one range per GPX track or
 * track segment (`segmentStarts`). Nothing accumulates across the gap between two ranges.
 */
export function segmentRanges(n: number, segmentStarts: readonly number[] | undefined): [number, number][] {
  const starts = [...new Set((segmentStarts ?? []).filter((i) => i > 0 && i < n))].sort((a, b) => a - b);
  const ranges: [number, number][] = [];
  let from = 0;
  for (const start of starts) {
    ranges.push([from, start]);
    from = start;
  }
  ranges.push([from, n]);
  return ranges;
}

/**
 * Cumulative distance (m), monotone, one value per sample.
 *
 * Within a segment the device's own distance wins where it records one: between two records that
 * carry it, distance is interpolated over time (a device writing distance on every other record, or in
 * whole metres, is not topped up from GPS). Before the first and after the last such record, and in
 * files without device distance, positions are summed; without positions, the recorded speed.
 * A device distance that goes backwards adds nothing. With `startAt` the stream starts there (the
 * distance of laps written without records before the first one); with `startAtDeviceDistance`
 * at the first record's device distance rather than 0.
 */
export function distanceStream(
  samples: readonly Sample[],
  segmentStarts?: readonly number[],
  options: { startAtDeviceDistance?: boolean; startAt?: number; holdAfterDevice?: boolean } = {},
): Float64Array {
  const n = samples.length;
  const cum = new Float64Array(n);
  // The device's distance at its first record covers what came before it (a lap without records).
  const first = samples[0]?.distance ?? null;
  let base = options.startAt !== undefined
    ? Math.max(0, options.startAt)
    : options.startAtDeviceDistance && first !== null && first > 0
    ? first
    : 0;
  for (const [from, to] of segmentRanges(n, segmentStarts)) {
    cum[from] = base;
    let firstDevice = -1;
    let lastDevice = -1;
    for (let i = from; i < to; i++) {
      if (samples[i].distance !== null) {
        if (firstDevice === -1) firstDevice = i;
        lastDevice = i;
      }
    }
    // Leading part (and whole segment without device distance): positions or speed.
    const leadEnd = firstDevice === -1 ? to - 1 : firstDevice;
    accumulateMeasured(samples, cum, from, from, leadEnd);
    if (firstDevice !== -1) {
      let prevIndex = firstDevice;
      let prevDevice = samples[firstDevice].distance as number;
      for (let i = firstDevice + 1; i <= lastDevice; i++) {
        const d = samples[i].distance;
        if (d === null) continue;
        const advance = Math.max(0, d - prevDevice);
        const t0 = samples[prevIndex].time;
        const span = samples[i].time - t0;
        const start = cum[prevIndex];
        for (let k = prevIndex + 1; k < i; k++) {
          cum[k] = span > 0 ? start + advance * ((samples[k].time - t0) / span) : start;
        }
        cum[i] = start + advance;
        prevIndex = i;
        prevDevice = d;
      }
      // After the device's last reading: held (FIT: the device's total ends the stream, see
      // `endAt`), or topped up from positions or speed.
      if (options.holdAfterDevice) { for (let i = lastDevice + 1; i < to; i++) cum[i] = cum[lastDevice]; }
      else accumulateMeasured(samples, cum, from, lastDevice, to - 1);
    }
    base = cum[to - 1];
  }
  return cum;
}

/**
 * Sums positions (or speed × time) from index `from` to `to` inclusive, starting at cum[from]; the
 * last position before `from` is looked for no further back than `floor` (the segment's start).
 */
function accumulateMeasured(
  samples: readonly Sample[],
  cum: Float64Array,
  floor: number,
  from: number,
  to: number,
): void {
  let lastLat: number | null = null;
  let lastLng: number | null = null;
  for (let k = from; k >= floor && lastLat === null; k--) {
    if (samples[k].lat !== null && samples[k].lng !== null) {
      lastLat = samples[k].lat;
      lastLng = samples[k].lng;
    }
  }
  for (let i = from + 1; i <= to; i++) {
    const s = samples[i];
    let step = 0;
    if (s.gapDistance !== undefined) {
      // A stretch the device wrote no trackpoints for: the distance its lap gives it, not a straight
      // line from the last position.
      cum[i] = cum[i - 1] + Math.max(0, s.gapDistance);
      const positioned = s.lat !== null && s.lng !== null;
      lastLat = positioned ? s.lat : null;
      lastLng = positioned ? s.lng : null;
      continue;
    }
    if (s.lat !== null && s.lng !== null) {
      if (lastLat !== null && lastLng !== null) step = haversine(lastLat, lastLng, s.lat, s.lng);
      lastLat = s.lat;
      lastLng = s.lng;
    } else if (s.speed !== null && s.speed > 0) {
      step = s.speed * Math.min(MAX_SPEED_ONLY_GAP_S, (s.time - samples[i - 1].time) / 1000);
    }
    cum[i] = cum[i - 1] + step;
  }
}

/** Scales a distance stream so that it ends at `total` (the device's own or the pool's figure). */
export function scaleTo(cum: Float64Array, total: number): void {
  const end = cum[cum.length - 1];
  if (!(end > 0) || !(total > 0)) return;
  const f = total / end;
  for (let i = 0; i < cum.length; i++) cum[i] *= f;
}

/**
 * Makes a device-distance stream end at the device's total without rescaling its own readings: what
 * the total holds beyond the last reading is spread, in time, over the records after it; only when
 * there are none (or the readings overshoot the total) is the stream scaled.
 */
export function endAt(cum: Float64Array, times: ArrayLike<number>, total: number, lastReading: number): void {
  const n = cum.length;
  if (n === 0 || !(total > 0)) return;
  const reached = cum[Math.max(0, Math.min(n - 1, lastReading))];
  if (lastReading < 0 || lastReading >= n - 1 || reached > total) {
    scaleTo(cum, total);
    return;
  }
  const t0 = times[lastReading];
  const span = times[n - 1] - t0;
  for (let i = lastReading + 1; i < n; i++) {
    cum[i] = reached + (total - reached) * (span > 0 ? (times[i] - t0) / span : 1);
  }
}
