import { z } from "zod";
import { VISIBILITIES } from "../../shared/visibility.ts";
import { dateTime, int, model, nullableInt, nullableNum, nullableStr, num } from "../http/schema.ts";
import { zSummaryGear } from "../gear/schema.ts";
import { zSummaryClub } from "../clubs/schema.ts";

/**
 * Response schemas (Strava's API model) of the athlete operations; the OpenAPI document carries
 * them (route `response`), and tests validate real answers against it.
 */
const summaryAthleteShape = {
  id: int,
  resource_state: int,
  firstname: z.string(),
  lastname: z.string(),
  profile_medium: z.string().meta({ format: "uri" }),
  profile: z.string().meta({ format: "uri" }),
  city: z.string(),
  state: z.string(),
  country: z.string(),
  sex: z.enum(["M", "F"]).nullable(),
  premium: z.boolean(),
  summit: z.boolean(),
  created_at: dateTime,
  updated_at: dateTime,
  friend: nullableStr,
  follower: nullableStr,
};

const athleteExample = {
  id: 134815,
  resource_state: 2,
  firstname: "Ann",
  lastname: "Tester",
  profile_medium: "https://fitness.example.com/avatars/athletes/134815/medium.png",
  profile: "https://fitness.example.com/avatars/athletes/134815/large.png",
  city: "Utrecht",
  state: "",
  country: "Netherlands",
  sex: "F",
  premium: false,
  summit: false,
  created_at: "2024-01-02T03:04:05Z",
  updated_at: "2024-05-06T07:08:09Z",
  friend: null,
  follower: null,
};

export const zSummaryAthlete = model(
  "SummaryAthlete",
  z.object(summaryAthleteShape),
  "An athlete as others see them (resource_state 2), with friend/follower relative to the viewer.",
  athleteExample,
);

export const zDetailedAthlete = model(
  "DetailedAthlete",
  z.object({
    ...summaryAthleteShape,
    username: z.string(),
    bio: z.string(),
    summit: z.boolean(),
    badge_type_id: int,
    follower_count: int,
    friend_count: int,
    mutual_friend_count: int,
    athlete_type: int,
    date_preference: z.string(),
    measurement_preference: z.enum(["feet", "meters"]),
    ftp: nullableInt,
    weight: num,
    clubs: z.array(zSummaryClub),
    bikes: z.array(zSummaryGear),
    shoes: z.array(zSummaryGear),
    default_visibility: z.enum(VISIBILITIES).meta({
      description:
        "Extension: who may see the athlete's new activities that do not say (everyone, followers_only, only_me); PUT /v3/athlete sets it.",
    }),
  }),
  "The authenticated athlete (resource_state 3): private attributes only reach the athlete's own token.",
  {
    ...athleteExample,
    resource_state: 3,
    username: "",
    bio: "",
    summit: false,
    badge_type_id: 0,
    follower_count: 3,
    friend_count: 2,
    mutual_friend_count: 0,
    athlete_type: 0,
    date_preference: "%m/%d/%Y",
    measurement_preference: "meters",
    ftp: 240,
    weight: 61.5,
    clubs: [],
    bikes: [],
    shoes: [],
    default_visibility: "everyone",
  },
);

/** GET /v3/athlete, PUT /v3/athlete; GET /v3/athletes/:id answers the detail for oneself, else the summary. */
export const zAthlete = z.union([zDetailedAthlete, zSummaryAthlete]);

/** Club members and admins: the summary athlete with the membership fields. */
export const zClubAthlete = model(
  "ClubAthlete",
  z.object({
    ...summaryAthleteShape,
    membership: z.enum(["member", "pending"]).nullable(),
    member: z.enum(["member", "pending"]).nullable().optional(),
    admin: z.boolean(),
    owner: z.boolean(),
  }),
  "A club member as listed by the club (summary athlete plus membership — also as Strava's `member` —, admin, owner).",
  { ...athleteExample, membership: "member", member: "member", admin: false, owner: false },
);

/** The token-exchange athlete: the summary plus the email (only to the athlete themself). */
export const zTokenAthlete = z.object({ ...summaryAthleteShape, email: z.string().optional() });

const activityTotal = model(
  "ActivityTotal",
  z.object({
    count: int,
    distance: num,
    moving_time: int,
    elapsed_time: int,
    elevation_gain: num,
    achievement_count: int.optional(),
  }),
  "Totals of one sport over one period.",
  {
    count: 12,
    distance: 312450.5,
    moving_time: 41230,
    elapsed_time: 45010,
    elevation_gain: 2310,
    achievement_count: 4,
  },
);

export const zActivityStats = model(
  "ActivityStats",
  z.object({
    biggest_ride_distance: nullableNum,
    biggest_climb_elevation_gain: nullableNum,
    recent_ride_totals: activityTotal,
    recent_run_totals: activityTotal,
    recent_swim_totals: activityTotal,
    ytd_ride_totals: activityTotal,
    ytd_run_totals: activityTotal,
    ytd_swim_totals: activityTotal,
    all_ride_totals: activityTotal,
    all_run_totals: activityTotal,
    all_swim_totals: activityTotal,
  }),
  "Recent (4 weeks), year-to-date and all-time totals of rides, runs and swims.",
);

const zoneRange = model("ZoneRange", z.object({ min: int, max: int }), "A zone's bounds (max -1: open-ended).", {
  min: 152,
  max: 171,
});

export const zZones = model(
  "Zones",
  z.object({
    heart_rate: z.object({ custom_zones: z.boolean(), zones: z.array(zoneRange) }),
    power: z.object({ zones: z.array(zoneRange) }).optional(),
  }),
  "The athlete's heart-rate zones (from max HR) and power zones (from FTP, when set).",
);

export const zPrivacyZone = model(
  "PrivacyZone",
  z.object({ id: int, lat: num, lng: num, radius: num, created_at: dateTime }),
  "Extension: a circle (metres) around a place; activity points inside it are hidden from others.",
  { id: 7, lat: 52.0907, lng: 5.1214, radius: 500, created_at: "2024-05-06T07:08:09Z" },
);

export const zClubAthleteList = z.array(zClubAthlete);
export const zPrivacyZoneList = z.array(zPrivacyZone);
