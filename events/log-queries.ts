import { jsonArrays } from "./db/row-copy.ts";
import type { Queryable } from "./db/types.ts";

/**
 * The event log's statements that are not the store's appends and reads (events/store.ts): the
 * analysts' export and import, the operator's copy, check and metrics, the rebuild's counts. The
 * log's tables (events, event_idempotency) are named in SQL only under events/, so every such
 * statement is a named function here, run on whatever database or transaction it is given.
 */

/** An event as the log stores it, data and metadata as their stored JSON text (not upcast). */
export interface EventText {
  position: number;
  stream_id: string;
  stream_version: number;
  type: string;
  schema_version: number;
  /** UTC, ISO 8601 with microseconds. */
  recorded_at: string;
  data: string;
  metadata: string;
}

/** Does the log hold anything? */
export async function logHoldsEvents(q: Queryable): Promise<boolean> {
  const [{ any }] = await q.query<{ any: boolean }>("select exists (select 1 from public.events) as any");
  return any;
}

/** Does this database hold the platform's event log at all (its table; an empty log counts)? */
export async function logTableExists(q: Queryable): Promise<boolean> {
  const [{ found }] = await q.query<{ found: boolean }>("select to_regclass('public.events') is not null as found");
  return found;
}

/** Does the log hold anything, or the blob store (a copy's target must be empty)? */
export async function holdsEventsOrBlobs(q: Queryable): Promise<boolean> {
  const [{ found }] = await q.query<{ found: boolean }>(
    "select exists(select 1 from public.events) or exists(select 1 from public.blobs) as found",
  );
  return found;
}

/** Has the log ever held an event of this type? */
export async function logHoldsType(q: Queryable, type: string): Promise<boolean> {
  const [row] = await q.query<{ found: boolean }>(
    "select exists(select 1 from events where type = $1) as found",
    [type],
  );
  return row.found;
}

/** The highest position in the log (0 when empty), read in the caller's transaction. */
export async function lastPosition(q: Queryable): Promise<number> {
  const [row] = await q.query<{ max: number }>("select coalesce(max(global_position), 0) as max from public.events");
  return Number(row.max);
}

/** The last event's position and when it was recorded, or undefined when the log is empty. */
export async function lastEvent(q: Queryable): Promise<{ position: number; recorded_at: string } | undefined> {
  const [row] = await q.query<{ position: number; recorded_at: string }>(
    `select global_position as position, recorded_at from events order by global_position desc limit 1`,
  );
  return row;
}

/**
 * The last position recorded at or before `time` (null when none). Times print with milliseconds;
 * an event recorded within that millisecond counts as at or before it.
 */
export async function lastPositionAtTime(q: Queryable, time: string): Promise<number | null> {
  const [row] = await q.query<{ position: number | null }>(
    "select max(global_position) as position from events where recorded_at < $1::timestamptz + interval '1 millisecond'",
    [time],
  );
  return row?.position ?? null;
}

/** When the last event at or before `position` was recorded (null when there is none). */
export async function recordedAtOrBefore(q: Queryable, position: number): Promise<string | null> {
  const [at] = await q.query<{ recorded_at: string | null }>(
    "select recorded_at from events where global_position <= $1 order by global_position desc limit 1",
    [position],
  );
  return at?.recorded_at ?? null;
}

/** The transaction id (as text) of the last event at or before `position`, if any. */
export async function transactionIdAtOrBefore(q: Queryable, position: number): Promise<string | undefined> {
  const [at] = await q.query<{ transaction_id: string }>(
    "select transaction_id::text as transaction_id from public.events where global_position <= $1 order by global_position desc limit 1",
    [position],
  );
  return at?.transaction_id;
}

/**
 * The first position after a catch-up cursor (transaction id as text, position) in (transaction
 * id, position) order, or null when the cursor has read everything.
 */
export async function firstPositionAfterCursor(
  q: Queryable,
  transactionId: string,
  position: number,
): Promise<number | null> {
  const [unread] = await q.query<{ first: number | null }>(
    `select min(global_position) as first from public.events
      where (transaction_id, global_position) > ($1::text::xid8, $2::bigint)`,
    [transactionId, position],
  );
  return unread.first === null ? null : Number(unread.first);
}

