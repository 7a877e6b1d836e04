import { z } from "zod";
import { VISIBILITIES } from "../../shared/visibility.ts";
import {
  dateTime,
  int,
  model,
  nullableInt,
  nullableNum,
  nullableStr,
  num,
  zActivityTypeEnum,
  zMetaActivity,
  zMetaAthlete,
  zNullableLatLng,
  zSportTypeEnum,
} from "../http/schema.ts";
import { zSegmentEffort } from "../segments/schema.ts";
import { zSummaryAthlete } from "../athletes/schema.ts";
import { zSummaryGear } from "../gear/schema.ts";

/** Activities (Strava's SummaryActivity, DetailedActivity, Lap, Split, ActivityZone, Comment, Photo). */
const summaryShape = {
  id: int,
  resource_state: int,
  external_id: nullableStr,
  upload_id: nullableInt,
  upload_id_str: nullableStr,
  athlete: zMetaAthlete,
  name: z.string(),
  distance: num,
  moving_time: int,
  elapsed_time: int,
  total_elevation_gain: num,
  type: zActivityTypeEnum,
  sport_type: zSportTypeEnum,
  workout_type: nullableInt,
  start_date: dateTime,
  start_date_local: dateTime,
  timezone: z.string(),
  utc_offset: int,
  start_latitude: nullableNum,
  start_longitude: nullableNum,
  visibility: z.enum(VISIBILITIES).meta({
    description:
      "Who may see the activity: everyone, followers_only (the owner's followers) or only_me (private is true exactly then).",
  }),
  start_latlng: zNullableLatLng,
  end_latlng: zNullableLatLng,
  location_city: nullableStr,
  location_state: nullableStr,
  location_country: nullableStr,
  achievement_count: int,
  pr_count: int,
  kudos_count: int,
  comment_count: int,
  athlete_count: int,
  photo_count: int,
  total_photo_count: int,
  map: z.object({ id: z.string(), summary_polyline: nullableStr, resource_state: int }),
  trainer: z.boolean(),
  commute: z.boolean(),
  manual: z.boolean(),
  private: z.boolean(),
  hide_from_home: z.boolean(),
  flagged: z.boolean(),
  gear_id: nullableStr,
  average_speed: nullableNum,
  max_speed: nullableNum,
  average_cadence: nullableNum,
  average_temp: nullableNum,
  average_watts: nullableNum,
  max_watts: nullableNum,
  weighted_average_watts: nullableNum,
  kilojoules: nullableNum,
  device_watts: z.boolean().nullable(),
  has_heartrate: z.boolean(),
  average_heartrate: nullableNum,
  max_heartrate: nullableNum,
  elev_high: nullableNum,
  elev_low: nullableNum,
  suffer_score: nullableNum,
  has_kudoed: z.boolean(),
};

const example = {
  id: 154504250376,
  resource_state: 2,
  external_id: "garmin_push_12345678987654321",
  upload_id: 987654321234567900,
  upload_id_str: "987654321234567891",
  athlete: { id: 134815, resource_state: 1 },
  name: "Happy Friday",
  distance: 28099,
  moving_time: 4207,
  elapsed_time: 4410,
  total_elevation_gain: 516,
  type: "Ride",
  sport_type: "MountainBikeRide",
  workout_type: null,
  start_date: "2018-02-16T14:52:54Z",
  start_date_local: "2018-02-16T06:52:54Z",
  timezone: "(GMT-08:00) America/Los_Angeles",
  utc_offset: -28800,
  start_latitude: 37.83,
  start_longitude: -122.26,
  visibility: "everyone",
  start_latlng: [37.83, -122.26],
  end_latlng: [37.83, -122.26],
  location_city: null,
  location_state: null,
  location_country: null,
  achievement_count: 0,
  pr_count: 0,
  kudos_count: 19,
  comment_count: 0,
  athlete_count: 1,
  photo_count: 0,
  total_photo_count: 0,
  map: {
    id: "a154504250376",
    summary_polyline: "ki{eFvqfiVqAWQIGEEKAYJgBVqDJ{BHa@jAkNJw@Pw@V{APs@^aABQAOEQGKoJ_FuJkFqAo@",
    resource_state: 2,
  },
  trainer: false,
  commute: false,
  manual: false,
  private: false,
  hide_from_home: false,
  flagged: false,
  gear_id: "b12345678987654321",
  average_speed: 6.679,
  max_speed: 18.5,
  average_cadence: 78.5,
  average_temp: null,
  average_watts: 185.5,
  max_watts: 743,
  weighted_average_watts: 230,
  kilojoules: 780.5,
  device_watts: true,
  has_heartrate: true,
  average_heartrate: 140.3,
  max_heartrate: 178,
  elev_high: 446.6,
  elev_low: 17.2,
  suffer_score: null,
  has_kudoed: false,
};

