import type { ActivityDistance } from "./activity-distance.ts";
import { MAX_SPEED_INTERVAL_S } from "./moving.ts";
import type { ActivityMoving } from "./moving-time.ts";
import { round } from "./rounding.ts";
import type { ActivitySpan } from "./span.ts";
import type { Sample } from "./types.ts";

/** Half-width (ms) of the window over which a recorded speed is checked against the distance. */
const SPEED_CHECK_WINDOW_MS = 5000;

/**
 * The velocity stream (m/s, 2 decimals): the device's own speed where it records one over a short
 * interval, else the distance stream's; smoothed over ±2 samples. A recorded speed that disagrees
 * with the distance covered around it (over ±5 s: by more than half and 1 m/s) is a broken field,
 * not a sprint: the distance's own speed replaces it.
 */
export function velocityStream(samples: readonly Sample[], times: Float64Array, distance: ActivityDistance): number[] {
  const n = samples.length;
  const { cum, measured } = distance;
  const poolSwim = distance.pool !== null;
  const rawSpeed = new Float64Array(n);
  const aroundSpeed = (i: number) => {
    let a = i;
    let b = i;
    while (a > 0 && times[i] - times[a - 1] <= SPEED_CHECK_WINDOW_MS) a--;
    while (b < n - 1 && times[b + 1] - times[i] <= SPEED_CHECK_WINDOW_MS) b++;
    const span = (times[b] - times[a]) / 1000;
    return span > 0 ? (cum[b] - cum[a]) / span : null;
  };
  const plausible = (recorded: number | null, i: number) => {
    if (recorded === null || !measured) return recorded;
    const around = aroundSpeed(i);
    if (around === null) return recorded;
    return recorded > around * 1.5 + 1 ? around : recorded;
  };
  for (let i = 1; i < n; i++) {
    const dt = (times[i] - times[i - 1]) / 1000;
    // Pool swims: the lengths' distance over time (a record's speed there is a length's or a stroke's).
    const recorded = poolSwim ? null : plausible(samples[i].speed, i);
    rawSpeed[i] = recorded !== null && dt <= MAX_SPEED_INTERVAL_S ? recorded : dt > 0 ? (cum[i] - cum[i - 1]) / dt : 0;
  }
  if (n > 1) rawSpeed[0] = (poolSwim ? null : plausible(samples[0].speed, 0)) ?? rawSpeed[1];
  const velocity = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    let count = 0;
    for (let j = Math.max(0, i - 2); j <= Math.min(n - 1, i + 2); j++) {
      sum += rawSpeed[j];
      count++;
    }
    velocity[i] = round(sum / count, 2);
  }
  return velocity;
}

/**
 * The max speed: a pool swim's fastest active length (pool length over its time, as the device's
 * session max_speed), else the fastest moving sample of the activity's own sport.
 */
export function maxSpeedOf(
  velocity: readonly number[],
  moving: Uint8Array,
  distance: ActivityDistance,
  mask: Uint8Array | undefined,
): number {
  const inSport = (i: number) => !mask || mask[i] === 1;
  let maxSpeed = 0;
  if (distance.pool) {
    const pool = distance.pool.poolLength;
    for (const l of distance.pool.active) {
      const secs = l.elapsedTime > 0 ? l.elapsedTime : l.timerTime ?? 0;
      if (secs > 0) maxSpeed = Math.max(maxSpeed, round(pool / secs, 3));
    }
  } else {
    for (let i = 0; i < velocity.length; i++) {
      if (moving[i] && inSport(i) && velocity[i] > maxSpeed) maxSpeed = velocity[i];
    }
  }
  return maxSpeed;
}

/** The distance and moving time of the activity's own sport (a multisport file's `mask`), and its average speed. */
export interface SportSpeed {
  sportMoving: number;
  averageSpeed: number;
}

/** Average speed over the moving time of the activity's own sport (over the elapsed time when nothing moved). */
export function averageSpeedOf(
  distance: ActivityDistance,
  moving: ActivityMoving,
  span: ActivitySpan,
  mask: Uint8Array | undefined,
): SportSpeed {
  const { cum } = distance;
  const { movSecs } = moving;
  const n = cum.length;
  let sportDistance = distance.totalDistance;
  let sportMoving = moving.movingTime;
  if (mask) {
    sportDistance = 0;
    let secs = 0;
    for (let i = 1; i < n; i++) {
      if (!mask[i]) continue;
      sportDistance += cum[i] - cum[i - 1];
      secs += movSecs[i] - movSecs[i - 1];
    }
    sportMoving = Math.round(secs);
  }
  const elapsedTime = span.elapsedTime;
  const averageSpeed = sportMoving > 0
    ? sportDistance / sportMoving
    : elapsedTime > 0
    ? sportDistance / elapsedTime
    : 0;
  return { sportMoving, averageSpeed };
}
