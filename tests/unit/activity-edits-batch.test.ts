import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appliedBothWays } from "../helpers/batch-equal.ts";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityEditsProjection } from "../../projections/activity-edits/projection.ts";

let position = 0;
function event(type: string, data: Record<string, unknown>): StoredEvent {
  position++;
  return {
    position,
    streamId: `activity-${data.activityId}`,
    streamVersion: position,
    type,
    schemaVersion: 1,
    data,
    metadata: {},
    recordedAt: new Date(Date.UTC(2026, 0, 1) + position * 1000).toISOString(),
  } as unknown as StoredEvent;
}
const window = { start: "2026-01-01T08:00:00Z", end: "2026-01-01T09:00:00Z" };
const cropped = (activityId: number, edit: number, splitInto: number | null = null) =>
  event("ActivityCropped", { activityId, edit, splitInto, window });
const deleted = (activityId: number) => event("ActivityDeleted", { activityId, athleteId: 1, uploadId: null });

describe("activity edits, applied in a batch", () => {
  let db: Db;
  beforeAll(async () => {
    db = await openPglite();
  });
  afterAll(() => db.close());

  it("equal one by one: runs of deletions in one statement, each in its place among crops and splits", async () => {
    const log = [
      cropped(1, 1),
      cropped(2, 1, 7),
      event("ActivitySplitFrom", { activityId: 7, fromActivityId: 2, window }),
      deleted(1),
      deleted(2),
      // Recropped after its deletion: a deletion applied after this event would remove the row.
      cropped(1, 1),
      deleted(3),
      deleted(7),
      cropped(3, 2),
      event("ActivityCropUndone", { activityId: 1, edit: 1 }),
      cropped(1, 2),
      deleted(4),
    ];
    const { single, batched } = await appliedBothWays(
      db,
      activityEditsProjection,
      log,
      "select * from activity_edits order by activity_id, edit",
    );
    expect(single.map((r) => `${(r as { activity_id: number }).activity_id}`)).toEqual(["1", "3"]);
    expect(batched).toEqual(single);
  });
});
