/**
 * The parts of Strava's published API model (developers.strava.com/docs/reference, its swagger
 * models) that strict clients enforce and that our answers must keep to: the enums of enum-typed
 * fields and the date / date-time formats. Written for these tests from the published reference;
 * stravalib validates answers with a pydantic model generated from the same definitions, so an
 * answer outside these lists fails there as a whole.
 */

/** ActivityType: `type` of activities, club `activity_types`. Newer sports are SportType only. */
export const STRAVA_ACTIVITY_TYPES = [
  "AlpineSki",
  "BackcountrySki",
  "Canoeing",
  "Crossfit",
  "EBikeRide",
  "Elliptical",
  "Golf",
  "Handcycle",
  "Hike",
  "IceSkate",
  "InlineSkate",
  "Kayaking",
  "Kitesurf",
  "NordicSki",
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
  "StairStepper",
  "StandUpPaddling",
  "Surfing",
  "Swim",
  "Velomobile",
  "VirtualRide",
  "VirtualRun",
  "Walk",
  "WeightTraining",
  "Wheelchair",
  "Windsurf",
  "Workout",
  "Yoga",
] as const;

/** SportType: `sport_type` of activities (a superset of ActivityType). */
export const STRAVA_SPORT_TYPES = [
  ...STRAVA_ACTIVITY_TYPES,
  "Badminton",
  "Basketball",
  "Cricket",
  "Dance",
  "EMountainBikeRide",
  "GravelRide",
  "HighIntensityIntervalTraining",
  "MountainBikeRide",
  "Padel",
  "PhysicalTherapy",
  "Pickleball",
  "Pilates",
  "Racquetball",
  "Squash",
  "TableTennis",
  "Tennis",
  "TrailRun",
  "VirtualRow",
  "Volleyball",
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
  laps: {
    each: { object: { resource_state: RESOURCE_STATE, start_date: "date-time", start_date_local: "date-time" } },
  },
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
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return [`${path || "answer"}: not an object`];
  }
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
  if ("enum" in rule) {
    return rule.enum.includes(v as string | number)
      ? []
      : [`${at}: ${JSON.stringify(v)} is not one of Strava's values`];
  }
  if ("each" in rule) {
    return Array.isArray(v) ? v.flatMap((item, i) => check(item, rule.each, `${at}.${i}`)) : [`${at}: not an array`];
  }
  return violations(v, rule.object, at);
}

/**
 * The properties each object of Strava's model declares (the swagger definitions, as stravalib's
 * generated strava_model.py holds them: a subclass adds to its parent's), written out for these
 * tests. `nested` names the model of an object- or array-valued property, so a check descends.
 */
interface Declared {
  keys: readonly string[];
  nested?: Record<string, string>;
}

const META_ACTIVITY = ["id"];
const META_ATHLETE = ["id"];
const META_CLUB = ["id", "name", "resource_state"];
const SUMMARY_ATHLETE = [
  ...META_ATHLETE,
  "city",
  "country",
  "created_at",
  "firstname",
  "lastname",
  "premium",
  "profile",
  "profile_medium",
  "resource_state",
  "sex",
  "state",
  "summit",
  "updated_at",
];
const SUMMARY_CLUB = [
  ...META_CLUB,
  "activity_types",
  "city",
  "country",
  "cover_photo",
  "cover_photo_small",
  "featured",
  "member_count",
  "private",
  "profile_medium",
  "sport_type",
  "state",
  "url",
  "verified",
];
const SUMMARY_GEAR = ["distance", "id", "name", "primary", "resource_state"];
const SUMMARY_ACTIVITY = [
  ...META_ACTIVITY,
  "achievement_count",
  "athlete",
  "athlete_count",
  "average_speed",
  "average_watts",
  "comment_count",
  "commute",
  "device_watts",
  "distance",
  "elapsed_time",
  "elev_high",
  "elev_low",
  "end_latlng",
  "external_id",
  "flagged",
  "gear_id",
  "has_kudoed",
  "hide_from_home",
  "kilojoules",
  "kudos_count",
  "manual",
  "map",
  "max_speed",
  "max_watts",
  "moving_time",
  "name",
  "photo_count",
  "private",
  "sport_type",
  "start_date",
  "start_date_local",
  "start_latlng",
  "timezone",
  "total_elevation_gain",
  "total_photo_count",
  "trainer",
  "type",
  "upload_id",
  "upload_id_str",
  "weighted_average_watts",
  "workout_type",
];
const SUMMARY_SEGMENT = [
  "activity_type",
  "athlete_pr_effort",
  "athlete_segment_stats",
  "average_grade",
  "city",
  "climb_category",
  "country",
  "distance",
  "elevation_high",
  "elevation_low",
  "end_latlng",
  "id",
  "maximum_grade",
  "name",
  "private",
  "start_latlng",
  "state",
];
const SUMMARY_SEGMENT_EFFORT = [
  "activity_id",
  "distance",
  "elapsed_time",
  "id",
  "is_kom",
  "start_date",
  "start_date_local",
];
const DETAILED_SEGMENT_EFFORT = [
  ...SUMMARY_SEGMENT_EFFORT,
  "activity",
  "athlete",
  "average_cadence",
  "average_heartrate",
  "average_watts",
  "device_watts",
  "end_index",
  "hidden",
  "kom_rank",
  "max_heartrate",
  "moving_time",
  "name",
  "pr_rank",
  "segment",
  "start_index",
];
const STREAM = ["data", "original_size", "resolution", "series_type"];
const STREAM_KEYS = [
  "altitude",
  "cadence",
  "distance",
  "grade_smooth",
  "heartrate",
  "latlng",
  "moving",
  "temp",
  "time",
  "velocity_smooth",
  "watts",
];

