/**
 * Splits and best efforts of a run, from one "course": cumulative distance, elapsed and moving seconds
 * per sample that advance only over the intervals of the activity's own sport (all of them, unless a
 * multisport file also holds other sports). Positions between samples are interpolated, so splits add
 * up exactly to the course's distance and times, and a longer best effort is never faster than a
 * shorter one.
 */
export interface Course {
  distance: Float64Array;
  elapsed: Float64Array;
  moving: Float64Array;
  /** Index of the first sample of the contiguous same-sport block each sample belongs to. */
  blockStart: Int32Array;
  /** Seconds after the last sample that still belong to the activity (the timer ran on): elapsed, moving. */
  trailElapsed: number;
  trailMoving: number;
}

/**
 * Time of the activity outside its samples (single-sport files): the timer started `leadElapsed`
 * seconds before the first record and ran on `trailElapsed` after the last; the activity's moving time
 * is `trailMoving` more than the samples' (a paused run's timer time). The first split starts at the
 * timer's start and the last ends at its stop, so splits add up to the activity's times.
 */
export interface CourseSpan {
  leadElapsed: number;
  trailElapsed: number;
  trailMoving: number;
}

/** Builds the course: intervals outside `mask` (when given) add nothing and start a new block. */
export function courseOf(
  times: ArrayLike<number>,
  cum: Float64Array,
  movingSecs: Float64Array,
  mask?: Uint8Array,
  span: CourseSpan = { leadElapsed: 0, trailElapsed: 0, trailMoving: 0 },
): Course {
  const n = times.length;
  const distance = new Float64Array(n);
  const elapsed = new Float64Array(n);
  const moving = new Float64Array(n);
  const blockStart = new Int32Array(n);
  if (n > 0 && (!mask || mask[0] === 1)) distance[0] = cum[0];
  if (n > 0) elapsed[0] = Math.max(0, span.leadElapsed);
  for (let i = 1; i < n; i++) {
    const inside = !mask || mask[i] === 1;
    distance[i] = distance[i - 1] + (inside ? cum[i] - cum[i - 1] : 0);
    elapsed[i] = elapsed[i - 1] + (inside ? (times[i] - times[i - 1]) / 1000 : 0);
    moving[i] = moving[i - 1] + (inside ? movingSecs[i] - movingSecs[i - 1] : 0);
    blockStart[i] = inside ? blockStart[i - 1] : i;
  }
  return {
    distance,
    elapsed,
    moving,
    blockStart,
    trailElapsed: Math.max(0, span.trailElapsed),
    trailMoving: span.trailMoving,
  };
}

/** Value of `series` where the course distance reaches `d`, searching from index `from` (returns index too). */
function at(course: Course, series: Float64Array, d: number, from: number): { value: number; index: number } {
  const dist = course.distance;
  let i = from;
  while (i + 1 < dist.length && dist[i + 1] < d) i++;
  if (i + 1 >= dist.length) return { value: series[dist.length - 1], index: dist.length - 1 };
  const span = dist[i + 1] - dist[i];
  const f = span > 0 ? Math.min(1, Math.max(0, (d - dist[i]) / span)) : 0;
  return { value: series[i] + f * (series[i + 1] - series[i]), index: i };
}

export interface SplitRange {
  split: number;
  distance: number;
  elapsedTime: number;
  movingTime: number;
  /** Samples the split covers (the one at or before its start to the one at or after its end). */
  startIndex: number;
  endIndex: number;
  /** Fractions between samples at the boundaries, for interpolating other channels. */
  startDistance: number;
  endDistance: number;
}

/**
 * Splits of `unit` metres, the last one the remainder. Times are differences of rounded cumulative
 * times, so they add up to the course's rounded totals.
 */
export function splitRanges(course: Course, unit: number): SplitRange[] {
  const n = course.distance.length;
  const total = course.distance[n - 1];
  if (!(total > 0)) return [];
  const out: SplitRange[] = [];
  let prevElapsed = 0;
  let prevMoving = 0;
  let prevIndex = 0;
  for (let k = 1; (k - 1) * unit < total; k++) {
    const endDistance = Math.min(total, k * unit);
    const last = endDistance >= total;
    const e = last
      ? { value: course.elapsed[n - 1] + course.trailElapsed, index: n - 1 }
      : at(course, course.elapsed, endDistance, prevIndex);
    const m = last
      ? course.moving[n - 1] + course.trailMoving
      : at(course, course.moving, endDistance, prevIndex).value;
    const elapsedRounded = Math.round(e.value);
    // Moving never above elapsed, cumulatively or within the split.
    const movingRounded = Math.max(prevMoving, Math.min(Math.round(m), prevMoving + elapsedRounded - prevElapsed));
    out.push({
      split: k,
      distance: endDistance - (k - 1) * unit,
      elapsedTime: elapsedRounded - prevElapsed,
      movingTime: movingRounded - prevMoving,
      startIndex: prevIndex,
      endIndex: last ? n - 1 : Math.min(n - 1, e.index + 1),
      startDistance: (k - 1) * unit,
      endDistance,
    });
    prevElapsed = elapsedRounded;
    prevMoving = movingRounded;
    prevIndex = e.index;
    if (last) break;
  }
  return out;
}

export interface EffortWindow {
  elapsedTime: number;
  movingTime: number;
  startIndex: number;
  endIndex: number;
}

/**
 * Fastest stretch of `meters` (elapsed time), ending at a sample and starting at the interpolated
 * point exactly `meters` earlier within the same block. Linear in the number of samples.
 */
export function bestEffort(course: Course, meters: number): EffortWindow | null {
  const { distance: dist, elapsed, moving, blockStart } = course;
  const n = dist.length;
  let best: { t: number; m: number; a: number; b: number } | null = null;
  let a = 0;
  for (let b = 1; b < n; b++) {
    if (a < blockStart[b]) a = blockStart[b];
    const target = dist[b] - meters;
    if (target < dist[blockStart[b]]) continue;
    while (a + 1 < b && dist[a + 1] <= target) a++;
    const span = dist[a + 1] - dist[a];
    const f = span > 0 ? Math.min(1, Math.max(0, (target - dist[a]) / span)) : 0;
    const t = elapsed[b] - (elapsed[a] + f * (elapsed[a + 1] - elapsed[a]));
    if (!best || t < best.t) {
      best = { t, m: moving[b] - (moving[a] + f * (moving[a + 1] - moving[a])), a, b };
    }
  }
  if (!best) return null;
  const elapsedTime = Math.round(best.t);
  return { elapsedTime, movingTime: Math.min(elapsedTime, Math.round(best.m)), startIndex: best.a, endIndex: best.b };
}
