/**
 * In-process notice that the access_tokens / applications read models changed (a token revoked, a
 * grant's tokens revoked after a replayed code, an application registered or its secret changed).
 * The applications projection calls `tokenReadModelChanged()` while applying such an event; the
 * server's token lookup cache (server/http/auth.ts) compares `tokenReadModelChanges()` with the
 * count it last saw and forgets what it holds when it moved. A count, not a list of listeners:
 * nothing registers itself here when a module loads. Calling it writes nothing, so replays stay
 * deterministic.
 */
let changes = 0;

export function tokenReadModelChanged(): void {
  changes++;
}

/** How many changes this process has applied so far (only ever grows). */
export function tokenReadModelChanges(): number {
  return changes;
}
