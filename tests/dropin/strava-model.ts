/**
 * The parts of Strava's published API model (developers.strava.com/docs/reference, its swagger
 * models) that strict clients enforce and that our answers must keep to: the enums of enum-typed
 * fields and the date / date-time formats. Written for these tests from the published reference;
 * stravalib validates answers with a pydantic model generated from the same definitions, so an
 * answer outside these lists fails there as a whole.
 */

/** ActivityType: `type` of activities, club `activity_types`. Newer sports are SportType only. */
export const STRAVA_ACTIVITY_TYPES = [
  "AlpineSki", "BackcountrySki", "Canoeing", "Crossfit", "EBikeRide", "Elliptical", "Golf", "Handcycle", "Hike", "IceSkate",
  "InlineSkate", "Kayaking", "Kitesurf", "NordicSki", "Ride", "RockClimbing", "RollerSki", "Rowing", "Run", "Sail",
  "Skateboard", "Snowboard", "Snowshoe", "Soccer", "StairStepper", "StandUpPaddling", "Surfing", "Swim", "Velomobile",
  "VirtualRide", "VirtualRun", "Walk", "WeightTraining", "Wheelchair", "Windsurf", "Workout", "Yoga",
] as const;

/** SportType: `sport_type` of activities (a superset of ActivityType). */
export const STRAVA_SPORT_TYPES = [
  ...STRAVA_ACTIVITY_TYPES,
  "Badminton", "Basketball", "Cricket", "Dance", "EMountainBikeRide", "GravelRide", "HighIntensityIntervalTraining",
  "MountainBikeRide", "Padel", "PhysicalTherapy", "Pickleball", "Pilates", "Racquetball", "Squash", "TableTennis", "Tennis",
  "TrailRun", "VirtualRow", "Volleyball",
] as const;

/** A value is valid when absent or null (Strava's fields are optional) or listed. */
type Rule =
  | { enum: readonly (string | number)[] }
  | "date"
  | "date-time"
  | { each: Rule }
  | { object: Rules };
type Rules = Record<string, Rule>;

const RESOURCE_STATE = { enum: [1, 2, 3] };
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const realDay = (text: string) => {
  const d = new Date(`${text.slice(0, 10)}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text.slice(0, 10);
};

export const SummaryClub: Rules = {
  resource_state: RESOURCE_STATE,
  activity_types: { each: { enum: STRAVA_ACTIVITY_TYPES } },
  sport_type: { enum: ["cycling", "running", "triathlon", "other"] },
  membership: { enum: ["member", "pending"] },
};

const SummaryGear: Rules = { resource_state: RESOURCE_STATE };

export const DetailedAthlete: Rules = {
  resource_state: RESOURCE_STATE,
  sex: { enum: ["M", "F"] },
  measurement_preference: { enum: ["feet", "meters"] },
  created_at: "date-time",
  updated_at: "date-time",
  clubs: { each: { object: SummaryClub } },
  bikes: { each: { object: SummaryGear } },
  shoes: { each: { object: SummaryGear } },
};

const MetaRef: Rules = { resource_state: RESOURCE_STATE };

export const SummarySegment: Rules = {
  resource_state: RESOURCE_STATE,
  activity_type: { enum: ["Ride", "Run"] },
};

const SegmentEffort: Rules = {
  resource_state: RESOURCE_STATE,
  start_date: "date-time",
  start_date_local: "date-time",
  activity: { object: MetaRef },
  athlete: { object: MetaRef },
  segment: { object: SummarySegment },
};

export const SummaryActivity: Rules = {
  resource_state: RESOURCE_STATE,
  type: { enum: STRAVA_ACTIVITY_TYPES },
  sport_type: { enum: STRAVA_SPORT_TYPES },
  start_date: "date-time",
  start_date_local: "date-time",
  athlete: { object: MetaRef },
  map: { object: { resource_state: RESOURCE_STATE } },
};

export const DetailedActivity: Rules = {
  ...SummaryActivity,
  laps: { each: { object: { resource_state: RESOURCE_STATE, start_date: "date-time", start_date_local: "date-time" } } },
  segment_efforts: { each: { object: SegmentEffort } },
  best_efforts: { each: { object: SegmentEffort } },
  gear: { object: SummaryGear },
};

export const DetailedSegment: Rules = {
  ...SummarySegment,
  created_at: "date-time",
  updated_at: "date-time",
  athlete_pr_effort: { object: { start_date: "date-time", start_date_local: "date-time", pr_date: "date-time" } },
  // A date ("2011-09-25"), unlike the effort's times: stravalib's AthleteSegmentStats.pr_date is a date.
  athlete_segment_stats: { object: { pr_date: "date" } },
};

/** Where an answer leaves Strava's model: one line per field ("clubs.0.activity_types.3: …"). */
export function violations(value: unknown, rules: Rules, path = ""): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [`${path || "answer"}: not an object`];
  return Object.entries(rules).flatMap(([field, rule]) =>
    check((value as Record<string, unknown>)[field], rule, [path, field].filter(Boolean).join("."))
  );
}

function check(v: unknown, rule: Rule, at: string): string[] {
  if (v === undefined || v === null) return [];
  if (rule === "date" || rule === "date-time") {
    const ok = typeof v === "string" && (rule === "date" ? DATE : DATE_TIME).test(v) && realDay(v);
    return ok ? [] : [`${at}: ${JSON.stringify(v)} is not a ${rule}`];
  }
  if ("enum" in rule) return rule.enum.includes(v as string | number) ? [] : [`${at}: ${JSON.stringify(v)} is not one of Strava's values`];
  if ("each" in rule) return Array.isArray(v) ? v.flatMap((item, i) => check(item, rule.each, `${at}.${i}`)) : [`${at}: not an array`];
  return violations(v, rule.object, at);
}
