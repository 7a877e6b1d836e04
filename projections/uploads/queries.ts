import type { Queryable } from "../../events/db/types.ts";

/** The queries of the uploads read model (projection.ts). Upload pipeline reads still live in server/uploads (to be moved). */

/** How many uploads are in each status. */
export async function uploadCountsByStatus(db: Queryable): Promise<{ status: string; n: number }[]> {
  return await db.query<{ status: string; n: number }>("select status, count(*)::int as n from uploads group by status");
}
