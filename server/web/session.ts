import { createHmac, randomBytes } from "node:crypto";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Platform } from "../platform.ts";
import { constantTimeEqual, hashSecret, randomSecret } from "../security.ts";
import { deleteSession, findSession, insertSession, type SessionRow, webSecret } from "../sessions/session-table.ts";
import { revokeTokensOfSessions } from "../sessions/session-tokens.ts";

/**
 * Web sessions and CSRF tokens.
 * - Only a signed-in athlete has a session: a random id in the `fp_session` cookie, stored as its
 *   sha-256 in the web_sessions table (session-table.ts) with an expiry, so sessions survive a
 *   restart and are shared by every server on one database. Signing in always starts a new id
 *   (no fixation); signing out deletes the row.
 * - Anonymous visitors get no server-side state at all. Their forms (sign-in, sign-up) carry a
 *   signed double-submit token: the `fp_csrf` cookie holds a random nonce and the form holds
 *   HMAC(key, nonce); a signed-in athlete's forms hold HMAC(key, session id). The key is a random
 *   secret kept in the database (web_secrets). Another site can neither read the cookies nor
 *   compute the HMAC, so it cannot forge a form.
 */
export const SESSION_COOKIE = "fp_session";
export const CSRF_COOKIE = "fp_csrf";

const COOKIE_VALUE = /^[0-9a-f]{32,64}$/;

const keys = new WeakMap<Platform, Promise<string>>();

function csrfKey(platform: Platform): Promise<string> {
  let key = keys.get(platform);
  if (!key) {
    key = webSecret(platform.db, "csrf", () => randomBytes(32).toString("hex"));
    key.catch(() => keys.delete(platform));
    keys.set(platform, key);
  }
  return key;
}

function sign(key: string, purpose: "anonymous" | "session", value: string): string {
  return createHmac("sha256", key).update(`${purpose}\0${value}`).digest("hex");
}

function cookieOptions(platform: Platform) {
  return {
    path: "/",
    httpOnly: true,
    // Lax, not Strict: /oauth/authorize is reached by a top-level navigation from the client's site
    // and must see the athlete signed in. Every state change is a POST with a CSRF token.
    sameSite: "Lax" as const,
    secure: platform.config.publicUrl.startsWith("https://"),
  };
}

/** A cookie value we could have written (anything else is ignored, never echoed). */
function cookieValue(c: Context, name: string): string | undefined {
  const value = getCookie(c, name);
  return value && COOKIE_VALUE.test(value) ? value : undefined;
}

/** The signed-in athlete's session, when the cookie names a live one. */
export interface Session extends SessionRow {}

export async function currentSession(c: Context, platform: Platform): Promise<Session | undefined> {
  const id = cookieValue(c, SESSION_COOKIE);
  return id ? await findSession(platform.db, hashSecret(id)) : undefined;
}

/**
 * The CSRF token this visitor's forms carry: bound to the session when signed in, else to the
 * `fp_csrf` nonce (set now when the visitor has none; nothing is stored on the server).
 */
export async function csrfToken(c: Context, platform: Platform, session: Session | undefined): Promise<string> {
  const key = await csrfKey(platform);
  if (session) return sign(key, "session", cookieValue(c, SESSION_COOKIE)!);
  let nonce = cookieValue(c, CSRF_COOKIE);
  if (!nonce) {
    nonce = randomSecret(16);
    setCookie(c, CSRF_COOKIE, nonce, cookieOptions(platform));
  }
  return sign(key, "anonymous", nonce);
}

/**
 * Does a submitted form carry a valid token? A signed-in athlete's forms must carry the session's
 * token; `anonymousAllowed` (sign-in and sign-up forms) also accepts the nonce-bound token, so a
 * form opened before signing in elsewhere still works.
 */
export async function csrfValid(
  c: Context,
  platform: Platform,
  session: Session | undefined,
  submitted: unknown,
  anonymousAllowed = false,
): Promise<boolean> {
  if (typeof submitted !== "string" || submitted.length !== 64) return false;
  const key = await csrfKey(platform);
  const id = cookieValue(c, SESSION_COOKIE);
  if (session && id && constantTimeEqual(submitted, sign(key, "session", id))) return true;
  if (session && !anonymousAllowed) return false;
  const nonce = cookieValue(c, CSRF_COOKIE);
  return !!nonce && constantTimeEqual(submitted, sign(key, "anonymous", nonce));
}

