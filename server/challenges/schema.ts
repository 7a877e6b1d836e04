import { z } from "zod";
import { date, int, model, nullableInt, nullableStr, num } from "../http/schema.ts";

/** Challenges (ours: Strava has no public challenges API). */
const summaryShape = {
  id: int,
  resource_state: int,
  name: z.string(),
  type: z.string(),
  joined: z.boolean(),
  // Calendar days, YYYY-MM-DD: the challenge runs from the start of start_date to the end of end_date, local time.
  start_date: date,
  end_date: date,
  segment_id: nullableInt,
  activity_type: z.string().describe('The sport that counts; "" for every sport.'),
  dimension: z.string(),
  goal: num,
  goal_hidden: z.boolean(),
  measurement_unit: z.string(),
  milestone_count: int,
  logo_url: z.string(),
  teaser: z.string(),
  url: z.string(),
  color: z.string(),
  social_hashtag: z.string(),
  participant_count: int,
  total_dimension: num,
  attempt_count: int,
  completed_count: int,
  leaderboard_count: int,
  external_url: nullableStr,
};

const example = {
  id: 3001,
  resource_state: 2,
  name: "May 100 km",
  type: "DistanceChallenge",
  joined: true,
  start_date: "2024-05-01",
  end_date: "2024-05-31",
  segment_id: null,
  activity_type: "Ride",
  dimension: "distance",
  goal: 100000,
  goal_hidden: false,
  measurement_unit: "metric",
  milestone_count: 0,
  logo_url: "",
  teaser: "Ride 100 km in May",
  url: "may-100",
  color: "#fc4c02",
  social_hashtag: "may100",
  participant_count: 42,
  total_dimension: 3120450,
  attempt_count: 40,
  completed_count: 12,
  leaderboard_count: 40,
  external_url: null,
};

export const zSummaryChallenge = model(
  "SummaryChallenge",
  z.object(summaryShape),
  "Extension: a challenge (resource_state 2).",
  example,
);

export const zDetailedChallenge = model(
  "DetailedChallenge",
  z.object({
    ...summaryShape,
    description: z.string(),
    mobile_description: z.string(),
    additional_info: z.string(),
    rules: z.string(),
    prizes: z.string(),
  }),
  "Extension: a challenge with its texts (resource_state 3).",
);

export const zChallengeLeaderboard = model(
  "ChallengeLeaderboardEntry",
  z.object({
    rank: int,
    overall_rank: int,
    athlete_id: int,
    athlete_name: z.string(),
    athlete_profile: z.string(),
    total_dimension: num,
    activity_id: nullableInt,
    activity_count: int,
    success_count: int,
  }),
  "Extension: an athlete's place on a challenge's leaderboard.",
);

export const zSummaryChallengeList = z.array(zSummaryChallenge);
export const zChallengeLeaderboardList = z.array(zChallengeLeaderboard);
