import { z } from "zod";

/**
 * Response schemas (Strava's API model) of the athlete operations added for issue #19; the
 * OpenAPI document carries them (route `response`), and tests validate real answers against it.
 */
const activityTotal = z.object({
  count: z.number().int(),
  distance: z.number(),
  moving_time: z.number().int(),
  elapsed_time: z.number().int(),
  elevation_gain: z.number(),
  achievement_count: z.number().int().optional(),
});

export const zActivityStats = z.object({
  biggest_ride_distance: z.number().nullable(),
  biggest_climb_elevation_gain: z.number().nullable(),
  recent_ride_totals: activityTotal,
  recent_run_totals: activityTotal,
  recent_swim_totals: activityTotal,
  ytd_ride_totals: activityTotal,
  ytd_run_totals: activityTotal,
  ytd_swim_totals: activityTotal,
  all_ride_totals: activityTotal,
  all_run_totals: activityTotal,
  all_swim_totals: activityTotal,
});

const zoneRange = z.object({ min: z.number().int(), max: z.number().int() });

export const zZones = z.object({
  heart_rate: z.object({ custom_zones: z.boolean(), zones: z.array(zoneRange) }),
  power: z.object({ zones: z.array(zoneRange) }).optional(),
});
