import { closeSync, fdatasync, fdatasyncSync, openSync } from "node:fs";

/** How much the group commit saved: syncs run, and calls that waited for one. */
export interface WalSyncStats {
  syncs: number;
  waits: number;
}

function missing(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === "ENOENT";
}

const fdatasyncAsync = (fd: number) =>
  new Promise<void>((resolve, reject) => fdatasync(fd, (error) => error ? reject(error) : resolve()));

/** How many WAL files keep a descriptor open for their syncs (PostgreSQL writes one segment at a time). */
const OPEN_WAL_FILES = 4;

/**
 * The write-ahead log files PGlite wrote since the last sync, and their group commit: PGlite's
 * file layer turns PostgreSQL's fdatasync of the WAL at commit into a no-op, so the host syncs
 * those files after the statement returns and before its caller goes on (and answers 2xx).
 * Callers arriving while a sync runs share the next one. Each WAL file is opened once for its
 * syncs and kept open while PostgreSQL writes it (opening it for every sync cost the event loop
 * ≈ 70–115 µs per commit under load: Deno's open runs on the main thread); a file PostgreSQL
 * deletes or renames is closed (`forget`), so a descriptor always names the file written.
 */
export class WalSync {
  private readonly dirty = new Set<string>();
  private inFlight: string[] = [];
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  /** Open descriptors by path, least recently synced first; closed when a sync no longer runs on them. */
  private readonly fds = new Map<string, number>();
  private readonly closing: number[] = [];
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
    this.closeUnused(files);
    const run: Promise<void> = Promise.all(files.map((file) => this.datasync(file))).then(
      () => {},
      (error) => {
        // Not on disk: the next sync tries these files again; the waiting callers fail.
        for (const file of files) this.dirty.add(file);
        throw error;
      },
    ).finally(() => {
      this.inFlight = [];
      if (this.running === run) this.running = null;
      if (!this.running) this.closeDeferred();
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
    for (const file of files) {
      const fd = this.fd(file);
      if (fd !== undefined) fdatasyncSync(fd);
    }
  }

  /** PostgreSQL deleted or renamed a WAL file: its descriptor is closed (once no sync runs on it). */
  forget(path: string): void {
    this.dirty.delete(path);
    const fd = this.fds.get(path);
    if (fd === undefined) return;
    this.fds.delete(path);
    this.closing.push(fd);
    if (!this.running) this.closeDeferred();
  }

  /** The file's descriptor, opened on its first sync; undefined when the file is gone. */
  private fd(path: string): number | undefined {
    let fd = this.fds.get(path);
    if (fd !== undefined) {
      this.fds.delete(path);
    } else {
      try {
        fd = openSync(path, "r");
      } catch (error) {
        if (missing(error)) return undefined; // a removed segment: PostgreSQL no longer needs its contents
        throw error;
      }
    }
    this.fds.set(path, fd);
    return fd;
  }

  private async datasync(path: string): Promise<void> {
    const fd = this.fd(path);
    if (fd !== undefined) await fdatasyncAsync(fd);
  }

  /** Before a sync starts (none running): keeps at most OPEN_WAL_FILES descriptors, those of `files` first. */
  private closeUnused(files: string[]): void {
    this.closeDeferred();
    const excess = this.fds.size + files.filter((f) => !this.fds.has(f)).length - OPEN_WAL_FILES;
    if (excess <= 0) return;
    let closed = 0;
    for (const [path, fd] of this.fds) {
      if (closed >= excess) break;
      if (files.includes(path)) continue;
      this.fds.delete(path);
      closeSync(fd);
      closed++;
    }
  }

  private closeDeferred(): void {
    for (const fd of this.closing.splice(0)) closeSync(fd);
  }
}
