import { maxOf, timeWeightedMean } from "./averages.ts";
import { round } from "./rounding.ts";
import type { ParsedFile, Sample } from "./types.ts";

export const heartrate = (s: Sample) => s.heartrate;
export const cadence = (s: Sample) => s.cadence;

/** The activity's heart rate, cadence and temperature figures. */
export interface SensorFigures {
  /**
   * The highest heart rate any record carries (null when none does: then the sessions' and laps'
   * summaries count, also when the samples' heart rate was filled in from a swim's hr messages).
   */
  recordedHrMax: number | null;
  /** The average heart rate unrounded (the calorie estimate uses it). */
  hrAverage: number | null;
  hasHeartrate: boolean;
  averageHeartrate: number | null;
  maxHeartrate: number | null;
  averageCadence: number | null;
  averageTemp: number | null;
}

/** Heart rate, cadence, temperature: weighted by each sample's duration over the moving time. */
export function sensorFigures(parsed: ParsedFile, moving: Uint8Array): SensorFigures {
  const samples = parsed.samples;
  // No record carries heart rate (a swim's strap stores it apart, in hr messages that fill the
  // samples for the stream): the sessions' own summary, when they have one.
  const sessionHr = parsed.sessionHeartrate ?? null;
  const summaryFirst = parsed.heartrateFromHrMessages === true &&
    (sessionHr?.average ?? sessionHr?.max ?? null) !== null;
  const recordedHrMax = summaryFirst ? null : maxOf(samples, heartrate);
  const hrMax = recordedHrMax ?? sessionHr?.max ?? null;
  const hasHeartrate = hrMax !== null || (sessionHr?.average ?? null) !== null;
  const hrAverage = recordedHrMax !== null ? timeWeightedMean(samples, heartrate, moving) : sessionHr?.average ?? null;
  const averageHeartrate = hrAverage === null ? null : round(hrAverage, 1);
  const maxHeartrate = hrMax === null ? null : Math.round(hrMax);
  const cadAverage = timeWeightedMean(samples, cadence, moving, { skipZero: true });
  const averageCadence = cadAverage === null ? null : round(cadAverage, 1);
  const tempAverage = timeWeightedMean(samples, (s) => s.temp, moving);
  const averageTemp = tempAverage === null ? null : Math.round(tempAverage);
  return { recordedHrMax, hrAverage, hasHeartrate, averageHeartrate, maxHeartrate, averageCadence, averageTemp };
}

/** The moving-weighted average heart rate of samples a..b (a lap, split or effort), 1 decimal. */
export function heartRateMean(samples: readonly Sample[], moving: Uint8Array, a: number, b: number): number | null {
  const v = timeWeightedMean(samples, heartrate, moving, { from: a, to: b });
  return v === null ? null : round(v, 1);
}
