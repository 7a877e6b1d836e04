import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";
import { apiAudience, tokenAudience } from "./audience.ts";

export const applicationRegistered = defineEvent({
  type: "ApplicationRegistered",
  description: "An API application was registered; only the hash of its client secret is kept.",
  schema: z.object({
    applicationId: z.number().int().positive(),
    ownerId: z.number().int().positive(),
    name: z.string(),
    website: z.string().nullable(),
    description: z.string().nullable(),
    callbackDomain: z.string(),
    clientSecretHash: z.string(),
    internal: z.boolean(),
    kudosEnabled: z.boolean(),
    challengesEnabled: z.boolean(),
  }),
});

export const applicationSecretRegenerated = defineEvent({
  type: "ApplicationSecretRegenerated",
  description: "The application's client secret was replaced; the old one stops working.",
  schema: z.object({
    applicationId: z.number().int().positive(),
    clientSecretHash: z.string(),
  }),
});

export const accessTokenIssued = defineEvent({
  type: "AccessTokenIssued",
  version: 2,
  upcasters: { 1: apiAudience },
  description:
    "An access token was issued to an athlete for an application (hash only). kind 'public' is the application's own public token. audience: the API ('api') or the MCP endpoint ('mcp'), never both (v2; v1 tokens are the API's).",
  schema: z.object({
    tokenHash: z.string(),
    athleteId: z.number().int().positive(),
    applicationId: z.number().int().positive(),
    scopes: z.array(z.enum(["read", "write", "view_private"])),
    kind: z.enum(["access", "public"]),
    /** ISO time; null = no expiry (operator-issued tokens). */
    expiresAt: z.string().nullable(),
    /** The authorization grant (OAuth code or refresh) the token came from, if any. */
    grantId: z.string().nullable(),
    audience: tokenAudience,
  }),
});

export const accessTokensRevoked = defineEvent({
  type: "AccessTokensRevoked",
  description: "Every token of an athlete-and-application pair was invalidated (deauthorize, revoke on My apps).",
  schema: z.object({
    athleteId: z.number().int().positive(),
    applicationId: z.number().int().positive(),
    reason: z.string(),
  }),
});

export const accessTokenRevoked = defineEvent({
  type: "AccessTokenRevoked",
  description: "One access token (by its hash) was invalidated: the web app's page token of a session that signed out.",
  schema: z.object({
    tokenHash: z.string(),
    athleteId: z.number().int().positive(),
    applicationId: z.number().int().positive(),
    reason: z.string(),
  }),
});

/**
 * A client registered itself (RFC 7591 dynamic client registration, POST /oauth/register): an
 * application with no owner, its exact redirect URIs (https, or http on a loopback address whose
 * port may differ at authorization, RFC 8252), tokens for the MCP endpoint only, PKCE S256 always.
 */
export const oauthClientRegistered = defineEvent({
  type: "OAuthClientRegistered",
  description:
    "A client registered itself through dynamic client registration (RFC 7591): no owner, its redirect URIs, public ('none') or with a client secret (hash only); it may obtain MCP tokens only, with PKCE.",
  schema: z.object({
    applicationId: z.number().int().positive(),
    name: z.string(),
    clientUri: z.string().nullable(),
    redirectUris: z.array(z.string()).min(1),
    tokenEndpointAuthMethod: z.enum(["none", "client_secret_post", "client_secret_basic"]),
    /** sha-256 of the client secret, or null for a public client. */
    clientSecretHash: z.string().nullable(),
    softwareId: z.string().nullable(),
    softwareVersion: z.string().nullable(),
  }),
});

export const applicationStream = (applicationId: number) => `application-${applicationId}`;

/** The events of an application's stream (`applicationStream`, `applicationDecider`). */
export type ApplicationEvent = EventOf<
  | typeof applicationRegistered
  | typeof applicationSecretRegenerated
  | typeof accessTokenIssued
  | typeof oauthClientRegistered
>;

export const authorizationStream = (athleteId: number, applicationId: number) =>
  `authorization-${athleteId}-${applicationId}`;
