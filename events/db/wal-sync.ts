import { closeSync, fdatasyncSync, openSync } from "node:fs";
import { open } from "node:fs/promises";

/** How much the group commit saved: syncs run, and calls that waited for one. */
export interface WalSyncStats {
  syncs: number;
  waits: number;
}

function missing(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "ENOENT";
}

async function datasync(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if (missing(error)) return; // a recycled segment: PostgreSQL no longer needs its contents
    throw error;
  }
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

function datasyncNow(path: string): void {
  let fd;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    if (missing(error)) return;
    throw error;
  }
  try {
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The write-ahead log files PGlite wrote since the last sync, and their group commit: PGlite's
 * file layer turns PostgreSQL's fdatasync of the WAL at commit into a no-op, so the host syncs
 * those files after the statement returns and before its caller goes on (and answers 2xx).
 * Callers arriving while a sync runs share the next one.
 */
export class WalSync {
  private readonly dirty = new Set<string>();
  private inFlight: string[] = [];
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  /** Bumped on every WAL write: a statement that saw it move must wait for a sync. */
  writes = 0;
  readonly stats: WalSyncStats = { syncs: 0, waits: 0 };

  /** A WAL file received bytes. */
  written(path: string): void {
    this.writes++;
    this.dirty.add(path);
  }

  /** Resolves once every WAL byte written before the call is on stable storage. */
  flush(): Promise<void> {
    this.stats.waits++;
    if (this.dirty.size === 0) return this.running ?? Promise.resolve();
    if (!this.running) return this.start();
    this.next ??= this.running.catch(() => {}).then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<void> {
    const files = [...this.dirty];
    this.dirty.clear();
    if (files.length === 0) return Promise.resolve();
    this.inFlight = files;
    this.stats.syncs++;
    const run: Promise<void> = Promise.all(files.map(datasync)).then(
      () => {},
      (error) => {
        // Not on disk: the next sync tries these files again; the waiting callers fail.
        for (const file of files) this.dirty.add(file);
        throw error;
      },
    ).finally(() => {
      this.inFlight = [];
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  /**
   * Synchronously syncs the WAL written so far (also what an async sync is still working on):
   * PostgreSQL calls this before it fsyncs anything else (a checkpoint's data files, pg_control),
   * so nothing on disk ever points past the durable end of the WAL.
   */
  flushNow(): void {
    if (this.dirty.size === 0 && this.inFlight.length === 0) return;
    const files = new Set([...this.inFlight, ...this.dirty]);
    this.dirty.clear();
    for (const file of files) datasyncNow(file);
  }
}
