import { randomBytes, randomUUID } from "node:crypto";
import { DomainError, handleCommand } from "../../events/decider.ts";
import { type accessTokenIssued, authorizationStream } from "../../events/application/events.ts";
import { openAccessToken, sealAccessToken } from "../../events/oauth/crypto.ts";
import { type OAuthCommand, oauthDecider } from "../../events/oauth/decide.ts";
import { refreshTokenIssued } from "../../events/oauth/events.ts";
import type { EventData } from "../../events/catalogue.ts";
import type { CatalogueEvent } from "../../events/index.ts";
import {
  accessTokenPair,
  type ApplicationRow,
  findApplication as applicationById,
} from "../../projections/applications/queries.ts";
import {
  type Authorization,
  codePair,
  findAuthorization as authorizationOf,
  refreshTokenPair,
} from "../../projections/oauth/queries.ts";
import type { Permission } from "../http/auth.ts";
import type { TokenAudience } from "../../events/application/audience.ts";
import { audienceOf } from "./resource.ts";
import type { Platform } from "../platform.ts";
import { type Actor, appendOptions, systemActor } from "../actor.ts";
import { hashSecret, randomSecret, secretMatches } from "../security.ts";

export { openAccessToken, PKCE_VALUE, pkceChallenge, sealAccessToken } from "../../events/oauth/crypto.ts";
export { REUSE_THRESHOLD_SECONDS } from "../../events/oauth/decide.ts";
export type { ApplicationRow, Authorization };

/** Access tokens issued through OAuth live 6 hours. */
export const ACCESS_TOKEN_SECONDS = 6 * 60 * 60;
/** Authorization codes are accepted for 10 minutes. */
export const CODE_SECONDS = 10 * 60;

const invalid = (resource: string, field: string, code = "invalid") =>
  new DomainError("invalid", resource, field, code);

// ---------------------------------------------------------------- applications and pairs

export function findApplication(platform: Platform, id: number): Promise<ApplicationRow | undefined> {
  return applicationById(platform.db, id);
}

export function findAuthorization(
  platform: Platform,
  athleteId: number,
  applicationId: number,
): Promise<Authorization | undefined> {
  return authorizationOf(platform.db, athleteId, applicationId);
}

/**
 * Decides on the pair stream through the one write seam (events/oauth/decide.ts holds the rules).
 * The protocol's own steps (consent, code exchange, refresh, revocation) act for the pair they
 * touch, known only here once the code or token is read: their actor is that pair with source
 * "oauth" (or the revocation's reason); the web pages' token steps pass theirs.
 */
function onPair(platform: Platform, athleteId: number, applicationId: number, command: OAuthCommand, actor: Actor) {
  return handleCommand(
    platform.store,
    authorizationStream(athleteId, applicationId),
    oauthDecider,
    command,
    appendOptions(actor),
  );
}

const oauthActor = (athleteId: number, applicationId: number) => systemActor("oauth", athleteId, applicationId);

// ---------------------------------------------------------------- authorize

/**
 * Is redirectUri on the application's callback domain (or a sub-domain)? localhost and 127.0.0.1
 * are always allowed. Only http(s), no user info, no fragment, and no character the URL parser
 * would silently drop or rewrite (tab, CR, LF, NUL and other controls, backslash, space): the
 * address checked is then exactly the one stored and redirected to.
 */
export function redirectAllowed(redirectUri: string, callbackDomain: string): boolean {
  // deno-lint-ignore no-control-regex
  if (redirectUri.length > 2048 || /[\u0000-\u0020\u007f\\]/.test(redirectUri)) return false;
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return false;
  if (url.username || url.password || url.hash) return false;
  const host = url.hostname.toLowerCase();
  if (host === "localhost" || host === "127.0.0.1" || host === "[::1]") return true;
  const [domain, port] = callbackDomain.toLowerCase().split(":");
  if (!domain) return false;
  if (host !== domain && !host.endsWith(`.${domain}`)) return false;
  return !port || url.port === port;
}

export interface GrantInput {
  athleteId: number;
  applicationId: number;
  permissions: Permission[];
  scope: string;
  redirectUri: string;
  codeChallenge: string | null;
  prompted: boolean;
  /** The resource the tokens will be for (the API, or the MCP endpoint). */
  audience: TokenAudience;
}

