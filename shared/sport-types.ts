import { type ActivityType, activityTypeOf } from "./activity-types.ts";

/** Strava's SportType list (its API model), alphabetical as Strava lists it. */
export const SPORT_TYPES = [
  "AlpineSki",
  "BackcountrySki",
  "Badminton",
  "Canoeing",
  "Crossfit",
  "EBikeRide",
  "Elliptical",
  "EMountainBikeRide",
  "Golf",
  "GravelRide",
  "Handcycle",
  "HighIntensityIntervalTraining",
  "Hike",
  "IceSkate",
  "InlineSkate",
  "Kayaking",
  "Kitesurf",
  "MountainBikeRide",
  "NordicSki",
  "Pickleball",
  "Pilates",
  "Racquetball",
  "Ride",
  "RockClimbing",
  "RollerSki",
  "Rowing",
  "Run",
  "Sail",
  "Skateboard",
  "Snowboard",
  "Snowshoe",
  "Soccer",
  "Squash",
  "StairStepper",
  "StandUpPaddling",
  "Surfing",
  "Swim",
  "TableTennis",
  "Tennis",
  "TrailRun",
  "Velomobile",
  "VirtualRide",
  "VirtualRow",
  "VirtualRun",
  "Walk",
  "WeightTraining",
  "Wheelchair",
  "Windsurf",
  "Workout",
  "Yoga",
] as const;

export type SportType = (typeof SPORT_TYPES)[number];

const byLower = new Map<string, SportType>(SPORT_TYPES.map((t) => [t.toLowerCase(), t]));

/** Case-insensitive lookup of a sport type; undefined when unknown. */
export function sportTypeOf(name: string): SportType | undefined {
  return byLower.get(name.trim().toLowerCase());
}

/** Sport types that are not (legacy) activity types, and the activity type each is reported as. */
const LEGACY: Partial<Record<SportType, ActivityType>> = {
  MountainBikeRide: "Ride",
  GravelRide: "Ride",
  Velomobile: "Ride",
  Handcycle: "Ride",
  EMountainBikeRide: "EBikeRide",
  TrailRun: "Run",
  VirtualRun: "Run",
  VirtualRow: "Rowing",
};

/**
 * The activity `type` reported for a sport type: itself when it is one of the activity types, its
 * family for the newer cycling, running and rowing sports, Workout for the rest (Badminton, Golf…).
 */
export function activityTypeOfSport(sport: SportType): ActivityType {
  return activityTypeOf(sport) ?? LEGACY[sport] ?? "Workout";
}

/**
 * type and sport_type of a request made consistent: sport_type wins and gives type; a type given
 * alone is its own sport type; both given must agree (null: they don't). Undefined when neither.
 */
export function resolveSport(
  type: ActivityType | undefined,
  sport: SportType | undefined,
): { type: ActivityType; sportType: SportType } | null | undefined {
  if (sport !== undefined) {
    const implied = activityTypeOfSport(sport);
    if (type !== undefined && type !== implied) return null;
    return { type: implied, sportType: sport };
  }
  if (type !== undefined) return { type, sportType: type };
  return undefined;
}
