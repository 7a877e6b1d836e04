/**
 * Strava's newer club fields, from the club's sport_type (cycling, running, triathlon, other):
 * the activity types the club is about, the icon naming them, and the sport as a display name.
 */
const CLUB_SPORTS: Record<string, { activity_types: string[]; activity_types_icon: string; localized_sport_type: string }> = {
  cycling: {
    activity_types: ["Ride", "VirtualRide", "EBikeRide", "MountainBikeRide", "GravelRide", "EMountainBikeRide", "Velomobile", "Handcycle"],
    activity_types_icon: "sports_bike_normal",
    localized_sport_type: "Cycling",
  },
  running: {
    activity_types: ["Run", "TrailRun", "VirtualRun", "Wheelchair"],
    activity_types_icon: "sports_run_normal",
    localized_sport_type: "Running",
  },
  triathlon: {
    activity_types: ["Ride", "Run", "Swim"],
    activity_types_icon: "sports_multi_normal",
    localized_sport_type: "Triathlon",
  },
};

export function clubSportFields(sportType: string) {
  return CLUB_SPORTS[sportType] ?? { activity_types: [], activity_types_icon: "sports_multi_normal", localized_sport_type: "Other" };
}
