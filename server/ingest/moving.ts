import type { ActivityType } from "../../shared/activity-types.ts";
import { segmentRanges } from "./distance.ts";
import type { DeviceLength, Pause, Sample } from "./types.ts";

const RIDES: ReadonlySet<ActivityType> = new Set(["Ride", "VirtualRide", "EBikeRide"]);

/** Speed (m/s) under which the athlete counts as stopped. */
export function movingThreshold(type: ActivityType): number {
  // Foot: walking breaks count as moving, standing does not.
  if (type === "Run") return 0.5;
  if (type === "Walk" || type === "Hike" || type === "Snowshoe") return 0.4;
  if (type === "Swim") return 0.1;
  if (RIDES.has(type)) return 1.0;
  return 0.5;
}

/** Half-width (s) of the window over which speed is judged from the distance stream. */
export const MOVING_WINDOW_S = 5;

/** Longest interval (s) a recorded speed describes; a longer one is judged by the distance covered. */
export const MAX_SPEED_INTERVAL_S = 10;

/** Longest gap between records (s) that still counts as moving when nothing tells distance. */
export const MAX_UNMEASURED_GAP_S = 60;

export interface MovingInput {
  samples: readonly Sample[];
  /** Cumulative distance, one value per sample. */
  cum: Float64Array;
  pauses: readonly Pause[];
  segmentStarts?: readonly number[];
  threshold: number;
  /**
   * A multisport file: the threshold of each interval (i − 1, i), by the sport of the session it lies
   * in (an open-water swim leg at 0.8 m/s is moving, though under a ride's 1 m/s).
   */
  thresholds?: Float64Array;
  /** Whether the distance stream measures movement (device distance, positions or speed). */
  measured: boolean;
  /** FIT pool-swim lengths; when there are active ones, only they are moving. */
  lengths?: readonly DeviceLength[];
  /** The device's timer alone decides (a run the athlete paused): every interval outside a pause moves. */
  timerOnly?: boolean;
}

/**
 * Whether each interval (i − 1, i) is moving; index 0 copies index 1. A timer pause, or the gap
 * between two GPX track segments, is never moving. Otherwise:
 * - pool swims (FIT lengths): moving inside an active length;
 * - with a recorded speed (and an interval of at most 10 s): the device's own speed against the
 *   threshold;
 * - else the speed over a window of ±5 s of the distance stream, so that distance recorded in steps
 *   (whole metres, every few records) does not leave seconds "stopped"; a recording gap longer than
 *   5 s is judged by the distance covered over it alone;
 * - nothing measures distance: every recorded interval up to 60 s.
 */
export function movingIntervals(input: MovingInput): Uint8Array {
  const { samples, cum, pauses, measured } = input;
  const n = samples.length;
  const thresholds = input.thresholds;
  const moving = new Uint8Array(n);
  const active = (input.lengths ?? []).filter((l) => l.active);
  const window = MOVING_WINDOW_S * 1000;
  let pauseIndex = 0;
  let lengthIndex = 0;
  for (const [from, to] of segmentRanges(n, input.segmentStarts)) {
    let a = from;
    let b = from;
    for (let i = from + 1; i < to; i++) {
      const t0 = samples[i - 1].time;
      const t1 = samples[i].time;
      const mid = (t0 + t1) / 2;
      while (pauseIndex < pauses.length && pauses[pauseIndex].end < mid) pauseIndex++;
      const paused = pauseIndex < pauses.length && pauses[pauseIndex].start <= mid && mid <= pauses[pauseIndex].end;
      if (paused || t1 <= t0) {
        moving[i] = !paused && t1 <= t0 ? moving[i - 1] : 0;
        continue;
      }
      if (active.length) {
        while (
          lengthIndex < active.length && active[lengthIndex].startTime + active[lengthIndex].elapsedTime * 1000 < mid
        ) lengthIndex++;
        moving[i] = lengthIndex < active.length && active[lengthIndex].startTime <= mid ? 1 : 0;
        continue;
      }
      if (input.timerOnly) {
        moving[i] = t1 - t0 <= MAX_UNMEASURED_GAP_S * 1000 ? 1 : 0;
        continue;
      }
      if (!measured) {
        moving[i] = t1 - t0 <= MAX_UNMEASURED_GAP_S * 1000 ? 1 : 0;
        continue;
      }
      const threshold = thresholds ? thresholds[i] : input.threshold;
      const speed = samples[i].speed;
      if (speed !== null && t1 - t0 <= MAX_SPEED_INTERVAL_S * 1000) {
        moving[i] = speed >= threshold ? 1 : 0;
        continue;
      }
      if (t1 - t0 > window) {
        // A recording gap longer than the window: judged by the distance covered over it alone.
        moving[i] = (cum[i] - cum[i - 1]) / ((t1 - t0) / 1000) >= threshold ? 1 : 0;
        continue;
      }
      while (a < i - 1 && samples[a].time < t0 - window) a++;
      if (b < i) b = i;
      while (b + 1 < to && samples[b + 1].time <= t1 + window) b++;
      const span = (samples[b].time - samples[a].time) / 1000;
      moving[i] = span > 0 && (cum[b] - cum[a]) / span >= threshold ? 1 : 0;
    }
  }
  if (n > 1) moving[0] = moving[1];
  return moving;
}

/** Moving seconds accumulated up to each sample (float), from the moving intervals. */
export function movingSeconds(samples: readonly Sample[], moving: Uint8Array): Float64Array {
  const out = new Float64Array(samples.length);
  for (let i = 1; i < samples.length; i++) {
    out[i] = out[i - 1] + (moving[i] ? Math.max(0, samples[i].time - samples[i - 1].time) / 1000 : 0);
  }
  return out;
}
