import type { ActivityType } from "../../shared/activity-types.ts";
import { estimateCalories } from "./calories.ts";
import { round } from "./rounding.ts";
import type { ParsedFile, Sample } from "./types.ts";

/** Who the athlete is, as far as the estimates need it. */
export interface DeriveAthlete {
  premium: boolean;
  weight: number | null;
  birthdate: string | null;
  sex?: "M" | "F" | null;
}

/** What the calorie estimate is made from. */
export interface CaloriesInput {
  type: ActivityType;
  movingTime: number;
  /** Kilojoules measured by a power meter (estimated power does not count). */
  kilojoules: number | null;
  /** The average heart rate, unrounded. */
  averageHeartrate: number | null;
  startMs: number;
}

/** Calories: the device's own (FIT), else a published estimate (calories.ts). */
export function activityCalories(parsed: ParsedFile, athlete: DeriveAthlete, input: CaloriesInput): number | null {
  let calories: number | null = parsed.deviceTotals.calories || null;
  if (calories === null) {
    const birthYear = athlete.birthdate ? Number(athlete.birthdate.slice(0, 4)) : NaN;
    const estimate = estimateCalories({
      type: input.type,
      movingSeconds: input.movingTime,
      kilojoules: input.kilojoules,
      averageHeartrate: input.averageHeartrate,
      weightKg: athlete.weight,
      ageYears: Number.isFinite(birthYear) ? new Date(input.startMs).getUTCFullYear() - birthYear : null,
      sex: athlete.sex ?? null,
    });
    calories = estimate === null ? null : round(estimate, 1);
  }
  return calories;
}

/** Suffer score (premium only, with heart rate): time in heart-rate zones of 220 − age, weighted; else null. */
export function sufferScore(
  samples: readonly Sample[],
  times: Float64Array,
  moving: Uint8Array,
  athlete: DeriveAthlete,
  hasHeartrate: boolean,
  startMs: number,
): number | null {
  if (!(athlete.premium && hasHeartrate)) return null;
  const n = samples.length;
  const age = athlete.birthdate
    ? Math.max(10, new Date(startMs).getUTCFullYear() - Number(athlete.birthdate.slice(0, 4)))
    : 35;
  const maxHr = 220 - age;
  const perHour = [12, 24, 45, 100, 120];
  let score = 0;
  for (let i = 1; i < n; i++) {
    const hr = samples[i].heartrate;
    if (!moving[i] || hr === null) continue;
    const pct = hr / maxHr;
    const zone = pct < 0.6 ? 0 : pct < 0.7 ? 1 : pct < 0.8 ? 2 : pct < 0.9 ? 3 : 4;
    score += (perHour[zone] * (times[i] - times[i - 1])) / 3_600_000;
  }
  return Math.round(score);
}
