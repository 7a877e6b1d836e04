import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

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
  description:
    "An access token was issued to an athlete for an application (hash only). kind 'public' is the application's own public token.",
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

export const applicationStream = (applicationId: number) => `application-${applicationId}`;

/** The events of an application's stream (`applicationStream`, `applicationDecider`). */
export type ApplicationEvent = EventOf<
  | typeof applicationRegistered
  | typeof applicationSecretRegenerated
  | typeof accessTokenIssued
>;

export const authorizationStream = (athleteId: number, applicationId: number) =>
  `authorization-${athleteId}-${applicationId}`;