export const STRAVA_MODEL: Record<string, Declared> = {
  MetaActivity: { keys: META_ACTIVITY },
  MetaAthlete: { keys: META_ATHLETE },
  MetaClub: { keys: META_CLUB },
  PolylineMap: { keys: ["id", "polyline", "summary_polyline"] },
  SummaryAthlete: { keys: SUMMARY_ATHLETE },
  DetailedAthlete: {
    keys: [
      ...SUMMARY_ATHLETE,
      "bikes",
      "clubs",
      "follower_count",
      "friend_count",
      "ftp",
      "measurement_preference",
      "shoes",
      "weight",
    ],
    nested: { bikes: "SummaryGear", shoes: "SummaryGear", clubs: "SummaryClub" },
  },
  SummaryClub: { keys: SUMMARY_CLUB },
  DetailedClub: { keys: [...SUMMARY_CLUB, "admin", "following_count", "membership", "owner"] },
  ClubAthlete: { keys: ["admin", "firstname", "lastname", "member", "owner", "resource_state"] },
  ClubActivity: {
    keys: [
      "athlete",
      "distance",
      "elapsed_time",
      "moving_time",
      "name",
      "sport_type",
      "total_elevation_gain",
      "type",
      "workout_type",
    ],
    nested: { athlete: "ClubActivityAthlete" },
  },
  // Strava's answers (and its reference's example) name the club feed's athlete by first name and last initial.
  ClubActivityAthlete: { keys: ["firstname", "lastname", "resource_state"] },
  MembershipApplication: { keys: ["active", "membership", "success"] },
  SummaryGear: { keys: SUMMARY_GEAR },
  DetailedGear: { keys: [...SUMMARY_GEAR, "brand_name", "description", "frame_type", "model_name"] },
  SummaryActivity: { keys: SUMMARY_ACTIVITY, nested: { athlete: "MetaAthlete", map: "PolylineMap" } },
  DetailedActivity: {
    keys: [
      ...SUMMARY_ACTIVITY,
      "best_efforts",
      "calories",
      "description",
      "device_name",
      "embed_token",
      "gear",
      "laps",
      "photos",
      "segment_efforts",
      "splits_metric",
      "splits_standard",
    ],
    nested: {
      athlete: "MetaAthlete",
      map: "PolylineMap",
      best_efforts: "DetailedSegmentEffort",
      segment_efforts: "DetailedSegmentEffort",
      gear: "SummaryGear",
      laps: "Lap",
      photos: "PhotosSummary",
      splits_metric: "Split",
      splits_standard: "Split",
    },
  },
  PhotosSummary: { keys: ["count", "primary"] },
  Split: {
    keys: ["average_speed", "distance", "elapsed_time", "elevation_difference", "moving_time", "pace_zone", "split"],
  },
  Lap: {
    keys: [
      "activity",
      "athlete",
      "average_cadence",
      "average_speed",
      "distance",
      "elapsed_time",
      "end_index",
      "id",
      "lap_index",
      "max_speed",
      "moving_time",
      "name",
      "pace_zone",
      "split",
      "start_date",
      "start_date_local",
      "start_index",
      "total_elevation_gain",
    ],
    nested: { activity: "MetaActivity", athlete: "MetaAthlete" },
  },
  Comment: { keys: ["activity_id", "athlete", "created_at", "id", "text"], nested: { athlete: "SummaryAthlete" } },
  ActivityZone: { keys: ["custom_zones", "distribution_buckets", "max", "points", "score", "sensor_based", "type"] },
  ActivityTotal: { keys: ["achievement_count", "count", "distance", "elapsed_time", "elevation_gain", "moving_time"] },
  ActivityStats: {
    keys: [
      "all_ride_totals",
      "all_run_totals",
      "all_swim_totals",
      "biggest_climb_elevation_gain",
      "biggest_ride_distance",
      "recent_ride_totals",
      "recent_run_totals",
      "recent_swim_totals",
      "ytd_ride_totals",
      "ytd_run_totals",
      "ytd_swim_totals",
    ],
    nested: Object.fromEntries(
      ["all", "recent", "ytd"].flatMap((p) =>
        ["ride", "run", "swim"].map((k) => [`${p}_${k}_totals`, "ActivityTotal"])
      ),
    ),
  },
  Zones: { keys: ["heart_rate", "power"], nested: { heart_rate: "HeartRateZoneRanges", power: "PowerZoneRanges" } },
  HeartRateZoneRanges: { keys: ["custom_zones", "zones"] },
  PowerZoneRanges: { keys: ["zones"] },
  // athlete_segment_stats: the swagger types it SummarySegmentEffort, but Strava's answers (and stravalib's
  // use of them) carry pr_elapsed_time, pr_date (a date) and effort_count: only its presence is checked.
  SummarySegment: { keys: SUMMARY_SEGMENT, nested: { athlete_pr_effort: "SummaryPRSegmentEffort" } },
  SummaryPRSegmentEffort: { keys: ["effort_count", "pr_activity_id", "pr_date", "pr_elapsed_time"] },
  SummarySegmentEffort: { keys: SUMMARY_SEGMENT_EFFORT },
  DetailedSegment: {
    keys: [
      ...SUMMARY_SEGMENT,
      "athlete_count",
      "created_at",
      "effort_count",
      "hazardous",
      "map",
      "star_count",
      "total_elevation_gain",
      "updated_at",
    ],
    nested: { athlete_pr_effort: "SummaryPRSegmentEffort", map: "PolylineMap" },
  },
  DetailedSegmentEffort: {
    keys: DETAILED_SEGMENT_EFFORT,
    nested: { activity: "MetaActivity", athlete: "MetaAthlete", segment: "SummarySegment" },
  },
  ExplorerResponse: { keys: ["segments"], nested: { segments: "ExplorerSegment" } },
  ExplorerSegment: {
    keys: [
      "avg_grade",
      "climb_category",
      "climb_category_desc",
      "distance",
      "elev_difference",
      "end_latlng",
      "id",
      "name",
      "points",
      "start_latlng",
    ],
  },
  Route: {
    keys: [
      "athlete",
      "created_at",
      "description",
      "distance",
      "elevation_gain",
      "estimated_moving_time",
      "id",
      "id_str",
      "map",
      "name",
      "private",
      "segments",
      "starred",
      "sub_type",
      "timestamp",
      "type",
      "updated_at",
      "waypoints",
      // The Route model's list of RouteDirection (distance, action, name), in Strava's published model.
      "directions",
    ],
    nested: { athlete: "SummaryAthlete", map: "PolylineMap", segments: "SummarySegment" },
  },
  Upload: { keys: ["activity_id", "error", "external_id", "id", "id_str", "status"] },
  // A StreamSet keyed by type holds only the types asked for and recorded: each stream's own keys are checked.
  StreamSet: { keys: [], nested: Object.fromEntries(STREAM_KEYS.map((k) => [k, "Stream"])) },
  Stream: { keys: STREAM },
};

