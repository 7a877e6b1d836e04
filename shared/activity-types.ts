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

/** An activity type in words, as the pages write it: "VirtualRide" → "Virtual ride", "EBikeRide" → "E-bike ride". */
export function activityTypeWords(name: string): string {
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g);
  if (!words) return name;
  const text = words.map((w, i) => (i && w.length > 1 && w !== w.toUpperCase() ? w.toLowerCase() : w)).join(" ");
  return text.replace(/^E (?=[a-z])/, "E-");
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
