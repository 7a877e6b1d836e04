import { type ActivityType, activityTypeOf } from "../../shared/activity-types.ts";

/** FIT sport (and sub_sport) names → activity types. Unknown or generic → null (not detected). */
const FIT_SPORTS: Record<string, ActivityType> = {
  cycling: "Ride",
  running: "Run",
  swimming: "Swim",
  hiking: "Hike",
  walking: "Walk",
  cross_country_skiing: "NordicSki",
  alpine_skiing: "AlpineSki",
  snowboarding: "Snowboard",
  rowing: "Rowing",
  e_biking: "EBikeRide",
  inline_skating: "InlineSkate",
  ice_skating: "IceSkate",
  kitesurfing: "Kitesurf",
  windsurfing: "Windsurf",
  stand_up_paddleboarding: "StandUpPaddling",
  surfing: "Surfing",
  kayaking: "Kayaking",
  paddling: "Canoeing",
  rock_climbing: "RockClimbing",
  snowshoeing: "Snowshoe",
  training: "Workout",
  fitness_equipment: "Workout",
  yoga: "Yoga",
  backcountry_skiing: "BackcountrySki",
};

const FIT_SUB_SPORTS: Record<string, ActivityType> = {
  virtual_activity: "VirtualRide",
  indoor_rowing: "Rowing",
  e_bike_fitness: "EBikeRide",
  e_bike_mountain: "EBikeRide",
  elliptical: "Elliptical",
  stair_climbing: "StairStepper",
  strength_training: "WeightTraining",
  yoga: "Yoga",
  backcountry: "BackcountrySki",
  indoor_running: "Run",
  treadmill: "Run",
};

const INDOOR_SUB_SPORTS = new Set([
  "indoor_cycling",
  "virtual_activity",
  "indoor_rowing",
  "treadmill",
  "indoor_running",
  "spin",
  "elliptical",
  "stair_climbing",
  "lap_swimming",
]);

export function fitSportType(sport: unknown, subSport: unknown): ActivityType | null {
  const s = String(sport ?? "");
  const sub = String(subSport ?? "");
  if (s === "cycling" && sub === "virtual_activity") return "VirtualRide";
  if (s === "running" && sub === "virtual_activity") return "Run";
  if ((s === "fitness_equipment" || s === "training" || s === "generic") && FIT_SUB_SPORTS[sub]) {
    return FIT_SUB_SPORTS[sub];
  }
  return FIT_SPORTS[s] ?? null;
}

export function fitIndoor(subSport: unknown): boolean {
  return INDOOR_SUB_SPORTS.has(String(subSport ?? "")) && String(subSport) !== "lap_swimming";
}

/** TCX Activity Sport (Biking, Running, Other) and the words GPX <type> commonly holds. */
const WORDS: Record<string, ActivityType> = {
  biking: "Ride",
  cycling: "Ride",
  ride: "Ride",
  bike: "Ride",
  road_biking: "Ride",
  mountain_biking: "Ride",
  running: "Run",
  run: "Run",
  trail_running: "Run",
  swimming: "Swim",
  swim: "Swim",
  hiking: "Hike",
  hike: "Hike",
  walking: "Walk",
  walk: "Walk",
  virtualride: "VirtualRide",
  virtual_ride: "VirtualRide",
  ebikeride: "EBikeRide",
  nordicski: "NordicSki",
  cross_country_skiing: "NordicSki",
  alpineski: "AlpineSki",
  rowing: "Rowing",
  kayaking: "Kayaking",
  workout: "Workout",
  open_water_swimming: "Swim",
  lap_swimming: "Swim",
  pool_swimming: "Swim",
  open_water: "Swim",
  indoor_rowing: "Rowing",
  indoor_cycling: "Ride",
  treadmill_running: "Run",
  indoor_running: "Run",
  paddling: "Canoeing",
  canoeing: "Canoeing",
  stand_up_paddleboarding: "StandUpPaddling",
  sup: "StandUpPaddling",
  backcountry_skiing: "BackcountrySki",
  alpine_skiing: "AlpineSki",
  downhill_skiing: "AlpineSki",
  snowshoeing: "Snowshoe",
  e_biking: "EBikeRide",
  ebike: "EBikeRide",
  // Strava's own GPX exports number the type.
  "1": "Ride",
  "9": "Run",
  "4": "Hike",
  "10": "Walk",
};

/** A sport word from a TCX or GPX file → activity type; "Other" and unknown words → null. */
export function sportWordType(word: unknown): ActivityType | null {
  if (typeof word !== "string") return null;
  const key = word.trim().toLowerCase().replace(/[\s-]+/g, "_");
  // The activity types' own names (Strava writes them in its GPX <type>: "Swim", "Canoeing"…).
  return WORDS[key] ?? WORDS[key.replace(/_/g, "")] ?? activityTypeOf(key.replace(/_/g, "")) ?? null;
}
