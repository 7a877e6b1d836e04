import type { z } from "zod";
import type { bestEffortFacts } from "../../events/activity/events.ts";
import { maxOf, timeWeightedMean } from "./averages.ts";
import { bestEffort, type Course } from "./efforts.ts";
import { iso, round } from "./rounding.ts";
import { cadence, heartrate, heartRateMean } from "./sensors.ts";
import type { Sample } from "./types.ts";

type BestEffortFacts = z.infer<typeof bestEffortFacts>;

/** Best-effort distances and names (reference §7.1, newer casing). */
export const BEST_EFFORTS: readonly [string, number][] = [
  ["400m", 400],
  ["1/2 mile", 805],
  ["1K", 1000],
  ["1 mile", 1609],
  ["2 mile", 3219],
  ["5K", 5000],
  ["10K", 10000],
  ["15K", 15000],
  ["10 mile", 16090],
  ["20K", 20000],
  ["Half-Marathon", 21097],
  ["30K", 30000],
  ["Marathon", 42195],
];

/**
 * A run's best efforts over the distances of BEST_EFFORTS its course reaches; none without a course.
 * `deviceWattsPresent`: whether any record carries power (then each effort has its average).
 */
export function bestEffortsOf(
  course: Course | null,
  samples: readonly Sample[],
  moving: Uint8Array,
  deviceWattsPresent: boolean,
): BestEffortFacts[] {
  const n = samples.length;
  const bestEfforts: BestEffortFacts[] = [];
  // Strava's best-effort averages over the effort's samples (as a lap's).
  const effortAverages = (a: number, b: number) => {
    const cad = timeWeightedMean(samples, cadence, moving, { from: a, to: b, skipZero: true });
    const watts = deviceWattsPresent
      ? timeWeightedMean(samples, (s) => s.watts ?? 0, moving, { from: a, to: b })
      : null;
    return {
      averageCadence: cad === null ? null : round(cad, 1),
      averageWatts: watts === null ? null : round(watts, 1),
      deviceWatts: deviceWattsPresent,
      averageHeartrate: heartRateMean(samples, moving, a, b),
      maxHeartrate: maxOf(samples, heartrate, a, b),
    };
  };
  if (course) {
    const courseDistance = course.distance[n - 1];
    for (const [name, distance] of BEST_EFFORTS) {
      if (distance > courseDistance) break;
      const best = bestEffort(course, distance);
      if (!best) continue;
      bestEfforts.push({
        name,
        distance,
        elapsedTime: best.elapsedTime,
        movingTime: best.movingTime,
        startIndex: best.startIndex,
        endIndex: best.endIndex,
        startDate: iso(samples[best.startIndex].time),
        prRank: null,
        ...effortAverages(best.startIndex, best.endIndex),
      });
    }
  }
  return bestEfforts;
}
