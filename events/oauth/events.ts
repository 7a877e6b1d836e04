import { z } from "zod";
import type { accessTokenIssued, accessTokenRevoked, accessTokensRevoked } from "../application/events.ts";
import { apiAudience, tokenAudience } from "../application/audience.ts";
import { defineEvent, type EventOf } from "../catalogue.ts";

/**
 * OAuth 2.0 authorization codes, grants and refresh tokens. All events live on the pair stream
 * `authorization-<athleteId>-<applicationId>` (events/application/events.ts). Codes and tokens are
 * recorded only as sha-256 hashes; the sealed access token can be opened only with the refresh
 * token it belongs to (AES-256-GCM, key derived from the refresh token).
 */

const permissions = z.array(z.enum(["read", "write", "view_private"]));

export const authorizationGranted = defineEvent({
  type: "AuthorizationGranted",
  version: 2,
  upcasters: { 1: apiAudience },
  description:
    "The athlete approved an application (consent page, or approval_prompt=auto when already authorized); an authorization code was issued (hash only). audience (v2): the resource its tokens are for, the API or the MCP endpoint (RFC 8707; v1 grants are the API's).",
  schema: z.object({
    grantId: z.string(),
    athleteId: z.number().int().positive(),
    applicationId: z.number().int().positive(),
    permissions,
    /** The granted scope names, comma-separated, as echoed to the redirect_uri. */
    scope: z.string(),
    codeHash: z.string(),
    redirectUri: z.string(),
    /** PKCE S256 challenge (already a hash of the verifier), or null. */
    codeChallenge: z.string().nullable(),
    /** ISO time the code stops being accepted (10 minutes after issue). */
    codeExpiresAt: z.string(),
    /** false when approval_prompt=auto skipped the consent page. */
    prompted: z.boolean(),
    /** The resource the grant's tokens are for (RFC 8707 `resource`): the API or the MCP endpoint. */
    audience: tokenAudience,
  }),
});

export const authorizationCodeRedeemed = defineEvent({
  type: "AuthorizationCodeRedeemed",
  description: "An authorization code was exchanged for tokens at /oauth/token (it cannot be used again).",
  schema: z.object({
    grantId: z.string(),
    codeHash: z.string(),
    athleteId: z.number().int().positive(),
    applicationId: z.number().int().positive(),
    /** Whether the exchange authenticated with PKCE instead of the client secret. */
    publicClient: z.boolean(),
  }),
});

export const authorizationCodeReplayed = defineEvent({
  type: "AuthorizationCodeReplayed",
  description:
    "An already used authorization code was presented again; every token issued from its grant (access and refresh) is revoked.",
  schema: z.object({
    grantId: z.string(),
    codeHash: z.string(),
    athleteId: z.number().int().positive(),
    applicationId: z.number().int().positive(),
  }),
});

export const refreshTokenIssued = defineEvent({
  type: "RefreshTokenIssued",
  description:
    "A refresh token was issued (code exchange or rotation); the one it replaces stops working. Carries the current access token's hash and the access token sealed with the refresh token.",
  schema: z.object({
    grantId: z.string(),
    athleteId: z.number().int().positive(),
    applicationId: z.number().int().positive(),
    refreshTokenHash: z.string(),
    /** The refresh token this one replaces (rotation), or null at code exchange. */
    replacesHash: z.string().nullable(),
    permissions,
    accessTokenHash: z.string(),
    accessExpiresAt: z.string(),
    /** base64(iv | ciphertext | tag) of the access token, AES-256-GCM keyed by the refresh token. */
    sealedAccessToken: z.string(),
    publicClient: z.boolean(),
  }),
});

/**
 * The events of an (athlete, application) pair's stream (`authorizationStream`, `oauthDecider`):
 * its codes and refresh tokens, and the access tokens issued and revoked with them.
 */
export type OAuthEvent = EventOf<
  | typeof authorizationGranted
  | typeof authorizationCodeRedeemed
  | typeof authorizationCodeReplayed
  | typeof refreshTokenIssued
  | typeof accessTokenIssued
  | typeof accessTokensRevoked
  | typeof accessTokenRevoked
>;
