import type { Queryable } from "../../events/db/types.ts";

/** Events in the log of the given types past the read models' checkpoint (projection_checkpoints): not applied yet. */
export async function unappliedEvents(db: Queryable, handledTypes: readonly string[]): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select count(*)::int as n from public.events
      where global_position > (select coalesce(max(position), 0) from projection_checkpoints)
        and type = any($1::text[])`,
    [handledTypes],
  );
  return row.n;
}