/** How many events the log holds up to a position (inclusive). */
export async function countEventsUpTo(q: Queryable, position: number): Promise<number> {
  const [{ total }] = await q.query<{ total: number }>(
    "select count(*)::int as total from events where global_position <= $1",
    [position],
  );
  return total;
}

/** How many events of these types lie after a position. */
export async function countEventsOfTypesAfter(
  q: Queryable,
  position: number,
  types: readonly string[],
): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    `select count(*)::int as n from public.events
      where global_position > $1
        and type = any($2::text[])`,
    [position, types],
  );
  return row.n;
}

/** Whether committed events exist after `after` up to `upTo` (a catch-up read may not show them yet). */
export async function eventsBetween(q: Queryable, after: number, upTo: number): Promise<boolean> {
  const [row] = await q.query<{ hidden: boolean }>(
    "select exists (select 1 from events where global_position > $1 and global_position <= $2) as hidden",
    [after, upTo],
  );
  return row.hidden;
}

/**
 * Fresh planner statistics for the columns a paged read of the log and a rebuild's bulk loaders
 * plan on (PGlite never analyzes by itself): without the type's, every type looked rare and the
 * loaders' joins ran as nested loops. Sampling the event data (jsonb) took seconds, so only these.
 */
export async function analyzeLogOrder(q: Queryable): Promise<void> {
  await q.exec("analyze public.events (global_position, transaction_id, type)");
}

/** What an export reads: every filter optional, bounds inclusive. */
export interface ExportFilter {
  types?: string[];
  stream?: string;
  fromPosition?: number;
  toPosition?: number;
  /** ISO 8601. */
  fromTime?: string;
  /** ISO 8601; an event recorded within its millisecond counts as at or before it. */
  toTime?: string;
}

/**
 * One page of an export: up to `limit` events after `after` and up to `end`, in position order.
 * One statement whatever the filters: an absent filter is a null parameter, which the planner
 * folds away when it plans the statement with its parameters (each run is planned so: unnamed
 * statements), leaving the same index scan on global_position as a statement without it.
 */
export async function exportPage(
  q: Queryable,
  after: number,
  limit: number,
  end: number,
  filter: ExportFilter,
): Promise<EventText[]> {
  const rows = await q.query<EventText>(
    `select global_position as position, stream_id, stream_version, type, schema_version,
      to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as recorded_at,
      data::text as data, metadata::text as metadata
    from events where global_position > $1 and global_position <= $3
      and ($4::text[] is null or type = any($4::text[]))
      and ($5::text is null or stream_id = $5::text)
      and ($6::bigint is null or global_position >= $6::bigint)
      and ($7::bigint is null or global_position <= $7::bigint)
      and ($8::timestamptz is null or recorded_at >= $8::timestamptz)
      and ($9::timestamptz is null or recorded_at < $9::timestamptz + interval '1 millisecond')
    order by global_position limit $2`,
    [
      after,
      limit,
      end,
      filter.types?.length ? filter.types : null,
      filter.stream ?? null,
      filter.fromPosition ?? null,
      filter.toPosition ?? null,
      filter.fromTime ?? null,
      filter.toTime ?? null,
    ],
  );
  for (const r of rows) r.position = Number(r.position);
  return rows;
}

/** One page of the whole log for a copy (2000 events after `after`), exactly as stored. */
export async function copyPage(q: Queryable, after: number): Promise<EventText[]> {
  return await q.query<EventText>(
    `select global_position as position, stream_id, stream_version, type, schema_version,
            to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as recorded_at,
            data::text as data, metadata::text as metadata
       from public.events where global_position > $1 order by global_position limit 2000`,
    [after],
  );
}