/** Records the athlete's consent and issues a code (returned once; only its hash is kept). */
export async function grantAuthorization(platform: Platform, input: GrantInput, now = new Date()): Promise<string> {
  const code = randomSecret();
  await onPair(platform, input.athleteId, input.applicationId, {
    type: "grant",
    grant: {
      grantId: randomUUID(),
      athleteId: input.athleteId,
      applicationId: input.applicationId,
      permissions: [...new Set<Permission>(["read", ...input.permissions])].sort(),
      scope: input.scope,
      codeHash: hashSecret(code),
      redirectUri: input.redirectUri,
      codeChallenge: input.codeChallenge,
      codeExpiresAt: new Date(now.getTime() + CODE_SECONDS * 1000).toISOString(),
      prompted: input.prompted,
      audience: input.audience,
    },
  }, oauthActor(input.athleteId, input.applicationId));
  return code;
}

// ---------------------------------------------------------------- token endpoint

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
  /** The token request's `resource` (RFC 8707), when sent. */
  resource?: string;
}

/** The audience a token request's `resource` names (undefined: not sent); another address is refused. */
function requestedAudience(platform: Platform, resource: string | undefined): TokenAudience | undefined {
  const audience = audienceOf(resource, platform.config.publicUrl);
  if (audience === "invalid") throw invalid("Token", "resource", "invalid_target");
  return audience;
}

/** Resolves the client; the secret is checked when given (its absence is judged by the grant). */
async function authenticateClient(
  platform: Platform,
  credentials: ClientCredentials,
): Promise<{ app: ApplicationRow; secretChecked: boolean }> {
  if (!credentials.clientId) throw invalid("Application", "client_id", "missing");
  if (!/^\d{1,15}$/.test(credentials.clientId)) throw invalid("Application", "client_id");
  const app = await findApplication(platform, Number(credentials.clientId));
  if (!app) throw invalid("Application", "client_id");
  if (credentials.clientSecret !== undefined && credentials.clientSecret !== "") {
    if (!secretMatches(credentials.clientSecret, app.client_secret_hash)) throw invalid("Application", "client_secret");
    return { app, secretChecked: true };
  }
  return { app, secretChecked: false };
}

export interface TokenResponse {
  token_type: "Bearer";
  expires_at: number;
  expires_in: number;
  refresh_token: string;
  access_token: string;
}

function mintAccess(now: Date) {
  const accessToken = randomSecret();
  const expiresAt = Math.floor(now.getTime() / 1000) + ACCESS_TOKEN_SECONDS;
  return { accessToken, expiresAt, expiresIso: new Date(expiresAt * 1000).toISOString() };
}

/** The RefreshTokenIssued event among those a token request decided. */
function issuedRefreshToken(events: readonly CatalogueEvent[]) {
  for (const event of events) if (event.type === refreshTokenIssued.type) return event.data;
  return undefined;
}

/** The response of a token request, read from the RefreshTokenIssued event decided. */
function tokenResponse(events: readonly CatalogueEvent[], refreshToken: string, now: Date): TokenResponse {
  const issued = issuedRefreshToken(events);
  const accessToken = issued && openAccessToken(issued.sealedAccessToken, refreshToken);
  if (!issued || !accessToken) throw new Error("a token request decided no refresh token");
  const expiresAt = Math.floor(Date.parse(issued.accessExpiresAt) / 1000);
  return {
    token_type: "Bearer",
    expires_at: expiresAt,
    expires_in: expiresAt - Math.floor(now.getTime() / 1000),
    refresh_token: refreshToken,
    access_token: accessToken,
  };
}

