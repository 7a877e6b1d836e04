import { z } from "zod";
import { date, dateTime, int, model, nullableInt, nullableNum, nullableStr, num, zLatLng } from "../http/schema.ts";

/** Segments and efforts (Strava's SummarySegment, DetailedSegment, ExplorerResponse, DetailedSegmentEffort, leaderboards). */
/** A segment's activity_type: Strava's model has two values. */
const activityType = z.enum(["Ride", "Run"]);
const summaryShape = {
  id: int,
  resource_state: int,
  name: z.string(),
  activity_type: activityType,
  distance: num,
  average_grade: num,
  maximum_grade: num,
  elevation_high: nullableNum,
  elevation_low: nullableNum,
  start_latlng: zLatLng,
  end_latlng: zLatLng,
  climb_category: int.min(0).max(5),
  city: z.string(),
  state: z.string(),
  country: z.string(),
  private: z.boolean(),
  hazardous: z.boolean(),
  starred: z.boolean(),
};

const example = {
  id: 229781,
  resource_state: 2,
  name: "Hawk Hill",
  activity_type: "Ride",
  distance: 2684.82,
  average_grade: 5.7,
  maximum_grade: 14.2,
  elevation_high: 245.3,
  elevation_low: 92.4,
  start_latlng: [37.8331119, -122.4834356],
  end_latlng: [37.8280722, -122.4981393],
  climb_category: 1,
  city: "San Francisco",
  state: "CA",
  country: "United States",
  private: false,
  hazardous: false,
  starred: false,
};

/** The athlete's best effort on a segment: the spec's effort fields and Strava's SummaryPRSegmentEffort fields. */
const prEffort = model(
  "SummaryPRSegmentEffort",
  z.object({
    id: int,
    activity_id: int,
    elapsed_time: int,
    distance: num,
    start_date: dateTime,
    start_date_local: dateTime,
    is_kom: z.boolean(),
    pr_activity_id: int,
    pr_elapsed_time: int,
    pr_date: dateTime,
    effort_count: int,
  }),
  "The requesting athlete's personal record on a segment (counted over the efforts the privacy rules show them).",
  {
    id: 2801204837262341,
    activity_id: 1234567,
    elapsed_time: 412,
    distance: 2684.8,
    start_date: "2024-05-06T07:08:09Z",
    start_date_local: "2024-05-06T09:08:09Z",
    is_kom: false,
    pr_activity_id: 1234567,
    pr_elapsed_time: 412,
    pr_date: "2024-05-06T07:08:09Z",
    effort_count: 7,
  },
);

/** The requesting athlete's statistics on a segment. */
const athleteSegmentStats = z.object({
  pr_elapsed_time: nullableInt,
  pr_date: date.nullable(),
  pr_activity_id: nullableInt,
  effort_count: int,
});

export const zSummarySegment = model(
  "SummarySegment",
  z.object({
    ...summaryShape,
    athlete_pr_effort: prEffort.nullable().optional(),
    athlete_segment_stats: athleteSegmentStats.optional(),
  }),
  "A segment (resource_state 2); inside an effort also the requesting athlete's PR and statistics on it.",
  example,
);

export const zDetailedSegment = model(
  "DetailedSegment",
  z.object({
    ...summaryShape,
    created_at: dateTime,
    updated_at: dateTime,
    total_elevation_gain: num,
    map: z.object({ id: z.string(), polyline: z.string(), summary_polyline: z.string(), resource_state: int }),
    effort_count: int,
    athlete_count: int,
    star_count: int,
    athlete_pr_effort: prEffort.nullable().optional(),
    athlete_segment_stats: athleteSegmentStats.optional(),
  }),
  "A segment with its line, counters and dates (resource_state 3), and the requesting athlete's PR on it.",
  {
    ...example,
    resource_state: 3,
    created_at: "2024-05-06T07:08:09Z",
    updated_at: "2024-05-06T07:08:09Z",
    total_elevation_gain: 155.7,
    map: {
      id: "s229781",
      polyline: "}g|eFnpqjVl@En@Md@HbAd@d@^",
      summary_polyline: "}g|eFnpqjVl@En@Md@HbAd@d@^",
      resource_state: 3,
    },
    effort_count: 309974,
    athlete_count: 30623,
    star_count: 2428,
    athlete_pr_effort: null,
    athlete_segment_stats: { pr_elapsed_time: null, pr_date: null, pr_activity_id: null, effort_count: 0 },
  },
);

export const zStarredSegment = model(
  "StarredSegment",
  z.object({
    ...summaryShape,
    start_latitude: num,
    start_longitude: num,
    end_latitude: num,
    end_longitude: num,
    pr_time: nullableInt,
    athlete_pr_effort: prEffort.nullable(),
    athlete_segment_stats: athleteSegmentStats,
    starred_date: dateTime,
  }),
  "A starred segment with the athlete's PR (athlete_pr_effort).",
);

export const zExplorerResponse = model(
  "ExplorerResponse",
  z.object({
    segments: z.array(z.object({
      id: int,
      resource_state: int,
      name: z.string(),
      climb_category: int,
      climb_category_desc: z.enum(["NC", "4", "3", "2", "1", "HC"]),
      avg_grade: num,
      start_latlng: zLatLng,
      end_latlng: zLatLng,
      elev_difference: num,
      distance: num,
      points: z.string(),
      starred: z.boolean(),
    })),
  }),
  "Segments in a bounding box.",
);

const achievement = z.object({ type_id: int, type: z.string(), rank: int });

/** A segment effort (summary fields plus Strava's newer ones). */
export const zSegmentEffort = model(
  "DetailedSegmentEffort",
  z.object({
    id: int.meta({ description: "64-bit; exact in JSON, and no two efforts share a double" }),
    resource_state: int,
    name: z.string(),
    activity: z.object({ id: int, resource_state: int }),
    athlete: z.object({ id: int, resource_state: int }),
    activity_id: int,
    elapsed_time: int,
    moving_time: int,
    start_date: dateTime,
    start_date_local: dateTime,
    distance: num,
    start_index: int,
    end_index: int,
    average_cadence: nullableNum,
    device_watts: z.boolean(),
    average_watts: nullableNum,
    average_heartrate: nullableNum,
    max_heartrate: nullableNum,
    segment: zSummarySegment.nullable(),
    kom_rank: nullableInt,
    pr_rank: nullableInt,
    achievements: z.array(achievement),
    hidden: z.boolean(),
    is_kom: z.boolean(),
  }),
  "An effort on a segment.",
);

export const zSegmentLeaderboard = model(
  "SegmentLeaderboard",
  z.object({
    entry_count: int,
    kom_type: z.string(),
    entries: z.array(z.object({
      athlete_name: z.string(),
      athlete_id: int,
      athlete_gender: nullableStr,
      effort_id: int,
      activity_id: int,
      elapsed_time: int,
      moving_time: int,
      start_date: dateTime,
      start_date_local: dateTime,
      rank: int,
    })),
  }),
  "A segment leaderboard page with the viewer's context entries. On /api/v3 (Strava's dialect) also the deprecated effort_count (= entry_count).",
);

export const zSummarySegmentList = z.array(zSummarySegment);
export const zStarredSegmentList = z.array(zStarredSegment);
export const zSegmentEffortList = z.array(zSegmentEffort);
