import { parseJsonExact, toJson } from "../shared/json.ts";
import type { EventCatalogue, NewEvent } from "./catalogue.ts";
import { type Db, type Queryable, sqlState } from "./db/types.ts";
import { EVENT_STORE_SCHEMA } from "./schema.ts";
import {
  type AppendResult,
  ConcurrencyError,
  ConditionNotMetError,
  type EventMetadata,
  type ExpectedVersion,
  type RecordedEvent,
  UniqueViolationError,
} from "./types.ts";

/** Runs inside the append's transaction with the events just written (inline projections). */
export type InlineHandler = (tx: Queryable, events: RecordedEvent[]) => Promise<void>;

/**
 * What the inline projections do for an append, as statements to run in the append's own
 * statement (data-modifying CTEs, all seeing the rows as they were before it), or undefined when
 * some handler has no such form. `position(i)` is SQL for event i's position (from the insert's
 * RETURNING; null when the version check refused the append, so every part must then change
 * nothing), `param` adds a parameter, `cte` names a part (so later parts can read its RETURNING).
 */
export type FusedInline = (
  events: readonly { type: string; data: unknown }[],
  sql: FusedSql,
) => FusedPart[] | undefined;

export interface FusedSql {
  position(i: number): string;
  param(value: unknown): string;
  cte(label: string): string;
}

export interface FusedPart {
  name: string;
  sql: string;
}

/** Where a catch-up reader stands: the last (transaction id, position) it has seen. */
export interface CatchUpCursor {
  transactionId: string;
  position: number;
}

export const CATCH_UP_START: CatchUpCursor = { transactionId: "0", position: 0 };

export interface AppendOptions {
  idempotencyKey?: string;
  metadata?: EventMetadata;
  /**
   * SQL that must be true for the append to happen, evaluated in the append's own statement (an
   * optimistic decision's assumption, events/decider.ts `handleAssumed`): when false nothing is
   * written and `append` throws ConditionNotMetError, without another statement.
   */
  condition?: (sql: ConditionSql) => string;
}

/** What a condition's SQL is written with: the stream's id and its own parameters. */
export interface ConditionSql {
  /** SQL for the stream's id (text). */
  stream: string;
  param(value: unknown): string;
}

interface EventRow {
  global_position: number;
  stream_id: string;
  stream_version: number;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: string;
}

const COLUMNS = "global_position, stream_id, stream_version, type, schema_version, data, metadata, recorded_at";

function toRecorded(catalogue: EventCatalogue, row: EventRow): RecordedEvent {
  return {
    position: Number(row.global_position),
    streamId: row.stream_id,
    streamVersion: row.stream_version,
    type: row.type,
    schemaVersion: row.schema_version,
    data: catalogue.upcast(row.type, row.schema_version, row.data),
    metadata: row.metadata ?? {},
    recordedAt: row.recorded_at,
  };
}

/**
 * The events an append just wrote, from what it sent (data and metadata through the same JSON
 * text the database stored, so they equal what a read returns) and the positions, versions and
 * times the insert answered: nothing is read back.
 */
function sentEvents(
  catalogue: EventCatalogue,
  streamId: string,
  rows: { global_position: number; stream_version: number; recorded_at: string }[],
  payloadJson: string,
  metadataJson: string,
): RecordedEvent[] {
  const sent = parseJsonExact(payloadJson) as { type: string; v: number; data: unknown }[];
  const sorted = [...rows].sort((a, b) => a.stream_version - b.stream_version);
  const first = sorted[0].stream_version;
  return sorted.map((row) => {
    const event = sent[row.stream_version - first];
    return {
      position: Number(row.global_position),
      streamId,
      streamVersion: row.stream_version,
      type: event.type,
      schemaVersion: event.v,
      data: catalogue.upcast(event.type, event.v, event.data),
      metadata: (parseJsonExact(metadataJson) ?? {}) as EventMetadata,
      recordedAt: row.recorded_at,
    };
  });
}

/** The events one append sends: each validated against its type's schema, with its version. */
function validated(catalogue: EventCatalogue, event: NewEvent): { type: string; v: number; data: unknown } {
  const definition = catalogue.definition(event.type);
  if (!definition) throw new Error(`unknown event type ${event.type}`);
  const parsed = definition.schema.safeParse(event.data);
  if (!parsed.success) throw new Error(`invalid ${event.type} event: ${parsed.error.message}`);
  return { type: event.type, v: definition.version, data: parsed.data };
}