export const zSummaryActivity = model(
  "SummaryActivity",
  z.object(summaryShape),
  "An activity in a list (resource_state 2): points inside the owner's privacy zones are cut for everyone but the owner. None of the attributes the spec's summary omits (calories, description, gear, segment_efforts, splits, laps, best_efforts, device_name, embed_token, photos); on /api/v3 (Strava's dialect) it also carries device_name, as Strava's answers do (docs/app-developers.md, 'Two dialects').",
  example,
);

export const zLap = model(
  "Lap",
  z.object({
    id: int,
    resource_state: int,
    name: z.string(),
    activity: zMetaActivity,
    athlete: zMetaAthlete,
    elapsed_time: int,
    moving_time: int,
    start_date: dateTime,
    start_date_local: dateTime,
    distance: num,
    start_index: int,
    end_index: int,
    total_elevation_gain: nullableNum,
    average_speed: nullableNum,
    max_speed: nullableNum,
    average_cadence: nullableNum,
    average_watts: nullableNum,
    average_heartrate: nullableNum,
    max_heartrate: nullableNum,
    lap_index: int,
    split: int,
    pace_zone: nullableInt,
    sport_type: z.string().nullable().describe(
      "This server's addition: the sport of the lap's leg in a multisport file (a triathlon's swim, ride, run; null in a transition), else the activity's sport_type.",
    ),
  }),
  "A lap as the device recorded it.",
  {
    id: 12345678987654320,
    resource_state: 2,
    name: "Lap 1",
    activity: { id: 1234567898765432, resource_state: 1 },
    athlete: { id: 134815, resource_state: 1 },
    elapsed_time: 1573,
    moving_time: 1569,
    start_date: "2018-02-16T14:52:54Z",
    start_date_local: "2018-02-16T06:52:54Z",
    distance: 8046.72,
    start_index: 0,
    end_index: 1570,
    total_elevation_gain: 276,
    average_speed: 5.12,
    max_speed: 9.5,
    average_cadence: 78.6,
    average_watts: 210,
    average_heartrate: 145.3,
    max_heartrate: 172,
    lap_index: 1,
    split: 1,
    pace_zone: null,
    sport_type: "Ride",
  },
);

const split = model(
  "Split",
  z.object({
    distance: num,
    elapsed_time: int,
    elevation_difference: nullableNum,
    moving_time: int,
    split: int,
    average_speed: num,
    average_heartrate: num.optional(),
    pace_zone: nullableInt,
  }),
  "A kilometre (splits_metric) or mile (splits_standard) of a run.",
);

const bestEffort = model(
  "BestEffort",
  z.object({
    id: int,
    resource_state: int,
    name: z.string(),
    segment: z.null(),
    activity: z.object({ id: int }),
    athlete: z.object({ id: int }),
    activity_id: int,
    is_kom: z.boolean(),
    kom_rank: z.null(),
    pr_rank: z.null(),
    elapsed_time: int,
    moving_time: int,
    start_date: dateTime,
    start_date_local: dateTime,
    distance: num,
    start_index: int,
    end_index: int,
    hidden: z.boolean(),
    achievements: z.array(z.object({ type_id: int, type: z.string(), rank: int })),
    average_cadence: nullableNum,
    average_watts: nullableNum,
    device_watts: z.boolean(),
    average_heartrate: nullableNum,
    max_heartrate: nullableNum,
  }),
  "A run's fastest stretch of a standard distance (400m, 1k, 1 mile, 5k, …).",
);

const photoUrls = z.record(z.string(), z.string());

export const zDetailedActivity = model(
  "DetailedActivity",
  z.object({
    ...summaryShape,
    map: z.object({ id: z.string(), polyline: nullableStr, summary_polyline: nullableStr, resource_state: int }),
    description: nullableStr,
    calories: nullableNum,
    segment_efforts: z.array(zSegmentEffort),
    splits_metric: z.array(split),
    splits_standard: z.array(split),
    laps: z.array(zLap),
    best_efforts: z.array(bestEffort),
    gear: zSummaryGear.nullable(),
    photos: z.object({
      primary: z.object({ id: nullableInt, source: int, unique_id: nullableStr, urls: photoUrls }).nullable(),
      count: int,
    }),
    device_name: nullableStr,
    embed_token: z.string(),
    elevation_from_gps: z.boolean().nullable().describe(
      "This server's addition: true when the altitude, total_elevation_gain, elev_high and elev_low come from the recording's own altitudes and nothing in the file marks them as a barometric altimeter's (a FIT session's total_ascent, a creator 'with barometer') and no terrain tile on this server covers the track: GPS altitude, which on a phone reads well above the real climb; false when they come from a barometric altimeter or from the terrain; null without altitudes, on manual activities, and on activities recorded before it was kept (`cli reprocess` sets it). See docs/numbers.md.",
    ),
  }),
  "An activity with its laps, splits, efforts, gear and photos (resource_state 3).",
);

