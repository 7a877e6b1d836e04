import type { Queryable } from "../../events/db/types.ts";

/** The queries of the activity_edits read model (projection.ts): the only SQL naming its table. */

export interface ActivityEditRow {
  activity_id: number;
  /** 0 for where a split-off activity came from; 1, 2, … for crops and splits. */
  edit: number;
  kind: "crop" | "split" | "split_from";
  start_date: string;
  end_date: string;
  /** The split's other activity, or where a split-off activity came from; null for a crop. */
  other_activity_id: number | null;
  created_at: string;
}

/** An activity's crops and splits in effect (oldest first), after the row naming its origin when it was split off. */
export async function activityEdits(db: Queryable, activityId: number): Promise<ActivityEditRow[]> {
  const rows = await db.query<ActivityEditRow>(
    `select activity_id, edit, kind, start_date, end_date, other_activity_id, created_at
       from activity_edits where activity_id = $1 order by edit`,
    [activityId],
  );
  return rows.map((r) => ({
    ...r,
    activity_id: Number(r.activity_id),
    edit: Number(r.edit),
    other_activity_id: r.other_activity_id === null ? null : Number(r.other_activity_id),
  }));
}
