import { type BoardDb, type LeaderboardRequest, segmentBoard } from "../../projections/segments/leaderboard.ts";

export { segmentBoard };
import { exactInteger } from "../../shared/json.ts";
import type { Dialect } from "../http/dialect.ts";

export {
  AGE_GROUPS,
  birthdateBounds,
  DATE_RANGES,
  type LeaderboardFilters,
  type LeaderboardRequest,
  periodKey,
  rangeStart,
  WEIGHT_CLASSES,
  WEIGHT_CLASSES_KG,
  WEIGHT_CLASSES_LB,
  weightBounds,
} from "../../projections/segments/leaderboard.ts";

/**
 * The segment leaderboard (GET /v3/segments/:id/leaderboard): entry_count, the requested page, and
 * the viewer's entry with context_entries rows either side (no repeats). rank is the competition
 * rank starting at 0 (ties share it, the next is skipped). The deprecated effort_count (the spec:
 * "entry_count replaces it") only in Strava's dialect, for its older clients.
 */
export async function leaderboard(db: BoardDb, req: LeaderboardRequest, dialect: Dialect) {
  return representBoard(await segmentBoard(db, req), dialect);
}

/** The board as the API writes it, in the request's dialect. */
export function representBoard({ count, entries }: Awaited<ReturnType<typeof segmentBoard>>, dialect: Dialect) {
  return {
    ...(dialect === "strava" ? { effort_count: count } : {}),
    entry_count: count,
    kom_type: "kom",
    entries: entries.map((e) => ({
      athlete_name: `${e.firstname ?? ""} ${(e.lastname ?? "").slice(0, 1)}.`.trim(),
      athlete_id: Number(e.athlete_id),
      athlete_gender: e.athlete_sex,
      effort_id: exactInteger(e.effort_id),
      activity_id: Number(e.activity_id),
      elapsed_time: e.elapsed_time,
      moving_time: e.moving_time,
      start_date: e.start_date.replace(/\.\d{3}Z$/, "Z"),
      start_date_local: e.start_date_local.replace(/\.\d{3}Z$/, "Z"),
      rank: e.rank,
    })),
  };
}
