import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { type FSWatcher, watch } from "chokidar";
import { type ApiResult, isHold, type TokenProvider, UploadClient } from "./api.ts";
import { defaultVolumeRoots, detectDevice, folderSource, listVolumes, type Source } from "./devices.ts";
import { dataTypeOf, externalIdOf, fileErrorMessage, isActivityFile, readActivityFile } from "./files.ts";
import { entryKey, FINAL_STATUSES, Ledger, type LedgerEntry } from "./ledger.ts";

export interface CompanionOptions {
  /** The platform's base URL (the API is at <server>/v3). */
  server: string;
  tokens: TokenProvider;
  /** Where the ledger, queued copies and settings live. */
  stateDir: string;
  /** Extra folders to watch (Wahoo/COROS/Suunto exports, a drop folder). */
  folders?: string[];
  /** Where removable volumes appear; defaults to the platform's (`/media/$USER`, `/Volumes`, drive letters). */
  volumeRoots?: string[];
  /** How often the volume roots are looked at for new or removed devices. */
  volumeScanMs?: number;
  /** A file counts once its size stopped changing for this long (chokidar awaitWriteFinish). */
  stabilityMs?: number;
  /** Retry back-off after an outage: base doubles per attempt up to max. */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** Polling of GET /v3/uploads/:id: first after this long (never under 1 s), backing off ×1.5 to max. */
  pollFirstMs?: number;
  pollMaxMs?: number;
}

export type FileEventName =
  | "seen"
  | "uploading"
  | "processing"
  | "ready"
  | "duplicate"
  | "error"
  | "deleted"
  | "rate_limited";

/** One thing that happened to a file (printed as one JSON line with --json). */
export interface FileEvent {
  event: FileEventName;
  path: string;
  file: string;
  device: string;
  status?: string;
  upload_id?: string;
  activity_id?: string;
  activity_url?: string;
  existing_activity_id?: string;
  message?: string;
  will_retry?: boolean;
  retry_at?: string;
  until?: string;
  at: string;
}

export interface DeviceEvent {
  event: "device_connected" | "device_removed" | "folder_added" | "folder_removed" | "watch_error";
  device: string;
  folder: string;
  message?: string;
  at: string;
}

export type CompanionEvent = FileEvent | DeviceEvent;

export interface CompanionState {
  server: string;
  devices: { id: string; name: string; kind: string; folder: string; volume?: string; serial?: string }[];
  files: (LedgerEntry & { activityUrl?: string; retryAt?: string })[];
  counts: { pending: number; ready: number; duplicate: number; error: number };
  rateLimit?: { until: string; message: string };
  problem?: string;
  recent: CompanionEvent[];
}

interface Watched {
  source: Source;
  watcher: FSWatcher;
}

const PENDING = new Set(["queued", "uploading", "processing"]);

/** The headless core: finds devices and folders, keeps the ledger, runs the durable upload queue. */
export class Companion {
  readonly ledger: Ledger;
  readonly client: UploadClient;
  readonly #options: Required<Omit<CompanionOptions, "folders" | "tokens">> & { folders: string[] };
  readonly #watched = new Map<string, Watched>();
  readonly #listeners = new Set<(event: CompanionEvent) => void>();
  readonly #pollAt = new Map<string, number>();
  readonly #pollDelay = new Map<string, number>();
  readonly #pollFailures = new Map<string, number>();
  readonly #recent: CompanionEvent[] = [];
  #fileChain: Promise<void> = Promise.resolve();
  #scanTimer: ReturnType<typeof setInterval> | undefined;
  #lanes: Promise<void>[] = [];
  readonly #wakers = new Set<() => void>();
  #stopped = true;
  #abort = new AbortController();
  #pausedUntil = 0;
  #rateLimitMessage: string | undefined;
  #problem: string | undefined;

