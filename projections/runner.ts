import type { Db, Queryable } from "../events/db/types.ts";
import {
  analyzeLogOrder,
  eventsBetween,
  logSettledBefore,
  logSnapshot,
  typeVersionsUpTo,
} from "../events/log-queries.ts";
import type { EventStore, FusedInline, FusedPart } from "../events/store.ts";
import type { CatalogueEvent } from "../events/index.ts";
import type { RecordedEvent } from "../events/types.ts";
import type { Projection } from "./projection.ts";
import { bulkFingerprint, LogMisfit } from "./bulk.ts";

/** Live events between two ANALYZE runs on PGlite. */
export const ANALYZE_EVERY = 5000;

/** How long one rebuild transaction should take at most (its batch adapts), in ms. */
const BATCH_MS = 150;
/** How long a rebuild waits for events hidden behind another transaction before it gives up. */
const HORIZON_WAIT_MS = 60_000;

/**
 * The planner settings of a bulk loader's transaction. Its statements join whole event types; the
 * planner cannot estimate what they decode from the event data (a `distinct on` over decoded ids
 * was estimated at one row) and picked nested loops that rescanned the log per row (minutes on a
 * 10,000-event log): hash and merge joins only. No JIT: a rebuild's statements each run once.
 */
const BULK_SETTINGS = "set local enable_nestloop = off; set local jit = off";

/** How long the schema's DDL runs between two turns of the event loop. */
const DDL_TURN_MS = 50;

/** The schema holding the live read models; connections use search_path = rm, public. */
export const LIVE_SCHEMA = "rm";
/** The live schema's name between a replay's swap and the drop of its old tables. */
const RETIRED_SCHEMA = `${LIVE_SCHEMA}_retired`;

const CHECKPOINTS = `
create table if not exists projection_checkpoints (
  name text primary key,
  position bigint not null default 0
);`;

export interface RebuildProgress {
  applied: number;
  total: number;
  position: number;
}

export interface RebuildReport {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  position: number;
  /** The projections loaded in bulk (projections/bulk.ts); the others applied the events one by one. */
  bulk: string[];
  /** Why a projection with a bulk loader was rebuilt event by event, by name. */
  eventByEvent: Record<string, string>;
}

export interface TableDifference {
  projection: string;
  table: string;
  onlyLive: string[];
  onlyRebuilt: string[];
  liveCount: number;
  rebuiltCount: number;
}

/** Whether `reader`'s handlers read `read`'s tables (undeclared and not isolated: assumed to read all). */
function readsFrom(reader: Projection, read: Projection): boolean {
  if (reader.isolated) return false;
  return reader.reads === undefined || reader.reads.includes(read.name);
}

