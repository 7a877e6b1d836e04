/**
 * Entry point of an image worker (a Web Worker on Deno, a worker_threads thread on Node): decodes
 * and resizes one image per message, off the server's event loop. See pool.ts.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { makeRenditions } from "./renditions.ts";
import { avatarRenditions } from "./avatar-renditions.ts";
import type { ImageReply, ImageRequest } from "./pool.ts";

/**
 * Background work, as the derive workers' (see derive-worker.ts): this thread, and V8's helper
 * threads that collect its garbage (a 17 MP decode leaves ~170 MB of it), run at nice 10, so the
 * event loop gets a busy core first (Linux; elsewhere, or when refused, they stay as they are).
 */
const IMAGE_THREAD_NICE = 10;
const V8_HELPER = "V8 DefaultWorke"; // the kernel keeps 15 characters of a thread's name
try {
  const [pid, , tid] = readlinkSync("/proc/thread-self").split("/");
  if (Number(tid) > 0) setPriority(Number(tid), IMAGE_THREAD_NICE);
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (readFileSync(`/proc/${pid}/task/${thread}/comm`, "utf8").startsWith(V8_HELPER)) {
        setPriority(Number(thread), IMAGE_THREAD_NICE);
      }
    } catch {
      // The thread has ended.
    }
  }
} catch {
  // Not Linux, or not allowed.
}

type Port = { postMessage(message: unknown, transfer: ArrayBuffer[]): void };

function handle(request: ImageRequest, port: Port): void {
  try {
    if (request.kind === "avatar") {
      const avatar = avatarRenditions(request.bytes, request.header);
      port.postMessage({ id: request.id, ok: true, avatar } satisfies ImageReply, [
        avatar.large.buffer as ArrayBuffer,
        avatar.medium.buffer as ArrayBuffer,
      ]);
    } else {
      const renditions = makeRenditions(request.bytes, request.header);
      const buffers = [...new Set(renditions.map((r) => r.bytes.buffer as ArrayBuffer))];
      port.postMessage({ id: request.id, ok: true, renditions } satisfies ImageReply, buffers);
    }
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    port.postMessage(
      { id: request.id, ok: false, name: e.constructor.name, message: e.message } satisfies ImageReply,
      [],
    );
  }
}

const scope = globalThis as unknown as {
  Deno?: unknown;
  onmessage: ((event: { data: ImageRequest }) => void) | null;
  postMessage: Port["postMessage"];
};
if (scope.Deno !== undefined || !parentPort) {
  const port: Port = { postMessage: (message, transfer) => scope.postMessage(message, transfer) };
  scope.onmessage = (event) => handle(event.data, port);
} else {
  const nodePort = parentPort;
  nodePort.on("message", (request: ImageRequest) => handle(request, nodePort as unknown as Port));
}
