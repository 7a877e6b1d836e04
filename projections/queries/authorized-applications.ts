import type { Queryable } from "../../events/db/types.ts";

/** The applications an athlete has authorized (oauth_authorizations ⋈ applications), for My apps. */

export interface AuthorizedApplication {
  id: number;
  name: string;
  website: string | null;
  permissions: string;
  scope: string;
  authorized_at: string | null;
  /** 'dynamic' for a client that registered itself (an AI assistant through /mcp), else 'manual'. */
  registration: "manual" | "dynamic";
  /** A dynamic client's redirect URIs (JSON array), null for a manual application. */
  redirect_uris: string | null;
}

/**
 * Every application the athlete authorized, by name: never the server's own web app (its id, when
 * it exists, is the server's to know: server/web/app/token.ts).
 */
export async function authorizedApplications(
  db: Queryable,
  athleteId: number,
  webApplicationId: number | undefined,
): Promise<AuthorizedApplication[]> {
  const rows = await db.query<AuthorizedApplication>(
    `select a.id, a.name, a.website, o.permissions, o.scope, o.authorized_at, a.registration, a.redirect_uris
       from oauth_authorizations o join applications a on a.id = o.application_id
      where o.athlete_id = $1 and o.authorized
        and ($2::bigint is null or a.id <> $2::bigint)
      order by a.name, a.id`,
    [athleteId, webApplicationId ?? null],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** The name of an application the athlete has authorized, or undefined. */
export async function authorizedApplicationName(
  db: Queryable,
  athleteId: number,
  applicationId: number,
): Promise<string | undefined> {
  const [row] = await db.query<{ name: string }>(
    `select a.name from oauth_authorizations o join applications a on a.id = o.application_id
      where o.athlete_id = $1 and o.application_id = $2 and o.authorized`,
    [athleteId, applicationId],
  );
  return row?.name;
}
