import { webActor } from "../actor.ts";
import { revokeToken } from "../oauth/commands.ts";
import type { Platform } from "../platform.ts";
import { deleteSessionsOf, takeSessionTokens } from "./session-table.ts";

/**
 * Ending sessions from elsewhere. A page token is HMAC(key, session id, window), so only the
 * holder of the cookie can compute it again; the server remembers the hash of every page token it
 * minted per session (web_session_tokens) and, when a session ends without its cookie at hand —
 * pushed out by the athlete's 21st sign-in, a password change, "sign out everywhere", account
 * deletion — revokes those tokens at once, each by an AccessTokenRevoked event (a request with one
 * then gets 401 immediately: revocation clears the token cache).
 */
export async function revokeTokensOfSessions(
  platform: Platform,
  which: { sessions: string[] } | { athleteId: number },
  reason: string,
): Promise<number> {
  if ("sessions" in which && which.sessions.length === 0) return 0;
  const tokens = await takeSessionTokens(platform.db, which);
  for (const t of tokens) {
    await revokeToken(
      platform,
      { tokenHash: t.tokenHash, athleteId: t.athleteId, applicationId: t.applicationId },
      reason,
      webActor(t.athleteId, t.applicationId),
    );
  }
  return tokens.length;
}

/**
 * Ends every web session of the athlete except `keep` (the id hash of the session asking, for a
 * password change) and revokes their page tokens. Answers how many sessions and tokens ended.
 */
export async function endSessions(
  platform: Platform,
  athleteId: number,
  keep: string | undefined,
  reason: string,
): Promise<{ sessions: number; tokens: number }> {
  const ended = await deleteSessionsOf(platform.db, athleteId, keep);
  const tokens = await revokeTokensOfSessions(platform, { sessions: ended }, reason);
  return { sessions: ended.length, tokens };
}
