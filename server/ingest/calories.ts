import type { ActivityType } from "../../shared/activity-types.ts";

/**
 * Energy (kcal) when the file carries no device total (the spec uses FIT session calories as they are;
 * TCX lap calories are not used). In order of preference:
 * 1. rides with a power meter: mechanical work ÷ gross efficiency 24 % (kJ → kcal ÷ 4.184);
 * 2. heart rate known: Keytel et al. 2005 (J Sports Sci 23:289), the equation without VO2max, from
 *    heart rate, weight, age and sex (the mean of the male and female equations when sex is unknown);
 * 3. otherwise MET × weight × hours of moving time, MET values from the Ainsworth 2011 compendium.
 */
export interface CalorieInput {
  type: ActivityType;
  movingSeconds: number;
  /** Mechanical work from a power meter (kJ), or null. */
  kilojoules: number | null;
  /** Time-weighted average heart rate over the moving time, or null. */
  averageHeartrate: number | null;
  weightKg: number | null;
  ageYears: number | null;
  sex: "M" | "F" | null;
}

export const DEFAULT_WEIGHT_KG = 75;
export const DEFAULT_AGE_YEARS = 35;
export const GROSS_EFFICIENCY = 0.24;

/** Ainsworth 2011 compendium: codes 01015 bicycling general, 12050 running 6 mph, 17200 walking 3 mph… */
export const MET: Partial<Record<ActivityType, number>> = {
  Ride: 7.5,
  EBikeRide: 4.0,
  VirtualRide: 6.8,
  Run: 9.8,
  Walk: 3.5,
  Hike: 6.0,
  Swim: 5.8,
  NordicSki: 9.0,
  BackcountrySki: 9.0,
  AlpineSki: 5.3,
  Rowing: 7.0,
  Kayaking: 5.0,
  Canoeing: 5.8,
  RollerSki: 9.0,
  InlineSkate: 7.5,
  IceSkate: 7.0,
  Snowshoe: 5.3,
  Elliptical: 5.0,
  StairStepper: 9.0,
  WeightTraining: 3.5,
  Yoga: 2.5,
  Workout: 5.0,
  RockClimbing: 8.0,
  StandUpPaddling: 6.0,
  Surfing: 3.0,
  Windsurf: 3.0,
  Kitesurf: 3.0,
  Snowboard: 5.3,
};
const DEFAULT_MET = 5.0;

/** Keytel et al. 2005, kcal per minute (negative results are 0). */
export function keytelKcalPerMinute(hr: number, weightKg: number, ageYears: number, sex: "M" | "F" | null): number {
  const male = (-55.0969 + 0.6309 * hr + 0.1988 * weightKg + 0.2017 * ageYears) / 4.184;
  const female = (-20.4022 + 0.4472 * hr - 0.1263 * weightKg + 0.074 * ageYears) / 4.184;
  const perMinute = sex === "M" ? male : sex === "F" ? female : (male + female) / 2;
  return Math.max(0, perMinute);
}

export function estimateCalories(input: CalorieInput): number | null {
  if (input.movingSeconds <= 0 && input.kilojoules === null) return null;
  const weight = input.weightKg ?? DEFAULT_WEIGHT_KG;
  if (input.kilojoules !== null && input.kilojoules > 0) return input.kilojoules / (4.184 * GROSS_EFFICIENCY);
  if (input.averageHeartrate !== null) {
    const age = input.ageYears ?? DEFAULT_AGE_YEARS;
    return keytelKcalPerMinute(input.averageHeartrate, weight, age, input.sex) * (input.movingSeconds / 60);
  }
  return (MET[input.type] ?? DEFAULT_MET) * weight * (input.movingSeconds / 3600);
}
