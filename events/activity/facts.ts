import { z } from "zod";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { SPORT_TYPES } from "../../shared/sport-types.ts";
import { VISIBILITIES } from "../../shared/visibility.ts";

/**
 * The facts of an activity derived from its device file (the data of ActivityRecorded and of its
 * reprocessing), in their own module so the activity's events and its reprocessing both build on
 * them.
 */
const latlng = z.tuple([z.number(), z.number()]);
export const activityType = z.enum(ACTIVITY_TYPES);
/** Strava's sport_type, consistent with type (shared/sport-types.ts); absent on events recorded before it was kept: the type. */
export const sportType = z.enum(SPORT_TYPES).optional();

export const lapFacts = z.object({
  lapIndex: z.number().int(),
  name: z.string(),
  startIndex: z.number().int(),
  endIndex: z.number().int(),
  startDate: z.string(),
  elapsedTime: z.number().int(),
  movingTime: z.number().int(),
  distance: z.number(),
  totalElevationGain: z.number(),
  averageSpeed: z.number(),
  maxSpeed: z.number(),
  averageCadence: z.number().nullable(),
  averageWatts: z.number().nullable(),
  averageHeartrate: z.number().nullable(),
  maxHeartrate: z.number().nullable(),
  /**
   * A multisport file's lap: the sport of the leg (FIT session) it starts in, null in a transition;
   * absent on other files' laps (and on laps recorded before it was kept): the activity's.
   */
  sportType: activityType.nullable().optional(),
});

export const splitFacts = z.object({
  split: z.number().int(),
  distance: z.number(),
  elapsedTime: z.number().int(),
  movingTime: z.number().int(),
  elevationDifference: z.number().nullable(),
  averageSpeed: z.number(),
  averageHeartrate: z.number().nullable(),
  paceZone: z.number().int(),
});

export const bestEffortFacts = z.object({
  name: z.string(),
  distance: z.number(),
  elapsedTime: z.number().int(),
  movingTime: z.number().int(),
  startIndex: z.number().int(),
  endIndex: z.number().int(),
  startDate: z.string(),
  /** PR rank among the athlete's efforts of that distance at upload time (1–3) or null. */
  prRank: z.number().int().nullable(),
  /** Averages over the effort (absent on efforts recorded before they were kept). */
  averageCadence: z.number().nullable().optional(),
  averageWatts: z.number().nullable().optional(),
  deviceWatts: z.boolean().optional(),
  averageHeartrate: z.number().nullable().optional(),
  maxHeartrate: z.number().nullable().optional(),
});

/** One point of an activity's power curve: the highest mean power (W) over `duration` seconds. */
export const powerCurvePoint = z.object({ duration: z.number().int().positive(), watts: z.number().int() });

/** Everything derived from a device file, once, at upload time. */
export const activityFacts = z.object({
  type: activityType,
  sportType,
  name: z.string(),
  description: z.string().nullable(),
  externalId: z.string().nullable(),
  uploadId: z.number().int().nullable(),
  startDate: z.string(),
  startDateLocal: z.string(),
  timezone: z.string(),
  distance: z.number(),
  movingTime: z.number().int(),
  elapsedTime: z.number().int(),
  totalElevationGain: z.number(),
  elevHigh: z.number().nullable(),
  elevLow: z.number().nullable(),
  /** Whether the altitudes come from a barometric altimeter (absent on activities recorded before it was kept). */
  barometric: z.boolean().optional(),
  /**
   * Where the altitudes (and so elevation gain, high and low) come from: a barometric altimeter (as
   * the file says: a FIT session's total_ascent, a creator "with barometer"), the operator's terrain
   * tiles, or else the recording's GPS altitude (no tile covering the track); null without altitudes.
   * Absent on activities recorded before it was kept (`cli reprocess` derives it).
   */
  elevationSource: z.enum(["barometric", "terrain", "gps"]).nullable().optional(),
  startLatlng: latlng.nullable(),
  endLatlng: latlng.nullable(),
  averageSpeed: z.number(),
  maxSpeed: z.number(),
  averageCadence: z.number().nullable(),
  averageTemp: z.number().nullable(),
  averageWatts: z.number().nullable(),
  maxWatts: z.number().int().nullable(),
  weightedAverageWatts: z.number().int().nullable(),
  kilojoules: z.number().nullable(),
  deviceWatts: z.boolean().nullable(),
  hasHeartrate: z.boolean(),
  averageHeartrate: z.number().nullable(),
  maxHeartrate: z.number().int().nullable(),
  calories: z.number().nullable(),
  sufferScore: z.number().int().nullable(),
  /** Who may see it (ActivityRecorded v2; v1 recorded `private`: true = only_me, false = everyone). */
  visibility: z.enum(VISIBILITIES),
  trainer: z.boolean(),
  commute: z.boolean(),
  deviceName: z.string().nullable(),
  workoutType: z.number().int().nullable(),
  /**
   * Encoded polyline of the full track (null when it is kept as a blob: `polylineSha256`), and a
   * simplified one for summaries.
   */
  polyline: z.string().nullable(),
  /**
   * sha-256 of the full polyline (UTF-8) kept as a blob, like the streams: a long track's polyline
   * (hundreds of kB) stays out of the event and the activity's row. Absent on activities recorded
   * before it was kept so, and on short tracks (the polyline is inline).
   */
  polylineSha256: z.string().nullable().optional(),
  summaryPolyline: z.string().nullable(),
  /** sha-256 of the stored ActivityStreams JSON blob; null for activities without streams. */
  streamsSha256: z.string().nullable(),
  laps: z.array(lapFacts),
  splitsMetric: z.array(splitFacts),
  splitsStandard: z.array(splitFacts),
  bestEfforts: z.array(bestEffortFacts),
  /**
   * The highest mean power over 5 s … 1 h (server/ingest/power-curve.ts), null without a power
   * stream; absent on activities recorded before it was kept (the records read model then counts
   * none of their power until `cli reprocess` derives it).
   */
  powerCurve: z.array(powerCurvePoint).nullable().optional(),
});
