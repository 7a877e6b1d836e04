import type { z } from "zod";
import { athleteAvatarUrl } from "../avatars/url.ts";
import type { zChallengeLeaderboardList } from "./schema.ts";
import type { RankedEntry } from "../../projections/challenges/queries.ts";

/** Entries shown before and after the requester on the first page (spec: Limits). */
export const CHALLENGE_LEADERBOARD_CONTEXT = 2;

/** Leaderboard entries as the spec lists them (rank, overall_rank, athlete_id, athlete_name, …). */
export function challengeLeaderboard(ranked: readonly RankedEntry[]): z.input<typeof zChallengeLeaderboardList> {
  return ranked.map(({ row, rank, overall }) => ({
    rank,
    overall_rank: overall,
    athlete_id: Number(row.athlete_id),
    athlete_name: row.firstname === null ? "" : `${row.firstname} ${row.lastname}`,
    athlete_profile: athleteAvatarUrl(Number(row.athlete_id), "large"),
    total_dimension: Number(row.value),
    activity_id: row.activity_id === null ? null : Number(row.activity_id),
    activity_count: Number(row.activity_count),
    success_count: Number(row.success_count),
  }));
}
