/**
 * The image pool: every decode and resize of an image (profile pictures, activity photos, archive
 * photos) runs in a worker thread, never on the server's event loop, one image at a time by
 * default (IMAGE_WORKERS; 0 = in place, for tools). One at a time keeps the memory of decoding
 * bounded by one image's budget (header.ts), whatever the number of requests: the others wait in
 * a queue, holding only their files (which the body limit bounds). A worker starts on demand and
 * stops after a while idle; a decode that runs past DECODE_TIMEOUT_MS has its worker stopped and
 * is refused as undecodable.
 */
import { makeRenditions, type RenditionBytes, UndecodableImage } from "./renditions.ts";
import { avatarRenditions } from "./avatar-renditions.ts";
import { type RuntimeWorker, startWorker } from "../workers/runtime.ts";
import type { ImageHeader } from "./header.ts";

export type ImageTask =
  | { kind: "photo"; bytes: Uint8Array; header: ImageHeader }
  | { kind: "avatar"; bytes: Uint8Array; header: ImageHeader };

export type ImageRequest = ImageTask & { id: number };

export type ImageReply =
  | { id: number; ok: true; renditions?: RenditionBytes[]; avatar?: { large: Uint8Array; medium: Uint8Array } }
  | { id: number; ok: false; name: string; message: string };

type Result = { renditions?: RenditionBytes[]; avatar?: { large: Uint8Array; medium: Uint8Array } };

/** Longest a decode may take (a 24 MP JPEG takes 2–4 s on one core). */
export const DECODE_TIMEOUT_MS = 60_000;
/** A worker idle this long is stopped. */
const IDLE_MS = 30_000;
const WORKER_ENTRY = new URL("./image-worker.ts", import.meta.url);

interface Task {
  request: ImageTask;
  resolve(result: Result): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Promise<RuntimeWorker>;
  busy: { id: number; task: Task; timer: ReturnType<typeof setTimeout> } | null;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The worker started (a failure after that is the image's, not the server's). */
  started: boolean;
}

function runInPlace(task: ImageTask): Result {
  return task.kind === "avatar"
    ? { avatar: avatarRenditions(task.bytes, task.header) }
    : { renditions: makeRenditions(task.bytes, task.header) };
}

function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
  const deno = (globalThis as { Deno?: { unrefTimer(id: number): void } }).Deno;
  if (deno) deno.unrefTimer(timer as unknown as number);
  else (timer as unknown as { unref?: () => void }).unref?.();
}

export class ImagePool {
  #slots = new Set<Slot>();
  #queue: Task[] = [];
  #nextId = 1;

  constructor(public size: number) {}

  /** Images being decoded plus images waiting. */
  get depth(): number {
    let busy = 0;
    for (const slot of this.#slots) if (slot.busy) busy++;
    return busy + this.#queue.length;
  }

  /** Runs a task; rejects with UndecodableImage for corrupt data (or a decode past the timeout). */
  run(request: ImageTask): Promise<Result> {
    if (this.size <= 0) {
      try {
        return Promise.resolve(runInPlace(request));
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ request, resolve, reject });
      this.#dispatch();
    });
  }

  /** Stops every worker; queued and running images fail. */
  close(): void {
    const closed = new Error("the image pool was closed");
    for (const task of this.#queue.splice(0)) task.reject(closed);
    for (const slot of [...this.#slots]) {
      slot.busy?.task.reject(closed);
      this.#drop(slot);
    }
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
      started: false,
    };
    slot.worker = startWorker(WORKER_ENTRY, {
      message: (data) => this.#reply(slot, data as ImageReply),
      failed: (error) => this.#failed(slot, error),
    });
    slot.worker.then(() => (slot.started = true), () => {});
    slot.worker.catch((error) => this.#failed(slot, error instanceof Error ? error : new Error(String(error))));
    this.#slots.add(slot);
    return slot;
  }

  #run(slot: Slot, task: Task): void {
    clearTimeout(slot.idleTimer);
    const id = this.#nextId++;
    const timer = setTimeout(() => {
      if (slot.busy?.id !== id) return;
      task.reject(new UndecodableImage("decoding took too long"));
      slot.busy = null;
      this.#drop(slot);
      this.#dispatch();
    }, DECODE_TIMEOUT_MS);
    slot.busy = { id, task, timer };
    // The file is copied to the worker (the caller keeps its bytes).
    slot.worker.then((worker) => worker.post({ id, ...task.request } satisfies ImageRequest)).catch(() => {});
  }

  #reply(slot: Slot, reply: ImageReply): void {
    const busy = slot.busy;
    if (!busy || busy.id !== reply.id) return;
    clearTimeout(busy.timer);
    slot.busy = null;
    if (reply.ok) busy.task.resolve({ renditions: reply.renditions, avatar: reply.avatar });
    else if (reply.name === "UndecodableImage") busy.task.reject(new UndecodableImage(reply.message));
    else busy.task.reject(new Error(`${reply.name}: ${reply.message}`));
    this.#idle(slot);
    this.#dispatch();
  }

  #failed(slot: Slot, error: Error): void {
    if (!this.#slots.has(slot)) return;
    if (slot.busy) {
      clearTimeout(slot.busy.timer);
      // A worker that dies decoding (out of memory despite the budget, a decoder's own crash) dies
      // of that image: it is refused as undecodable, the next one gets a new worker.
      const message = `image processing stopped unexpectedly (${error.message})`;
      slot.busy.task.reject(slot.started ? new UndecodableImage(message) : new Error(message));
    }
    this.#drop(slot);
    this.#dispatch();
  }

  #idle(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (!slot.busy) this.#drop(slot);
    }, IDLE_MS);
    unrefTimer(slot.idleTimer);
  }

  #drop(slot: Slot): void {
    clearTimeout(slot.idleTimer);
    if (slot.busy) clearTimeout(slot.busy.timer);
    this.#slots.delete(slot);
    slot.busy = null;
    slot.worker.then((worker) => worker.terminate()).catch(() => {});
  }
}

function envWorkers(): number {
  const raw =
    (globalThis as { Deno?: { env: { get(name: string): string | undefined } } }).Deno?.env.get("IMAGE_WORKERS") ??
      (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env.IMAGE_WORKERS;
  const n = raw === undefined || raw === "" ? 1 : Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : 1;
}

let shared: ImagePool | null = null;

/** The process's image pool (IMAGE_WORKERS workers, default 1). */
export function imagePool(): ImagePool {
  shared ??= new ImagePool(envWorkers());
  return shared;
}

/** The renditions of a native photo whose header passed the budget, made in the pool. */
export async function photoRenditionsOffLoop(bytes: Uint8Array, header: ImageHeader): Promise<RenditionBytes[]> {
  return (await imagePool().run({ kind: "photo", bytes, header })).renditions!;
}

/** The two renditions of a profile picture whose header passed the budget, made in the pool. */
export async function avatarRenditionsOffLoop(
  bytes: Uint8Array,
  header: ImageHeader,
): Promise<{ large: Uint8Array; medium: Uint8Array }> {
  return (await imagePool().run({ kind: "avatar", bytes, header })).avatar!;
}
