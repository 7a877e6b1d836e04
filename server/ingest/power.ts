import type { ActivityType } from "../../shared/activity-types.ts";
import { round } from "./rounding.ts";
import type { Sample } from "./types.ts";

const RIDES: ReadonlySet<ActivityType> = new Set(["Ride", "VirtualRide", "EBikeRide"]);

/** Whether the activity is a ride (the only kind with power figures). */
export const isRide = (type: ActivityType) => RIDES.has(type);

/** What power figures are derived from. */
export interface PowerInput {
  samples: readonly Sample[];
  times: Float64Array;
  type: ActivityType;
  moving: Uint8Array;
  /** A multisport file's intervals of the activity's own sport. */
  mask: Uint8Array | undefined;
  velocity: readonly number[];
  grade: readonly number[];
  /** Moving seconds of the activity's own sport. */
  sportMoving: number;
  /** The athlete's weight (kg), for the estimate of a ride without a power meter. */
  weight: number | null;
}

/** The activity's power figures (null where not a ride; max and weighted only from a power meter). */
export interface PowerFigures {
  /** Whether any record carries power (a power meter, whatever the sport). */
  deviceWattsPresent: boolean;
  averageWatts: number | null;
  maxWatts: number | null;
  weightedAverageWatts: number | null;
  kilojoules: number | null;
  deviceWatts: boolean | null;
}

/** Estimated cycling power (W) from speed, acceleration and grade for rides without a power meter. */
function estimatePower(v: number, accel: number, grade: number, mass: number): number {
  const g = 9.81;
  const crr = 0.005;
  const cda = 0.32;
  const rho = 1.2;
  const p = (mass * g * (crr + grade) * v + mass * accel * v + 0.5 * rho * cda * v * v * v) / 0.976;
  return Math.max(0, Math.min(2000, p));
}

/** Power (rides; multisport: the ride sessions only): the power meter's, else estimated from speed and grade. */
export function powerFigures(input: PowerInput): PowerFigures {
  const { samples, times, type, moving, mask, velocity, grade, sportMoving } = input;
  const n = samples.length;
  const inSport = (i: number) => !mask || mask[i] === 1;
  const deviceWattsPresent = samples.some((s) => s.watts !== null && s.watts > 0);
  let averageWatts: number | null = null;
  let maxWatts: number | null = null;
  let weightedAverageWatts: number | null = null;
  let kilojoules: number | null = null;
  let deviceWatts: boolean | null = null;
  if (isRide(type)) {
    const series = new Float64Array(n);
    if (deviceWattsPresent) {
      deviceWatts = true;
      for (let i = 0; i < n; i++) series[i] = samples[i].watts ?? 0;
    } else {
      deviceWatts = false;
      const mass = (input.weight ?? 75) + 9;
      for (let i = 0; i < n; i++) {
        if (!moving[i] || type === "VirtualRide") continue;
        const dt = i > 0 ? (times[i] - times[i - 1]) / 1000 : 0;
        const accel = dt > 0 ? (velocity[i] - velocity[i - 1]) / dt : 0;
        series[i] = estimatePower(velocity[i], Math.max(-1, Math.min(1, accel)), grade[i] / 100, mass);
      }
    }
    const avg = weightedSeriesMean(samples, series, moving, mask) ?? 0;
    averageWatts = round(avg, 1);
    kilojoules = round((avg * sportMoving) / 1000, 1);
    if (deviceWatts) {
      let m = 0;
      for (let i = 0; i < n; i++) if (inSport(i) && series[i] > m) m = series[i];
      maxWatts = Math.round(m);
      weightedAverageWatts = normalizedPower(
        samples,
        series,
        mask ? moving.map((v, i) => (v && mask[i] ? 1 : 0)) : moving,
      );
    }
  }
  return { deviceWattsPresent, averageWatts, maxWatts, weightedAverageWatts, kilojoules, deviceWatts };
}

/** Duration-weighted mean of a per-sample series over moving intervals (and the sport mask). */
function weightedSeriesMean(
  samples: readonly Sample[],
  series: ArrayLike<number>,
  moving: Uint8Array,
  mask?: Uint8Array,
): number | null {
  let sum = 0;
  let weight = 0;
  for (let i = 1; i < samples.length; i++) {
    if (!moving[i] || (mask && !mask[i])) continue;
    const dt = (samples[i].time - samples[i - 1].time) / 1000;
    if (dt <= 0) continue;
    sum += series[i] * dt;
    weight += dt;
  }
  if (weight > 0) return sum / weight;
  let plain = 0;
  for (let i = 0; i < series.length; i++) plain += series[i];
  return series.length ? plain / series.length : null;
}

/** 30-second rolling average (1 Hz, moving time only), fourth-power mean, fourth root. */
function normalizedPower(samples: readonly Sample[], watts: ArrayLike<number>, moving: Uint8Array): number | null {
  const seconds = (i: number) => Math.min(10, Math.max(0, Math.round((samples[i].time - samples[i - 1].time) / 1000)));
  let total = 0;
  for (let i = 1; i < samples.length; i++) if (moving[i]) total += seconds(i);
  const perSecond = new Float64Array(total);
  let at = 0;
  for (let i = 1; i < samples.length; i++) {
    if (!moving[i]) continue;
    for (let k = seconds(i); k > 0; k--) perSecond[at++] = watts[i];
  }
  if (perSecond.length < 30) {
    return perSecond.length ? Math.round(perSecond.reduce((a, b) => a + b, 0) / perSecond.length) : null;
  }
  let sum = 0;
  let acc = 0;
  let count = 0;
  for (let i = 0; i < perSecond.length; i++) {
    sum += perSecond[i];
    if (i >= 30) sum -= perSecond[i - 30];
    if (i >= 29) {
      acc += (sum / 30) ** 4;
      count++;
    }
  }
  return Math.round((acc / count) ** 0.25);
}
