import type { ActivityType } from "../../shared/activity-types.ts";
import { CLUB_SPORT_TYPES } from "../../events/club/events.ts";

/**
 * Strava's newer club fields, from the club's sport_type (cycling, running, triathlon, other):
 * the activity types the club is about, the icon naming them, and the sport as a display name.
 * activity_types hold values of Strava's ActivityType enum only (newer sports such as
 * MountainBikeRide or TrailRun are sport types, reported as Ride and Run here): strict clients
 * reject a club, and the athlete embedding it, for any other value.
 */
const CLUB_SPORTS: Record<
  string,
  { activity_types: ActivityType[]; activity_types_icon: string; localized_sport_type: string }
> = {
  cycling: {
    activity_types: ["Ride", "VirtualRide", "EBikeRide"],
    activity_types_icon: "sports_bike_normal",
    localized_sport_type: "Cycling",
  },
  running: {
    activity_types: ["Run"],
    activity_types_icon: "sports_run_normal",
    localized_sport_type: "Running",
  },
  triathlon: {
    activity_types: ["Ride", "Run", "Swim"],
    activity_types_icon: "sports_multi_normal",
    localized_sport_type: "Triathlon",
  },
};

/** The read model's sport_type as the spec's enum (ClubCreated allows only these; anything else reads as "other"). */
export function clubSportType(sportType: string): (typeof CLUB_SPORT_TYPES)[number] {
  return CLUB_SPORT_TYPES.find((t) => t === sportType) ?? "other";
}

export function clubSportFields(sportType: string) {
  return CLUB_SPORTS[sportType] ??
    { activity_types: [], activity_types_icon: "sports_multi_normal", localized_sport_type: "Other" };
}
