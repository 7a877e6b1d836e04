import { applicationDecider, checkApplication } from "../../events/application/decide.ts";
import { DomainError, handleCommand } from "../../events/decider.ts";
import { athleteExists } from "../../projections/athletes/queries.ts";
import { applicationStream, authorizationStream } from "../../events/application/events.ts";
import { oauthDecider } from "../../events/oauth/decide.ts";
import { applicationCredentials } from "../../projections/applications/queries.ts";
import { type Permission } from "../http/auth.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { hashSecret, randomSecret } from "../security.ts";
import type { ClientMetadata } from "../oauth/registration.ts";

export interface NewApplication {
  name: string;
  ownerId: number;
  callbackDomain: string;
  website?: string | null;
  description?: string | null;
  internal?: boolean;
  kudosEnabled?: boolean;
  challengesEnabled?: boolean;
}

export interface CreatedApplication {
  client_id: number;
  client_secret: string;
  access_token: string;
}

function ownerExists(platform: Platform, athleteId: number): Promise<boolean> {
  return athleteExists(platform.db, athleteId);
}

/**
 * Registers an API application (the CLI's actor unless told); returns the client secret and the
 * application's public access token once (only their hashes are stored).
 */
export async function createApplication(
  platform: Platform,
  input: NewApplication,
  actor: Actor = systemActor("cli", input.ownerId),
): Promise<CreatedApplication> {
  const callbackDomain = input.callbackDomain.trim().toLowerCase();
  checkApplication({ name: input.name, callbackDomain });
  if (!(await ownerExists(platform, input.ownerId))) throw new DomainError("not_found", "Athlete", "owner", "invalid");
  const applicationId = await nextId(platform.db, "application");
  const clientSecret = randomSecret();
  const publicToken = randomSecret();
  await handleCommand(platform.store, applicationStream(applicationId), applicationDecider, {
    type: "register",
    application: {
      applicationId,
      ownerId: input.ownerId,
      name: input.name.trim(),
      website: input.website ?? null,
      description: input.description ?? null,
      callbackDomain,
      clientSecretHash: hashSecret(clientSecret),
      internal: input.internal ?? false,
      kudosEnabled: input.kudosEnabled ?? false,
      challengesEnabled: input.challengesEnabled ?? false,
    },
    publicToken: {
      tokenHash: hashSecret(publicToken),
      athleteId: input.ownerId,
      applicationId,
      scopes: ["read"],
      kind: "public",
      expiresAt: null,
      grantId: null,
      audience: "api",
    },
  }, appendOptions(actor));
  return { client_id: applicationId, client_secret: clientSecret, access_token: publicToken };
}

/** Replaces the client secret; returns the new one (shown once). */
export async function regenerateClientSecret(platform: Platform, applicationId: number, actor: Actor): Promise<string> {
  const clientSecret = randomSecret();
  await handleCommand(platform.store, applicationStream(applicationId), applicationDecider, {
    type: "regenerateSecret",
    applicationId,
    clientSecretHash: hashSecret(clientSecret),
  }, appendOptions(actor));
  return clientSecret;
}

/** Issues an access token for an athlete and application (CLI, demo, tests; the CLI's actor unless told). */
export async function issueToken(
  platform: Platform,
  input: {
    athleteId: number;
    applicationId: number;
    permissions: Permission[];
    expiresAt?: string | null;
    grantId?: string | null;
  },
  actor: Actor = systemActor("cli", input.athleteId, input.applicationId),
): Promise<string> {
  if (!(await applicationCredentials(platform.db, input.applicationId))) {
    throw new DomainError("not_found", "Application", "client_id", "invalid");
  }
  if (!(await ownerExists(platform, input.athleteId))) {
    throw new DomainError("not_found", "Athlete", "athlete", "invalid");
  }
  const token = randomSecret();
  await handleCommand(platform.store, authorizationStream(input.athleteId, input.applicationId), oauthDecider, {
    type: "issueToken",
    token: {
      tokenHash: hashSecret(token),
      athleteId: input.athleteId,
      applicationId: input.applicationId,
      scopes: [...new Set<Permission>(["read", ...input.permissions])].sort(),
      kind: "access",
      expiresAt: input.expiresAt ?? null,
      grantId: input.grantId ?? null,
      audience: "api",
    },
  }, appendOptions(actor));
  return token;
}

export interface RegisteredClient {
  client_id: number;
  /** Only for a client that asked to authenticate with a secret; shown once. */
  client_secret?: string;
}

/**
 * Registers a client that asked for itself (RFC 7591, POST /oauth/register; the metadata already
 * checked by server/oauth/registration.ts): an application with no owner, its redirect URIs, and
 * a client secret only when it asked to authenticate with one (only its hash is kept).
 */
export async function registerClient(
  platform: Platform,
  metadata: ClientMetadata,
  actor: Actor = systemActor("oauth-registration"),
): Promise<RegisteredClient> {
  const applicationId = await nextId(platform.db, "application");
  const clientSecret = metadata.tokenEndpointAuthMethod === "none" ? undefined : randomSecret();
  await handleCommand(platform.store, applicationStream(applicationId), applicationDecider, {
    type: "registerClient",
    client: {
      applicationId,
      name: metadata.name,
      clientUri: metadata.clientUri,
      redirectUris: metadata.redirectUris,
      tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod,
      clientSecretHash: clientSecret === undefined ? null : hashSecret(clientSecret),
      softwareId: metadata.softwareId,
      softwareVersion: metadata.softwareVersion,
    },
  }, appendOptions(actor));
  return clientSecret === undefined
    ? { client_id: applicationId }
    : { client_id: applicationId, client_secret: clientSecret };
}