  constructor(given: CompanionOptions) {
    // Options given as undefined keep their defaults.
    const options = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as CompanionOptions;
    this.#options = {
      volumeRoots: defaultVolumeRoots(),
      volumeScanMs: 2000,
      stabilityMs: 1000,
      backoffBaseMs: 2000,
      backoffMaxMs: 5 * 60_000,
      pollFirstMs: 1000,
      pollMaxMs: 15_000,
      ...options,
      folders: options.folders ?? [],
    };
    this.#options.pollFirstMs = Math.max(1000, this.#options.pollFirstMs);
    this.ledger = Ledger.open(options.stateDir);
    this.client = new UploadClient(options.server, options.tokens);
  }

  get server(): string {
    return this.#options.server;
  }

  on(listener: (event: CompanionEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts watching folders and volumes and resumes the queue left by a previous run. */
  async start(): Promise<void> {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#abort = new AbortController();
    for (const folder of this.#options.folders) await this.addFolder(folder);
    await this.scanVolumes();
    if (this.#options.volumeRoots.length) {
      this.#scanTimer = setInterval(() => void this.scanVolumes(), this.#options.volumeScanMs);
    }
    // Two lanes: uploads never wait behind a slow status poll, and polls never wait behind an upload.
    this.#lanes = [this.#runQueue("upload"), this.#runQueue("poll")];
  }

  /** Stops watching; an upload in flight is abandoned and resumed by the next run. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#scanTimer);
    this.#abort.abort();
    this.#wake();
    await Promise.all([...this.#watched.values()].map((w) => w.watcher.close()));
    this.#watched.clear();
    await this.#fileChain.catch(() => {});
    await Promise.all(this.#lanes.map((lane) => lane.catch(() => {})));
  }

  /** Wakes the queue now (the UI's "Retry now"); waiting out a rate limit is kept. */
  retryNow(): void {
    for (const entry of this.ledger.entries()) {
      if (entry.status === "queued" || entry.status === "uploading") {
        entry.nextAttemptAt = Math.max(Date.now(), this.#pausedUntil);
      }
    }
    for (const key of this.#pollAt.keys()) this.#pollAt.set(key, Math.max(Date.now(), this.#pausedUntil));
    this.#problem = undefined;
    this.#wake();
  }

  #wake(): void {
    for (const wake of [...this.#wakers]) wake();
  }

  async addFolder(folder: string): Promise<Source> {
    const source = folderSource(folder);
    if (!this.#options.folders.includes(source.folder)) this.#options.folders.push(source.folder);
    if (!this.#stopped && !this.#watched.has(source.folder)) {
      await this.#watch(source);
      this.#emit({ event: "folder_added", device: source.name, folder: source.folder, at: now() });
    }
    return source;
  }

  async removeFolder(folder: string): Promise<void> {
    const source = folderSource(folder);
    this.#options.folders = this.#options.folders.filter((f) => f !== source.folder);
    const watched = this.#watched.get(source.folder);
    if (watched) {
      this.#watched.delete(source.folder);
      await watched.watcher.close();
      this.#emit({ event: "folder_removed", device: source.name, folder: source.folder, at: now() });
    }
  }

  /** Looks for new and removed volumes (also runs every volumeScanMs). */
  async scanVolumes(): Promise<void> {
    if (this.#stopped) return;
    const volumes = new Set(listVolumes(this.#options.volumeRoots));
    for (const [folder, w] of this.#watched) {
      if (w.source.kind === "device" && !volumes.has(w.source.volume!)) {
        this.#watched.delete(folder);
        await w.watcher.close();
        this.#emit({ event: "device_removed", device: w.source.name, folder, at: now() });
      }
    }
    const watchedVolumes = new Set([...this.#watched.values()].map((w) => w.source.volume));
    for (const volume of volumes) {
      if (watchedVolumes.has(volume)) continue;
      const device = detectDevice(volume);
      if (!device || this.#watched.has(device.folder) || this.#stopped) continue;
      await this.#watch(device);
      this.#emit({ event: "device_connected", device: device.name, folder: device.folder, at: now() });
    }
  }

  async #watch(source: Source): Promise<void> {
    const watcher = watch(source.folder, {
      ignoreInitial: false,
      depth: source.kind === "device" ? 0 : 4,
      awaitWriteFinish: {
        stabilityThreshold: this.#options.stabilityMs,
        pollInterval: Math.min(100, this.#options.stabilityMs),
      },
      ignored: (path, stats) => !!stats?.isFile() && !isActivityFile(path),
    });
    this.#watched.set(source.folder, { source, watcher });
    const onFile = (path: string) => {
      if (!isActivityFile(path)) return;
      this.#fileChain = this.#fileChain.then(() => this.#onFile(path, source)).catch((error) =>
        this.#emit({
          event: "watch_error",
          device: source.name,
          folder: source.folder,
          message: String(error),
          at: now(),
        })
      );
    };
    watcher.on("add", onFile);
    watcher.on("change", onFile);
    watcher.on(
      "error",
      (error) =>
        this.#emit({
          event: "watch_error",
          device: source.name,
          folder: source.folder,
          message: fileErrorMessage(error),
          at: now(),
        }),
    );
    await new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  }

  /** A file whose size stopped changing: known already, a copy of a known one, or new to the queue. */
  async #onFile(path: string, source: Source): Promise<void> {
    if (this.#stopped) return;
    const base = { path, file: basename(path), device: source.name };
    let read;
    try {
      read = await readActivityFile(path);
    } catch (error) {
      this.#emit({ ...base, event: "error", message: fileErrorMessage(error), will_retry: false, at: now() });
      return;
    }
    const key = entryKey(source.id, base.file, read.size, read.sha256);
    const known = this.ledger.get(key);
    if (known) {
      if (known.path !== path) this.ledger.update(key, { path });
      this.#emit({ ...base, event: "seen", status: known.status, ...this.#ids(known), at: now() });
      return;
    }
    const timestamp = now();
    const entry: LedgerEntry = {
      key,
      sourceId: source.id,
      sourceName: source.name,
      name: base.file,
      size: read.size,
      sha256: read.sha256,
      path,
      dataType: dataTypeOf(path)!,
      externalId: externalIdOf(path),
      status: "queued",
      attempts: 0,
      nextAttemptAt: Date.now(),
      seenAt: timestamp,
      updatedAt: timestamp,
    };
    const primary = this.ledger.byHash(read.sha256);
    if (primary) {
      const activity = primary.activityId ?? primary.duplicateOfActivityId;
      this.ledger.add({
        ...entry,
        status: "duplicate",
        duplicateOfKey: primary.key,
        duplicateOfActivityId: activity,
        error: `Same recording as ${primary.name}${activity ? ` (activity ${activity})` : ""}; not uploaded again.`,
        nextAttemptAt: undefined,
      });
      this.#emit({ ...base, event: "seen", at: timestamp });
      this.#emit({
        ...base,
        event: "duplicate",
        existing_activity_id: activity,
        activity_url: activity ? this.activityUrl(activity) : undefined,
        message: `Same recording as ${primary.name}, already ${
          primary.status === "ready" ? "uploaded" : primary.status
        }.`,
        at: now(),
      });
      return;
    }
    this.ledger.stash(read.sha256, read.bytes);
    this.ledger.add(entry);
    this.#emit({ ...base, event: "seen", status: "queued", at: timestamp });
    this.#wake();
  }

  activityUrl(activityId: string): string {
    return `${this.#options.server.replace(/\/+$/, "")}/activities/${activityId}`;
  }

  #ids(entry: LedgerEntry): Partial<FileEvent> {
    const activity = entry.activityId ?? entry.duplicateOfActivityId;
    return {
      upload_id: entry.uploadId,
      activity_id: entry.activityId,
      existing_activity_id: entry.activityId ? undefined : entry.duplicateOfActivityId,
      activity_url: activity ? this.activityUrl(activity) : undefined,
    };
  }

  // ---- the durable queue -------------------------------------------------------------------

  #nextWork(lane: "upload" | "poll"): { entry: LedgerEntry; at: number } | undefined {
    let best: { entry: LedgerEntry; at: number } | undefined;
    for (const entry of this.ledger.entries()) {
      if (!PENDING.has(entry.status) || (entry.status === "processing") !== (lane === "poll")) continue;
      const at = entry.status === "processing" ? this.#pollAt.get(entry.key) ?? 0 : entry.nextAttemptAt ?? 0;
      if (!best || at < best.at || (at === best.at && entry.seenAt < best.entry.seenAt)) best = { entry, at };
    }
    return best;
  }

  async #runQueue(lane: "upload" | "poll"): Promise<void> {
    while (!this.#stopped) {
      const current = Date.now();
      if (this.#pausedUntil > current) {
        await this.#sleep(this.#pausedUntil - current);
        continue;
      }
      const work = this.#nextWork(lane);
      if (!work) {
        await this.#sleep(60_000);
        continue;
      }
      if (work.at > current) {
        await this.#sleep(work.at - current);
        continue;
      }
      try {
        if (work.entry.status === "processing") await this.#poll(work.entry);
        else await this.#upload(work.entry);
      } catch (error) {
        // A bug or a local failure on one file must not stop the others.
        if (this.#stopped) break;
        this.#retryLater(work.entry, `Unexpected problem: ${(error as Error).message}`);
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
      this.#wakers.add(done);
    });
  }

  async #upload(entry: LedgerEntry): Promise<void> {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(this.ledger.stashPath(entry.sha256)));
    } catch {
      try {
        bytes = (await readActivityFile(entry.path)).bytes;
      } catch (error) {
        this.#finish(
          entry,
          { status: "error", error: `The queued copy is gone and ${fileErrorMessage(error)}` },
          "error",
        );
        return;
      }
    }
    this.ledger.update(entry.key, { status: "uploading", attempts: entry.attempts + 1 });
    this.#emitFile(entry, "uploading", {});
    const wasUncertain = entry.submitted === true;
    this.ledger.update(entry.key, { submitted: true });
    const result = await this.client.upload({
      bytes,
      name: entry.name,
      dataType: entry.dataType,
      externalId: entry.externalId,
    }, this.#abort.signal);
    if (this.#stopped) return;
    this.#handle(entry, result, wasUncertain);
  }

  async #poll(entry: LedgerEntry): Promise<void> {
    const result = await this.client.status(entry.uploadId!, this.#abort.signal);
    if (this.#stopped) return;
    this.#handle(entry, result, false);
  }

  #handle(entry: LedgerEntry, result: ApiResult, uncertainBefore: boolean): void {
    if (isHold(result)) {
      if (result.hold !== "unavailable" && entry.status === "uploading") {
        this.ledger.update(entry.key, { submitted: uncertainBefore });
      }
      if (result.hold === "rate_limited") {
        this.#pausedUntil = result.until;
        this.#rateLimitMessage = result.message;
        if (entry.status === "uploading") {
          this.ledger.update(entry.key, { status: "queued", nextAttemptAt: result.until });
        } else this.#pollAt.set(entry.key, result.until);
        this.#emitFile(entry, "rate_limited", { message: result.message, until: new Date(result.until).toISOString() });
        return;
      }
      if (result.hold === "unauthorized") this.#problem = result.message;
      this.#retryLater(entry, result.message);
      return;
    }
    this.#rateLimitMessage = undefined;
    this.#problem = undefined;
    this.#pollFailures.delete(entry.key);
    switch (result.state) {
      case "processing": {
        const firstTime = entry.status !== "processing";
        this.ledger.update(entry.key, {
          status: "processing",
          uploadId: result.uploadId,
          submitted: false,
          error: undefined,
        });
        const delay = firstTime
          ? this.#options.pollFirstMs
          : Math.min(this.#options.pollMaxMs, (this.#pollDelay.get(entry.key) ?? this.#options.pollFirstMs) * 1.5);
        this.#pollDelay.set(entry.key, delay);
        this.#pollAt.set(entry.key, Date.now() + delay);
        if (firstTime) {
          this.#emitFile(entry, "processing", { upload_id: result.uploadId });
          this.#wake();
        }
        return;
      }
      case "ready":
        this.#finish(entry, {
          status: "ready",
          uploadId: result.uploadId,
          activityId: result.activityId,
          error: undefined,
        }, "ready");
        return;
      case "duplicate":
        if (uncertainBefore && entry.status === "uploading" && result.activityId) {
          // An earlier attempt reached the server but its answer was lost: the activity is ours.
          this.#finish(entry, {
            status: "ready",
            activityId: result.activityId,
            uploadId: result.uploadId ?? entry.uploadId,
            error: undefined,
          }, "ready");
        } else {
          this.#finish(entry, {
            status: "duplicate",
            uploadId: result.uploadId ?? entry.uploadId,
            duplicateOfActivityId: result.activityId,
            error: result.message,
          }, "duplicate");
        }
        return;
      case "error":
        this.#finish(
          entry,
          { status: "error", uploadId: result.uploadId ?? entry.uploadId, error: result.message },
          "error",
        );
        return;
      case "deleted":
        this.#finish(entry, {
          status: "deleted",
          uploadId: result.uploadId,
          error: "The activity was deleted on the server; it won't be uploaded again.",
        }, "deleted");
        return;
    }
  }

  #finish(entry: LedgerEntry, patch: Partial<LedgerEntry>, event: FileEventName): void {
    const updated = this.ledger.update(entry.key, { ...patch, submitted: false, nextAttemptAt: undefined });
    this.ledger.unstash(entry.sha256);
    this.#pollAt.delete(entry.key);
    this.#pollDelay.delete(entry.key);
    this.#emitFile(updated, event, {
      ...this.#ids(updated),
      message: event === "ready" ? undefined : updated.error,
      will_retry: event === "error" ? false : undefined,
    });
  }

  #retryLater(entry: LedgerEntry, message: string): void {
    const failures = entry.status === "processing"
      ? (this.#pollFailures.get(entry.key) ?? 0) + 1
      : Math.max(1, entry.attempts);
    const delay = Math.min(this.#options.backoffMaxMs, this.#options.backoffBaseMs * 2 ** (failures - 1)) *
      (1 + Math.random() * 0.2);
    const at = Date.now() + delay;
    if (entry.status === "processing") {
      this.#pollFailures.set(entry.key, failures);
      this.#pollAt.set(entry.key, at);
      this.ledger.update(entry.key, { error: message });
    } else {
      this.ledger.update(entry.key, { status: "queued", nextAttemptAt: at, error: message });
    }
    this.#emitFile(entry, "error", { message, will_retry: true, retry_at: new Date(at).toISOString() });
  }

  #emitFile(entry: LedgerEntry, event: FileEventName, extra: Partial<FileEvent>): void {
    this.#emit(
      { event, path: entry.path, file: entry.name, device: entry.sourceName, ...extra, at: now() } as FileEvent,
    );
  }

  #emit(event: CompanionEvent): void {
    const clean = Object.fromEntries(
      Object.entries(event).filter(([, v]) => v !== undefined),
    ) as unknown as CompanionEvent;
    this.#recent.push(clean);
    if (this.#recent.length > 200) this.#recent.shift();
    for (const listener of this.#listeners) {
      try {
        listener(clean);
      } catch { /* a listener's failure is not the queue's */ }
    }
  }

  /** Everything the UI shows. */
  state(): CompanionState {
    const files = this.ledger.entries()
      .sort((a, b) => (a.seenAt < b.seenAt ? 1 : a.seenAt > b.seenAt ? -1 : 0))
      .map((e) => {
        const activity = e.activityId ?? e.duplicateOfActivityId;
        return {
          ...e,
          activityUrl: activity ? this.activityUrl(activity) : undefined,
          retryAt: e.status === "queued" && e.error && e.nextAttemptAt
            ? new Date(e.nextAttemptAt).toISOString()
            : undefined,
        };
      });
    const counts = { pending: 0, ready: 0, duplicate: 0, error: 0 };
    for (const f of files) {
      if (PENDING.has(f.status)) counts.pending++;
      else if (f.status === "ready") counts.ready++;
      else if (f.status === "duplicate") counts.duplicate++;
      else if (FINAL_STATUSES.has(f.status)) counts.error++;
    }
    return {
      server: this.#options.server,
      devices: [...this.#watched.values()].map(({ source }) => ({ ...source })),
      files,
      counts,
      rateLimit: this.#pausedUntil > Date.now() && this.#rateLimitMessage
        ? { until: new Date(this.#pausedUntil).toISOString(), message: this.#rateLimitMessage }
        : undefined,
      problem: this.#problem,
      recent: [...this.#recent],
    };
  }
}

function now(): string {
  return new Date().toISOString();
}
