import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import {
  accessTokenIssued,
  accessTokenRevoked,
  accessTokensRevoked,
  applicationRegistered,
  applicationSecretRegenerated,
  oauthClientRegistered,
} from "../../events/application/events.ts";
import { authorizationCodeReplayed } from "../../events/oauth/events.ts";
import type { Projection } from "../projection.ts";
import { tokenReadModelChanged } from "./token-changes.ts";

/**
 * Applications and the access tokens issued for them (hashes only). An application is registered
 * by an athlete ('manual': a callback domain, an owner) or registered itself ('dynamic', RFC 7591:
 * no owner, exact redirect URIs in `redirect_uris` as a JSON array, `client_secret_hash` '' for a
 * public client). A token's `audience` is the API or the MCP endpoint.
 */
export const applicationsProjection: Projection = {
  name: "applications",
  tables: ["applications", "access_tokens"],
  schema: `
    create table if not exists applications (
      id bigint primary key,
      owner_id bigint,
      name text not null,
      website text,
      description text,
      callback_domain text not null,
      client_secret_hash text not null,
      internal boolean not null,
      kudos_enabled boolean not null,
      challenges_enabled boolean not null,
      registration text not null default 'manual',
      redirect_uris text,
      token_auth_method text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create table if not exists access_tokens (
      token_hash text primary key,
      athlete_id bigint not null,
      application_id bigint not null,
      scopes text not null,
      kind text not null,
      expires_at timestamptz,
      grant_id text,
      audience text not null,
      revoked boolean not null default false,
      created_at timestamptz not null
    );
    create index if not exists access_tokens_pair on access_tokens (athlete_id, application_id);
  `,
  isolated: true,
  handles: [
    applicationRegistered.type,
    applicationSecretRegenerated.type,
    oauthClientRegistered.type,
    accessTokenIssued.type,
    accessTokensRevoked.type,
    accessTokenRevoked.type,
    authorizationCodeReplayed.type,
  ],
  /** A run of consecutive AccessTokenIssued in one insert; any other event applied alone, in order. */
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    const run: Extract<StoredEvent, { type: "AccessTokenIssued" }>[] = [];
    const flush = async () => {
      if (run.length === 0) return;
      const d = run.map((e) => e.data);
      await tx.query(
        `insert into access_tokens (token_hash, athlete_id, application_id, scopes, kind, expires_at, grant_id,
           audience, created_at)
         select * from unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::timestamptz[],
           $7::text[], $8::text[], $9::timestamptz[])`,
        [
          d.map((t) => t.tokenHash),
          d.map((t) => t.athleteId),
          d.map((t) => t.applicationId),
          d.map((t) => t.scopes.join(",")),
          d.map((t) => t.kind),
          d.map((t) => t.expiresAt),
          d.map((t) => t.grantId),
          d.map((t) => t.audience),
          run.map((e) => e.recordedAt),
        ],
      );
      run.length = 0;
    };
    for (const event of events) {
      if (event.type === accessTokenIssued.type) {
        run.push(event);
        continue;
      }
      await flush();
      await applicationsProjection.apply(tx, event);
    }
    await flush();
  },
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type !== accessTokenIssued.type) tokenReadModelChanged();
    switch (event.type) {
      case applicationRegistered.type: {
        const d = event.data;
        await tx.query(
          `insert into applications (id, owner_id, name, website, description, callback_domain,
             client_secret_hash, internal, kudos_enabled, challenges_enabled, created_at, updated_at)
           values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$11)`,
          [
            d.applicationId,
            d.ownerId,
            d.name,
            d.website,
            d.description,
            d.callbackDomain,
            d.clientSecretHash,
            d.internal,
            d.kudosEnabled,
            d.challengesEnabled,
            event.recordedAt,
          ],
        );
        return;
      }
      case oauthClientRegistered.type: {
        const d = event.data;
        await tx.query(
          `insert into applications (id, owner_id, name, website, description, callback_domain,
             client_secret_hash, internal, kudos_enabled, challenges_enabled, registration, redirect_uris,
             token_auth_method, created_at, updated_at)
           values ($1, null, $2, $3, null, '', $4, false, true, false, 'dynamic', $5, $6, $7, $7)`,
          [
            d.applicationId,
            d.name,
            d.clientUri,
            d.clientSecretHash ?? "",
            JSON.stringify(d.redirectUris),
            d.tokenEndpointAuthMethod,
            event.recordedAt,
          ],
        );
        return;
      }
      case applicationSecretRegenerated.type: {
        const d = event.data;
        await tx.query(
          "update applications set client_secret_hash = $2, updated_at = $3 where id = $1",
          [d.applicationId, d.clientSecretHash, event.recordedAt],
        );
        return;
      }
      case accessTokenIssued.type: {
        const d = event.data;
        await tx.query(
          `insert into access_tokens (token_hash, athlete_id, application_id, scopes, kind,
             expires_at, grant_id, audience, created_at)
           values ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
          [
            d.tokenHash,
            d.athleteId,
            d.applicationId,
            d.scopes.join(","),
            d.kind,
            d.expiresAt,
            d.grantId,
            d.audience,
            event.recordedAt,
          ],
        );
        return;
      }
      case accessTokensRevoked.type: {
        const d = event.data;
        await tx.query(
          `update access_tokens set revoked = true
            where athlete_id = $1 and application_id = $2 and kind = 'access'`,
          [d.athleteId, d.applicationId],
        );
        return;
      }
      case accessTokenRevoked.type: {
        await tx.query("update access_tokens set revoked = true where token_hash = $1", [event.data.tokenHash]);
        return;
      }
      case authorizationCodeReplayed.type: {
        // A used OAuth code was presented again: every token issued from its grant stops working.
        const d = event.data;
        await tx.query("update access_tokens set revoked = true where grant_id = $1", [d.grantId]);
        return;
      }
    }
  },
};
