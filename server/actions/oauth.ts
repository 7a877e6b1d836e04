import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from "node:crypto";
import type { NewEvent } from "../../events/catalogue.ts";
import { DomainError } from "../../events/decider.ts";
import { ConcurrencyError } from "../../events/types.ts";
import { accessTokenIssued, accessTokensRevoked, authorizationStream } from "../../events/application/events.ts";
import {
  authorizationCodeRedeemed,
  authorizationCodeReplayed,
  authorizationGranted,
  refreshTokenIssued,
} from "../../events/oauth/events.ts";
import type { Permission } from "../http/auth.ts";
import type { Platform } from "../platform.ts";
import { constantTimeEqual, hashSecret, randomSecret, secretMatches } from "../security.ts";

/** Access tokens issued through OAuth live 6 hours. */
export const ACCESS_TOKEN_SECONDS = 6 * 60 * 60;
/** A refresh with more than this left on the current access token returns the same token. */
export const REUSE_THRESHOLD_SECONDS = 60 * 60;
/** Authorization codes are accepted for 10 minutes. */
export const CODE_SECONDS = 10 * 60;

const invalid = (resource: string, field: string, code = "invalid") => new DomainError("invalid", resource, field, code);

// ---------------------------------------------------------------- sealing

function sealKey(refreshToken: string): Buffer {
  return createHash("sha256").update(`seal-v1:${refreshToken}`).digest();
}

/** Encrypts the access token so only the holder of the refresh token can read it back. */
export function sealAccessToken(accessToken: string, refreshToken: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(refreshToken), iv);
  const body = Buffer.concat([cipher.update(accessToken, "utf8"), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64");
}

export function openAccessToken(sealed: string, refreshToken: string): string | undefined {
  try {
    const bytes = Buffer.from(sealed, "base64");
    const decipher = createDecipheriv("aes-256-gcm", sealKey(refreshToken), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]).toString("utf8");
  } catch {
    return undefined;
  }
}

/** PKCE S256: base64url(sha256(verifier)). */
export function pkceChallenge(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

// ---------------------------------------------------------------- applications and pairs

export interface ApplicationRow {
  id: number;
  owner_id: number;
  name: string;
  website: string | null;
  description: string | null;
  callback_domain: string;
  client_secret_hash: string;
}

export async function findApplication(platform: Platform, id: number): Promise<ApplicationRow | undefined> {
  const [row] = await platform.db.query<ApplicationRow>(
    "select id, owner_id, name, website, description, callback_domain, client_secret_hash from applications where id = $1",
    [id],
  );
  return row ? { ...row, id: Number(row.id), owner_id: Number(row.owner_id) } : undefined;
}

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

export async function findAuthorization(platform: Platform, athleteId: number, applicationId: number): Promise<Authorization | undefined> {
  const [row] = await platform.db.query<Authorization>(
    "select * from oauth_authorizations where athlete_id = $1 and application_id = $2",
    [athleteId, applicationId],
  );
  return row;
}

/**
 * Appends to the pair stream at the version the read model last saw; on a conflict the decision
 * is made again on fresh state, so two exchanges of one code or one refresh token never both win.
 */
async function appendToPair<T>(
  platform: Platform,
  athleteId: number,
  applicationId: number,
  decide: () => Promise<{ events: NewEvent[]; result: T }>,
  source: string,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const pair = await findAuthorization(platform, athleteId, applicationId);
    const { events, result } = await decide();
    if (events.length === 0) return result;
    try {
      await platform.store.append(authorizationStream(athleteId, applicationId), pair?.stream_version ?? 0, events, {
        metadata: { athleteId, applicationId, source },
      });
      return result;
    } catch (error) {
      if (!(error instanceof ConcurrencyError) || attempt >= 5) throw error;
    }
  }
}

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
}

/** Records the athlete's consent and issues a code (returned once; only its hash is kept). */
export async function grantAuthorization(platform: Platform, input: GrantInput, now = new Date()): Promise<string> {
  const code = randomSecret();
  return await appendToPair(platform, input.athleteId, input.applicationId, () =>
    Promise.resolve({
      events: [authorizationGranted.create({
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
      })],
      result: code,
    }), "oauth");
}

// ---------------------------------------------------------------- token endpoint

export interface ClientCredentials {
  clientId?: string;
  clientSecret?: string;
}

