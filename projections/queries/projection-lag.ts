import type { Queryable } from "../../events/db/types.ts";
import { countEventsOfTypesAfter } from "../../events/log-queries.ts";

/** Events in the log of the given types past the read models' checkpoint (projection_checkpoints): not applied yet. */
export async function unappliedEvents(db: Queryable, handledTypes: readonly string[]): Promise<number> {
  // The checkpoint here, the count in events/ (the log's tables are named in SQL only there).
  const [{ position }] = await db.query<{ position: number }>(
    "select coalesce(max(position), 0) as position from projection_checkpoints",
  );
  return await countEventsOfTypesAfter(db, Number(position), handledTypes);
}