/** Writes a copied page (copyPage's rows as JSON) into an empty log, keeping positions and times. */
export async function insertCopiedPage(tx: Queryable, rowsJson: string): Promise<void> {
  await tx.query(
    `insert into public.events (global_position, stream_id, stream_version, type, schema_version, data, metadata, recorded_at)
     overriding system value
     select t.position, t.stream_id, t.stream_version, t.type, t.schema_version, t.data::jsonb, t.metadata::jsonb, t.recorded_at
       from jsonb_to_recordset($1::jsonb) as t(position bigint, stream_id text, stream_version integer,
         type text, schema_version integer, data text, metadata text, recorded_at timestamptz)
      order by t.position`,
    [rowsJson],
  );
}

/**
 * Writes imported events (a JSON array of {position, stream_id, stream_version, type,
 * schema_version, data, metadata, recorded_at}, data and metadata as JSON values) into an empty
 * log, keeping positions and times.
 */
export async function insertImportedEvents(tx: Queryable, batchJson: string): Promise<void> {
  await tx.query(
    `insert into public.events (global_position, stream_id, stream_version, type, schema_version, data, metadata, recorded_at)
     overriding system value
     select t.position, t.stream_id, t.stream_version, t.type, t.schema_version, t.data, t.metadata, t.recorded_at
       from jsonb_to_recordset($1::jsonb) as t(position bigint, stream_id text, stream_version integer,
         type text, schema_version integer, data jsonb, metadata jsonb, recorded_at timestamptz)
      order by t.position`,
    [batchJson],
  );
}

/** After positions were written explicitly (import, copy): the next append continues after `position`. */
export async function continueLogAfter(tx: Queryable, position: number): Promise<void> {
  await tx.query("select setval(pg_get_serial_sequence('public.events', 'global_position'), $1::bigint)", [position]);
}

/**
 * Events after a position whose data holds something spelled like a sha-256 (the ones that may
 * name blobs), in position order, `limit` at a time.
 */
export async function eventsNamingHashes(
  q: Queryable,
  after: number,
  limit: number,
): Promise<{ global_position: number | bigint; stream_id: string; type: string; data: unknown }[]> {
  return await q.query<{ global_position: number | bigint; stream_id: string; type: string; data: unknown }>(
    `select global_position, stream_id, type, data from public.events
        where global_position > $1 and data::text ~ '[0-9a-f]{64}'
        order by global_position limit $2`,
    [after, limit],
  );
}

/** Copies the idempotency records row for row (a copy of the whole store); how many. */
export async function copyIdempotencyRecords(source: Queryable, tx: Queryable): Promise<number> {
  const rows = await source.query<{ row: string }>(
    "select row_to_json(t)::text as row from public.event_idempotency t",
  );
  for (const batch of jsonArrays(rows)) {
    await tx.query(
      "insert into public.event_idempotency select * from json_populate_recordset(null::public.event_idempotency, $1::json)",
      [batch],
    );
  }
  return rows.length;
}

/**
 * Where a rebuild stands: the last position visible now, and the snapshot's xmax (every transaction
 * that could still add an event at or below that position has an id below it).
 */
export async function logSnapshot(q: Queryable): Promise<{ head: number; xmax: string }> {
  const [row] = await q.query<{ head: number; xmax: string }>(
    `select coalesce(max(global_position), 0) as head, pg_snapshot_xmax(pg_current_snapshot())::text as xmax
       from public.events`,
  );
  return { head: Number(row.head), xmax: row.xmax };
}

/** Whether every transaction older than `xmax` has ended (so no event below a snapshot's head can still appear). */
export async function logSettledBefore(q: Queryable, xmax: string): Promise<boolean> {
  const [row] = await q.query<{ settled: boolean }>(
    "select pg_snapshot_xmin(pg_current_snapshot()) >= $1::text::xid8 as settled",
    [xmax],
  );
  return row.settled;
}

/** The log's event types and schema versions up to a position, with their counts. */
export async function typeVersionsUpTo(
  q: Queryable,
  position: number,
): Promise<{ type: string; version: number; n: number }[]> {
  const rows = await q.query<{ type: string; version: number; n: number }>(
    `select type, schema_version as version, count(*)::int as n from public.events
      where global_position <= $1 group by type, schema_version`,
    [position],
  );
  return rows.map((r) => ({ type: r.type, version: Number(r.version), n: Number(r.n) }));
}
