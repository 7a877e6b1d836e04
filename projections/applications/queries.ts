import type { Queryable } from "../../events/db/types.ts";

/** The queries of the applications read model (projection.ts): the only SQL naming its tables. */

/** An application's id and client secret hash (for client credentials), or undefined. */
export async function applicationCredentials(
  db: Queryable,
  applicationId: number,
): Promise<{ id: number; client_secret_hash: string } | undefined> {
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
    audience: "api" | "mcp";
    internal: boolean;
    kudos_enabled: boolean;
    challenges_enabled: boolean;
  }>(
    `select t.athlete_id, t.application_id, t.scopes, t.expires_at, t.revoked, t.audience,
            a.internal, a.kudos_enabled, a.challenges_enabled
       from access_tokens t join applications a on a.id = t.application_id
      where t.token_hash = $1`,
    [tokenHash],
  );
  return row;
}

export interface OwnApplication {
  id: number;
  name: string;
  website: string | null;
  description: string | null;
  callback_domain: string;
  created_at: string;
}

/**
 * The athlete's own API application, or undefined: never the server's web app (its id, when it
 * exists, is the server's to know: server/web/app/token.ts).
 */
export async function ownApplication(
  db: Queryable,
  athleteId: number,
  webApplicationId: number | undefined,
): Promise<OwnApplication | undefined> {
  const [row] = await db.query<OwnApplication>(
    `select id, name, website, description, callback_domain, created_at from applications
      where owner_id = $1
        and ($2::bigint is null or id <> $2::bigint)
      order by id limit 1`,
    [athleteId, webApplicationId ?? null],
  );
  return row ? { ...row, id: Number(row.id) } : undefined;
}

export interface ApplicationRow {
  id: number;
  /** null for a client that registered itself. */
  owner_id: number | null;
  name: string;
  website: string | null;
  description: string | null;
  callback_domain: string;
  /** '' for a public client that registered itself (no secret). */
  client_secret_hash: string;
  /** 'manual' (an athlete's API application) or 'dynamic' (RFC 7591 registration). */
  registration: "manual" | "dynamic";
  /** A dynamic client's exact redirect URIs; [] for a manual application (its callback domain rules). */
  redirect_uris: string[];
  token_auth_method: string | null;
  created_at: string;
}

/** An application by id (what the consent page and the token endpoint need), or undefined. */
export async function findApplication(db: Queryable, id: number): Promise<ApplicationRow | undefined> {
  const [row] = await db.query<Omit<ApplicationRow, "redirect_uris"> & { redirect_uris: string | null }>(
    `select id, owner_id, name, website, description, callback_domain, client_secret_hash, registration,
            redirect_uris, token_auth_method, created_at
       from applications where id = $1`,
    [id],
  );
  return row
    ? {
      ...row,
      id: Number(row.id),
      owner_id: row.owner_id === null ? null : Number(row.owner_id),
      redirect_uris: row.redirect_uris ? JSON.parse(row.redirect_uris) as string[] : [],
    }
    : undefined;
}

/** An access token's pair, kind, revocation and expiry (by its hash), or undefined. */
export async function accessTokenPair(db: Queryable, tokenHash: string) {
  const [row] = await db.query<
    { athlete_id: number; application_id: number; kind: string; revoked: boolean; expires_at: string | null }
  >(
    "select athlete_id, application_id, kind, revoked, expires_at from access_tokens where token_hash = $1",
    [tokenHash],
  );
  return row ? { ...row, athlete_id: Number(row.athlete_id), application_id: Number(row.application_id) } : undefined;
}
