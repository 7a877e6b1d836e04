import type { Db, Queryable } from "../events/db/types.ts";
import { analyzeLogOrder, countEventsUpTo, eventsBetween } from "../events/log-queries.ts";
import type { EventStore } from "../events/store.ts";
import type { RecordedEvent } from "../events/types.ts";
import type { Projection } from "./projection.ts";

/** Live events between two ANALYZE runs on PGlite. */
export const ANALYZE_EVERY = 5000;

/** How long one rebuild transaction should take at most (its batch adapts), in ms. */
const BATCH_MS = 150;
/** How long a rebuild waits for events hidden behind another transaction before it gives up. */
const HORIZON_WAIT_MS = 60_000;

/** The schema holding the live read models; connections use search_path = rm, public. */
export const LIVE_SCHEMA = "rm";

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
}

export interface TableDifference {
  projection: string;
  table: string;
  onlyLive: string[];
  onlyRebuilt: string[];
  liveCount: number;
  rebuiltCount: number;
}

function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad identifier ${name}`);
  return name;
}

/** Builds read models from events: inline in the append's transaction, or by rebuilding. */
export class ProjectionRunner {
  readonly #byType = new Map<string, Projection[]>();
  readonly #isolatedByType = new Map<string, Projection[]>();

  constructor(readonly db: Db, readonly store: EventStore, readonly projections: Projection[]) {
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
    for (const projection of this.projections) {
      await tx.exec(projection.schema);
      // Let timers run between the DDL scripts (a CLI's progress redraw).
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
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
   * position) when given, into `target` (another database) when given.
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
    const target = options.target ?? this.db;
    const started = performance.now();
    await target.exec(`drop schema if exists ${ident(schema)} cascade`);
    await this.migrate(schema, target);
    // Fresh statistics first: PGlite never analyzes by itself, and without them the planner sorts the
    // whole rest of the log for every page (a replay then grows with the square of the log).
    // Only the columns the paged read plans on: sampling the event data (jsonb) took seconds.
    await analyzeLogOrder(this.db);
    const head = options.until ?? await this.store.headPosition();
    const total = await countEventsUpTo(this.db, head);
    let position = 0;
    let applied = 0;
    const touched = new Set<string>();
    options.onProgress?.({ applied, total, position });
    // Batches of up to `batch` events, shrunk while one takes longer than BATCH_MS (uploads with
    // efforts, big deletes) and grown back when quick, so progress is reported several times a
    // second; between transactions the event loop runs (timers: a CLI's progress redraw).
    const most = options.batch ?? 2000;
    let batch = Math.min(most, 200);
    let waitingSince: number | undefined;
    for (;;) {
      const started = performance.now();
      const events = await this.store.readAll(position, { limit: batch, until: head });
      if (events.length === 0) {
        if (!(await this.#hiddenBefore(position, head))) break;
        // Committed events up to the head exist but sit above the oldest transaction still running
        // (another server's append on PostgreSQL): wait for it rather than stop short of the head.
        waitingSince ??= performance.now();
        if (performance.now() - waitingSince > HORIZON_WAIT_MS) {
          throw new Error(
            `rebuild: events up to position ${head} stayed hidden behind a running transaction for ${
              HORIZON_WAIT_MS / 1000
            } s`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
        continue;
      }
      waitingSince = undefined;
      // A rebuild's batches need not reach the disk one by one: a crash leaves a scratch schema
      // the next rebuild drops, and the swap (or the final checkpoint) is durable and syncs them.
      await target.transaction(async (tx) => {
        await tx.exec(`set local search_path to ${ident(schema)}, public`);
        await this.apply(tx, events, touched);
      }, { deferSync: true });
      position = events[events.length - 1].position;
      applied += events.length;
      options.onProgress?.({ applied, total, position });
      const took = performance.now() - started;
      if (took > BATCH_MS && batch > 50) batch = Math.max(50, Math.floor(batch / 2));
      else if (took < BATCH_MS / 3 && batch < most) batch = Math.min(most, batch * 2);
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    // What the handlers skipped while rebuilding (boards, counters) is computed once, set-based.
    await target.transaction(async (tx) => {
      await tx.exec(`set local search_path to ${ident(schema)}, public`);
      for (const projection of this.projections) await projection.finishRebuild?.(tx);
      if (touched.size > 0) await this.#checkpoint(tx, touched, position);
    });
    // Fresh statistics for the rebuilt tables (PGlite never gathers them by itself).
    if (target.kind === "pglite") {
      const tables = this.projections.flatMap((p) => p.tables).map((t) => `${ident(schema)}.${ident(t)}`);
      await target.exec(`analyze ${tables.join(", ")}`);
    }
    const seconds = (performance.now() - started) / 1000;
    return { events: applied, seconds, eventsPerSecond: applied / Math.max(seconds, 1e-9), position };
  }

  /** Rebuilds the live read models: into a fresh schema, then swapped in at once. */
  async replay(options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<RebuildReport> {
    const report = await this.rebuild(`${LIVE_SCHEMA}_next`, options);
    await this.db.transaction(async (tx) => {
      await tx.exec(`drop schema if exists ${LIVE_SCHEMA} cascade`);
      await tx.exec(`alter schema ${LIVE_SCHEMA}_next rename to ${LIVE_SCHEMA}`);
    });
    // Appends that landed during the rebuild (after its head) are applied now.
    await this.catchUp(report.position);
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

  /** Rebuilds into a scratch schema and compares it with the live read models, table by table. */
  async verify(options: { onProgress?: (progress: RebuildProgress) => void } = {}): Promise<{
    report: RebuildReport;
    differences: TableDifference[];
    tables: number;
  }> {
    const scratch = `${LIVE_SCHEMA}_verify`;
    const head = await this.store.headPosition();
    const report = await this.rebuild(scratch, { until: head, onProgress: options.onProgress });
    const differences: TableDifference[] = [];
    let tables = 0;
    for (const projection of this.projections) {
      for (const table of projection.tables) {
        tables++;
        const columns = await this.db.query<{ column_name: string }>(
          `select column_name from information_schema.columns
            where table_schema = $1 and table_name = $2 order by ordinal_position`,
          [scratch, table],
        );
        const list = columns.map((c) => `"${c.column_name}"`).join(", ");
        const live = `select ${list} from ${LIVE_SCHEMA}.${ident(table)}`;
        const rebuilt = `select ${list} from ${scratch}.${ident(table)}`;
        const diff = async (a: string, b: string) =>
          (await this.db.query<{ row: string }>(
            `select row_to_json(d)::text as row from (${a} except all ${b}) d limit 20`,
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
    await this.db.exec(`drop schema if exists ${scratch} cascade`);
    return { report, differences, tables };
  }
}
