import type { EventData } from "../catalogue.ts";
import { type Decider, DomainError } from "../decider.ts";
import { accessTokenIssued, accessTokenRevoked, accessTokensRevoked } from "../application/events.ts";
import type { TokenAudience } from "../application/audience.ts";
import { openAccessToken, PKCE_VALUE, pkceChallenge, sameSecret, sealAccessToken } from "./crypto.ts";
import {
  authorizationCodeRedeemed,
  authorizationCodeReplayed,
  authorizationGranted,
  type OAuthEvent,
  refreshTokenIssued,
} from "./events.ts";

type Permission = "read" | "write" | "view_private";

/** A refresh with more than this left on the current access token returns the same token. */
export const REUSE_THRESHOLD_SECONDS = 60 * 60;

interface Code {
  grantId: string;
  audience: TokenAudience;
  permissions: Permission[];
  redirectUri: string;
  codeChallenge: string | null;
  expiresAt: string;
  redeemed: boolean;
  replayed: boolean;
  revoked: boolean;
}

interface RefreshToken {
  grantId: string;
  permissions: Permission[];
  accessTokenHash: string;
  accessExpiresAt: string;
  sealedAccessToken: string;
  publicClient: boolean;
}

/**
 * One athlete-and-application pair (stream authorization-<athleteId>-<applicationId>): its codes,
 * its live refresh tokens (replaced and revoked ones are dropped) and the live access tokens issued
 * from a grant (hash → grant id).
 */
export interface OAuthPairState {
  codes: ReadonlyMap<string, Code>;
  /** Each grant's audience (grant id → the resource its tokens are for). */
  grantAudience: ReadonlyMap<string, TokenAudience>;
  refreshTokens: ReadonlyMap<string, RefreshToken>;
  grantAccess: ReadonlyMap<string, string>;
}

/** A freshly minted access token: the plain token is only in the command, never in an event. */
interface MintedAccess {
  tokenHash: string;
  /** ISO time it expires. */
  expiresAt: string;
}

export type OAuthCommand =
  /** The athlete approved (consent page or approval_prompt=auto): a code is issued. */
  | { type: "grant"; grant: EventData<typeof authorizationGranted> }
  /** An access token outside the code flow (the CLI, the web app's session token). */
  | { type: "issueToken"; token: EventData<typeof accessTokenIssued> }
  /** grant_type=authorization_code. */
  | {
    type: "exchange";
    athleteId: number;
    applicationId: number;
    codeHash: string;
    redirectUri?: string;
    codeVerifier?: string;
    /** Whether the client authenticated with its secret. */
    secretChecked: boolean;
    /** ISO time of the request. */
    now: string;
    access: MintedAccess;
    refreshTokenHash: string;
    /** The new access token sealed with the new refresh token. */
    sealedAccessToken: string;
    /** The token request's `resource` (RFC 8707), as an audience; undefined when not sent. */
    audience?: TokenAudience;
  }
  /** grant_type=refresh_token: the refresh token rotates; the access token is reused with over an hour left. */
  | {
    type: "refresh";
    athleteId: number;
    applicationId: number;
    /** The refresh token presented (plain: it opens the sealed access token it belongs to). */
    refreshToken: string;
    refreshTokenHash: string;
    secretChecked: boolean;
    now: string;
    /** A new access token, used when the current one is not reused. */
    fresh: MintedAccess & { accessToken: string };
    /** The next refresh token (plain: it seals the access token) and its hash. */
    next: { refreshToken: string; refreshTokenHash: string };
    /** 12 random bytes for sealing. */
    iv: Uint8Array;
    /** The token request's `resource` (RFC 8707), as an audience; undefined when not sent. */
    audience?: TokenAudience;
  }
  /** Deauthorize, or Revoke on My apps: every token of the pair stops working. */
  | { type: "revoke"; athleteId: number; applicationId: number; reason: string }
  /** One access token ends (the web app's page token when its session signs out); the pair's others live on. */
  | { type: "revokeToken"; athleteId: number; applicationId: number; tokenHash: string; reason: string };

const invalid = (resource: string, field: string, code = "invalid") =>
  new DomainError("invalid", resource, field, code);

function without<V>(map: ReadonlyMap<string, V>, drop: (key: string, value: V) => boolean): Map<string, V> {
  return new Map([...map].filter(([k, v]) => !drop(k, v)));
}

