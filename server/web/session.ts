import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { Platform } from "../platform.ts";
import { constantTimeEqual, hashSecret, randomSecret } from "../security.ts";

/**
 * Web sessions live in this process's memory (a restart signs everyone out; documented). The cookie
 * holds a random id; the map is keyed by its hash. Every visitor gets a session (anonymous until
 * sign-in) so that the sign-up and sign-in forms carry a CSRF token too. Signing in replaces the
 * session id (no fixation).
 */
export interface Session {
  athleteId: number | null;
  csrf: string;
  lastSeen: number;
  /** One-time notice shown on the next page (e.g. "Application revoked"). */
  flash?: string;
  /** Secrets shown once on the next My API application page, then forgotten. */
  reveal?: { applicationId: number; clientSecret?: string; accessToken?: string };
}

export const SESSION_COOKIE = "fp_session";
const IDLE_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 50_000;

export class SessionStore {
  readonly #sessions = new Map<string, Session>();

  get(id: string | undefined, now = Date.now()): Session | undefined {
    if (!id) return undefined;
    const key = hashSecret(id);
    const session = this.#sessions.get(key);
    if (!session) return undefined;
    if (now - session.lastSeen > IDLE_MS) {
      this.#sessions.delete(key);
      return undefined;
    }
    session.lastSeen = now;
    // Keep insertion order = recency, so eviction drops the least recently used.
    this.#sessions.delete(key);
    this.#sessions.set(key, session);
    return session;
  }

  create(athleteId: number | null, now = Date.now()): { id: string; session: Session } {
    while (this.#sessions.size >= MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    const id = randomSecret(24);
    const session: Session = { athleteId, csrf: randomSecret(16), lastSeen: now };
    this.#sessions.set(hashSecret(id), session);
    return { id, session };
  }

  destroy(id: string | undefined): void {
    if (id) this.#sessions.delete(hashSecret(id));
  }
}

const stores = new WeakMap<Platform, SessionStore>();

export function sessionStore(platform: Platform): SessionStore {
  let store = stores.get(platform);
  if (!store) {
    store = new SessionStore();
    stores.set(platform, store);
  }
  return store;
}

function writeCookie(c: Context, platform: Platform, id: string): void {
  setCookie(c, SESSION_COOKIE, id, {
    path: "/",
    httpOnly: true,
    // Lax, not Strict: /oauth/authorize is reached by a top-level navigation from the client's site
    // and must see the athlete signed in. Every state change is a POST with a CSRF token.
    sameSite: "Lax",
    secure: platform.config.publicUrl.startsWith("https://"),
  });
}

/** The visitor's session, creating an anonymous one (and its cookie) when needed. */
export function currentSession(c: Context, platform: Platform): Session {
  const store = sessionStore(platform);
  const existing = store.get(getCookie(c, SESSION_COOKIE));
  if (existing) return existing;
  const { id, session } = store.create(null);
  writeCookie(c, platform, id);
  return session;
}

/** Starts a signed-in session under a fresh id (the old one is dropped). */
export function signIn(c: Context, platform: Platform, athleteId: number): Session {
  const store = sessionStore(platform);
  store.destroy(getCookie(c, SESSION_COOKIE));
  const { id, session } = store.create(athleteId);
  writeCookie(c, platform, id);
  return session;
}

export function signOut(c: Context, platform: Platform): void {
  const store = sessionStore(platform);
  store.destroy(getCookie(c, SESSION_COOKIE));
  const { id } = store.create(null);
  writeCookie(c, platform, id);
}

/** Does a submitted form carry this session's CSRF token? */
export function csrfValid(session: Session, submitted: unknown): boolean {
  return typeof submitted === "string" && submitted.length > 0 && constantTimeEqual(submitted, session.csrf);
}