function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad identifier ${name}`);
  return name;
}

/** Builds read models from events: inline in the append's transaction, or by rebuilding. */
export class ProjectionRunner {
  readonly #byType = new Map<string, Projection[]>();
  readonly #isolatedByType = new Map<string, Projection[]>();

  /** Whether rebuilds use the projections' bulk loaders (false: every event applied, for comparisons). */
  readonly useBulk: boolean;

  constructor(
    readonly db: Db,
    readonly store: EventStore,
    readonly projections: Projection[],
    options: { bulk?: boolean } = {},
  ) {
    this.useBulk = options.bulk ?? true;
    for (const projection of projections) {
      const byType = projection.isolated ? this.#isolatedByType : this.#byType;
      for (const type of projection.handles) {
        const list = byType.get(type) ?? [];
        list.push(projection);
        byType.set(type, list);
      }
    }
  }

  /** Creates the schema and every read model's tables (idempotent). */
  async migrate(schema = LIVE_SCHEMA, db: Db = this.db): Promise<void> {
    await db.transaction((tx) => this.migrateIn(tx, schema));
  }

  /** The same, inside a transaction the caller holds (search_path is restored at its end). */
  async migrateIn(tx: Queryable, schema = LIVE_SCHEMA): Promise<void> {
    await tx.exec(`create schema if not exists ${ident(schema)}`);
    await tx.exec(`set local search_path to ${ident(schema)}, public`);
    await tx.exec(CHECKPOINTS);
    let turn = performance.now();
    for (const projection of this.projections) {
      await tx.exec(projection.schema);
      // Let timers run between the DDL scripts (a CLI's progress redraw), at most every
      // DDL_TURN_MS: Deno clamps a repeated setTimeout(0) to ≈ 4 ms, and a yield after each of the
      // ~30 scripts left the loop idle 75–180 ms of the schema's creation.
      if (performance.now() - turn >= DDL_TURN_MS) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        turn = performance.now();
      }
    }
  }

  /** Drops the live read models inside the caller's transaction (an earlier version's, before a rebuild). */
  async dropLiveIn(tx: Queryable): Promise<void> {
    await tx.exec(`drop schema if exists ${LIVE_SCHEMA} cascade`);
  }

  /**
   * Applies events to every projection that handles them, then moves their checkpoints; with
   * `touchedInto` (a rebuild), the names of the projections touched are added to it instead and the
   * caller moves the checkpoints once at its end.
   */
  async apply(tx: Queryable, events: RecordedEvent[], touchedInto?: Set<string>): Promise<void> {
    const touched = touchedInto ?? new Set<string>();
    const rebuilding = touchedInto !== undefined;
    // Runs of events whose handlers all batch are applied per projection in few statements; any
    // other handler first sees every earlier event applied, so the outcome equals one by one.
    const pending = new Map<Projection, RecordedEvent[]>();
    const flush = async () => {
      for (const [projection, run] of pending) await projection.applyBatch!(tx, run, rebuilding);
      pending.clear();
    };
    // Isolated projections take all their events of the transaction at once, after the others.
    const isolated = new Map<Projection, RecordedEvent[]>();
    for (const event of events) {
      for (const projection of this.#isolatedByType.get(event.type) ?? []) {
        const run = isolated.get(projection);
        if (run) run.push(event);
        else isolated.set(projection, [event]);
      }
      const handlers = this.#byType.get(event.type);
      if (!handlers) continue;
      const batchable = handlers.every((p) => p.applyBatch);
      if (!batchable) await flush();
      for (const projection of handlers) {
        touched.add(projection.name);
        if (batchable) {
          const run = pending.get(projection);
          if (run) run.push(event);
          else pending.set(projection, [event]);
        } else if (projection.applyBatch) await projection.applyBatch(tx, [event], rebuilding);
        else await projection.apply(tx, event, rebuilding);
      }
    }
    await flush();
    for (const [projection, run] of isolated) {
      touched.add(projection.name);
      if (projection.applyBatch) await projection.applyBatch(tx, run, rebuilding);
      else for (const event of run) await projection.apply(tx, event, rebuilding);
    }
    await flush();
    if (touchedInto || touched.size === 0) return;
    await this.#checkpoint(tx, touched, events[events.length - 1].position);
  }

  #checkpoint(tx: Queryable, touched: Set<string>, position: number): Promise<unknown> {
    return tx.query(
      `insert into projection_checkpoints (name, position)
       select n, $2::bigint from unnest($1::text[]) as n
       on conflict (name) do update set position = greatest(projection_checkpoints.position, excluded.position)`,
      [[...touched], position],
    );
  }

  /** The inline handler for EventStore.onAppend. */
  readonly inline = (tx: Queryable, events: RecordedEvent[]): Promise<void> => {
    this.#countForAnalyze(events.length);
    return this.apply(tx, events);
  };

  /**
   * The fused form of the inline handler (EventStore.onAppend): an append of one event whose every
   * handler offers `fuse` becomes one statement with its read-model changes and the checkpoint.
   */
  readonly fused: FusedInline = (events, sql) => {
    if (events.length !== 1) return undefined;
    const event = events[0] as CatalogueEvent;
    const handlers = [...this.#byType.get(event.type) ?? [], ...this.#isolatedByType.get(event.type) ?? []];
    // Parts of one statement all see the rows as they were before it: one handler at most, or
    // isolated ones (no handler reads another's tables).
    if (handlers.length > 1 && handlers.some((p) => !p.isolated)) return undefined;
    const parts: FusedPart[] = [];
    const position = sql.position(0);
    for (const projection of handlers) {
      const fused = projection.fuse?.(event, { ...sql, position });
      if (!fused) return undefined;
      parts.push(...fused);
    }
    if (handlers.length) {
      parts.push({
        name: sql.cte("checkpoint"),
        sql: `insert into projection_checkpoints (name, position)
              select n, a.p from unnest(${sql.param(handlers.map((p) => p.name))}::text[]) as n,
                     (select ${position} as p) a
               where a.p is not null
              on conflict (name) do update set position = greatest(projection_checkpoints.position, excluded.position)`,
      });
    }
    this.#countForAnalyze(events.length);
    return parts;
  };

  #sinceAnalyze = 0;
  #analyzing = false;

  /**
   * PGlite runs no autovacuum, so the planner's statistics of the read models are never refreshed
   * by themselves (a leaderboard or a feed planned for empty tables scans). After every
   * ANALYZE_EVERY live events an ANALYZE runs, after the current transaction (it waits for
   * PGlite's lock), never blocking the append that triggered it.
   */
  #countForAnalyze(events: number): void {
    if (this.db.kind !== "pglite") return;
    this.#sinceAnalyze += events;
    if (this.#sinceAnalyze < ANALYZE_EVERY || this.#analyzing) return;
    this.#sinceAnalyze = 0;
    this.#analyzing = true;
    const timer = setTimeout(() => {
      this.analyze().catch(() => {}).finally(() => (this.#analyzing = false));
    }, 0);
    (timer as { unref?: () => void }).unref?.();
  }

  /** Refreshes the planner's statistics of every read-model table and of the log. */
  async analyze(schema = LIVE_SCHEMA): Promise<void> {
    const tables = this.projections.flatMap((p) => p.tables).map((t) => `${ident(schema)}.${ident(t)}`);
    await this.db.exec(`analyze ${[...tables, "public.events"].join(", ")}`);
  }

  /**
   * Rebuilds every read model into `schema` (dropped first) from the log, up to `until` (a
   * position) when given, into `target` (another database) when given. Projections with a usable
   * bulk loader are filled from the whole log at once (projections/bulk.ts); the others apply the
   * events of the types they handle, read in batches, one transaction per batch.
   */
  async rebuild(
    schema: string,
    options: {
      until?: number;
      target?: Db;
      batch?: number;
      onProgress?: (progress: RebuildProgress) => void;
    } = {},
  ): Promise<RebuildReport> {
    const started = performance.now();
    // A bulk loader that finds the log breaking what it relies on (or fails) is left out, and the
    // rebuild starts again without it: those projections then apply the events one by one.
    const refused: Record<string, string> = {};
    for (;;) {
      const report = await this.#rebuildOnce(schema, options, refused, started);
      if (report) return report;
    }
  }

  async #rebuildOnce(
    schema: string,
    options: { until?: number; target?: Db; batch?: number; onProgress?: (progress: RebuildProgress) => void },
    refused: Record<string, string>,
    started: number,
  ): Promise<RebuildReport | undefined> {
    const target = options.target ?? this.db;
    // The scratch schema's statements need not reach the disk one by one (here and below): a crash
    // leaves a scratch schema the next rebuild drops, and what follows a rebuild (the swap, the
    // time-travel marker) is durable and syncs them all.
    await target.transaction(async (tx) => {
      await tx.exec(`drop schema if exists ${ident(schema)} cascade`);
      await this.migrateIn(tx, schema);
    }, { deferSync: true });
    // Fresh statistics first: PGlite never analyzes by itself, and without them the planner sorts the
    // whole rest of the log for every page (a replay then grows with the square of the log).
    // Only the columns the paged read plans on: sampling the event data (jsonb) took seconds.
    await analyzeLogOrder(this.db);
    const snapshot = await logSnapshot(this.db);
    const head = options.until ?? snapshot.head;
    // Events at or below the head may still be committing on another connection (PostgreSQL): wait
    // until every transaction that was running at the snapshot has ended, so both the bulk loaders'
    // statements and the filtered reads below see all of them.
    await this.#settle(snapshot.xmax);
    const versions = await typeVersionsUpTo(this.db, head);
    const total = versions.reduce((sum, v) => sum + v.n, 0);
    const plan = await this.#plan(target, head, versions, refused);
    const touched = new Set<string>();
    const inLog = new Set(versions.map((v) => v.type));
    let applied = 0;
    options.onProgress?.({ applied, total, position: 0 });
    // Event by event (in batches) for the projections without a usable bulk loader.
    const byEvent = this.projections.filter((p) => !plan.bulk.includes(p));
    const types = [...new Set(byEvent.flatMap((p) => p.handles))].filter((t) => inLog.has(t));
    if (types.length) {
      const runner = byEvent.length === this.projections.length
        ? this
        : new ProjectionRunner(this.db, this.store, byEvent, { bulk: false });
      const all = types.length === inLog.size;
      await runner.#applyLog(target, schema, head, all ? undefined : types, touched, options.batch, (n, position) => {
        applied += n;
        options.onProgress?.({ applied: Math.min(applied, total), total, position });
      });
    }
    // Then the bulk loaders, each in its transaction, in the projections' order.
    for (const projection of plan.bulk) {
      try {
        await target.transaction(async (tx) => {
          await tx.exec(`set local search_path to ${ident(schema)}, public`);
          await tx.exec(BULK_SETTINGS);
          await projection.bulk!.load(tx, { until: head });
        }, { deferSync: true });
      } catch (error) {
        refused[projection.name] = error instanceof LogMisfit
          ? error.message
          : `its bulk load failed (${error instanceof Error ? error.message : String(error)})`;
        return undefined;
      }
      if (projection.handles.some((t) => inLog.has(t))) touched.add(projection.name);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    applied = total;
    options.onProgress?.({ applied, total, position: head });
    // What the handlers skipped while rebuilding (boards, counters) is computed once, set-based.
    // Fresh statistics for the rebuilt tables too (PGlite never gathers them by itself), in the
    // same transaction.
    await target.transaction(async (tx) => {
      await tx.exec(`set local search_path to ${ident(schema)}, public`);
      for (const projection of this.projections) await projection.finishRebuild?.(tx);
      if (touched.size > 0) await this.#checkpoint(tx, touched, head);
      if (target.kind === "pglite") {
        const tables = this.projections.flatMap((p) => p.tables).map((t) => `${ident(schema)}.${ident(t)}`);
        await tx.exec(`analyze ${tables.join(", ")}`);
      }
    }, { deferSync: true });
    const seconds = (performance.now() - started) / 1000;
    return {
      events: total,
      seconds,
      eventsPerSecond: total / Math.max(seconds, 1e-9),
      position: head,
      bulk: plan.bulk.map((p) => p.name),
      eventByEvent: plan.reasons,
    };
  }

  /** Waits (at most HORIZON_WAIT_MS) until every transaction older than `xmax` has ended. */
  async #settle(xmax: string): Promise<void> {
    const since = performance.now();
    while (!(await logSettledBefore(this.db, xmax))) {
      if (performance.now() - since > HORIZON_WAIT_MS) {
        throw new Error(
          `rebuild: a transaction running when it started stayed open for ${HORIZON_WAIT_MS / 1000} s`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /**
   * Which projections load in bulk: those with a loader still written for their tables and event
   * types, whose events are all at the current version, whose log fits the loader, read by no
   * projection that applies the events one by one, and only when rebuilding from this database.
   */
  async #plan(
    target: Db,
    head: number,
    versions: { type: string; version: number; n: number }[],
    refused: Record<string, string>,
  ): Promise<{ bulk: Projection[]; reasons: Record<string, string> }> {
    const reasons: Record<string, string> = { ...refused };
    const candidates = new Set<Projection>();
    for (const projection of this.projections) {
      const loader = projection.bulk;
      if (!loader) continue;
      if (refused[projection.name]) continue;
      if (!this.useBulk) reasons[projection.name] = "bulk loading turned off";
      else if (target !== this.db) reasons[projection.name] = "rebuilding into another database";
      else if (loader.writtenFor !== bulkFingerprint(projection)) {
        reasons[projection.name] = "its tables or event types changed since its bulk loader was written";
      } else {
        const old = versions.find((v) =>
          projection.handles.includes(v.type) && v.version !== this.store.catalogue.definition(v.type)?.version
        );
        if (old) reasons[projection.name] = `${old.type} events of version ${old.version} (upcast in JavaScript)`;
        else candidates.add(projection);
      }
    }
    // Every loader's checks in one read-only transaction.
    const checked = [...candidates].filter((p) => p.bulk!.fits);
    const misfits = checked.length === 0 ? [] : await this.db.transaction(async (tx) => {
      await tx.exec(`set local search_path to public`);
      await tx.exec(BULK_SETTINGS);
      const out: Projection[] = [];
      for (const projection of checked) if (!await projection.bulk!.fits!(tx, { until: head })) out.push(projection);
      return out;
    });
    for (const projection of misfits) {
      candidates.delete(projection);
      reasons[projection.name] = "the log breaks an invariant its bulk loader relies on";
    }
    // A projection applying events one by one must see the tables it reads as they stand at each event.
    for (let changed = true; changed;) {
      changed = false;
      for (const reader of this.projections) {
        if (candidates.has(reader)) continue;
        for (const read of [...candidates]) {
          if (read === reader || !readsFrom(reader, read)) continue;
          candidates.delete(read);
          reasons[read.name] = `${reader.name} reads its tables event by event`;
          changed = true;
        }
      }
    }
    return { bulk: this.projections.filter((p) => candidates.has(p)), reasons };
  }

  /** Applies the events of `types` (every type when undefined) up to `head`, in adaptive batches. */
  async #applyLog(
    target: Db,
    schema: string,
    head: number,
    types: string[] | undefined,
    touched: Set<string>,
    most = 2000,
    progress: (events: number, position: number) => void,
  ): Promise<void> {
    let position = 0;
    // Batches of up to `most` events, shrunk while one takes longer than BATCH_MS (uploads with
    // efforts, big deletes) and grown back when quick, so progress is reported several times a
    // second; between transactions the event loop runs (timers: a CLI's progress redraw).
    let batch = Math.min(most, 200);
    for (;;) {
      const started = performance.now();
      const events = await this.store.readAll(position, { limit: batch, until: head, types });
      if (events.length === 0) {
        // Settled before: nothing at or below the head can still appear (checked, not assumed).
        if (types === undefined && await this.#hiddenBefore(position, head)) {
          throw new Error(`rebuild: events after position ${position} up to ${head} are not readable`);
        }
        return;
      }
      // A rebuild's batches need not reach the disk one by one: a crash leaves a scratch schema
      // the next rebuild drops, and the swap (or the final checkpoint) is durable and syncs them.
      await target.transaction(async (tx) => {
        await tx.exec(`set local search_path to ${ident(schema)}, public`);
        await this.apply(tx, events, touched);
      }, { deferSync: true });
      position = events[events.length - 1].position;
      progress(events.length, position);
      const took = performance.now() - started;
      if (took > BATCH_MS && batch > 50) batch = Math.max(50, Math.floor(batch / 2));
      else if (took < BATCH_MS / 3 && batch < most) batch = Math.min(most, batch * 2);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }

  /** Rebuilds the live read models: into a fresh schema, then swapped in at once. */
  async replay(options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<RebuildReport> {
    // What an earlier replay stopped before dropping (a crash between its swap and its drop).
    await this.db.exec(`drop schema if exists ${RETIRED_SCHEMA} cascade`);
    const report = await this.rebuild(`${LIVE_SCHEMA}_next`, options);
    // The swap renames only (quick, durable: it syncs the rebuild's deferred WAL too). Dropping the
    // old tables inside it held the swap for the drop's catalog work and, at its commit, for the
    // unlink of every file of the old read models; they are dropped after, in a transaction of
    // their own.
    await this.db.transaction(async (tx) => {
      await tx.exec(`create schema if not exists ${LIVE_SCHEMA}`);
      await tx.exec(`alter schema ${LIVE_SCHEMA} rename to ${RETIRED_SCHEMA}`);
      await tx.exec(`alter schema ${LIVE_SCHEMA}_next rename to ${LIVE_SCHEMA}`);
    });
    for (const projection of this.projections) projection.replaced?.();
    // Appends that landed during the rebuild (after its head) are applied now.
    await this.catchUp(report.position);
    await this.db.exec(`drop schema ${RETIRED_SCHEMA} cascade`);
    return report;
  }

  /** Whether committed events exist after `position` up to `head` (readAll may not show them yet). */
  async #hiddenBefore(position: number, head: number): Promise<boolean> {
    if (position >= head) return false;
    return await eventsBetween(this.db, position, head);
  }

  async #catchUpFrom(position: number): Promise<void> {
    for (;;) {
      const events = await this.store.readAll(position, { limit: 2000 });
      if (events.length === 0) return;
      await this.db.transaction((tx) => this.apply(tx, events));
      position = events[events.length - 1].position;
    }
  }

  /** Applies events after a position to the live read models. */
  catchUp(position: number): Promise<void> {
    return this.#catchUpFrom(position);
  }

  /** Compares every read model's tables in two schemas of this database, row by row. */
  async compare(a: string, b: string): Promise<{ differences: TableDifference[]; tables: number }> {
    const differences: TableDifference[] = [];
    let tables = 0;
    for (const projection of this.projections) {
      for (const table of projection.tables) {
        tables++;
        const columns = await this.db.query<{ column_name: string }>(
          `select column_name from information_schema.columns
            where table_schema = $1 and table_name = $2 order by ordinal_position`,
          [b, table],
        );
        const list = columns.map((c) => `"${c.column_name}"`).join(", ");
        const live = `select ${list} from ${ident(a)}.${ident(table)}`;
        const rebuilt = `select ${list} from ${ident(b)}.${ident(table)}`;
        const diff = async (x: string, y: string) =>
          (await this.db.query<{ row: string }>(
            `select row_to_json(d)::text as row from (${x} except all ${y}) d limit 20`,
          )).map((r) => r.row);
        const count = async (q: string) =>
          (await this.db.query<{ n: number }>(`select count(*)::int as n from (${q}) q`))[0].n;
        const onlyLive = await diff(live, rebuilt);
        const onlyRebuilt = await diff(rebuilt, live);
        if (onlyLive.length || onlyRebuilt.length) {
          differences.push({
            projection: projection.name,
            table,
            onlyLive,
            onlyRebuilt,
            liveCount: await count(live),
            rebuiltCount: await count(rebuilt),
          });
        }
      }
    }
    return { differences, tables };
  }

  /** Rebuilds into a scratch schema and compares it with the live read models, table by table. */
  async verify(options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<{
    report: RebuildReport;
    differences: TableDifference[];
    tables: number;
  }> {
    const scratch = `${LIVE_SCHEMA}_verify`;
    const head = await this.store.headPosition();
    const report = await this.rebuild(scratch, { until: head, onProgress: options.onProgress });
    const { differences, tables } = await this.compare(LIVE_SCHEMA, scratch);
    await this.db.exec(`drop schema if exists ${scratch} cascade`);
    return { report, differences, tables };
  }
}
