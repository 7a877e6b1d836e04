import type { Queryable } from "../events/db/types.ts";
import type { FusedPart, FusedSql } from "../events/store.ts";
import type { CatalogueEvent } from "../events/index.ts";
import type { RecordedEvent } from "../events/types.ts";
import type { BulkLoader } from "./bulk.ts";

/**
 * A read model: its tables (unqualified names; the runner points search_path at the live schema or
 * a scratch one), and how each event changes them. Handlers must be deterministic: only event data,
 * positions and recordedAt — never the clock — so a replay reproduces the tables exactly.
 * Implementations declare their events as `StoredEvent` (events/index.ts), the catalogue's
 * discriminated union: the store validated every event against its type's schema when it was
 * appended, so `switch (event.type)` narrows `event.data` without casts.
 */
export interface Projection {
  readonly name: string;
  /** Tables this read model owns, compared by `cli verify`. */
  readonly tables: readonly string[];
  /** Idempotent DDL (create table if not exists …) with unqualified names. */
  readonly schema: string;
  /** Event types it handles; others are not passed to apply. */
  readonly handles: readonly string[];
  /**
   * Optional: true when its handlers read only its own tables and no other projection's handlers
   * read them. The runner then applies its events of a transaction apart from the others' (all of
   * them through one applyBatch call), since its outcome cannot depend on their order relative to
   * other projections' events. tests/unit/replay-batch.test.ts checks the claim on the sources.
   */
  readonly isolated?: boolean;
  /**
   * Optional: the other projections (by name) whose tables its handlers read. A projection neither
   * isolated nor declaring this is assumed to read every other one (a rebuild then loads none of
   * them in bulk while it applies its events one by one). tests/unit/replay-batch.test.ts checks the
   * list against the sources.
   */
  readonly reads?: readonly string[];
  /**
   * Optional: what `apply` does for one appended event, as statements that run inside the append's
   * own statement (events/store.ts, FusedInline: one round trip for the append, the read model and
   * the checkpoint), or undefined when this event has no such form. `position` is SQL for the
   * event's position (null when the append was refused: the parts must then change nothing). It must
   * change exactly what `apply` changes (tests/unit/fused-append.test.ts).
   */
  fuse?(
    event: CatalogueEvent,
    sql: Omit<FusedSql, "position"> & { position: string },
  ): FusedPart[] | undefined;
  /**
   * Optional: told that its live tables were just replaced by a rebuild (cli replay, a new version's
   * first start): what a process keeps about them (server caches) is stale.
   */
  replaced?(): void;
  /** Optional: how a rebuild loads its tables from the whole log at once (projections/bulk.ts). */
  readonly bulk?: BulkLoader;
  /**
   * `rebuilding` is true while the runner rebuilds the read models from the whole log: a projection
   * offering `finishRebuild` may then skip what it maintains incrementally (boards, counters) and
   * compute it once, set-based, at the end.
   */
  apply(tx: Queryable, event: RecordedEvent, rebuilding?: boolean): Promise<void>;
  /**
   * Optional: applies a run of consecutive events (in log order) with few statements, for replay
   * speed. It must leave the tables exactly as `apply` one by one would. A projection offering it
   * must not read other projections' tables (the runner flushes runs before any other handler).
   */
  applyBatch?(tx: Queryable, events: RecordedEvent[], rebuilding?: boolean): Promise<void>;
  /**
   * Optional: run once at the end of a rebuild (after every event, in one transaction), to compute
   * what the handlers skipped while `rebuilding` — from the rebuilt tables, set-based. It must
   * leave the tables exactly as live maintenance does: `cli verify` compares the two.
   */
  finishRebuild?(tx: Queryable): Promise<void>;
}
