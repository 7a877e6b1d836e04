import type { z } from "zod";
import type { ChallengeRow } from "../../projections/challenges/queries.ts";
import type { zDetailedChallenge, zSummaryChallenge } from "./schema.ts";

export type { ChallengeRow };

/** Summary challenge (resource_state 2): every field but the detail-only texts. */
export function summaryChallenge(row: ChallengeRow): z.input<typeof zSummaryChallenge> {
  return {
    id: Number(row.id),
    resource_state: 2,
    name: row.name,
    type: row.type,
    joined: row.joined,
    start_date: row.start_date,
    end_date: row.end_date,
    segment_id: row.segment_id === null ? null : Number(row.segment_id),
    // A string, never null (the spec's Challenge table): "" for a challenge of every sport.
    activity_type: row.activity_type ?? "",
    dimension: row.dimension,
    goal: Number(row.goal),
    goal_hidden: false,
    measurement_unit: "metric",
    milestone_count: 0,
    logo_url: row.logo_url,
    teaser: row.teaser,
    url: row.url,
    color: row.color,
    social_hashtag: row.social_hashtag,
    participant_count: Number(row.participant_count),
    total_dimension: Number(row.total_dimension),
    attempt_count: Number(row.attempt_count),
    completed_count: Number(row.completed_count),
    leaderboard_count: Number(row.leaderboard_count),
    external_url: row.external_url,
  };
}

/** Detailed challenge (resource_state 3): the summary plus description, mobile_description, additional_info, rules, prizes. */
export function detailedChallenge(row: ChallengeRow): z.input<typeof zDetailedChallenge> {
  return {
    ...summaryChallenge(row),
    resource_state: 3,
    description: row.description,
    mobile_description: row.mobile_description,
    additional_info: row.additional_info,
    rules: row.rules,
    prizes: row.prizes,
  };
}