/**
 * A secret derived from the signed-in session's id for one purpose (HMAC with the CSRF key), or
 * undefined without a session cookie. The web app's API token is one (server/web/app/token.ts):
 * only the holder of the session cookie can make the server compute it again.
 */
export async function sessionSecret(c: Context, platform: Platform, purpose: string): Promise<string | undefined> {
  const id = cookieValue(c, SESSION_COOKIE);
  if (!id) return undefined;
  return createHmac("sha256", await csrfKey(platform)).update(`${purpose}\0${id}`).digest("hex");
}

/** The id hash of the session the cookie names (whether or not it is live). */
export function sessionIdHash(c: Context): string | undefined {
  const id = cookieValue(c, SESSION_COOKIE);
  return id ? hashSecret(id) : undefined;
}

/**
 * Starts a signed-in session under a fresh id. The visitor's previous session, if any, is ended,
 * and so is the athlete's oldest beyond MAX_SESSIONS_PER_ATHLETE: the page tokens of both are
 * revoked at once (server/sessions/session-tokens.ts).
 */
export async function signIn(c: Context, platform: Platform, athleteId: number): Promise<void> {
  const previous = cookieValue(c, SESSION_COOKIE);
  const ended: string[] = [];
  if (previous) {
    // Its tokens are taken before the row goes (deleteSession forgets them).
    await revokeTokensOfSessions(platform, { sessions: [hashSecret(previous)] }, "signed in again");
    await deleteSession(platform.db, hashSecret(previous));
  }
  const id = randomSecret(24);
  ended.push(...await insertSession(platform.db, hashSecret(id), athleteId));
  await revokeTokensOfSessions(platform, { sessions: ended }, "session pushed out by a newer sign-in");
  setCookie(c, SESSION_COOKIE, id, cookieOptions(platform));
}

/** Ends the session: its row is deleted and the cookie cleared. */
export async function signOut(c: Context, platform: Platform): Promise<void> {
  const id = cookieValue(c, SESSION_COOKIE);
  if (id) await deleteSession(platform.db, hashSecret(id));
  deleteCookie(c, SESSION_COOKIE, cookieOptions(platform));
}

/**
 * One-time messages for a signed-in session's next page: a notice ("Application revoked") and
 * secrets shown once on the My API application page. Kept in this process's memory only (the
 * secrets are never written anywhere), for a few minutes, keyed by the session's hash; anonymous
 * visitors never have any.
 */
export interface Reveal {
  applicationId: number;
  clientSecret?: string;
  accessToken?: string;
}

interface Notes {
  flash?: string;
  reveal?: Reveal;
  at: number;
}

const NOTES_TTL_MS = 10 * 60 * 1000;
const MAX_NOTES = 10_000;
const notes = new WeakMap<Platform, Map<string, Notes>>();

function notesOf(platform: Platform): Map<string, Notes> {
  let map = notes.get(platform);
  if (!map) notes.set(platform, map = new Map());
  return map;
}

export function leaveNote(platform: Platform, session: Session, note: { flash?: string; reveal?: Reveal }): void {
  const map = notesOf(platform);
  const entry = { ...map.get(session.idHash), ...note, at: Date.now() };
  map.delete(session.idHash);
  map.set(session.idHash, entry);
  while (map.size > MAX_NOTES) map.delete(map.keys().next().value!);
}

export function takeNote<K extends "flash" | "reveal">(
  platform: Platform,
  session: Session,
  kind: K,
): Notes[K] | undefined {
  const map = notesOf(platform);
  const entry = map.get(session.idHash);
  if (!entry) return undefined;
  if (Date.now() - entry.at > NOTES_TTL_MS) {
    map.delete(session.idHash);
    return undefined;
  }
  const value = entry[kind];
  delete entry[kind];
  if (entry.flash === undefined && entry.reveal === undefined) map.delete(session.idHash);
  return value;
}
