import { createHash } from "node:crypto";
import type { Queryable } from "../events/db/types.ts";

/**
 * A read model's bulk loader: how a rebuild fills its tables from the whole log at once, with a few
 * set-based statements over `public.replay_log` (the log's events as events/schema.ts exposes them:
 * position, stream_id, type, version, data, at, at_text) instead of applying each event. Opt-in and
 * used only by a rebuild (cli replay, verify, the first start of a version whose read models
 * changed); live appends keep the projection's incremental `apply`. The runner uses it only when
 *
 * - `writtenFor` still equals `bulkFingerprint(projection)` (its tables and event types are those the
 *   loader was written for: a projection changed since falls back to the event-by-event path);
 * - every event of the types it handles is at the catalogue's current version (an older version
 *   would need its upcaster: those logs take the event-by-event path, which upcasts in JavaScript);
 * - `fits` (when given) says the log keeps the invariants the loader's statements rely on (and its
 *   `load` did not throw: a `LogMisfit`, or any error, restarts the rebuild without it);
 * - no projection rebuilt event by event reads its tables (it would see them too early).
 *
 * It must leave the tables exactly as applying the events one by one (then `finishRebuild`) does:
 * `cli verify` and tests/*\/bulk-replay.test.ts compare both ways.
 */
export interface BulkLoader {
  /** `bulkFingerprint` of the projection the loader was written for. */
  readonly writtenFor: string;
  /** Whether this log keeps what the statements assume (invariants the deciders keep). */
  fits?(tx: Queryable, log: BulkLog): Promise<boolean>;
  /** Fills the projection's freshly created tables from the events up to `log.until`. */
  load(tx: Queryable, log: BulkLog): Promise<void>;
}

/**
 * Thrown by a loader that finds, while loading, that the log breaks an invariant it relies on (a
 * check that needs the event data it decodes anyway): the rebuild starts again with this projection
 * applying its events one by one.
 */
export class LogMisfit extends Error {}

export interface BulkLog {
  /** The last position rebuilt (inclusive). */
  until: number;
}

/** What a bulk loader was written against: the projection's DDL and the event types it handles. */
export function bulkFingerprint(projection: { schema: string; handles: readonly string[] }): string {
  const text = `${projection.schema.replace(/\s+/g, " ").trim()}\n${[...projection.handles].sort().join(",")}`;
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/**
 * SQL: whether a query finds no row, counted to the end (`exists` plans for the first row and
 * picked nested loops over the log's events; a loader's checks usually find none).
 */
export const none = (query: string) => `(select count(*) = 0 from (${query}) found)`;

/**
 * SQL (for `fits`): no activity stream holds two creations (the activity decider creates once).
 * With a loader's own check that each creation it decodes sits on its activity's stream
 * (`activity-<id>`), each activity is then created at most once — without reading the creations'
 * data (an upload's recording is tens of kB of JSON) twice.
 */
export const ONE_CREATION_PER_STREAM = none(
  `select 1 from public.replay_log where type in ('ActivityRecorded', 'ActivityCreated') and position <= $1
    group by stream_id having count(*) > 1`,
);
