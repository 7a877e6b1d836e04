import type { ActivityType } from "../../shared/activity-types.ts";

function partOfDay(hour: number): string {
  if (hour >= 5 && hour < 11) return "Morning";
  if (hour >= 11 && hour < 14) return "Lunch";
  if (hour >= 14 && hour < 17) return "Afternoon";
  if (hour >= 17 && hour < 21) return "Evening";
  return "Night";
}

const TYPE_WORDS: Partial<Record<ActivityType, string>> = {
  VirtualRide: "Virtual Ride",
  EBikeRide: "E-Bike Ride",
  NordicSki: "Nordic Ski",
  AlpineSki: "Alpine Ski",
  BackcountrySki: "Backcountry Ski",
  IceSkate: "Ice Skate",
  InlineSkate: "Inline Skate",
  RollerSki: "Roller Ski",
  StandUpPaddling: "Stand Up Paddling",
  WeightTraining: "Weight Training",
  RockClimbing: "Rock Climbing",
  StairStepper: "Stair Stepper",
};

/** "Morning Ride", "Afternoon Run"… from the local start time (no offline place names exist). */
export function defaultName(type: ActivityType, startDateLocal: string): string {
  const hour = Number(startDateLocal.slice(11, 13));
  return `${partOfDay(hour)} ${TYPE_WORDS[type] ?? type}`;
}

/** The file's own activity name (GPX <trk><name>), made storable and kept to 255 characters. */
export function fileName(name: string | null | undefined): string | null {
  // deno-lint-ignore no-control-regex -- control characters in a file's activity name are replaced by spaces
  const clean = (name ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").replace(/\s+/g, " ").trim();
  return clean ? clean.slice(0, 255) : null;
}
