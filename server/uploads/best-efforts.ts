import type { Queryable } from "../../events/db/types.ts";
import { fasterBestEfforts } from "../../projections/activities/queries.ts";

interface BestEffort {
  name: string;
  elapsedTime: number;
  prRank: number | null;
}

/**
 * PR ranks of a run's best efforts at upload time (1–3 or null), among the athlete's earlier best
 * efforts of the same distance name: competition ranking, so a tie shares the rank. Recorded in the
 * event and never updated.
 */
export async function rankBestEfforts<T extends BestEffort>(
  db: Queryable,
  athleteId: number,
  activityId: number,
  efforts: T[],
): Promise<T[]> {
  if (efforts.length === 0) return efforts;
  const better = await fasterBestEfforts(db, athleteId, activityId, efforts);
  return efforts.map((e) => {
    const rank = (better.get(e.name) ?? 0) + 1;
    return { ...e, prRank: rank <= 3 ? rank : null };
  });
}