/**
 * The declared properties an answer lacks, as paths ("segment_efforts.0.segment.athlete_pr_effort"), descending
 * into nested models (every item of an array). Meta objects are checked as Strava fills them in
 * a summary (`id` only); keys we add beyond the model are not reported here (see `extraKeys`).
 */
export function missingKeys(value: unknown, model: string, path = ""): string[] {
  const declared = STRAVA_MODEL[model];
  if (!declared) throw new Error(`no model ${model}`);
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => missingKeys(item, model, `${path}${path ? "." : ""}${i}`));
  }
  if (value === null || typeof value !== "object") return [];
  const record = value as Record<string, unknown>;
  const at = (k: string) => [path, k].filter(Boolean).join(".");
  const own = declared.keys.filter((k) => !(k in record)).map(at);
  const deeper = Object.entries(declared.nested ?? {}).flatMap(([k, sub]) =>
    record[k] === undefined || record[k] === null ? [] : missingKeys(record[k], sub, at(k))
  );
  return [...own, ...deeper];
}

/**
 * The keys of an object (each item of an array) beyond what the model declares, besides
 * resource_state: for the objects Strava keeps reduced (ClubActivity), where more is a difference.
 */
export function extraKeys(value: unknown, model: string): string[] {
  const declared = new Set([...STRAVA_MODEL[model].keys, "resource_state"]);
  const items = Array.isArray(value) ? value : [value];
  return [
    ...new Set(
      items.flatMap((item) =>
        (item && typeof item === "object" ? Object.keys(item) : []).filter((k) => !declared.has(k))
      ),
    ),
  ];
}

