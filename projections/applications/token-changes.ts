/**
 * In-process notice that the access_tokens / applications read models changed (a token revoked, a
 * grant's tokens revoked after a replayed code, an application registered or its secret changed).
 * The applications projection calls `tokenReadModelChanged()` while applying such an event; the
 * server's token lookup cache (server/http/auth.ts) listens and forgets what it holds. Calling it
 * writes nothing, so replays stay deterministic.
 */
const listeners = new Set<() => void>();

export function onTokenReadModelChange(listener: () => void): void {
  listeners.add(listener);
}

export function tokenReadModelChanged(): void {
  for (const listener of listeners) listener();
}