/** An append's condition as `and (…)` after its version check, its parameters added to `params` (the stream is $1). */
function conditionSql(condition: AppendOptions["condition"], params: unknown[]): string {
  if (!condition) return "";
  return ` and (${
    condition({
      stream: "$1::text",
      param: (value) => {
        params.push(value);
        return `$${params.length}`;
      },
    })
  })`;
}

/** How many streams' written versions a store keeps (least recently written dropped). */
const WRITTEN_STREAMS = 20_000;

/**
 * The append-only event log on PGlite or PostgreSQL, for the event types of the catalogue it is
 * given: appends are validated against it, reads upcast through it.
 */

export class EventStore {
  #inline: InlineHandler | undefined;
  #fused: FusedInline | undefined;
  #ambient: () => EventMetadata | undefined = () => undefined;
  readonly #toRecorded = (row: EventRow) => toRecorded(this.catalogue, row);

  /**
   * The version each stream reached by this store's own appends (most recent streams), kept only
   * where this store is the log's one writer (embedded PGlite: one process owns the data
   * directory). A command whose folded state is at that version needs not read the stream again.
   */
  readonly #written = new Map<string, number>();

  constructor(readonly db: Db, readonly catalogue: EventCatalogue) {}

  /** The stream's version as this store last wrote it, when no other writer can have appended since. */
  knownVersion(streamId: string): number | undefined {
    return this.#written.get(streamId);
  }

  /** Forgets the versions written (after the log's one sanctioned rewrite, events/erasure.ts). */
  forgetVersions(): void {
    this.#written.clear();
  }

  #wrote(streamId: string, version: number): void {
    if (this.db.kind !== "pglite") return;
    this.#written.delete(streamId);
    this.#written.set(streamId, version);
    if (this.#written.size > WRITTEN_STREAMS) this.#written.delete(this.#written.keys().next().value!);
  }

  static async open(db: Db, catalogue: EventCatalogue): Promise<EventStore> {
    await db.exec(EVENT_STORE_SCHEMA);
    return new EventStore(db, catalogue);
  }

  /**
   * Sets the handler that runs in every append's transaction; with `fused`, an append (without an
   * idempotency key) whose handlers all have a fused form is one statement: the version check, the
   * insert and the read models' changes together, in one round trip and one transaction.
   */
  onAppend(handler: InlineHandler, fused?: FusedInline): void {
    this.#inline = handler;
    this.#fused = fused;
  }

  /**
   * Sets where metadata of the current context comes from (the server: the request id of the HTTP
   * request being handled). It is recorded with every appended event; explicit metadata wins.
   */
  ambientMetadata(source: () => EventMetadata | undefined): void {
    this.#ambient = source;
  }

