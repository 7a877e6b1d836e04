/**
 * Entry point of a derive worker (a Web Worker on Deno, a worker_threads thread on Node): decodes
 * and derives one upload per message, off the server's event loop. See derive-pool.ts.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { SegmentReplicas, trackMatches } from "../segments/track-matches.ts";
import { decodeAndDerive } from "./decode-derive.ts";
import { packedBuffers, packStreams } from "./streams-transfer.ts";
import type { DeriveReply, DeriveRequest } from "./derive-pool.ts";

const replicas = new SegmentReplicas();

/**
 * Decoding is background work: this thread runs at nice 10, so that when the cores are busy the
 * kernel gives the event loop (nice 0) the core first and API requests are not queued behind a
 * decode (Linux: a thread's id from /proc/thread-self; elsewhere, or when refused, it stays as is).
 */
export const DERIVE_THREAD_NICE = 10;
try {
  const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
  if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, DERIVE_THREAD_NICE);
} catch {
  // Not Linux, or not allowed: the worker keeps the process's priority.
}

type Port = { postMessage(message: unknown, transfer: ArrayBuffer[]): void };

async function handle(request: DeriveRequest, port: Port) {
  try {
    // The segments sent are taken in first, whatever becomes of this file (the pool counts them as sent).
    const index = request.segments ? replicas.apply(request.segments.source, request.segments.added) : null;
    const result = await decodeAndDerive(request.original, request.dataType, request.context, request.maxUploadBytes);
    // Segment matching runs here too, where the streams are: the event loop only ranks the efforts.
    const matches = index ? trackMatches(index, result.derived.facts.type, result.derived.streams) : undefined;
    const streams = packStreams(result.derived.streams);
    const reply: DeriveReply = {
      id: request.id,
      ok: true,
      facts: result.derived.facts,
      streams,
      streamsJson: result.streamsJson,
      streamsSha256: result.streamsSha256,
      notes: result.notes,
      matches,
    };
    port.postMessage(reply, [result.streamsJson.buffer as ArrayBuffer, ...packedBuffers(streams)]);
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    const reply: DeriveReply = { id: request.id, ok: false, name: e.name, message: e.message };
    port.postMessage(reply, []);
  }
}

const scope = globalThis as unknown as { Deno?: unknown; onmessage: ((event: { data: DeriveRequest }) => void) | null; postMessage: Port["postMessage"] };
if (scope.Deno !== undefined || !parentPort) {
  const port: Port = { postMessage: (message, transfer) => scope.postMessage(message, transfer) };
  scope.onmessage = (event) => void handle(event.data, port);
} else {
  const nodePort = parentPort;
  nodePort.on("message", (request: DeriveRequest) => void handle(request, nodePort as unknown as Port));
}
