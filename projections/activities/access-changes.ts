/**
 * In-process notice of which activities' owner or visibility may have changed (a creation, an edit,
 * a deletion, a rebuild of the read model): the server's cache of who may see an activity
 * (server/activities/access.ts) compares an entry's generation with the last change of its activity
 * and forgets it when that moved. The activities projection calls `activityAccessChanged` while
 * applying such an event (or `allActivityAccessChanged` when its tables are replaced); calling it
 * writes nothing, so replays stay deterministic. Only the most recent changes are kept by id: an
 * entry older than the oldest one kept counts as changed.
 */
const KEPT = 50_000;
let generation = 0;
/** Every entry cached before this generation is stale (older changes forgotten, or everything replaced). */
let floor = 0;
const lastChange = new Map<number, number>();

export function activityAccessChanged(activityId: number): void {
  generation++;
  lastChange.delete(activityId);
  lastChange.set(activityId, generation);
  if (lastChange.size > KEPT) {
    const [oldest, at] = lastChange.entries().next().value!;
    lastChange.delete(oldest);
    floor = at;
  }
}

export function allActivityAccessChanged(): void {
  generation++;
  floor = generation;
  lastChange.clear();
}

/** The generation now (an entry read now is current as of it). */
export function activityAccessGeneration(): number {
  return generation;
}

/** Whether the activity's owner or visibility may have changed since `since`. */
export function activityAccessChangedSince(activityId: number, since: number): boolean {
  return floor > since || (lastChange.get(activityId) ?? 0) > since;
}
