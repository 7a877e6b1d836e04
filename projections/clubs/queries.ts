import type { Queryable } from "../../events/db/types.ts";

/** The queries of the clubs read model (projection.ts). Most club reads still live in server/routes/clubs.ts (to be moved). */

/** Whether a club already has this URL slug. */
export async function clubUrlTaken(db: Queryable, url: string): Promise<boolean> {
  const [taken] = await db.query("select 1 from clubs where url = $1", [url]);
  return taken !== undefined;
}