/** GET /v3/activities/:id: the detail, or {id, resource_state -1} while its upload is processing. */
export const zActivity = z.union([zDetailedActivity, z.object({ id: int, resource_state: z.literal(-1) })]);

export const zActivityZone = model(
  "ActivityZone",
  z.object({
    score: int.optional(),
    distribution_buckets: z.array(z.object({ min: num, max: num, time: num })),
    type: z.enum(["heartrate", "power"]),
    resource_state: int,
    sensor_based: z.boolean(),
    points: int.optional(),
    custom_zones: z.boolean().optional(),
    max: int.optional(),
  }),
  "Time spent in each heart-rate or power zone.",
  {
    score: 56,
    distribution_buckets: [{ min: 0, max: 114, time: 310 }, { min: 114, max: 133, time: 1284 }],
    type: "heartrate",
    resource_state: 3,
    sensor_based: true,
    points: 56,
    custom_zones: false,
    max: 190,
  },
);

export const zComment = model(
  "Comment",
  z.object({
    id: int,
    activity_id: int,
    resource_state: int,
    text: z.string(),
    athlete: z.union([zSummaryAthlete, zMetaAthlete]),
    created_at: dateTime,
  }),
  "A comment on an activity.",
  {
    id: 12345678987654320,
    activity_id: 12345678987654320,
    resource_state: 2,
    text: "Good job and keep the cat pictures coming!",
    athlete: { id: 134815, resource_state: 1 },
    created_at: "2018-02-08T19:25:39Z",
  },
);

export const zPhoto = model(
  "Photo",
  z.object({
    id: int.optional(),
    unique_id: z.string().optional(),
    activity_id: int,
    resource_state: int,
    ref: z.string().optional(),
    uid: z.string().optional(),
    type: z.string().optional(),
    urls: photoUrls,
    caption: z.string(),
    source: z.union([z.literal(1), z.literal(2)]),
    uploaded_at: dateTime,
    created_at: dateTime,
    location: zNullableLatLng,
  }),
  "A photo of an activity: source 1 uploaded here (unique_id), 2 linked from elsewhere (id, ref, uid).",
);

/** GET /photos/:unique_id/:size: the image's bytes. */
export const zPhotoImage = z.string().meta({ format: "binary", contentMediaType: "image/jpeg" });

/** POST /v3/activities/:id/kudos answers an empty object. */
export const zEmpty = model("Empty", z.object({}), "An empty object.", {});

export const zClubActivity = model(
  "ClubActivity",
  z.object({
    ...summaryShape,
    athlete: zSummaryAthlete,
    guid: z.string(),
  }),
  "An activity in a club's list, as the spec has it: the summary activity, its athlete a summary athlete (with friend/follower), and a guid. On /api/v3 (Strava's dialect) the items are Strava's reduced ClubActivity instead: name, distance, moving_time, elapsed_time, total_elevation_gain, type, sport_type, workout_type and the athlete as first name and last initial (docs/app-developers.md, 'Two dialects').",
  {
    ...example,
    athlete: {
      id: 134815,
      resource_state: 2,
      firstname: "Ann",
      lastname: "Tester",
      profile_medium: "https://fitness.example.org/avatars/athletes/134815/medium.png",
      profile: "https://fitness.example.org/avatars/athletes/134815/large.png",
      city: "Utrecht",
      state: "",
      country: "Netherlands",
      sex: "F",
      premium: false,
      summit: false,
      created_at: "2017-11-14T02:30:05Z",
      updated_at: "2018-02-06T19:32:20Z",
      friend: null,
      follower: null,
    },
    guid: "activity-154504250376",
  },
);

export const zSummaryActivityList = z.array(zSummaryActivity);
export const zLapList = z.array(zLap);
export const zActivityZoneList = z.array(zActivityZone);
export const zCommentList = z.array(zComment);
export const zPhotoList = z.array(zPhoto);
export const zClubActivityList = z.array(zClubActivity);
/** Kudoers: summary athletes. */
export const zSummaryAthleteList = z.array(zSummaryAthlete);
