/**
 * Entry point of a derive worker (a Web Worker on Deno, a worker_threads thread on Node): decodes
 * and derives one upload per message, off the server's event loop. See derive-pool.ts.
 */
import { parentPort } from "node:worker_threads";
import { decodeAndDerive } from "./decode-derive.ts";
import { packedBuffers, packStreams } from "./streams-transfer.ts";
import type { DeriveReply, DeriveRequest } from "./derive-pool.ts";

type Port = { postMessage(message: unknown, transfer: ArrayBuffer[]): void };

async function handle(request: DeriveRequest, port: Port) {
  try {
    const result = await decodeAndDerive(request.original, request.dataType, request.context, request.maxUploadBytes);
    const streams = packStreams(result.derived.streams);
    const reply: DeriveReply = { id: request.id, ok: true, facts: result.derived.facts, streams, streamsJson: result.streamsJson, notes: result.notes };
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
