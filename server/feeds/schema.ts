import { z } from "zod";

/**
 * Response schemas of the web app's extension operations (server/feeds/routes.ts): the
 * summary athlete and summary activities of Strava's API model, the fields the pages rely on
 * named, the rest passed through as the representations write them.
 */
export const zSummaryAthlete = z.object({
  id: z.number().int(),
  resource_state: z.number().int(),
  firstname: z.string(),
  lastname: z.string(),
  profile_medium: z.string(),
  profile: z.string(),
  friend: z.string().nullable(),
  follower: z.string().nullable(),
}).passthrough();

export const zFeedActivity = z.object({
  id: z.number().int(),
  resource_state: z.number().int(),
  name: z.string(),
  type: z.string(),
  start_date: z.string(),
  distance: z.number(),
  moving_time: z.number(),
  private: z.boolean(),
  athlete: z.object({ id: z.number().int() }).passthrough(),
}).passthrough();

export const zFeedActivities = z.array(zFeedActivity);

export const zAthleteProfile = z.object({
  athlete: zSummaryAthlete,
  follower_count: z.number().int(),
  friend_count: z.number().int(),
});
