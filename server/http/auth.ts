import type { Queryable } from "../../events/db/types.ts";
import { accessTokenByHash } from "../../projections/applications/queries.ts";
import { tokenReadModelChanges } from "../../projections/applications/token-changes.ts";
import { hashSecret } from "../security.ts";
import type { TokenAudience } from "../../events/application/audience.ts";

/** Permissions a token can carry. The legacy scope names are the spec's; newer names map onto them. */
export type Permission = "read" | "write" | "view_private";

/** Scope names accepted at /oauth/authorize and by the CLI, and the permissions each grants. */
export const SCOPE_PERMISSIONS: Record<string, Permission[]> = {
  public: ["read"],
  read: ["read"],
  "activity:read": ["read"],
  write: ["read", "write"],
  "activity:write": ["read", "write"],
  "profile:write": ["read", "write"],
  view_private: ["read", "view_private"],
  read_all: ["read", "view_private"],
  "activity:read_all": ["read", "view_private"],
  "profile:read_all": ["read", "view_private"],
};

/** Parses a comma-delimited scope string; undefined when any name is unknown. Blank = public. */
export function parseScope(scope: string | undefined | null): Permission[] | undefined {
  const names = (scope ?? "").split(/[,\s]+/).map((s) => s.trim()).filter(Boolean);
  const permissions = new Set<Permission>(["read"]);
  for (const name of names) {
    const granted = SCOPE_PERMISSIONS[name];
    if (!granted) return undefined;
    for (const p of granted) permissions.add(p);
  }
  return [...permissions].sort();
}

/** Writes permissions back as the spec's scope string (public, write, view_private, view_private,write). */
export function scopeString(permissions: readonly Permission[]): string {
  const parts = [];
  if (permissions.includes("view_private")) parts.push("view_private");
  if (permissions.includes("write")) parts.push("write");
  return parts.length ? parts.join(",") : "public";
}

/** Who a request acts for, from its access token. */
export interface Auth {
  athleteId: number;
  applicationId: number;
  permissions: ReadonlySet<Permission>;
  tokenHash: string;
  /** The resource the token was issued for (RFC 8707): the API or the MCP endpoint. */
  audience: TokenAudience;
  application: { internal: boolean; kudosEnabled: boolean; challengesEnabled: boolean };
}

export type TokenLookup =
  | { ok: true; auth: Auth }
  | { ok: false; reason: "unknown" | "revoked" | "expired" | "audience" };

/**
 * Valid tokens are remembered per database, keyed by token hash. Any change to the
 * tokens/applications read models applied in this process (revocation, replayed code, application
 * registered or secret changed) forgets them all at once, and a lookup that raced it is not kept. On
 * PostgreSQL the change may come from another server, which this process does not apply: there an
 * entry lasts at most TOKEN_CACHE_MS, and after a change here nothing is cached for TOKEN_CACHE_MS
 * (a lookup on another connection may still read the state before the revoking commit). A revoked
 * token therefore gets 401 at once on the server that revoked it, and within TOKEN_CACHE_MS on
 * other servers sharing one PostgreSQL. An embedded database belongs to one process, which applies
 * every change and runs one transaction at a time: there an entry stands until a change. Unknown,
 * revoked and expired answers are never cached; expiry is checked on every hit.
 */
export const TOKEN_CACHE_MS = 1000;
const TOKEN_CACHE_MAX = 10_000;

interface CachedToken {
  auth: Auth;
  expiresAt: number | null;
  until: number;
}

let tokenCaches = new WeakMap<Queryable, Map<string, CachedToken>>();
let tokenGeneration = 0;
let noCachingUntil = 0;

/** Forgets every cached token when the read models changed since the last look. */
function forgetOnChange(): number {
  const generation = tokenReadModelChanges();
  if (generation !== tokenGeneration) {
    tokenGeneration = generation;
    tokenCaches = new WeakMap();
    noCachingUntil = Date.now() + TOKEN_CACHE_MS;
  }
  return generation;
}

/**
 * Resolves an access token through the access_tokens read model (cached briefly, see above). A
 * token issued for another resource than `audience` (an MCP token at the API, an API token at
 * /mcp) is refused: reason "audience".
 */
export async function lookupToken(
  db: Queryable,
  token: string,
  now = new Date(),
  audience: TokenAudience = "api",
): Promise<TokenLookup> {
  const found = await lookupAnyToken(db, token, now);
  return found.ok && found.auth.audience !== audience ? { ok: false, reason: "audience" } : found;
}

/**
 * The hashes of the tokens seen last (a SHA-256 through node:crypto per request was 12–23 µs of a
 * GET's ≈ 1 ms in process: docs/bench-profiles.md). Only a hash is kept per token, never what it
 * grants: a revoked token is still looked up by its hash (the cache below) and refused.
 */
const TOKEN_HASHES_MAX = 10_000;
/** Longer tokens (none this server issues: 40 hex digits) are hashed each time, never kept. */
const TOKEN_HASHED_LENGTH = 128;
let tokenHashes = new Map<string, string>();

function tokenHashOf(token: string): string {
  if (token.length > TOKEN_HASHED_LENGTH) return hashSecret(token);
  let hash = tokenHashes.get(token);
  if (hash === undefined) {
    if (tokenHashes.size >= TOKEN_HASHES_MAX) tokenHashes = new Map();
    tokenHashes.set(token, hash = hashSecret(token));
  }
  return hash;
}

async function lookupAnyToken(db: Queryable, token: string, now: Date): Promise<TokenLookup> {
  const tokenHash = tokenHashOf(token);
  forgetOnChange();
  const hit = tokenCaches.get(db)?.get(tokenHash);
  if (hit && hit.until > Date.now() && (hit.expiresAt === null || hit.expiresAt > now.getTime())) {
    return { ok: true, auth: hit.auth };
  }
  const generation = tokenGeneration;
  const result = await lookupTokenRow(db, tokenHash, now);
  const clock = Date.now();
  const embedded = (db as { kind?: string }).kind === "pglite";
  if (result.ok && forgetOnChange() === generation && (embedded || clock >= noCachingUntil)) {
    let cache = tokenCaches.get(db);
    if (!cache) tokenCaches.set(db, cache = new Map());
    if (cache.size >= TOKEN_CACHE_MAX) cache.clear();
    cache.set(tokenHash, {
      auth: result.auth,
      expiresAt: result.expiresAt,
      until: embedded ? Infinity : clock + TOKEN_CACHE_MS,
    });
  }
  return result.ok ? { ok: true, auth: result.auth } : result;
}

async function lookupTokenRow(
  db: Queryable,
  tokenHash: string,
  now: Date,
): Promise<
  { ok: true; auth: Auth; expiresAt: number | null } | { ok: false; reason: "unknown" | "revoked" | "expired" }
> {
  const row = await accessTokenByHash(db, tokenHash);
  if (!row) return { ok: false, reason: "unknown" };
  if (row.revoked) return { ok: false, reason: "revoked" };
  if (row.expires_at && new Date(row.expires_at) <= now) return { ok: false, reason: "expired" };
  return {
    ok: true,
    expiresAt: row.expires_at ? new Date(row.expires_at).getTime() : null,
    auth: {
      athleteId: Number(row.athlete_id),
      applicationId: Number(row.application_id),
      permissions: new Set(row.scopes.split(",").filter(Boolean) as Permission[]),
      tokenHash,
      audience: row.audience,
      application: {
        internal: row.internal,
        kudosEnabled: row.kudos_enabled,
        challengesEnabled: row.challenges_enabled,
      },
    },
  };
}
