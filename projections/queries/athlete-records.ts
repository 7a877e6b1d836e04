import type { Queryable } from "../../events/db/types.ts";
import type { VisiblePredicate } from "./athlete-feeds.ts";

/**
 * What an athlete's personal records are found in (GET /v3/athletes/:id/records,
 * server/training/routes.ts): the athlete's activities the viewer may see, oldest first,
 * with the facts the records need (best efforts, the streams' blob, average power). Who may see
 * which activity is the caller's predicate (the privacy engine's `visibleActivities`).
 */
export interface RecordSource {
  id: number;
  name: string;
  type: string;
  start_date: string;
  start_date_local: string;
  facts: {
    bestEfforts?: { name: string; distance: number; elapsedTime: number; movingTime: number; startDate?: string }[];
    streamsSha256: string | null;
    averageWatts: number | null;
  };
}

export async function recordSources(
  db: Queryable,
  athleteId: number,
  visible: VisiblePredicate,
): Promise<RecordSource[]> {
  const v = visible("a", 2);
  const rows = await db.query<RecordSource>(
    `select a.id, a.name, a.type, a.start_date, a.start_date_local, a.facts from activities a
      where a.athlete_id = $1 and ${v.sql} order by a.start_epoch, a.id`,
    [athleteId, ...v.params],
  );
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    facts: typeof r.facts === "string" ? JSON.parse(r.facts) : r.facts,
  }));
}
