import type { Queryable } from "../../events/db/types.ts";
import { isOneOf, type StoredEvent } from "../../events/index.ts";
import { accessTokenIssued, accessTokensRevoked, authorizationStream } from "../../events/application/events.ts";
import {
  authorizationCodeRedeemed,
  authorizationCodeReplayed,
  authorizationGranted,
  refreshTokenIssued,
} from "../../events/oauth/events.ts";
import type { Projection } from "../projection.ts";

/**
 * OAuth read models: one row per athlete-and-application pair (what My apps lists, and the pair
 * stream's version used for optimistic concurrency), authorization codes and refresh tokens
 * (hashes only).
 */
const HANDLES = [
  authorizationGranted.type,
  authorizationCodeRedeemed.type,
  authorizationCodeReplayed.type,
  refreshTokenIssued.type,
  accessTokenIssued.type,
  accessTokensRevoked.type,
];

export const oauthProjection: Projection = {
  name: "oauth",
  tables: ["oauth_authorizations", "oauth_codes", "oauth_refresh_tokens"],
  schema: `
    create table if not exists oauth_authorizations (
      athlete_id bigint not null,
      application_id bigint not null,
      authorized boolean not null default false,
      consented boolean not null default false,
      permissions text not null default '',
      scope text not null default '',
      authorized_at timestamptz,
      revoked_at timestamptz,
      stream_version integer not null,
      primary key (athlete_id, application_id)
    );
    create table if not exists oauth_codes (
      code_hash text primary key,
      grant_id text not null,
      athlete_id bigint not null,
      application_id bigint not null,
      permissions text not null,
      scope text not null,
      redirect_uri text not null,
      code_challenge text,
      audience text not null,
      expires_at timestamptz not null,
      redeemed boolean not null default false,
      replayed boolean not null default false,
      revoked boolean not null default false,
      created_at timestamptz not null
    );
    create table if not exists oauth_refresh_tokens (
      token_hash text primary key,
      grant_id text not null,
      athlete_id bigint not null,
      application_id bigint not null,
      permissions text not null,
      access_token_hash text not null,
      access_expires_at timestamptz not null,
      sealed_access_token text not null,
      public_client boolean not null,
      replaces_hash text,
      replaced boolean not null default false,
      revoked boolean not null default false,
      created_at timestamptz not null
    );
    create unique index if not exists oauth_refresh_tokens_replaces on oauth_refresh_tokens (replaces_hash);
    create index if not exists oauth_refresh_tokens_grant on oauth_refresh_tokens (grant_id);
    create index if not exists oauth_codes_pair on oauth_codes (athlete_id, application_id);
  `,
  isolated: true,
  handles: HANDLES,
  /**
   * A run of consecutive AccessTokenIssued (a rebuild's usual batch: three statements each one by
   * one) in two statements; any other event applied alone, in order.
   */
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    const run: IssuedEvent[] = [];
    const flush = async () => {
      if (run.length) await tokensIssued(tx, run);
      run.length = 0;
    };
    for (const event of events) {
      if (event.type === accessTokenIssued.type) {
        const d = event.data;
        if (event.streamId === authorizationStream(d.athleteId, d.applicationId)) run.push(event);
        continue;
      }
      await flush();
      await oauthProjection.apply(tx, event);
    }
    await flush();
  },
  async apply(tx: Queryable, event: StoredEvent) {
    if (!isOneOf(event, HANDLES)) return;
    const pair = event.data;
    // Only events of the pair stream count (the application's public token lives on its own stream).
    if (event.streamId !== authorizationStream(pair.athleteId, pair.applicationId)) return;
    await tx.query(
      `insert into oauth_authorizations (athlete_id, application_id, stream_version) values ($1, $2, $3)
       on conflict (athlete_id, application_id) do update set stream_version = excluded.stream_version`,
      [pair.athleteId, pair.applicationId, event.streamVersion],
    );
    switch (event.type) {
      case authorizationGranted.type: {
        const d = event.data;
        await tx.query(
          `insert into oauth_codes (code_hash, grant_id, athlete_id, application_id, permissions, scope,
             redirect_uri, code_challenge, audience, expires_at, created_at)
           values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
          [
            d.codeHash,
            d.grantId,
            d.athleteId,
            d.applicationId,
            d.permissions.join(","),
            d.scope,
            d.redirectUri,
            d.codeChallenge,
            d.audience,
            d.codeExpiresAt,
            event.recordedAt,
          ],
        );
        await authorize(tx, d.athleteId, d.applicationId, d.permissions, event.recordedAt, true, d.scope);
        return;
      }
      case accessTokenIssued.type: {
        const d = event.data;
        if (d.kind === "access") {
          await authorize(tx, d.athleteId, d.applicationId, d.scopes, event.recordedAt, false, null);
        }
        return;
      }
      case authorizationCodeRedeemed.type: {
        const d = event.data;
        await tx.query("update oauth_codes set redeemed = true where code_hash = $1", [d.codeHash]);
        return;
      }
      case authorizationCodeReplayed.type: {
        const d = event.data;
        await tx.query("update oauth_codes set replayed = true where code_hash = $1", [d.codeHash]);
        await tx.query("update oauth_refresh_tokens set revoked = true where grant_id = $1", [d.grantId]);
        return;
      }
      case refreshTokenIssued.type: {
        const d = event.data;
        if (d.replacesHash) {
          await tx.query("update oauth_refresh_tokens set replaced = true where token_hash = $1", [d.replacesHash]);
        }
        await tx.query(
          `insert into oauth_refresh_tokens (token_hash, grant_id, athlete_id, application_id, permissions,
             access_token_hash, access_expires_at, sealed_access_token, public_client, replaces_hash, created_at)
           values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)`,
          [
            d.refreshTokenHash,
            d.grantId,
            d.athleteId,
            d.applicationId,
            d.permissions.join(","),
            d.accessTokenHash,
            d.accessExpiresAt,
            d.sealedAccessToken,
            d.publicClient,
            d.replacesHash,
            event.recordedAt,
          ],
        );
        return;
      }
      case accessTokensRevoked.type: {
        const d = event.data;
        await tx.query(
          `update oauth_authorizations set authorized = false, consented = false, permissions = '', scope = '',
             revoked_at = $3 where athlete_id = $1 and application_id = $2`,
          [d.athleteId, d.applicationId, event.recordedAt],
        );
        await tx.query(
          "update oauth_refresh_tokens set revoked = true where athlete_id = $1 and application_id = $2",
          [d.athleteId, d.applicationId],
        );
        await tx.query(
          "update oauth_codes set revoked = true where athlete_id = $1 and application_id = $2",
          [d.athleteId, d.applicationId],
        );
        return;
      }
    }
  },
};

type IssuedEvent = Extract<StoredEvent, { type: "AccessTokenIssued" }>;

/**
 * What applying each of these AccessTokenIssued events (all on their pair's stream, consecutive)
 * leaves, per pair: the last stream version, and for access tokens the pair authorized with the
 * union of every scope (sorted), its scope list deduplicated, authorized_at the first token's time
 * when the pair was not authorized before.
 */
async function tokensIssued(tx: Queryable, events: IssuedEvent[]): Promise<void> {
  const pairs = new Map<
    string,
    { athlete: number; application: number; version: number; scopes: string[]; at: string | null }
  >();
  for (const event of events) {
    const d = event.data;
    const key = `${d.athleteId}:${d.applicationId}`;
    const pair = pairs.get(key) ??
      { athlete: d.athleteId, application: d.applicationId, version: 0, scopes: [], at: null };
    pair.version = event.streamVersion;
    if (d.kind === "access") {
      pair.scopes.push(...d.scopes);
      pair.at ??= event.recordedAt;
    }
    pairs.set(key, pair);
  }
  const list = [...pairs.values()];
  const athletes = list.map((p) => p.athlete);
  const applications = list.map((p) => p.application);
  const stored = new Map(
    (await tx.query<{ key: string; permissions: string; scope: string }>(
      `select athlete_id || ':' || application_id as key, permissions, scope from oauth_authorizations
        where (athlete_id, application_id) in (select * from unnest($1::bigint[], $2::bigint[]))`,
      [athletes, applications],
    )).map((r) => [r.key, r]),
  );
  const permissions: string[] = [], scopes: string[] = [];
  for (const p of list) {
    const row = stored.get(`${p.athlete}:${p.application}`);
    const had = (row?.permissions ?? "").split(",").filter(Boolean);
    const scope = (row?.scope ?? "").split(",").filter(Boolean);
    permissions.push(p.at === null ? row?.permissions ?? "" : [...new Set([...had, ...p.scopes])].sort().join(","));
    scopes.push(p.at === null ? row?.scope ?? "" : [...new Set(scope)].join(","));
  }
  await tx.query(
    `insert into oauth_authorizations (athlete_id, application_id, stream_version, authorized, permissions, scope,
       authorized_at)
     select * from unnest($1::bigint[], $2::bigint[], $3::int[], $4::boolean[], $5::text[], $6::text[], $7::timestamptz[])
     on conflict (athlete_id, application_id) do update set stream_version = excluded.stream_version,
       authorized = oauth_authorizations.authorized or excluded.authorized,
       permissions = excluded.permissions, scope = excluded.scope,
       authorized_at = case when oauth_authorizations.authorized or not excluded.authorized
                            then oauth_authorizations.authorized_at else excluded.authorized_at end`,
    [
      athletes,
      applications,
      list.map((p) => p.version),
      list.map((p) => p.at !== null),
      permissions,
      scopes,
      list.map((p) => p.at),
    ],
  );
}

/** Marks the pair authorized and widens its permissions (union, sorted). */
async function authorize(
  tx: Queryable,
  athleteId: number,
  applicationId: number,
  permissions: readonly string[],
  at: string,
  consented: boolean,
  scope: string | null,
): Promise<void> {
  const [row] = await tx.query<{ permissions: string; scope: string; authorized: boolean }>(
    "select permissions, scope, authorized from oauth_authorizations where athlete_id = $1 and application_id = $2",
    [athleteId, applicationId],
  );
  const union = [...new Set([...(row?.permissions ?? "").split(",").filter(Boolean), ...permissions])].sort();
  const scopes = [
    ...new Set([...(row?.scope ?? "").split(",").filter(Boolean), ...(scope ?? "").split(",").filter(Boolean)]),
  ];
  await tx.query(
    `update oauth_authorizations set authorized = true, consented = consented or $3, permissions = $4, scope = $5,
       authorized_at = case when authorized then authorized_at else $6::timestamptz end
     where athlete_id = $1 and application_id = $2`,
    [athleteId, applicationId, consented, union.join(","), scopes.join(","), at],
  );
}
