import type { Queryable } from "../../events/db/types.ts";
import type { ActivityDetailRaw } from "../../projections/queries/activity-detail.ts";
import type { Viewer } from "../privacy/engine.ts";
import type { Dialect } from "../http/dialect.ts";

/**
 * GET /v3/activities/:id's answer kept as its JSON text, next to the detail statement's row it was
 * built from (server/activities/detail.ts): the statement runs for every GET, and when it returns
 * the row it returned last time for the same activity, viewer and dialect, the kept text is the
 * answer — the representation is a pure function of that row (the privacy engine's release, the
 * zones, gear, photos, kudos and each extension's part are all read by the statement), so nothing
 * is parsed, represented or serialised again. Any event that changes what the answer holds (an
 * update, a kudos, a comment, a photo, gear, privacy zones, segment efforts and their ranks)
 * changes the row, and the next GET builds the answer anew; nothing is trusted from memory alone,
 * so it holds on PostgreSQL with several servers too.
 *
 * Only answers whose extensions read nothing beyond the statement are kept
 * (`ActivityExtension.preloadSuffices`: a viewer's PRs on an activity's segments are a read of
 * their own). Bounded in entries and in characters; the oldest go first.
 */
const MAX_ENTRIES = 2_000;
const MAX_CHARS = 16 * 1024 * 1024;

interface Entry {
  values: unknown[];
  body: string;
  chars: number;
}

interface Cache {
  entries: Map<string, Entry>;
  chars: number;
}

const caches = new WeakMap<Queryable, Cache>();

function cacheOf(db: Queryable): Cache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, cache = { entries: new Map(), chars: 0 });
  return cache;
}

/** What the answer is for besides the row: the activity, the viewer, the dialect, include_all_efforts, the public URL. */
export function detailKey(
  id: number,
  viewer: Viewer | null,
  dialect: Dialect,
  includeAllEfforts: boolean,
  publicUrl: string,
): string {
  const who = viewer ? `${viewer.athleteId}${viewer.viewPrivate ? "p" : ""}` : "-";
  return `${id} ${who} ${dialect}${includeAllEfforts ? " all" : ""} ${publicUrl}`;
}

function sameValues(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The kept answer when it was built from an equal row, else undefined. */
export function keptDetail(db: Queryable, key: string, raw: ActivityDetailRaw): string | undefined {
  const entry = caches.get(db)?.entries.get(key);
  return entry && sameValues(entry.values, Object.values(raw)) ? entry.body : undefined;
}

/** Keeps an answer built from this row (replacing what the key held). */
export function keepDetail(db: Queryable, key: string, raw: ActivityDetailRaw, body: string): void {
  const values = Object.values(raw);
  let chars = body.length;
  for (const value of values) if (typeof value === "string") chars += value.length;
  if (chars > MAX_CHARS / 16) return;
  const cache = cacheOf(db);
  forget(cache, key);
  cache.entries.set(key, { values, body, chars });
  cache.chars += chars;
  while (cache.entries.size > MAX_ENTRIES || cache.chars > MAX_CHARS) forget(cache, cache.entries.keys().next().value!);
}

function forget(cache: Cache, key: string): void {
  const entry = cache.entries.get(key);
  if (!entry) return;
  cache.entries.delete(key);
  cache.chars -= entry.chars;
}

/** How many answers are kept for this database (tests; the operator's view of the cache). */
export function keptDetails(db: Queryable): number {
  return caches.get(db)?.entries.size ?? 0;
}