/**
 * The rules of OAuth grants: a code is redeemed once, within 10 minutes, by its application, with
 * its redirect_uri and (when it was issued with a challenge) its PKCE verifier, else with the client
 * secret; a code presented again revokes every token of its grant; a refresh token works once (it
 * rotates) and only with the client secret unless it was issued to a public (PKCE) client; revoking
 * a pair ends all its tokens and codes.
 */
export const oauthDecider: Decider<OAuthPairState, OAuthCommand, OAuthEvent> = {
  initialState: () => ({
    codes: new Map(),
    grantAudience: new Map(),
    refreshTokens: new Map(),
    grantAccess: new Map(),
  }),
  evolve(state, event: OAuthEvent) {
    switch (event.type) {
      case authorizationGranted.type: {
        const d = event.data;
        const codes = new Map(state.codes);
        codes.set(d.codeHash, {
          grantId: d.grantId,
          audience: d.audience,
          permissions: d.permissions,
          redirectUri: d.redirectUri,
          codeChallenge: d.codeChallenge,
          expiresAt: d.codeExpiresAt,
          redeemed: false,
          replayed: false,
          revoked: false,
        });
        const grantAudience = new Map(state.grantAudience).set(d.grantId, d.audience);
        return { ...state, codes, grantAudience };
      }
      case authorizationCodeRedeemed.type:
      case authorizationCodeReplayed.type: {
        const code = state.codes.get(event.data.codeHash);
        if (!code) return state;
        const codes = new Map(state.codes);
        const replayed = event.type === authorizationCodeReplayed.type;
        codes.set(event.data.codeHash, { ...code, redeemed: true, replayed: code.replayed || replayed });
        if (!replayed) return { ...state, codes };
        const grantId = event.data.grantId;
        return {
          codes,
          grantAudience: state.grantAudience,
          refreshTokens: without(state.refreshTokens, (_, t) => t.grantId === grantId),
          grantAccess: without(state.grantAccess, (_, g) => g === grantId),
        };
      }
      case refreshTokenIssued.type: {
        const d = event.data;
        const refreshTokens = d.replacesHash
          ? without(state.refreshTokens, (k) => k === d.replacesHash)
          : new Map(state.refreshTokens);
        refreshTokens.set(d.refreshTokenHash, {
          grantId: d.grantId,
          permissions: d.permissions,
          accessTokenHash: d.accessTokenHash,
          accessExpiresAt: d.accessExpiresAt,
          sealedAccessToken: d.sealedAccessToken,
          publicClient: d.publicClient,
        });
        return { ...state, refreshTokens };
      }
      case accessTokenIssued.type: {
        if (event.data.kind !== "access" || event.data.grantId === null) return state;
        const grantAccess = new Map(state.grantAccess);
        grantAccess.set(event.data.tokenHash, event.data.grantId);
        return { ...state, grantAccess };
      }
      case accessTokensRevoked.type: {
        const codes = new Map([...state.codes].map(([k, c]) => [k, { ...c, revoked: true }]));
        return { codes, grantAudience: state.grantAudience, refreshTokens: new Map(), grantAccess: new Map() };
      }
      default:
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "grant":
        // Tokens for the MCP endpoint are issued only through code + PKCE S256 (MCP authorization).
        if (command.grant.audience === "mcp" && !command.grant.codeChallenge) {
          throw invalid("Authorize", "code_challenge", "missing");
        }
        return [authorizationGranted.create(command.grant)];
      case "issueToken":
        if (command.token.kind !== "access") throw invalid("AccessToken", "kind");
        return [accessTokenIssued.create(command.token)];
      case "revoke":
        return [
          accessTokensRevoked.create({
            athleteId: command.athleteId,
            applicationId: command.applicationId,
            reason: command.reason,
          }),
        ];
      case "revokeToken":
        return [
          accessTokenRevoked.create({
            tokenHash: command.tokenHash,
            athleteId: command.athleteId,
            applicationId: command.applicationId,
            reason: command.reason,
          }),
        ];
      case "exchange":
        return exchange(command, state);
      case "refresh":
        return refresh(command, state);
    }
  },
};

