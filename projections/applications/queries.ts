import type { Queryable } from "../../events/db/types.ts";

/** The queries of the applications read model (projection.ts): the only SQL naming its tables. */

/** An application's id and client secret hash (for client credentials), or undefined. */
export async function applicationCredentials(db: Queryable, applicationId: number): Promise<{ id: number; client_secret_hash: string } | undefined> {
  const [app] = await db.query<{ id: number; client_secret_hash: string }>(
    "select id, client_secret_hash from applications where id = $1",
    [applicationId],
  );
  return app;
}
