/**
 * Which totals of Strava's ActivityStats an activity's sport counts in. Rides are the human-powered
 * ones (e-bike rides count in none, as on Strava); runs include trail and virtual runs.
 */
export type StatsGroup = "ride" | "run" | "swim";

export const GROUPS: Readonly<Record<string, StatsGroup>> = {
  Ride: "ride",
  VirtualRide: "ride",
  MountainBikeRide: "ride",
  GravelRide: "ride",
  Velomobile: "ride",
  Handcycle: "ride",
  Run: "run",
  TrailRun: "run",
  VirtualRun: "run",
  Swim: "swim",
};

export function statsGroupOf(sport: string): StatsGroup | null {
  return GROUPS[sport] ?? null;
}

/** What one activity contributes to its athlete's totals (kept so edits and deletions can take it back). */
export interface Contribution {
  activity_id: number;
  athlete_id: number;
  grp: string | null;
  day: string;
  /** Who may see the activity: its totals are kept per visibility (readers sum those they may see). */
  visibility: string;
  distance: number;
  moving_time: number;
  elapsed_time: number;
  elevation_gain: number;
  achievement_count: number;
}
