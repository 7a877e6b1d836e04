/** The spec's activity types, in the spec's order. Heatmaps number them from 1 in this order. */
export const ACTIVITY_TYPES = [
  "Ride",
  "Run",
  "Swim",
  "Hike",
  "Walk",
  "AlpineSki",
  "BackcountrySki",
  "Canoeing",
  "Crossfit",
  "EBikeRide",
  "Elliptical",
  "IceSkate",
  "InlineSkate",
  "Kayaking",
  "Kitesurf",
  "NordicSki",
  "RockClimbing",
  "RollerSki",
  "Rowing",
  "Snowboard",
  "Snowshoe",
  "StairStepper",
  "StandUpPaddling",
  "Surfing",
  "VirtualRide",
  "WeightTraining",
  "Windsurf",
  "Workout",
  "Yoga",
] as const;

export type ActivityType = (typeof ACTIVITY_TYPES)[number];

const byLower = new Map<string, ActivityType>(ACTIVITY_TYPES.map((t) => [t.toLowerCase(), t]));

/** Case-insensitive lookup of an activity type; undefined when unknown. */
export function activityTypeOf(name: string): ActivityType | undefined {
  return byLower.get(name.trim().toLowerCase());
}

/** 1-based number of an activity type (heatmap activity_type_ids). */
export function activityTypeId(type: ActivityType): number {
  return ACTIVITY_TYPES.indexOf(type) + 1;
}

export function activityTypeById(id: number): ActivityType | undefined {
  return ACTIVITY_TYPES[id - 1];
}

/** Types an upload's activity_type field accepts (spec, Uploads table), case-insensitive. */
export const UPLOAD_ACTIVITY_TYPES: readonly ActivityType[] = [
  "Ride",
  "Run",
  "Swim",
  "Workout",
  "Hike",
  "Walk",
  "NordicSki",
  "AlpineSki",
  "BackcountrySki",
  "IceSkate",
  "InlineSkate",
  "Kitesurf",
  "RollerSki",
  "Windsurf",
  "Snowboard",
  "Snowshoe",
  "EBikeRide",
  "VirtualRide",
];
