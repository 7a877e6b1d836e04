import type { ActivityStreams } from "../../shared/streams.ts";

/**
 * Two efforts on a segment side by side (issue #47 item 6): each effort's time, speed, heart rate
 * and power at the same points along the segment, and the time gap between them. An effort's
 * distance along the segment is its activity's distance from the effort's start, scaled so that
 * it ends at the segment's length (two recordings of one road differ by a few metres), and at the
 * finish its time is its elapsed time: there the gap is exactly the difference of the elapsed times.
 */

/** The channels compared, where the recording has them. */
export const COMPARED = ["velocity_smooth", "heartrate", "watts"] as const;
type Channel = (typeof COMPARED)[number];

/** One effort's part of its activity's streams (the stretch from start_index to end_index, as released). */
export interface EffortStretch {
  time: number[];
  distance: number[];
  velocity_smooth?: number[];
  heartrate?: number[];
  watts?: number[];
}

export interface ComparedEffort {
  /** Seconds since the effort's start at each point. */
  time: number[];
  velocity_smooth: (number | null)[] | null;
  heartrate: (number | null)[] | null;
  watts: (number | null)[] | null;
}

/** At most this many points along the segment (one every metre on short ones). */
export const MAX_POINTS = 500;

/** The points along a segment of `length` metres where the efforts are compared: 0 … length. */
export function comparisonPoints(length: number): number[] {
  const count = Math.max(2, Math.min(MAX_POINTS, Math.floor(length) + 1));
  const step = length / (count - 1);
  return Array.from({ length: count }, (_, k) => (k === count - 1 ? length : Math.round(k * step * 10) / 10));
}

/** The stretch of an activity's streams an effort covers (indices inclusive). */
export function effortStretch(streams: ActivityStreams, startIndex: number, endIndex: number): EffortStretch {
  const slice = <T>(values: T[] | undefined) => values?.slice(startIndex, endIndex + 1);
  return {
    time: slice(streams.time) ?? [],
    distance: slice(streams.distance) ?? [],
    velocity_smooth: slice(streams.velocity_smooth),
    heartrate: slice(streams.heartrate),
    watts: slice(streams.watts),
  };
}

/**
 * An effort at the given points: for each point the first moment the effort reached it (linear
 * between its samples), and its channels there. Null when the stretch cannot place the points (fewer
 * than two samples, or no distance covered).
 */
export function compareAt(
  stretch: EffortStretch,
  points: readonly number[],
  length: number,
  /** The effort's elapsed time: the time at the finish. */
  elapsedTime: number,
): ComparedEffort | null {
  const n = Math.min(stretch.time.length, stretch.distance.length);
  if (n < 2) return null;
  const d0 = stretch.distance[0], t0 = stretch.time[0];
  const covered = stretch.distance[n - 1] - d0;
  if (!(covered > 0)) return null;
  const scale = length / covered;
  const along = (i: number) => (stretch.distance[i] - d0) * scale;
  const channel = (name: Channel) => {
    const values = stretch[name];
    return values && values.length >= n && values.some((v) => v !== null && v !== undefined) ? values : null;
  };
  const channels = Object.fromEntries(COMPARED.map((c) => [c, channel(c)])) as Record<Channel, number[] | null>;
  const out: ComparedEffort = {
    time: [],
    velocity_smooth: channels.velocity_smooth ? [] : null,
    heartrate: channels.heartrate ? [] : null,
    watts: channels.watts ? [] : null,
  };
  let i = 1;
  for (const x of points) {
    // The first sample at or past x (distance never decreases).
    while (i < n - 1 && along(i) < x) i++;
    const a = along(i - 1), b = along(i);
    const f = b > a ? Math.min(1, Math.max(0, (x - a) / (b - a))) : 1;
    const between = (v0: number, v1: number) => v0 + f * (v1 - v0);
    out.time.push(round(between(stretch.time[i - 1], stretch.time[i]) - t0, 1));
    for (const c of COMPARED) {
      const values = channels[c];
      if (!values) continue;
      const v0 = values[i - 1], v1 = values[i];
      const v = v0 == null ? v1 : v1 == null ? v0 : between(v0, v1);
      out[c]!.push(v == null ? null : round(v, c === "velocity_smooth" ? 2 : 0));
    }
  }
  // The finish is where the effort ends (its elapsed time, as matched), whatever the samples gave.
  out.time[out.time.length - 1] = elapsedTime;
  return out;
}

/** The gap at each point: the second effort's time minus the first's (positive: the second was behind). */
export function gapOf(first: ComparedEffort, second: ComparedEffort): number[] {
  return first.time.map((t, k) => round(second.time[k] - t, 1));
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