  #metadata(explicit: EventMetadata | undefined): EventMetadata {
    const ambient = this.#ambient();
    if (!ambient) return explicit ?? {};
    const merged: EventMetadata = { ...ambient };
    for (const [key, value] of Object.entries(explicit ?? {})) {
      if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
    }
    return merged;
  }

  /**
   * Appends events to a stream when its version equals expectedVersion (the number of events it
   * holds; 0 = must not exist; "any" = no check). A repeated idempotency key returns the original
   * result and writes nothing.
   */
  async append(
    streamId: string,
    expectedVersion: ExpectedVersion,
    events: NewEvent[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error("append needs at least one event");
    const payload = events.map((event) => validated(this.catalogue, event));
    const metadata = this.#metadata(options.metadata);
    const payloadJson = toJson(payload);
    const metadataJson = toJson(metadata);
    const key = options.idempotencyKey;
    try {
      const fused = key
        ? undefined
        : this.#fusedStatement(streamId, expectedVersion, payload, payloadJson, metadataJson, options.condition);
      const appended = fused
        ? await this.#appendFused(streamId, expectedVersion, fused, payloadJson, metadataJson, !!options.condition)
        : await this.db.transaction(async (tx) => {
          if (key) {
            const prior = await this.#priorResult(tx, key);
            if (prior) return prior;
          }
          // The version check and the insert are one statement: no row is written on a mismatch.
          // Only positions, versions and times come back: the events are the ones just sent.
          const params: unknown[] = [
            streamId,
            payloadJson,
            metadataJson,
            expectedVersion === "any" ? null : expectedVersion,
          ];
          const condition = conditionSql(options.condition, params);
          const rows = await tx.query<{ global_position: number; stream_version: number; recorded_at: string }>(
            `with current_version as (
             select coalesce(max(stream_version), 0)::int as version from events where stream_id = $1
           )
           insert into events (stream_id, stream_version, type, schema_version, data, metadata)
           select $1, c.version + t.ord::int, t.e->>'type', (t.e->>'v')::int, t.e->'data', $3::jsonb
             from current_version c, jsonb_array_elements($2::jsonb) with ordinality as t(e, ord)
            where ($4::int is null or c.version = $4::int)${condition}
            order by t.ord
           returning global_position, stream_version, recorded_at`,
            params,
          );
          if (rows.length === 0) {
            if (options.condition) throw new ConditionNotMetError(streamId);
            const [{ version }] = await tx.query<{ version: number }>(
              "select coalesce(max(stream_version), 0)::int as version from events where stream_id = $1",
              [streamId],
            );
            throw new ConcurrencyError(streamId, expectedVersion, version);
          }
          const recorded = sentEvents(this.catalogue, streamId, rows, payloadJson, metadataJson);
          const result: AppendResult = {
            streamId,
            nextExpectedVersion: recorded[recorded.length - 1].streamVersion,
            firstPosition: recorded[0].position,
            lastPosition: recorded[recorded.length - 1].position,
            duplicate: false,
            events: recorded,
          };
          if (key) {
            await tx.query(
              `insert into event_idempotency (key, stream_id, first_position, last_position, next_version)
             values ($1, $2, $3, $4, $5)`,
              [key, streamId, result.firstPosition, result.lastPosition, result.nextExpectedVersion],
            );
          }
          if (this.#inline) await this.#inline(tx, recorded);
          return result;
        });
      if (!appended.duplicate) this.#wrote(streamId, appended.nextExpectedVersion);
      return appended;
    } catch (error) {
      if (sqlState(error) !== "23505") throw error;
      if (key) {
        const prior = await this.#priorResult(this.db, key);
        if (prior) return prior;
      }
      const constraint = String((error as { constraint?: string }).constraint ?? "");
      if (constraint === "events_stream_version" || constraint === "") {
        const [{ version }] = await this.db.query<{ version: number }>(
          "select coalesce(max(stream_version), 0)::int as version from events where stream_id = $1",
          [streamId],
        );
        if (constraint === "events_stream_version" || version !== expectedVersion) {
          throw new ConcurrencyError(streamId, expectedVersion, version);
        }
      }
      throw new UniqueViolationError(constraint);
    }
  }

  /**
   * Bulk path (imports, benchmark setup): appends to several distinct streams in one transaction,
   * all or nothing. Each entry is checked against its expected version as `append` does; the
   * inline projections see every event once, in position order. No idempotency keys.
   */
  async appendMany(
    appends: { streamId: string; expectedVersion: ExpectedVersion; events: NewEvent[] }[],
    options: { metadata?: EventMetadata } = {},
  ): Promise<AppendResult[]> {
    if (appends.length === 0) return [];
    const streams = appends.map((a) => a.streamId);
    if (new Set(streams).size !== streams.length) throw new Error("appendMany needs distinct streams");
    const payload = appends.flatMap((a, s) => {
      if (a.events.length === 0) throw new Error("append needs at least one event");
      return a.events.map((event, n) => ({ s, n: n + 1, ...validated(this.catalogue, event) }));
    });
    try {
      const appended = await this.db.transaction(async (tx) => {
        const rows = await tx.query<{ stream_id: string; version: number }>(
          `select stream_id, max(stream_version)::int as version from events
            where stream_id = any($1::text[]) group by stream_id`,
          [streams],
        );
        const versions = new Map(rows.map((r) => [r.stream_id, Number(r.version)]));
        const bases = appends.map((a) => {
          const version = versions.get(a.streamId) ?? 0;
          if (a.expectedVersion !== "any" && version !== a.expectedVersion) {
            throw new ConcurrencyError(a.streamId, a.expectedVersion, version);
          }
          return version;
        });
        const inserted = await tx.query<EventRow>(
          `insert into events (stream_id, stream_version, type, schema_version, data, metadata)
           select ($1::text[])[(t.e->>'s')::int + 1], ($2::int[])[(t.e->>'s')::int + 1] + (t.e->>'n')::int,
                  t.e->>'type', (t.e->>'v')::int, t.e->'data', $4::jsonb
             from jsonb_array_elements($3::jsonb) with ordinality as t(e, ord)
            order by t.ord
           returning ${COLUMNS}`,
          [streams, bases, toJson(payload), toJson(this.#metadata(options.metadata))],
        );
        const recorded = inserted.map(this.#toRecorded).sort((a, b) => a.position - b.position);
        if (this.#inline) await this.#inline(tx, recorded);
        const byStream = new Map<string, RecordedEvent[]>();
        for (const e of recorded) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e]);
        return appends.map((a, s) => {
          const own = byStream.get(a.streamId)!;
          return {
            streamId: a.streamId,
            nextExpectedVersion: bases[s] + a.events.length,
            firstPosition: own[0].position,
            lastPosition: own[own.length - 1].position,
            duplicate: false,
            events: own,
          };
        });
      });
      for (const a of appended) this.#wrote(a.streamId, a.nextExpectedVersion);
      return appended;
    } catch (error) {
      if (sqlState(error) !== "23505") throw error;
      const constraint = String((error as { constraint?: string }).constraint ?? "");
      if (constraint === "events_stream_version") throw new ConcurrencyError(streams.join(","), "any", -1);
      throw new UniqueViolationError(constraint);
    }
  }

  /** The append and its inline projections as one statement, when every handler has a fused form. */
  #fusedStatement(
    streamId: string,
    expectedVersion: ExpectedVersion,
    payload: { type: string; v: number; data: unknown }[],
    payloadJson: string,
    metadataJson: string,
    condition: AppendOptions["condition"],
  ): { sql: string; params: unknown[] } | undefined {
    if (!this.#fused) return undefined;
    const params: unknown[] = [streamId, payloadJson, metadataJson, expectedVersion === "any" ? null : expectedVersion];
    const holds = conditionSql(condition, params);
    let ctes = 0;
    const parts = this.#fused(payload, {
      position: (i) => `(select position from appended where ord = ${Number(i) + 1})`,
      param: (value) => {
        params.push(value);
        return `$${params.length}`;
      },
      cte: (label) => `inline_${ctes++}_${label.replace(/[^a-z_]/g, "")}`,
    });
    if (!parts) return undefined;
    return {
      sql: `with current_version as (
         select coalesce(max(stream_version), 0)::int as version from events where stream_id = $1
       ),
       appended as (
         insert into events (stream_id, stream_version, type, schema_version, data, metadata)
         select $1, c.version + t.ord::int, t.e->>'type', (t.e->>'v')::int, t.e->'data', $3::jsonb
           from current_version c, jsonb_array_elements($2::jsonb) with ordinality as t(e, ord)
          where ($4::int is null or c.version = $4::int)${holds}
          order by t.ord
         returning global_position as position, stream_version, recorded_at,
                   stream_version - (select version from current_version) as ord
       )${parts.map((part) => `,\n       ${part.name} as (${part.sql})`).join("")}
       select position as global_position, stream_version, recorded_at from appended`,
      params,
    };
  }

  /** Runs a fused append (one statement: its own transaction, durable when it returns). */
  async #appendFused(
    streamId: string,
    expectedVersion: ExpectedVersion,
    fused: { sql: string; params: unknown[] },
    payloadJson: string,
    metadataJson: string,
    conditional: boolean,
  ): Promise<AppendResult> {
    const rows = await this.db.query<{ global_position: number; stream_version: number; recorded_at: string }>(
      fused.sql,
      fused.params,
    );
    if (rows.length === 0) {
      if (conditional) throw new ConditionNotMetError(streamId);
      const [{ version }] = await this.db.query<{ version: number }>(
        "select coalesce(max(stream_version), 0)::int as version from events where stream_id = $1",
        [streamId],
      );
      throw new ConcurrencyError(streamId, expectedVersion, version);
    }
    const recorded = sentEvents(this.catalogue, streamId, rows, payloadJson, metadataJson);
    return {
      streamId,
      nextExpectedVersion: recorded[recorded.length - 1].streamVersion,
      firstPosition: recorded[0].position,
      lastPosition: recorded[recorded.length - 1].position,
      duplicate: false,
      events: recorded,
    };
  }

  async #priorResult(q: Queryable, key: string): Promise<AppendResult | undefined> {
    const [prior] = await q.query<{
      stream_id: string;
      first_position: number;
      last_position: number;
      next_version: number;
    }>("select * from event_idempotency where key = $1", [key]);
    if (!prior) return undefined;
    const events = await q.query<EventRow>(
      `select ${COLUMNS} from events where global_position between $1 and $2 and stream_id = $3
        order by global_position`,
      [prior.first_position, prior.last_position, prior.stream_id],
    );
    return {
      streamId: prior.stream_id,
      nextExpectedVersion: prior.next_version,
      firstPosition: Number(prior.first_position),
      lastPosition: Number(prior.last_position),
      duplicate: true,
      events: events.map(this.#toRecorded),
    };
  }

  /**
   * The events of a stream, in stream order (from a version, exclusive): every one, or at most
   * `limit` (a long stream read a page at a time, so the embedded database, which runs on the event
   * loop, never holds it for the whole stream).
   */
  async readStream(streamId: string, afterVersion = 0, limit?: number): Promise<RecordedEvent[]> {
    const rows = await this.db.query<EventRow>(
      `select ${COLUMNS} from events where stream_id = $1 and stream_version > $2
        order by stream_version${limit === undefined ? "" : " limit $3"}`,
      limit === undefined ? [streamId, afterVersion] : [streamId, afterVersion, limit],
    );
    return rows.map(this.#toRecorded);
  }

  /** Several whole streams in one read, each in version order (a batch of commands, `handleCommands`). */
  async readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
    const rows = await this.db.query<EventRow>(
      `select ${COLUMNS} from events where stream_id = any($1::text[]) order by stream_id, stream_version`,
      [streamIds],
    );
    const byStream = new Map<string, RecordedEvent[]>(streamIds.map((id) => [id, []]));
    for (const row of rows) {
      const event = this.#toRecorded(row);
      byStream.get(event.streamId)!.push(event);
    }
    return byStream;
  }

  /**
   * Events after a global position, in order, never skipping one whose transaction commits late:
   * only transactions older than every transaction still running are read (xid8 snapshot guard).
   */
  async readAll(
    after: number,
    options: { limit?: number; types?: string[]; until?: number } = {},
  ): Promise<RecordedEvent[]> {
    const params: unknown[] = [after, options.limit ?? 1000];
    let filter = "";
    if (options.types?.length) {
      params.push(options.types);
      filter += ` and type = any($${params.length}::text[])`;
    }
    if (options.until !== undefined) {
      params.push(options.until);
      filter += ` and global_position <= $${params.length}`;
    }
    const rows = await this.db.query<EventRow>(
      `select ${COLUMNS} from events
        where global_position > $1
          and transaction_id < pg_snapshot_xmin(pg_current_snapshot())${filter}
        order by global_position
        limit $2`,
      params,
    );
    return rows.map(this.#toRecorded);
  }

  /**
   * Catch-up reading for subscribers that run while others append (outbox, async projections):
   * ordered by (transaction id, position) and only below the oldest running transaction, so an
   * event whose transaction commits after a later position became visible is never skipped.
   */
  async readAfter(
    cursor: CatchUpCursor,
    limit = 500,
  ): Promise<{ events: RecordedEvent[]; cursor: CatchUpCursor }> {
    const rows = await this.db.query<EventRow & { transaction_id: string }>(
      `select ${COLUMNS}, transaction_id::text as transaction_id from events
        where (transaction_id, global_position) > ($1::xid8, $2::bigint)
          and transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        order by transaction_id, global_position
        limit $3`,
      [cursor.transactionId, cursor.position, limit],
    );
    const last = rows[rows.length - 1];
    return {
      events: rows.map(this.#toRecorded),
      cursor: last ? { transactionId: last.transaction_id, position: Number(last.global_position) } : cursor,
    };
  }

  /** The highest position visible to readers. */
  async headPosition(): Promise<number> {
    const [row] = await this.db.query<{ head: number }>(
      "select coalesce(max(global_position), 0) as head from events",
    );
    return Number(row.head);
  }
}
