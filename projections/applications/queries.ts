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

/** An access token (by its hash) with its application's flags, or undefined. */
export async function accessTokenByHash(db: Queryable, tokenHash: string) {
  const [row] = await db.query<{
    athlete_id: number;
    application_id: number;
    scopes: string;
    expires_at: string | null;
    revoked: boolean;
    internal: boolean;
    kudos_enabled: boolean;
    challenges_enabled: boolean;
  }>(
    `select t.athlete_id, t.application_id, t.scopes, t.expires_at, t.revoked,
            a.internal, a.kudos_enabled, a.challenges_enabled
       from access_tokens t join applications a on a.id = t.application_id
      where t.token_hash = $1`,
    [tokenHash],
  );
  return row;
}