/** grant_type=authorization_code: single use, 10 minutes, bound to client, redirect_uri and PKCE. */
export async function exchangeCode(
  platform: Platform,
  input: ClientCredentials & { code?: string; redirectUri?: string; codeVerifier?: string },
  now = new Date(),
): Promise<TokenResponse & { athleteId: number }> {
  const { app, secretChecked } = await authenticateClient(platform, input);
  const audience = requestedAudience(platform, input.resource);
  if (!input.code) throw invalid("AuthorizationCode", "code", "missing");
  const codeHash = hashSecret(input.code);
  const pair = await codePair(platform.db, codeHash);
  if (!pair || pair.applicationId !== app.id) throw invalid("AuthorizationCode", "code");
  const access = mintAccess(now);
  const refreshToken = randomSecret();
  const { events } = await onPair(platform, pair.athleteId, app.id, {
    type: "exchange",
    athleteId: pair.athleteId,
    applicationId: app.id,
    codeHash,
    redirectUri: input.redirectUri,
    codeVerifier: input.codeVerifier,
    secretChecked,
    now: now.toISOString(),
    access: { tokenHash: hashSecret(access.accessToken), expiresAt: access.expiresIso },
    refreshTokenHash: hashSecret(refreshToken),
    sealedAccessToken: sealAccessToken(access.accessToken, refreshToken),
    audience,
  }, oauthActor(pair.athleteId, app.id));
  // A code presented again revoked its grant's tokens (the decided event); the request is refused.
  if (!events.some((e) => e.type === refreshTokenIssued.type)) throw invalid("AuthorizationCode", "code");
  return { ...tokenResponse(events, refreshToken, now), athleteId: pair.athleteId };
}

/**
 * grant_type=refresh_token: the refresh token always rotates (the old one stops working). With
 * more than an hour left the same access token comes back; otherwise a new one is minted and the
 * old one keeps working until it expires.
 */
export async function refreshAccess(
  platform: Platform,
  input: ClientCredentials & { refreshToken?: string },
  now = new Date(),
): Promise<TokenResponse> {
  const { app, secretChecked } = await authenticateClient(platform, input);
  const audience = requestedAudience(platform, input.resource);
  if (!input.refreshToken) throw invalid("RefreshToken", "refresh_token", "missing");
  const refreshTokenHash = hashSecret(input.refreshToken);
  const pair = await refreshTokenPair(platform.db, refreshTokenHash);
  if (!pair || pair.applicationId !== app.id) throw invalid("RefreshToken", "refresh_token");
  const fresh = mintAccess(now);
  const next = randomSecret();
  const { events } = await onPair(platform, pair.athleteId, app.id, {
    type: "refresh",
    athleteId: pair.athleteId,
    applicationId: app.id,
    refreshToken: input.refreshToken,
    refreshTokenHash,
    secretChecked,
    now: now.toISOString(),
    fresh: { accessToken: fresh.accessToken, tokenHash: hashSecret(fresh.accessToken), expiresAt: fresh.expiresIso },
    next: { refreshToken: next, refreshTokenHash: hashSecret(next) },
    iv: randomBytes(12),
    audience,
  }, oauthActor(pair.athleteId, app.id));
  return tokenResponse(events, next, now);
}

// ---------------------------------------------------------------- revocation

/** Invalidates every token of an athlete-and-application pair (deauthorize, Revoke on My apps). */
export async function revokeAuthorization(
  platform: Platform,
  athleteId: number,
  applicationId: number,
  reason: string,
): Promise<void> {
  await onPair(
    platform,
    athleteId,
    applicationId,
    { type: "revoke", athleteId, applicationId, reason },
    systemActor(reason, athleteId, applicationId),
  );
}

/** POST /oauth/deauthorize: the pair of a valid access token. */
export async function deauthorizeToken(platform: Platform, token: string | undefined, now = new Date()): Promise<void> {
  if (!token) throw new DomainError("unauthorized", "Athlete", "access_token", "missing");
  const row = await accessTokenPair(platform.db, hashSecret(token));
  if (!row || row.revoked || (row.expires_at && new Date(row.expires_at) <= now)) {
    throw new DomainError("unauthorized", "Athlete", "access_token", "invalid");
  }
  if (row.kind !== "access") throw invalid("AccessToken", "access_token", "public token");
  await revokeAuthorization(platform, row.athlete_id, row.application_id, "deauthorize");
}

// ---------------------------------------------------------------- the web pages' tokens

/** Issues a page token (server/web/app/token.ts: bound to a signed-in session, only its hash kept). */
export async function issuePageToken(
  platform: Platform,
  token: EventData<typeof accessTokenIssued>,
  actor: Actor,
): Promise<void> {
  await onPair(platform, token.athleteId, token.applicationId, { type: "issueToken", token }, actor);
}

/** Revokes one token of a pair by its hash (a session's page token at sign-out or when the session ends). */
export async function revokeToken(
  platform: Platform,
  token: { tokenHash: string; athleteId: number; applicationId: number },
  reason: string,
  actor: Actor,
): Promise<void> {
  await onPair(platform, token.athleteId, token.applicationId, { type: "revokeToken", ...token, reason }, actor);
}
