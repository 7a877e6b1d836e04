import type { z } from "zod";
import type { splitFacts } from "../../events/activity/events.ts";
import type { ActivityType } from "../../shared/activity-types.ts";
import { type Course, courseOf, splitRanges } from "./efforts.ts";
import { round } from "./rounding.ts";
import { heartRateMean } from "./sensors.ts";
import type { ActivitySpan } from "./span.ts";
import type { Sample } from "./types.ts";

type SplitFacts = z.infer<typeof splitFacts>;

/** What a run's course is built from. */
export interface CourseInput {
  type: ActivityType;
  samples: readonly Sample[];
  span: ActivitySpan;
  cum: Float64Array;
  measured: boolean;
  movSecs: Float64Array;
  movingTime: number;
  /** A multisport file's intervals of the run's own sport. */
  mask: Uint8Array | undefined;
}

/**
 * The course splits and best efforts are measured on: a run's own samples' distance stream (a
 * single-sport run's also the timer's time before its first and after its last record); null for
 * anything else, or a run whose distance measures nothing.
 */
export function runCourse(input: CourseInput): Course | null {
  const { type, samples, span, cum, measured, movSecs, movingTime, mask } = input;
  const { startMs, endMs, times } = span;
  const n = samples.length;
  return type === "Run" && measured
    ? courseOf(
      times,
      cum,
      movSecs,
      mask,
      mask ? undefined : {
        leadElapsed: (samples[0].time - startMs) / 1000,
        trailElapsed: (endMs - samples[n - 1].time) / 1000,
        trailMoving: movingTime - movSecs[n - 1],
      },
    )
    : null;
}

/** A run's splits of `unit` metres (1000: metric, 1609.344: standard); none without a course. */
export function splitsOf(
  course: Course | null,
  unit: number,
  samples: readonly Sample[],
  moving: Uint8Array,
  altitudeFilled: Float64Array | null,
): SplitFacts[] {
  if (!course) return [];
  return splitRanges(course, unit).map((r) => {
    const altA = altitudeFilled ? altitudeFilled[r.startIndex] : null;
    const altB = altitudeFilled ? altitudeFilled[r.endIndex] : null;
    return {
      split: r.split,
      distance: round(r.distance, 1),
      elapsedTime: r.elapsedTime,
      movingTime: r.movingTime,
      elevationDifference: altA !== null && altB !== null ? round(altB - altA, 1) : null,
      averageSpeed: round(
        r.movingTime > 0 ? r.distance / r.movingTime : r.elapsedTime > 0 ? r.distance / r.elapsedTime : 0,
        2,
      ),
      averageHeartrate: heartRateMean(samples, moving, r.startIndex, r.endIndex),
      paceZone: 0,
    };
  });
}
