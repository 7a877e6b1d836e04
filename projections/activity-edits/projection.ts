import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityCropped, activityCropUndone, activitySplitFrom } from "../../events/activity/cropped.ts";
import { activityDeleted } from "../../events/activity/changes.ts";
import type { Projection } from "../projection.ts";

/**
 * The crops and splits in effect on each activity (GET /v3/activities/:id/edits; the activity
 * page's Crop and Split card): one row per edit with its kept window and, for a split, the
 * activity the rest became; an activity recorded from a split has one `split_from` row (edit 0)
 * naming where it came from. Undoing an edit removes its row; deleting an activity its rows.
 */
export const activityEditsProjection: Projection = {
  name: "activity-edits",
  tables: ["activity_edits"],
  schema: `
    create table if not exists activity_edits (
      activity_id bigint not null,
      edit integer not null,
      kind text not null,
      start_date text not null,
      end_date text not null,
      other_activity_id bigint,
      created_at text not null,
      primary key (activity_id, edit)
    );
  `,
  isolated: true,
  handles: [activityCropped.type, activityCropUndone.type, activitySplitFrom.type, activityDeleted.type],
  /**
   * Consecutive deletions in one statement (they commute: each removes only its activity's rows);
   * any other event applied alone, in order. A rebuild's batches are mostly deletions (711 of the
   * 32,007-event API log's events here, one statement each before).
   */
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    const deleted: number[] = [];
    const flush = async () => {
      if (deleted.length === 0) return;
      await tx.query("delete from activity_edits where activity_id = any($1::bigint[])", [deleted]);
      deleted.length = 0;
    };
    for (const event of events) {
      if (event.type === activityDeleted.type) {
        deleted.push(event.data.activityId);
        continue;
      }
      await flush();
      await activityEditsProjection.apply(tx, event);
    }
    await flush();
  },
  async apply(tx: Queryable, event: StoredEvent) {
    switch (event.type) {
      case activityCropped.type: {
        const d = event.data;
        await tx.query(
          `insert into activity_edits (activity_id, edit, kind, start_date, end_date, other_activity_id, created_at)
           values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing`,
          [
            d.activityId,
            d.edit,
            d.splitInto === null ? "crop" : "split",
            d.window.start,
            d.window.end,
            d.splitInto,
            event.recordedAt,
          ],
        );
        return;
      }
      case activityCropUndone.type:
        await tx.query("delete from activity_edits where activity_id = $1 and edit = $2", [
          event.data.activityId,
          event.data.edit,
        ]);
        return;
      case activitySplitFrom.type: {
        const d = event.data;
        await tx.query(
          `insert into activity_edits (activity_id, edit, kind, start_date, end_date, other_activity_id, created_at)
           values ($1, 0, 'split_from', $2, $3, $4, $5) on conflict do nothing`,
          [d.activityId, d.window.start, d.window.end, d.fromActivityId, event.recordedAt],
        );
        return;
      }
      case activityDeleted.type:
        await tx.query("delete from activity_edits where activity_id = $1", [event.data.activityId]);
        return;
    }
  },
};