/** A path with its array indexes as "*" ("segment_efforts.*.is_kom"), to compare against lists of accepted gaps. */
export const generalPath = (path: string) => path.replace(/\.\d+(?=\.|$)/g, ".*").replace(/^\d+(?=\.|$)/, "*");

const Lap: Rules = { resource_state: RESOURCE_STATE, start_date: "date-time", start_date_local: "date-time" };
const StreamRules: Rules = {
  resolution: { enum: ["low", "medium", "high"] },
  series_type: { enum: ["distance", "time"] },
};

/** The enum and date rules of every model an operation answers with (by the names of STRAVA_MODEL). */
export const STRAVA_RULES: Record<string, Rules> = {
  DetailedAthlete,
  SummaryAthlete: {
    resource_state: RESOURCE_STATE,
    sex: { enum: ["M", "F"] },
    created_at: "date-time",
    updated_at: "date-time",
  },
  SummaryClub,
  DetailedClub: SummaryClub,
  ClubAthlete: { resource_state: RESOURCE_STATE },
  ClubActivity: { type: { enum: STRAVA_ACTIVITY_TYPES }, sport_type: { enum: STRAVA_SPORT_TYPES } },
  MembershipApplication: { membership: { enum: ["member", "pending"] } },
  SummaryGear,
  DetailedGear: SummaryGear,
  SummaryActivity,
  DetailedActivity,
  Lap,
  Comment: { created_at: "date-time" },
  ActivityZone: { type: { enum: ["heartrate", "power"] } },
  ActivityStats: {},
  Zones: {},
  SummarySegment: {
    ...SummarySegment,
    athlete_pr_effort: { object: { pr_date: "date-time" } },
    athlete_segment_stats: { object: SegmentEffort },
  },
  DetailedSegment,
  DetailedSegmentEffort: SegmentEffort,
  ExplorerResponse: {
    segments: {
      each: {
        object: {
          climb_category: { enum: [0, 1, 2, 3, 4, 5] },
          climb_category_desc: { enum: ["NC", "4", "3", "2", "1", "HC"] },
        },
      },
    },
  },
  Route: {
    created_at: "date-time",
    updated_at: "date-time",
    type: { enum: [1, 2] },
    sub_type: { enum: [1, 2, 3, 4, 5] },
  },
  Upload: {},
  StreamSet: Object.fromEntries(
    [
      "altitude",
      "cadence",
      "distance",
      "grade_smooth",
      "heartrate",
      "latlng",
      "moving",
      "temp",
      "time",
      "velocity_smooth",
      "watts",
    ].map((k) => [k, { object: StreamRules }]),
  ),
};

/**
 * The types Strava's published model gives the fields of clubs, athletes, segments, routes and gear
 * (the swagger definitions, as stravalib 2.5.0's generated strava_model.py holds them; username, bio,
 * nickname and profile as Strava's answers carry them beside the model; directions from the Route
 * model's RouteDirection list), for the question of issue #42 item 4: where may an answer hold null?
 * The model marks no property nullable. A string, boolean or array has a documented empty value ("",
 * false, []), so null there is outside the model; an enum (sex, membership) has no empty member and a
 * number or an object no empty value, so null is their absence (ftp unset, no PR on a segment) — as
 * Strava's own reference examples answer `"ftp": null`, `"friend": null`.
 */
type Kind = "string" | "enum" | "number" | "boolean" | "array" | "object" | "date-time";