/** Resolves the client; the secret is checked when given (its absence is judged by the grant). */
async function authenticateClient(platform: Platform, credentials: ClientCredentials): Promise<{ app: ApplicationRow; secretChecked: boolean }> {
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

interface CodeRow {
  code_hash: string;
  grant_id: string;
  athlete_id: number;
  application_id: number;
  permissions: string;
  redirect_uri: string;
  code_challenge: string | null;
  expires_at: string;
  redeemed: boolean;
  replayed: boolean;
  revoked: boolean;
}

function mintAccess(now: Date) {
  const accessToken = randomSecret();
  const expiresAt = Math.floor(now.getTime() / 1000) + ACCESS_TOKEN_SECONDS;
  return { accessToken, expiresAt, expiresIso: new Date(expiresAt * 1000).toISOString() };
}

/** grant_type=authorization_code: single use, 10 minutes, bound to client, redirect_uri and PKCE. */
export async function exchangeCode(
  platform: Platform,
  input: ClientCredentials & { code?: string; redirectUri?: string; codeVerifier?: string },
  now = new Date(),
): Promise<TokenResponse & { athleteId: number }> {
  const { app, secretChecked } = await authenticateClient(platform, input);
  if (!input.code) throw invalid("AuthorizationCode", "code", "missing");
  const codeHash = hashSecret(input.code);
  const load = async () => {
    const [row] = await platform.db.query<CodeRow>("select * from oauth_codes where code_hash = $1", [codeHash]);
    return row && Number(row.application_id) === app.id ? { ...row, athlete_id: Number(row.athlete_id) } : undefined;
  };
  const first = await load();
  if (!first) throw invalid("AuthorizationCode", "code");
  const athleteId = first.athlete_id;
  let replayed = false;
  const response = await appendToPair(platform, athleteId, app.id, async () => {
    const row = await load();
    if (!row || row.revoked) throw invalid("AuthorizationCode", "code");
    if (row.redeemed) {
      replayed = true;
      if (row.replayed) return { events: [], result: undefined };
      return {
        events: [authorizationCodeReplayed.create({ grantId: row.grant_id, codeHash, athleteId, applicationId: app.id })],
        result: undefined,
      };
    }
    if (new Date(row.expires_at).getTime() <= now.getTime()) throw invalid("AuthorizationCode", "code");
    if (input.redirectUri !== undefined && input.redirectUri !== row.redirect_uri) {
      throw invalid("AuthorizationCode", "redirect_uri");
    }
    let publicClient = false;
    if (row.code_challenge) {
      if (!input.codeVerifier) throw invalid("AuthorizationCode", "code_verifier", "missing");
      if (!PKCE_VALUE.test(input.codeVerifier) || !constantTimeEqual(pkceChallenge(input.codeVerifier), row.code_challenge)) {
        throw invalid("AuthorizationCode", "code_verifier");
      }
      publicClient = !secretChecked;
    } else if (!secretChecked) {
      throw invalid("Application", "client_secret", "missing");
    }
    const permissions = row.permissions.split(",").filter(Boolean) as Permission[];
    const access = mintAccess(now);
    const refreshToken = randomSecret();
    const events = [
      authorizationCodeRedeemed.create({ grantId: row.grant_id, codeHash, athleteId, applicationId: app.id, publicClient }),
      accessTokenIssued.create({
        tokenHash: hashSecret(access.accessToken),
        athleteId,
        applicationId: app.id,
        scopes: permissions,
        kind: "access",
        expiresAt: access.expiresIso,
        grantId: row.grant_id,
      }),
      refreshTokenIssued.create({
        grantId: row.grant_id,
        athleteId,
        applicationId: app.id,
        refreshTokenHash: hashSecret(refreshToken),
        replacesHash: null,
        permissions,
        accessTokenHash: hashSecret(access.accessToken),
        accessExpiresAt: access.expiresIso,
        sealedAccessToken: sealAccessToken(access.accessToken, refreshToken),
        publicClient,
      }),
    ];
    const result: TokenResponse = {
      token_type: "Bearer",
      expires_at: access.expiresAt,
      expires_in: access.expiresAt - Math.floor(now.getTime() / 1000),
      refresh_token: refreshToken,
      access_token: access.accessToken,
    };
    return { events, result };
  }, "oauth");
  if (replayed || !response) throw invalid("AuthorizationCode", "code");
  return { ...response, athleteId };
}

interface RefreshRow {
  token_hash: string;
  grant_id: string;
  athlete_id: number;
  application_id: number;
  permissions: string;
  access_token_hash: string;
  access_expires_at: string;
  sealed_access_token: string;
  public_client: boolean;
  replaced: boolean;
  revoked: boolean;
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
  if (!input.refreshToken) throw invalid("RefreshToken", "refresh_token", "missing");
  const refreshHash = hashSecret(input.refreshToken);
  const load = async () => {
    const [row] = await platform.db.query<RefreshRow>("select * from oauth_refresh_tokens where token_hash = $1", [refreshHash]);
    return row && Number(row.application_id) === app.id && !row.replaced && !row.revoked
      ? { ...row, athlete_id: Number(row.athlete_id) }
      : undefined;
  };
  const first = await load();
  if (!first) throw invalid("RefreshToken", "refresh_token");
  if (!secretChecked && !first.public_client) throw invalid("Application", "client_secret", "missing");
  return await appendToPair(platform, first.athlete_id, app.id, async () => {
    const row = await load();
    if (!row) throw invalid("RefreshToken", "refresh_token");
    const permissions = row.permissions.split(",").filter(Boolean) as Permission[];
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const currentExpires = Math.floor(new Date(row.access_expires_at).getTime() / 1000);
    const [current] = await platform.db.query<{ revoked: boolean }>(
      "select revoked from access_tokens where token_hash = $1",
      [row.access_token_hash],
    );
    const reused = currentExpires - nowSeconds > REUSE_THRESHOLD_SECONDS && current && !current.revoked
      ? openAccessToken(row.sealed_access_token, input.refreshToken!)
      : undefined;
    const events: NewEvent[] = [];
    let access: { accessToken: string; expiresAt: number; expiresIso: string };
    if (reused) {
      access = { accessToken: reused, expiresAt: currentExpires, expiresIso: row.access_expires_at };
    } else {
      access = mintAccess(now);
      events.push(accessTokenIssued.create({
        tokenHash: hashSecret(access.accessToken),
        athleteId: row.athlete_id,
        applicationId: app.id,
        scopes: permissions,
        kind: "access",
        expiresAt: access.expiresIso,
        grantId: row.grant_id,
      }));
    }
    const refreshToken = randomSecret();
    events.push(refreshTokenIssued.create({
      grantId: row.grant_id,
      athleteId: row.athlete_id,
      applicationId: app.id,
      refreshTokenHash: hashSecret(refreshToken),
      replacesHash: refreshHash,
      permissions,
      accessTokenHash: hashSecret(access.accessToken),
      accessExpiresAt: new Date(access.expiresAt * 1000).toISOString(),
      sealedAccessToken: sealAccessToken(access.accessToken, refreshToken),
      publicClient: row.public_client,
    }));
    return {
      events,
      result: {
        token_type: "Bearer" as const,
        expires_at: access.expiresAt,
        expires_in: access.expiresAt - nowSeconds,
        refresh_token: refreshToken,
        access_token: access.accessToken,
      },
    };
  }, "oauth");
}

// ---------------------------------------------------------------- revocation

/** Invalidates every token of an athlete-and-application pair (deauthorize, Revoke on My apps). */
export async function revokeAuthorization(platform: Platform, athleteId: number, applicationId: number, reason: string): Promise<void> {
  await appendToPair(platform, athleteId, applicationId, () =>
    Promise.resolve({
      events: [accessTokensRevoked.create({ athleteId, applicationId, reason })],
      result: undefined,
    }), reason);
}

/** POST /oauth/deauthorize: the pair of a valid access token. */
export async function deauthorizeToken(platform: Platform, token: string | undefined, now = new Date()): Promise<void> {
  if (!token) throw new DomainError("unauthorized", "Athlete", "access_token", "missing");
  const [row] = await platform.db.query<{ athlete_id: number; application_id: number; kind: string; revoked: boolean; expires_at: string | null }>(
    "select athlete_id, application_id, kind, revoked, expires_at from access_tokens where token_hash = $1",
    [hashSecret(token)],
  );
  if (!row || row.revoked || (row.expires_at && new Date(row.expires_at) <= now)) {
    throw new DomainError("unauthorized", "Athlete", "access_token", "invalid");
  }
  if (row.kind !== "access") throw invalid("AccessToken", "access_token", "public token");
  await revokeAuthorization(platform, Number(row.athlete_id), Number(row.application_id), "deauthorize");
}
