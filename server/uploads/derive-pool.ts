/**
 * The derive pool: decoding and deriving an upload (parse the device file, compute every fact and
 * stream) runs in worker threads, never on the server's event loop, at most `size` files at a time
 * (DERIVE_WORKERS, default one less than the cores). Further files wait in a queue. Workers start
 * on demand and stop after a while idle. With DERIVE_WORKERS=0 files are derived in place.
 */
import type { DataType } from "../ingest/decode.ts";
import type { DeriveContext } from "../ingest/derive.ts";
import { decodeAndDerive, type DecodedUpload } from "./decode-derive.ts";
import type { MatchableSegment } from "../segments/matching.ts";
import type { TrackMatch } from "../segments/track-matches.ts";
import { lazyStreams, type PackedStreams } from "./streams-transfer.ts";
import { coreCount, type RuntimeWorker, startWorker } from "../workers/runtime.ts";

/** The segments to match a derived track against: a server's index, by source (see track-matches.ts). */
export interface SegmentSource {
  source: string;
  entries: readonly MatchableSegment[];
}

export interface DeriveRequest {
  id: number;
  /** The file's bytes, or the path of its file blob (read by the worker). */
  original: Uint8Array | string;
  dataType: DataType;
  context: DeriveContext;
  maxUploadBytes: number;
  /** Segments this worker has not seen yet, of `source`; the worker matches the track against all it has. */
  segments?: { source: string; added: MatchableSegment[] };
  /**
   * Where file blobs live (embedded PGlite on disk only): a large streams document is written,
   * synced and moved into place there by the worker, and only its size comes back (streamsFile).
   */
  streamsBlobDir?: string;
  /** Derive over this part of the recording only (crop and split: ms since the epoch); absent, the whole file. */
  window?: { start: number; end: number };
  /** Not a file: take in `segments` and warm the code up (see DerivePool.prestart); answered with name "warm". */
  warm?: true;
}

/** What a caller asks of the pool: a DeriveRequest, with the whole segment index to match against. */
export type DeriveTask = Omit<DeriveRequest, "id" | "segments"> & { segments?: SegmentSource };

export type DeriveReply =
  | {
    id: number;
    ok: true;
    facts: DecodedUpload["derived"]["facts"];
    streams: PackedStreams;
    /** The streams document (empty when the worker wrote it to `streamsFile`). */
    streamsJson: Uint8Array;
    streamsSha256: string;
    /** The streams document is a file blob already (written, synced, in place): only its row is missing. */
    streamsFile?: { path: string; size: number };
    /** The full polyline is a file blob already (facts.polyline is then null): only its row is missing. */
    polylineFile?: { sha256: string; size: number };
    /** Where the worker's time went (ms), for UPLOAD_TIMINGS. */
    timings?: Record<string, number>;
    notes: string[];
    matches?: TrackMatch[];
  }
  | { id: number; ok: false; name: string; message: string };

/** Default number of derive workers: one less than the cores, at least one. */
export function defaultDeriveWorkers(): number {
  return Math.max(1, coreCount() - 1);
}

/**
 * A worker that sat idle this long is stopped (it is started again on the next upload) — except
 * the last one: the pool keeps one worker resident, so the next upload after a quiet spell does
 * not pay a worker start, the transfer of every segment and a cold JIT again (≈ 1 s of a 1 h ride).
 */
const IDLE_MS = 30_000;

interface Task {
  request: DeriveTask;
  resolve(result: DecodedUpload): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Promise<RuntimeWorker>;
  busy: { id: number; task: Task } | null;
  /** How many segments of each source this worker has been sent. */
  sent: Map<string, number>;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
}

/** An error thrown while deriving, carried back from the worker with its name. */
class DeriveError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

const WORKER_ENTRY = new URL("./derive-worker.ts", import.meta.url);

/** The context of a warm-up derivation (its result is thrown away). */
const WARM_CONTEXT: DeriveContext = {
  uploadId: null,
  externalId: null,
  activityType: null,
  defaultType: "Ride",
  name: null,
  description: null,
  visibility: "only_me",
  trainer: false,
  commute: false,
  athlete: { premium: false, weight: null, birthdate: null },
};

export class DerivePool {
  #slots = new Set<Slot>();
  #queue: Task[] = [];
  #nextId = 1;

  constructor(public size: number) {}

  /** Workers started and not stopped. */
  get workers(): number {
    return this.#slots.size;
  }