function exchange(command: Extract<OAuthCommand, { type: "exchange" }>, state: OAuthPairState): OAuthEvent[] {
  const { athleteId, applicationId, codeHash } = command;
  const code = state.codes.get(codeHash);
  if (!code || code.revoked) throw invalid("AuthorizationCode", "code");
  if (code.redeemed) {
    // Presented again: the grant's tokens are revoked (once); the caller refuses the code.
    if (code.replayed) throw invalid("AuthorizationCode", "code");
    return [authorizationCodeReplayed.create({ grantId: code.grantId, codeHash, athleteId, applicationId })];
  }
  if (Date.parse(code.expiresAt) <= Date.parse(command.now)) throw invalid("AuthorizationCode", "code");
  // RFC 8707: a token request naming another resource than the grant's gets nothing.
  if (command.audience !== undefined && command.audience !== code.audience) {
    throw invalid("AuthorizationCode", "resource");
  }
  if (command.redirectUri !== undefined && command.redirectUri !== code.redirectUri) {
    throw invalid("AuthorizationCode", "redirect_uri");
  }
  let publicClient = false;
  if (code.codeChallenge) {
    if (!command.codeVerifier) throw invalid("AuthorizationCode", "code_verifier", "missing");
    if (
      !PKCE_VALUE.test(command.codeVerifier) || !sameSecret(pkceChallenge(command.codeVerifier), code.codeChallenge)
    ) {
      throw invalid("AuthorizationCode", "code_verifier");
    }
    publicClient = !command.secretChecked;
  } else if (!command.secretChecked) {
    throw invalid("Application", "client_secret", "missing");
  }
  return [
    authorizationCodeRedeemed.create({ grantId: code.grantId, codeHash, athleteId, applicationId, publicClient }),
    accessTokenIssued.create({
      tokenHash: command.access.tokenHash,
      athleteId,
      applicationId,
      scopes: code.permissions,
      kind: "access",
      expiresAt: command.access.expiresAt,
      grantId: code.grantId,
      audience: code.audience,
    }),
    refreshTokenIssued.create({
      grantId: code.grantId,
      athleteId,
      applicationId,
      refreshTokenHash: command.refreshTokenHash,
      replacesHash: null,
      permissions: code.permissions,
      accessTokenHash: command.access.tokenHash,
      accessExpiresAt: command.access.expiresAt,
      sealedAccessToken: command.sealedAccessToken,
      publicClient,
    }),
  ];
}

function refresh(command: Extract<OAuthCommand, { type: "refresh" }>, state: OAuthPairState): OAuthEvent[] {
  const { athleteId, applicationId } = command;
  const token = state.refreshTokens.get(command.refreshTokenHash);
  if (!token) throw invalid("RefreshToken", "refresh_token");
  if (!command.secretChecked && !token.publicClient) throw invalid("Application", "client_secret", "missing");
  const audience = state.grantAudience.get(token.grantId) ?? "api";
  if (command.audience !== undefined && command.audience !== audience) throw invalid("RefreshToken", "resource");
  const nowSeconds = Math.floor(Date.parse(command.now) / 1000);
  const currentExpires = Math.floor(Date.parse(token.accessExpiresAt) / 1000);
  const reused = currentExpires - nowSeconds > REUSE_THRESHOLD_SECONDS && state.grantAccess.has(token.accessTokenHash)
    ? openAccessToken(token.sealedAccessToken, command.refreshToken)
    : undefined;
  const events: OAuthEvent[] = [];
  let access: { token: string; hash: string; expiresAt: string };
  if (reused) {
    access = { token: reused, hash: token.accessTokenHash, expiresAt: new Date(currentExpires * 1000).toISOString() };
  } else {
    access = { token: command.fresh.accessToken, hash: command.fresh.tokenHash, expiresAt: command.fresh.expiresAt };
    events.push(accessTokenIssued.create({
      tokenHash: command.fresh.tokenHash,
      athleteId,
      applicationId,
      scopes: token.permissions,
      kind: "access",
      expiresAt: command.fresh.expiresAt,
      grantId: token.grantId,
      audience,
    }));
  }
  events.push(refreshTokenIssued.create({
    grantId: token.grantId,
    athleteId,
    applicationId,
    refreshTokenHash: command.next.refreshTokenHash,
    replacesHash: command.refreshTokenHash,
    permissions: token.permissions,
    accessTokenHash: access.hash,
    accessExpiresAt: access.expiresAt,
    sealedAccessToken: sealAccessToken(access.token, command.next.refreshToken, command.iv),
    publicClient: token.publicClient,
  }));
  return events;
}