const ATHLETE_KINDS: Record<string, Kind> = {
  id: "number",
  resource_state: "number",
  firstname: "string",
  lastname: "string",
  profile_medium: "string",
  profile: "string",
  city: "string",
  state: "string",
  country: "string",
  sex: "enum",
  premium: "boolean",
  summit: "boolean",
  created_at: "date-time",
  updated_at: "date-time",
  friend: "enum",
  follower: "enum",
};
const CLUB_KINDS: Record<string, Kind> = {
  id: "number",
  resource_state: "number",
  name: "string",
  profile_medium: "string",
  profile: "string",
  cover_photo: "string",
  cover_photo_small: "string",
  sport_type: "enum",
  activity_types: "array",
  city: "string",
  state: "string",
  country: "string",
  private: "boolean",
  member_count: "number",
  featured: "boolean",
  verified: "boolean",
  url: "string",
  membership: "enum",
  admin: "boolean",
  owner: "boolean",
};
const SEGMENT_KINDS: Record<string, Kind> = {
  id: "number",
  name: "string",
  activity_type: "enum",
  distance: "number",
  average_grade: "number",
  maximum_grade: "number",
  elevation_high: "number",
  elevation_low: "number",
  start_latlng: "array",
  end_latlng: "array",
  climb_category: "number",
  city: "string",
  state: "string",
  country: "string",
  private: "boolean",
  athlete_pr_effort: "object",
  athlete_segment_stats: "object",
};
const GEAR_KINDS: Record<string, Kind> = {
  id: "string",
  resource_state: "number",
  primary: "boolean",
  name: "string",
  nickname: "string",
  distance: "number",
};
const POLYLINE_MAP_KINDS: Record<string, Kind> = { id: "string", polyline: "string", summary_polyline: "string" };

export const STRAVA_KINDS: Record<string, { kinds: Record<string, Kind>; nested?: Record<string, string> }> = {
  SummaryAthlete: { kinds: ATHLETE_KINDS },
  DetailedAthlete: {
    kinds: {
      ...ATHLETE_KINDS,
      username: "string",
      bio: "string",
      follower_count: "number",
      friend_count: "number",
      ftp: "number",
      weight: "number",
      measurement_preference: "enum",
      clubs: "array",
      bikes: "array",
      shoes: "array",
    },
    nested: { clubs: "SummaryClub", bikes: "SummaryGear", shoes: "SummaryGear" },
  },
  ClubAthlete: {
    kinds: { ...ATHLETE_KINDS, member: "string", membership: "enum", admin: "boolean", owner: "boolean" },
  },
  SummaryClub: { kinds: CLUB_KINDS },
  DetailedClub: { kinds: { ...CLUB_KINDS, description: "string", club_type: "enum", following_count: "number" } },
  SummarySegment: { kinds: SEGMENT_KINDS },
  DetailedSegment: {
    kinds: {
      ...SEGMENT_KINDS,
      hazardous: "boolean",
      starred: "boolean",
      created_at: "date-time",
      updated_at: "date-time",
      total_elevation_gain: "number",
      map: "object",
      effort_count: "number",
      athlete_count: "number",
      star_count: "number",
    },
    nested: { map: "PolylineMap" },
  },
  PolylineMap: { kinds: POLYLINE_MAP_KINDS },
  Route: {
    kinds: {
      athlete: "object",
      description: "string",
      distance: "number",
      elevation_gain: "number",
      id: "number",
      id_str: "string",
      map: "object",
      name: "string",
      private: "boolean",
      starred: "boolean",
      timestamp: "number",
      type: "number",
      sub_type: "number",
      created_at: "date-time",
      updated_at: "date-time",
      estimated_moving_time: "number",
      segments: "array",
      waypoints: "array",
      directions: "array",
    },
    nested: { athlete: "SummaryAthlete", map: "PolylineMap", segments: "SummarySegment" },
  },
  SummaryGear: { kinds: GEAR_KINDS },
  DetailedGear: {
    kinds: { ...GEAR_KINDS, brand_name: "string", model_name: "string", description: "string", frame_type: "number" },
  },
};

/**
 * Where an answer holds null outside Strava's model (see STRAVA_KINDS): "city (SummaryClub: string)".
 * Only the models of clubs, athletes, segments, routes and gear are known here; others answer [].
 */
export function nullsOutsideModel(value: unknown, model: string, path = ""): string[] {
  const declared = STRAVA_KINDS[model];
  if (!declared) return [];
  if (Array.isArray(value)) {
    return value.flatMap((item, i) => nullsOutsideModel(item, model, `${path}${path ? "." : ""}${i}`));
  }
  if (value === null || typeof value !== "object") return [];
  const record = value as Record<string, unknown>;
  const at = (k: string) => [path, k].filter(Boolean).join(".");
  const own = Object.entries(declared.kinds)
    .filter(([k, kind]) => record[k] === null && (kind === "string" || kind === "boolean" || kind === "array"))
    .map(([k, kind]) =>
      `${at(k)} is null (${model}: ${kind}, whose empty value is ${
        kind === "string" ? '""' : kind === "array" ? "[]" : "false"
      })`
    );
  const deeper = Object.entries(declared.nested ?? {}).flatMap(([k, sub]) =>
    record[k] === undefined || record[k] === null ? [] : nullsOutsideModel(record[k], sub, at(k))
  );
  return [...own, ...deeper];
}