  /** Files being derived plus files waiting (a gauge for /metrics). */
  get depth(): number {
    let busy = 0;
    for (const slot of this.#slots) if (slot.busy) busy++;
    return busy + this.#queue.length;
  }

  derive(request: DeriveTask): Promise<DecodedUpload> {
    if (this.size <= 0) {
      return decodeAndDerive(
        request.original,
        request.dataType,
        request.context,
        request.maxUploadBytes,
        request.window,
      );
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ request, resolve, reject });
      this.#dispatch();
    });
  }

  /**
   * Starts a worker ahead of the first upload (a server with nothing to do): it takes in the
   * segments and derives a small synthetic track, so the first upload finds a started, warm worker
   * that has every segment. Later calls send an idle worker the segments it lacks. Does nothing
   * while files wait or when workers are off.
   */
  prestart(segments?: SegmentSource): Promise<void> {
    if (this.size <= 0 || this.#queue.length > 0) return Promise.resolve();
    if (this.#slots.size > 0) {
      // Started already: an idle worker that lacks segments created since is sent them now, not
      // with the next upload (10,000 segments took 0.2–0.6 s of that upload).
      if (!segments) return Promise.resolve();
      const behind = [...this.#slots].some((s) =>
        !s.busy && (s.sent.get(segments.source) ?? 0) < segments.entries.length
      );
      if (!behind) return Promise.resolve();
    }
    // Resolved once the worker is warm (a failed warm-up is the next upload's to report).
    let done = () => {};
    const warm = new Promise<void>((resolve) => (done = resolve));
    this.#queue.push({
      request: {
        original: new Uint8Array(0),
        dataType: "gpx",
        context: WARM_CONTEXT,
        maxUploadBytes: 0,
        segments,
        warm: true,
      },
      resolve: () => done(),
      reject: () => done(),
    });
    this.#dispatch();
    return warm;
  }

  /** Stops every worker; queued and running files fail. */
  close(): void {
    const closed = new Error("the derive pool was closed");
    for (const task of this.#queue.splice(0)) task.reject(closed);
    for (const slot of [...this.#slots]) {
      slot.busy?.task.reject(closed);
      this.#drop(slot);
    }
  }

  /**
   * Stops the workers that are idle now (a platform closing: its jobs are stopped). Without this a
   * finished CLI command would live on until the idle timeout, since a worker keeps its process alive.
   */
  releaseIdle(): void {
    for (const slot of [...this.#slots]) if (!slot.busy || slot.busy.task.request.warm) this.#drop(slot);
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot: Slot | undefined;
      for (const s of this.#slots) {
        if (!s.busy) {
          slot = s;
          break;
        }
      }
      if (!slot && this.#slots.size < this.size) slot = this.#spawn();
      if (!slot) return;
      this.#run(slot, this.#queue.shift()!);
    }
  }

  #spawn(): Slot {
    const slot: Slot = {
      worker: undefined as unknown as Promise<RuntimeWorker>,
      busy: null,
      idleTimer: undefined,
      sent: new Map(),
    };
    slot.worker = startWorker(WORKER_ENTRY, {
      message: (data) => this.#reply(slot, data as DeriveReply),
      failed: (error) => this.#failed(slot, error),
    });
    slot.worker.catch((error) => this.#failed(slot, error instanceof Error ? error : new Error(String(error))));
    this.#slots.add(slot);
    return slot;
  }

  #run(slot: Slot, task: Task): void {
    clearTimeout(slot.idleTimer);
    const id = this.#nextId++;
    slot.busy = { id, task };
    const { segments, ...rest } = task.request;
    let delta: DeriveRequest["segments"];
    if (segments) {
      const from = slot.sent.get(segments.source) ?? 0;
      delta = { source: segments.source, added: segments.entries.slice(from) };
      slot.sent.set(segments.source, segments.entries.length);
    }
    slot.worker.then((worker) => worker.post({ id, ...rest, segments: delta } satisfies DeriveRequest)).catch(() => {});
  }

  #reply(slot: Slot, reply: DeriveReply): void {
    const busy = slot.busy;
    if (!busy || busy.id !== reply.id) return;
    slot.busy = null;
    if (reply.ok) {
      // Streams are unpacked into arrays only when (and where) read: a processor that needs none
      // (segment matching ran in the worker) costs the event loop nothing for 163,000 points.
      const derived = { facts: reply.facts, streams: lazyStreams(reply.streams) };
      busy.task.resolve({
        derived,
        streamsJson: reply.streamsJson,
        streamsSha256: reply.streamsSha256,
        streamsFile: reply.streamsFile,
        polylineFile: reply.polylineFile,
        notes: reply.notes,
        matches: reply.matches,
        timings: reply.timings,
      });
    } else busy.task.reject(new DeriveError(reply.name, reply.message));
    this.#idle(slot);
    this.#dispatch();
  }

  #failed(slot: Slot, error: Error): void {
    if (!this.#slots.has(slot)) return;
    slot.busy?.task.reject(new Error(`processing stopped unexpectedly (${error.message})`));
    this.#drop(slot);
    this.#dispatch();
  }

  #idle(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (!slot.busy && this.#slots.size > 1) this.#drop(slot);
    }, IDLE_MS);
    unrefTimer(slot.idleTimer);
  }

  #drop(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    this.#slots.delete(slot);
    slot.busy = null;
    slot.worker.then((worker) => worker.terminate()).catch(() => {});
  }
}

function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
  const deno = (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno;
  if (deno) deno.unrefTimer(timer as unknown as number);
  else (timer as unknown as { unref?: () => void }).unref?.();
}

let shared: DerivePool | null = null;

/** Stops the idle workers of the process's derive pool, if it has one (see DerivePool.releaseIdle). */
export function releaseIdleDeriveWorkers(): void {
  shared?.releaseIdle();
}

/** The process's derive pool, sized by the latest configuration seen. */
export function derivePool(size: number = defaultDeriveWorkers()): DerivePool {
  shared ??= new DerivePool(size);
  shared.size = size;
  return shared;
}
