import type { Context } from "hono";
import { createApplication } from "../../applications/commands.ts";
import { webActor } from "../../actor.ts";
import { issuePageToken, revokeToken } from "../../oauth/commands.ts";
import { type Auth, lookupToken } from "../../http/auth.ts";
import type { Platform } from "../../platform.ts";
import { hashSecret } from "../../security.ts";
import { recordSessionToken, webSecret } from "../../sessions/session-table.ts";
import { knownWebApplicationId, WEB_APP_KEY as APP_KEY } from "../../sessions/web-application.ts";
import { sessionIdHash, sessionSecret } from "../session.ts";

/**
 * The web app's pages are a client of the /v3 API. The signed-in browser gets an API token bound to
 * its session (see docs/web-app.md, "How the pages get their token"):
 * - The token is HMAC(server key, session id, 30-minute window): only a request carrying the
 *   session cookie makes the server compute it again; nothing but its sha-256 is stored (the
 *   access_tokens read model, through an AccessTokenIssued event, like every token).
 * - It belongs to one internal application, "Web app" (created on first use), with read, write
 *   and view_private: the athlete's own pages see what the athlete sees.
 * - It expires one window after its own window ends (30-60 minutes after it was minted), so a
 *   copied token dies soon after sign-out; open pages fetch the next one with POST /app/token
 *   (same origin, session cookie and the CSRF token in a header).
 * - It reaches the page inside the HTML (a <meta> of a no-store page that other sites can neither
 *   frame nor read), never in a URL; the API reads it from the Authorization header only, so no
 *   cookie makes a cross-site request act for the athlete (no CSRF on the API).
 */
export const WINDOW_MS = 30 * 60 * 1000;

const applicationIds = new WeakMap<Platform, Promise<number>>();
const minting = new Map<string, Promise<void>>();

/** The internal application the pages' tokens belong to (created by the first athlete to sign in). */
export function webApplicationId(platform: Platform, athleteId: number): Promise<number> {
  let id = applicationIds.get(platform);
  if (!id) {
    id = (async () => {
      const known = await knownWebApplicationId(platform);
      if (known !== undefined) return known;
      const created = await createApplication(platform, {
        name: "Web app",
        ownerId: athleteId,
        callbackDomain: "localhost",
        description: "This server's own pages (tokens bound to signed-in sessions)",
        internal: true,
        kudosEnabled: true,
        challengesEnabled: true,
      }, webActor(athleteId));
      // Two servers racing on one database: the first recorded id wins, the other app stays unused.
      return Number(await webSecret(platform.db, APP_KEY, () => String(created.client_id)));
    })();
    id.catch(() => applicationIds.delete(platform));
    applicationIds.set(platform, id);
  }
  return id;
}

/** The id of the web app's application if it exists (for hiding it from "My API application"). */

export interface SessionToken {
  token: string;
  expiresAt: number;
  auth: Auth;
}

/** The signed-in session's API token for now (minted on first need in each window). */
export async function sessionToken(
  c: Context,
  platform: Platform,
  athleteId: number,
  now = Date.now(),
): Promise<SessionToken | undefined> {
  const window = Math.floor(now / WINDOW_MS);
  const token = await sessionSecret(c, platform, `api-token\0${window}`);
  if (!token) return undefined;
  const expiresAt = (window + 2) * WINDOW_MS;
  let found = await lookupToken(platform.db, token);
  if (!found.ok) {
    const hash = hashSecret(token);
    let pending = minting.get(hash);
    if (!pending) {
      pending = mint(platform, athleteId, hash, expiresAt);
      minting.set(hash, pending);
      pending.finally(() => setTimeout(() => minting.delete(hash), 60_000));
    }
    await pending;
    found = await lookupToken(platform.db, token);
    if (!found.ok) return undefined;
    // Remembered per session, so ending the session from elsewhere revokes it (../session-tokens.ts).
    const sessionHash = sessionIdHash(c);
    if (sessionHash && found.auth.athleteId === athleteId) {
      await recordSessionToken(platform.db, {
        tokenHash: hash,
        sessionHash,
        athleteId,
        applicationId: found.auth.applicationId,
        expiresAt,
      });
    }
  }
  if (found.auth.athleteId !== athleteId) return undefined;
  return { token, expiresAt, auth: found.auth };
}

async function mint(platform: Platform, athleteId: number, tokenHash: string, expiresAt: number): Promise<void> {
  const applicationId = await webApplicationId(platform, athleteId);
  await issuePageToken(platform, {
    tokenHash,
    athleteId,
    applicationId,
    scopes: ["read", "view_private", "write"],
    kind: "access",
    expiresAt: new Date(expiresAt).toISOString(),
    grantId: null,
    audience: "api",
  }, webActor(athleteId, applicationId));
}

/**
 * At sign-out: the session's page tokens still alive (this window's and the previous one's, which
 * lives until this window ends) are revoked, each by an AccessTokenRevoked event, so a token
 * copied out of a page dies with the session instead of at the end of its window.
 */
export async function revokeSessionTokens(
  c: Context,
  platform: Platform,
  athleteId: number,
  now = Date.now(),
): Promise<number> {
  const window = Math.floor(now / WINDOW_MS);
  let revoked = 0;
  for (const w of [window - 1, window]) {
    const token = await sessionSecret(c, platform, `api-token\0${w}`);
    if (!token) return revoked;
    const found = await lookupToken(platform.db, token);
    if (!found.ok || found.auth.athleteId !== athleteId) continue;
    const applicationId = found.auth.applicationId;
    await revokeToken(
      platform,
      { tokenHash: hashSecret(token), athleteId, applicationId },
      "signed out",
      webActor(athleteId, applicationId),
    );
    revoked++;
  }
  return revoked;
}
