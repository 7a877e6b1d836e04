import type { ActivityType } from "../../shared/activity-types.ts";
import type { ActivityDistance } from "./activity-distance.ts";
import { movingIntervals, movingSeconds, movingThreshold } from "./moving.ts";
import { sessionThresholds } from "./multisport.ts";
import type { ActivitySpan } from "./span.ts";
import type { ParsedFile } from "./types.ts";

/** Which intervals move, and the activity's moving time. */
export interface ActivityMoving {
  /** Per interval (i − 1, i): 1 when moving (index 0 copies index 1). */
  moving: Uint8Array;
  /** Cumulative moving seconds, one value per sample. */
  movSecs: Float64Array;
  movingTime: number;
}

/**
 * Moving. A run the athlete paused on the device: the device's timer decides (Strava honours the
 * pause button; its speed threshold applies only to runs never paused). A pool swim moves in its
 * active lengths; FIT laps without records add their timer time (a TCX lap's time without trackpoints
 * has samples at its ends by now, timeline.ts, and is judged like any other stretch).
 */
export function activityMoving(
  parsed: ParsedFile,
  type: ActivityType,
  span: ActivitySpan,
  distance: ActivityDistance,
): ActivityMoving {
  const samples = parsed.samples;
  const n = samples.length;
  const multisport = (parsed.sessions?.length ?? 0) > 1;
  const { cum, measured, pool } = distance;
  const pausedRun = type === "Run" && !multisport && parsed.devicePaused === true;
  const moving = movingIntervals({
    samples,
    cum,
    pauses: parsed.pauses,
    segmentStarts: parsed.segmentStarts,
    threshold: movingThreshold(type),
    measured,
    thresholds: sessionThresholds(parsed, type),
    lengths: pool ? parsed.lengths : undefined,
    timerOnly: pausedRun,
  });
  const movSecs = movingSeconds(samples, moving);
  const movingTime = pool
    ? Math.round(pool.active.reduce((a, l) => a + (l.timerTime ?? l.elapsedTime), 0))
    : pausedRun && parsed.timerTime
    ? Math.round(parsed.timerTime)
    : Math.round(movSecs[n - 1] + span.unrecordedSeconds);
  return { moving, movSecs, movingTime };
}
