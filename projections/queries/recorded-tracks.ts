import type { Queryable } from "../../events/db/types.ts";

/**
 * The summary polylines of uploaded activities, a page at a time by id (`after` the last id seen):
 * where the recordings went, for the terrain tiles they need.
 */
export async function uploadedSummaryPolylines(
  db: Queryable,
  after: number,
  limit: number,
): Promise<{ id: number; polyline: string }[]> {
  const rows = await db.query<{ id: number; polyline: string }>(
    `select id, facts->>'summaryPolyline' as polyline from activities
      where upload_id is not null and id > $1 and coalesce(facts->>'summaryPolyline', '') <> ''
      order by id limit $2`,
    [after, limit],
  );
  return rows.map((r) => ({ id: Number(r.id), polyline: r.polyline }));
}
