import { jsonArrays, tableExists } from "../../events/db/row-copy.ts";
import type { Queryable } from "../../events/db/types.ts";

/**
 * Signed-in web sessions: operational state (like job leases), not domain facts, so they live in
 * a small table of their own outside the event log, and every query on it is in this file.
 * - A row exists only for a signed-in athlete; anonymous visitors have none.
 * - The key is the sha-256 of the random session id in the cookie; the id itself is never stored.
 * - A session expires after IDLE_MS without a request, and ABSOLUTE_MS after sign-in at the latest.
 * - Each athlete keeps at most MAX_SESSIONS_PER_ATHLETE sessions: signing in once more drops the
 *   oldest of that athlete's sessions, never anyone else's.
 * - Sign-out deletes the row.
 * - web_session_tokens names the page tokens minted for each session (their hashes, with the pair
 *   they belong to), so a session ended from elsewhere (pushed out by a 21st sign-in, a password
 *   change, "sign out everywhere") has its page tokens revoked at once (server/sessions/session-tokens.ts).
 * web_secrets holds the key that signs CSRF tokens (shared by every server on one database).
 */
export const WEB_SESSION_SCHEMA = `
create table if not exists public.web_sessions (
  id_hash text primary key,
  athlete_id bigint not null,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index if not exists web_sessions_athlete on public.web_sessions (athlete_id, created_at);
create index if not exists web_sessions_expires on public.web_sessions (expires_at);
create table if not exists public.web_session_tokens (
  token_hash text primary key,
  session_hash text not null,
  athlete_id bigint not null,
  application_id bigint not null,
  expires_at timestamptz not null
);
create index if not exists web_session_tokens_session on public.web_session_tokens (session_hash);
create table if not exists public.web_secrets (
  name text primary key,
  value text not null
);`;

export const IDLE_MS = 12 * 60 * 60 * 1000;
export const ABSOLUTE_MS = 30 * 24 * 60 * 60 * 1000;
export const MAX_SESSIONS_PER_ATHLETE = 20;
/** A session's expiry is pushed forward at most this often (not a write per page view). */
const TOUCH_EVERY_MS = 5 * 60 * 1000;

export interface SessionRow {
  idHash: string;
  athleteId: number;
  createdAt: number;
  expiresAt: number;
}

const ms = (value: unknown) => new Date(value as string).getTime();

/** The live session with this id hash (its expiry slid forward), or undefined. */
export async function findSession(db: Queryable, idHash: string, now = Date.now()): Promise<SessionRow | undefined> {
  const [row] = await db.query<{ athlete_id: number; created_at: string; expires_at: string }>(
    "select athlete_id, created_at, expires_at from public.web_sessions where id_hash = $1",
    [idHash],
  );
  if (!row) return undefined;
  const session = {
    idHash,
    athleteId: Number(row.athlete_id),
    createdAt: ms(row.created_at),
    expiresAt: ms(row.expires_at),
  };
  if (session.expiresAt <= now) {
    await db.query("delete from public.web_sessions where id_hash = $1", [idHash]);
    return undefined;
  }
  const slid = Math.min(now + IDLE_MS, session.createdAt + ABSOLUTE_MS);
  if (slid - session.expiresAt >= TOUCH_EVERY_MS) {
    await db.query("update public.web_sessions set expires_at = $2 where id_hash = $1", [idHash, new Date(slid)]);
    session.expiresAt = slid;
  }
  return session;
}

/**
 * Records a new session for an athlete; drops that athlete's oldest beyond the cap and expired rows.
 * Answers the id hashes of the sessions it pushed out (their page tokens are to be revoked).
 */
export async function insertSession(
  db: Queryable,
  idHash: string,
  athleteId: number,
  now = Date.now(),
): Promise<string[]> {
  await db.query(
    "insert into public.web_sessions (id_hash, athlete_id, created_at, expires_at) values ($1, $2, $3, $4)",
    [idHash, athleteId, new Date(now), new Date(now + IDLE_MS)],
  );
  const evicted = await db.query<{ id_hash: string }>(
    `delete from public.web_sessions
      where athlete_id = $1 and id_hash not in (
        select id_hash from public.web_sessions where athlete_id = $1 order by created_at desc, id_hash limit $2)
      returning id_hash`,
    [athleteId, MAX_SESSIONS_PER_ATHLETE],
  );
  await db.query("delete from public.web_sessions where expires_at <= $1", [new Date(now)]);
  await db.query("delete from public.web_session_tokens where expires_at <= $1", [new Date(now)]);
  return evicted.map((r) => r.id_hash);
}

