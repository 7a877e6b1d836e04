import type { Queryable } from "../../events/db/types.ts";

/** The queries of the OAuth read models (projection.ts): the only SQL naming their tables. */

export interface Authorization {
  athlete_id: number;
  application_id: number;
  authorized: boolean;
  consented: boolean;
  permissions: string;
  scope: string;
  authorized_at: string | null;
  stream_version: number;
}

/** An athlete-and-application pair, or undefined when it never had a grant or token. */
export async function findAuthorization(
  db: Queryable,
  athleteId: number,
  applicationId: number,
): Promise<Authorization | undefined> {
  const [row] = await db.query<Authorization>(
    "select * from oauth_authorizations where athlete_id = $1 and application_id = $2",
    [athleteId, applicationId],
  );
  return row;
}

/** The pair an authorization code (by its hash) was issued to, or undefined. */
export async function codePair(
  db: Queryable,
  codeHash: string,
): Promise<{ athleteId: number; applicationId: number } | undefined> {
  const [row] = await db.query<{ athlete_id: number; application_id: number }>(
    "select athlete_id, application_id from oauth_codes where code_hash = $1",
    [codeHash],
  );
  return row ? { athleteId: Number(row.athlete_id), applicationId: Number(row.application_id) } : undefined;
}

/** The pair a refresh token (by its hash) was issued to, or undefined. */
export async function refreshTokenPair(
  db: Queryable,
  tokenHash: string,
): Promise<{ athleteId: number; applicationId: number } | undefined> {
  const [row] = await db.query<{ athlete_id: number; application_id: number }>(
    "select athlete_id, application_id from oauth_refresh_tokens where token_hash = $1",
    [tokenHash],
  );
  return row ? { athleteId: Number(row.athlete_id), applicationId: Number(row.application_id) } : undefined;
}
