/**
 * Imports started over HTTP (the API and the /settings/import page) run in the background of the
 * server, as durable runs (events/archive-import): checkpoints every few seconds record the entries
 * finished, so the status survives a restart, and a server starting again resumes an unfinished
 * import (its archive waits in DATA_DIR/imports), skipping what was checkpointed. While a run is
 * live in this process its counts are read from memory (fresher than the last checkpoint).
 */
import { existsSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { archiveImportDecider } from "../../events/archive-import/decide.ts";
import {
  archiveImportProgressed,
  archiveImportStarted,
  archiveImportStream,
} from "../../events/archive-import/events.ts";
import { DomainError, fold } from "../../events/decider.ts";
import { catalogued } from "../../events/index.ts";
import {
  type ArchiveImportRow,
  archiveImportsOf,
  findArchiveImport,
  unfinishedArchiveImport,
  unfinishedArchiveImports,
} from "../../projections/archive-imports/queries.ts";
import type { JobKind } from "../jobs/runner.ts";
import { randomSecret } from "../security.ts";
import type { Platform } from "../platform.ts";
import { systemActor } from "../actor.ts";
import {
  finishArchiveImport,
  recordArchiveImportProgress,
  resumeArchiveImport,
  startArchiveImport,
} from "./commands.ts";
import {
  type EntryOutcome,
  importArchive,
  type ImportFailure,
  type ImportProgress,
  ImportStopped,
  REPORTED_FAILURES,
} from "./import.ts";
import { inboxDir } from "./inbox.ts";
import { ArchiveRefused } from "./zip.ts";

export interface ImportRun {
  id: string;
  athleteId: number;
  fileName: string;
  /** interrupted: the server stopped during the run (it resumes when the server is up), or its archive was lost. */
  state: "running" | "done" | "refused" | "interrupted";
  progress: ImportProgress;
  /** Why the archive was refused (not a zip, unknown layout, zip bomb, …) or the run interrupted. */
  error: string | null;
  finishedAt: number | null;
  /** How many times a restarted server resumed it. */
  resumed: number;
}

/** Checkpoints of a live run: at most this often (IMPORT_CHECKPOINT_MS). */
const CHECKPOINT_MS = 2_000;
/** Entries, and failures, recorded per checkpoint event at most. */
const CHECKPOINT_ITEMS = 250;
/**
 * On PostgreSQL (several servers), an unfinished import is taken over only after this long without
 * a checkpoint (its server is gone); on PGlite only one process holds the data, so at once.
 */
const QUIET_SECONDS_SHARED = 600;

interface LiveRun {
  id: string;
  athleteId: number;
  fileName: string;
  /** What earlier runs of this import checkpointed (a resumed run adds to it). */
  base: {
    done: number;
    imported: number;
    duplicates: number;
    skipped: number;
    failed: ImportFailure[];
    failedCount: number;
  };
  progress: ImportProgress;
  startedAt: number;
  resumed: number;
}

/** Runs live in this process. */
const live = new Map<string, LiveRun>();

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The status body of GET /v3/athlete/imports/:id. */
export function importStatusBody(run: ImportRun) {
  const p = run.progress;
  return {
    id: run.id,
    file_name: run.fileName,
    status: run.state,
    layout: p.layout,
    total: p.total,
    done: p.done,
    imported: p.imported,
    duplicates: p.duplicates,
    skipped: p.skipped,
    // The first failures only (REPORTED_FAILURES): the body stays small however many there are.
    failed: p.failed.slice(0, REPORTED_FAILURES).map((f: ImportFailure) => ({ file: f.file, error: f.error })),
    failed_count: Math.max(p.failedCount, p.failed.length),
    error: run.error,
    resumed: run.resumed,
    started_at: iso(p.startedAt),
    finished_at: run.finishedAt ? iso(run.finishedAt) : null,
  };
}

function fromLive(run: LiveRun): ImportRun {
  const p = run.progress;
  const b = run.base;
  return {
    id: run.id,
    athleteId: run.athleteId,
    fileName: run.fileName,
    state: "running",
    progress: {
      layout: p.layout,
      total: Math.max(p.total, b.done),
      done: b.done + p.done,
      imported: b.imported + p.imported,
      duplicates: b.duplicates + p.duplicates,
      skipped: b.skipped + p.skipped,
      failed: [...b.failed, ...p.failed.slice(0, Math.max(0, REPORTED_FAILURES - b.failed.length))],
      failedCount: b.failedCount + p.failedCount,
      startedAt: run.startedAt,
    },
    error: null,
    finishedAt: null,
    resumed: run.resumed,
  };
}

function fromRow(platform: Platform, row: ArchiveImportRow): ImportRun {
  const here = live.get(row.id);
  if (here) return fromLive(here);
  // Not live here: on PGlite (one process) a "running" row is a run cut short, waiting to be resumed.
  const quiet = platform.db.kind === "pglite" ||
    Date.now() - new Date(row.updated_at).getTime() > QUIET_SECONDS_SHARED * 1000;
  return {
    id: row.id,
    athleteId: row.athlete_id,
    fileName: row.file_name,
    state: row.status === "running" && quiet ? "interrupted" : row.status,
    progress: {
      layout: row.layout,
      total: row.total,
      done: row.done,
      imported: row.imported,
      duplicates: row.duplicates,
      skipped: row.skipped,
      failed: row.failed,
      failedCount: Math.max(row.failed_count, row.failed.length),
      startedAt: new Date(row.started_at).getTime(),
    },
    error: row.error,
    finishedAt: row.finished_at ? new Date(row.finished_at).getTime() : null,
    resumed: row.resumed,
  };
}

/**
 * Every failure of an import of the athlete, from its events (the status keeps only the first
 * REPORTED_FAILURES), a page of events at a time; undefined for an import that is not the athlete's.
 * A running import's list is its last checkpoint's (at most a couple of seconds behind). Read in
 * pages: 50,000 failures are ~200 events of 5 MB, and one read of them held the event loop 1.8 s.
 */
export async function importFailurePages(
  platform: Platform,
  id: string,
  athleteId: number,
): Promise<AsyncIterable<ImportFailure[]> | undefined> {
  if (!/^[0-9a-f]{16}$/.test(id)) return undefined;
  const stream = archiveImportStream(id);
  const [first] = await platform.store.readStream(stream, 0, 1);
  const started = first && catalogued(first);
  if (!started || started.type !== archiveImportStarted.type || started.data.athleteId !== athleteId) return undefined;
  return (async function* () {
    for (let after = 0;;) {
      const events = await platform.store.readStream(stream, after, FAILURE_EVENTS_PER_PAGE);
      if (!events.length) return;
      after = events[events.length - 1].streamVersion;
      const failures: ImportFailure[] = [];
      for (const event of events.map(catalogued)) {
        if (event.type === archiveImportProgressed.type) { for (const f of event.data.failed) failures.push(f); }
      }
      if (failures.length) yield failures;
    }
  })();
}

const FAILURE_EVENTS_PER_PAGE = 8;

export async function findImportRun(platform: Platform, id: string, athleteId: number): Promise<ImportRun | undefined> {
  const row = await findArchiveImport(platform.db, id, athleteId);
  return row ? fromRow(platform, row) : undefined;
}

/** The athlete's latest imports, newest first. */
export async function importRunsOf(platform: Platform, athleteId: number, limit = 20): Promise<ImportRun[]> {
  return (await archiveImportsOf(platform.db, athleteId, limit)).map((row) => fromRow(platform, row));
}

/** Who runs an import: the athlete, through the API or the page (`archive:api`, `archive:web`). */
const actorOf = (athleteId: number, via: string) => systemActor(`archive:${via}`, athleteId);

/** Records the import (ArchiveImportStarted) and starts it in the background; returns at once. */
export async function startImportRun(
  platform: Platform,
  input: { athleteId: number; path: string; fileName: string; bytes: number; via: "web" | "api" },
): Promise<ImportRun> {
  const id = randomSecret(8);
  const run: LiveRun = {
    id,
    athleteId: input.athleteId,
    fileName: input.fileName,
    base: { done: 0, imported: 0, duplicates: 0, skipped: 0, failed: [], failedCount: 0 },
    progress: {
      layout: null,
      total: 0,
      done: 0,
      imported: 0,
      duplicates: 0,
      skipped: 0,
      failed: [],
      failedCount: 0,
      startedAt: Date.now(),
    },
    startedAt: Date.now(),
    resumed: 0,
  };
  // Live before it is recorded: the resume job never takes a run this process is starting.
  live.set(id, run);
  try {
    await startArchiveImport(
      platform,
      {
        importId: id,
        athleteId: input.athleteId,
        fileName: input.fileName,
        via: input.via,
        archiveFile: basename(input.path),
        bytes: input.bytes,
      },
      actorOf(input.athleteId, input.via),
    );
  } catch (error) {
    live.delete(id);
    throw error;
  }
  launch(platform, run, input.path, new Set(), input.via);
  return fromLive(run);
}

/** Resumes an unfinished import (a server starting again): the entries already checkpointed are skipped. */
export async function resumeImportRun(platform: Platform, row: ArchiveImportRow): Promise<void> {
  if (live.has(row.id)) return;
  const stream = archiveImportStream(row.id);
  const state = fold(archiveImportDecider, await platform.store.readStream(stream));
  if (state.finished) return;
  const actor = actorOf(row.athlete_id, row.via);
  const path = join(inboxDir(platform), row.archive_file);
  if (!existsSync(path)) {
    await finishArchiveImport(platform, {
      importId: row.id,
      athleteId: row.athlete_id,
      outcome: "interrupted",
      error: "the archive is no longer on this server: import it again (nothing is imported twice)",
    }, actor);
    return;
  }
  const run: LiveRun = {
    id: row.id,
    athleteId: row.athlete_id,
    fileName: row.file_name,
    base: {
      done: row.done,
      imported: row.imported,
      duplicates: row.duplicates,
      skipped: row.skipped,
      failed: row.failed,
      failedCount: Math.max(row.failed_count, row.failed.length),
    },
    progress: {
      layout: row.layout,
      total: row.total,
      done: 0,
      imported: 0,
      duplicates: 0,
      skipped: 0,
      failed: [],
      failedCount: 0,
      startedAt: Date.now(),
    },
    startedAt: new Date(row.started_at).getTime(),
    resumed: row.resumed + 1,
  };
  live.set(row.id, run);
  try {
    await resumeArchiveImport(platform, row.id, row.athlete_id, actor);
  } catch (error) {
    live.delete(row.id);
    throw error;
  }
  launch(platform, run, path, state.done, row.via);
}

/** Runs the import, checkpointing as it goes; the end is recorded unless the server is stopping. */
function launch(platform: Platform, run: LiveRun, path: string, done: ReadonlySet<string>, via: "web" | "api"): void {
  const actor = actorOf(run.athleteId, via);
  const stopping = () => !platform.jobs.running;
  const finished: { key: string; outcome: EntryOutcome }[] = [];
  /** Every failure since the last checkpoint (all of them are recorded: the download lists them). */
  const failures: ImportFailure[] = [];
  let chain: Promise<unknown> = Promise.resolve();
  /**
   * Appends what finished since the last checkpoint (one at a time; never while the server stops),
   * at most CHECKPOINT_ITEMS entries and failures per event: 50,000 rows failing at once made one
   * multi-megabyte event, written and read back in the server's thread.
   */
  const checkpoint = () => {
    chain = chain.then(async () => {
      do {
        if (stopping()) return;
        const entries = finished.splice(0, CHECKPOINT_ITEMS);
        const failed = failures.splice(0, CHECKPOINT_ITEMS);
        await recordArchiveImportProgress(platform, {
          importId: run.id,
          athleteId: run.athleteId,
          layout: run.progress.layout,
          total: Math.max(run.progress.total, run.base.done),
          entries,
          failed,
        }, actor);
      } while (finished.length > 0 || failures.length > 0);
    }).catch((error) => console.error(`archive import ${run.id}: checkpoint failed: ${(error as Error).message}`));
    return chain;
  };
  const timer = setInterval(() => void checkpoint(), platform.config.importCheckpointMs ?? CHECKPOINT_MS);
  const finish = async (outcome: "done" | "refused" | "interrupted", error: string | null) => {
    await checkpoint();
    if (stopping()) return;
    await finishArchiveImport(platform, { importId: run.id, athleteId: run.athleteId, outcome, error }, actor);
    rmSync(path, { force: true });
  };
  void importArchive(platform, {
    athleteId: run.athleteId,
    path,
    via,
    onProgress: (p) => (run.progress = p),
    onFailure: (failure) => failures.push(failure),
    isDone: (key) => done.has(key),
    onEntry: (key, outcome) => finished.push({ key, outcome }),
    shouldStop: stopping,
  })
    .then(() => finish("done", null))
    .catch((error) => {
      if (error instanceof ImportStopped || stopping()) return;
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof ArchiveRefused || error instanceof DomainError) return finish("refused", message);
      return finish("interrupted", message);
    })
    .catch((error) => console.error(`archive import ${run.id}: ${(error as Error).message}`))
    .finally(() => {
      clearInterval(timer);
      live.delete(run.id);
    });
}

/**
 * The durable job that resumes unfinished imports when a server starts (or takes over one whose
 * server is gone). Its run only launches the import in the background and returns: an import
 * never holds one of the job runner's slots, which the upload jobs it feeds need.
 */
export function archiveImportJob(platform: Platform): JobKind {
  return {
    kind: "archive-import",
    leaseSeconds: 60,
    async pending(db, limit) {
      const rows = await unfinishedArchiveImports(db, db.kind === "pglite" ? 0 : QUIET_SECONDS_SHARED, limit);
      return rows.filter((r) => !live.has(r.id)).map((r) => r.id);
    },
    async run(id) {
      if (live.has(id)) return;
      const row = await unfinishedArchiveImport(platform.db, id);
      if (row) await resumeImportRun(platform, row);
    },
  };
}