/** Ends every session of an athlete except `keep` (an id hash); answers the id hashes ended. */
export async function deleteSessionsOf(db: Queryable, athleteId: number, keep?: string): Promise<string[]> {
  const rows = await db.query<{ id_hash: string }>(
    "delete from public.web_sessions where athlete_id = $1 and id_hash <> $2 returning id_hash",
    [athleteId, keep ?? ""],
  );
  return rows.map((r) => r.id_hash);
}

export interface SessionTokenRow {
  tokenHash: string;
  sessionHash: string;
  athleteId: number;
  applicationId: number;
}

/** Remembers that a page token (its hash) was minted for a session. */
export async function recordSessionToken(db: Queryable, row: SessionTokenRow & { expiresAt: number }): Promise<void> {
  await db.query(
    `insert into public.web_session_tokens (token_hash, session_hash, athlete_id, application_id, expires_at)
     values ($1, $2, $3, $4, $5) on conflict (token_hash) do nothing`,
    [row.tokenHash, row.sessionHash, row.athleteId, row.applicationId, new Date(row.expiresAt)],
  );
}

/** Forgets the page tokens of these sessions (or every session of `athleteId`); answers the live ones. */
export async function takeSessionTokens(
  db: Queryable,
  which: { sessions: string[] } | { athleteId: number },
  now = Date.now(),
): Promise<SessionTokenRow[]> {
  const rows = "sessions" in which
    ? await db.query<
      { token_hash: string; session_hash: string; athlete_id: number; application_id: number; expires_at: string }
    >(
      "delete from public.web_session_tokens where session_hash = any($1::text[]) returning *",
      [which.sessions],
    )
    : await db.query<
      { token_hash: string; session_hash: string; athlete_id: number; application_id: number; expires_at: string }
    >(
      "delete from public.web_session_tokens where athlete_id = $1 returning *",
      [which.athleteId],
    );
  return rows
    .filter((r) => ms(r.expires_at) > now)
    .map((r) => ({
      tokenHash: r.token_hash,
      sessionHash: r.session_hash,
      athleteId: Number(r.athlete_id),
      applicationId: Number(r.application_id),
    }));
}

export async function deleteSession(db: Queryable, idHash: string): Promise<void> {
  await db.query("delete from public.web_sessions where id_hash = $1", [idHash]);
  await db.query("delete from public.web_session_tokens where session_hash = $1", [idHash]);
}

/** How many sessions are stored (all, or one athlete's): for proofs and the operator. */
export async function countSessions(db: Queryable, athleteId?: number): Promise<number> {
  const [row] = athleteId === undefined
    ? await db.query<{ n: number }>("select count(*)::int as n from public.web_sessions")
    : await db.query<{ n: number }>("select count(*)::int as n from public.web_sessions where athlete_id = $1", [
      athleteId,
    ]);
  return Number(row.n);
}

/** The named secret, created with `make` by whichever server asks first. */
export async function webSecret(db: Queryable, name: string, make: () => string): Promise<string> {
  await db.query("insert into public.web_secrets (name, value) values ($1, $2) on conflict (name) do nothing", [
    name,
    make(),
  ]);
  const [row] = await db.query<{ value: string }>("select value from public.web_secrets where name = $1", [name]);
  return row.value;
}

/** The named secret if some server already created it. */
export async function readWebSecret(db: Queryable, name: string): Promise<string | undefined> {
  const [row] = await db.query<{ value: string }>("select value from public.web_secrets where name = $1", [name]);
  return row?.value;
}

/**
 * Copies the sessions, their page tokens and the secrets row for row into another store, inside
 * the copy's transaction (cli copy-store: server/ops/store-copy.ts).
 */
export async function copyWebSessionTables(source: Queryable, tx: Queryable): Promise<void> {
  if (await tableExists(source, "public.web_sessions")) {
    const rows = await source.query<{ row: string }>("select row_to_json(t)::text as row from public.web_sessions t");
    for (const batch of jsonArrays(rows)) {
      await tx.query(
        "insert into public.web_sessions select * from json_populate_recordset(null::public.web_sessions, $1::json)",
        [batch],
      );
    }
  }
  if (await tableExists(source, "public.web_session_tokens")) {
    const rows = await source.query<{ row: string }>(
      "select row_to_json(t)::text as row from public.web_session_tokens t",
    );
    for (const batch of jsonArrays(rows)) {
      await tx.query(
        "insert into public.web_session_tokens select * from json_populate_recordset(null::public.web_session_tokens, $1::json)",
        [batch],
      );
    }
  }
  if (await tableExists(source, "public.web_secrets")) {
    const rows = await source.query<{ row: string }>("select row_to_json(t)::text as row from public.web_secrets t");
    for (const batch of jsonArrays(rows)) {
      await tx.query(
        "insert into public.web_secrets select * from json_populate_recordset(null::public.web_secrets, $1::json)",
        [batch],
      );
    }
  }
}
