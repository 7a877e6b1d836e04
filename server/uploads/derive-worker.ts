/**
 * Entry point of a derive worker (a Web Worker on Deno, a worker_threads thread on Node): decodes
 * and derives one upload per message, off the server's event loop. See derive-pool.ts.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { SegmentReplicas, trackMatches } from "../segments/track-matches.ts";
import { FILE_THRESHOLD, sha256Hex, writeFileBlob } from "../blobs.ts";
import { POLYLINE_BLOB_ABOVE } from "./polyline-blob.ts";
import { decodeAndDerive } from "./decode-derive.ts";
import { packedBuffers, packStreams } from "./streams-transfer.ts";
import type { DeriveReply, DeriveRequest } from "./derive-pool.ts";

const replicas = new SegmentReplicas();

/**
 * Decoding is background work: this thread runs at nice 10, so that when the cores are busy the
 * kernel gives the event loop (nice 0) the core first and API requests are not queued behind a
 * decode (Linux: a thread's id from /proc/thread-self; elsewhere, or when refused, it stays as is).
 *
 * So do V8's helper threads ("V8 DefaultWorker", shared by every isolate of the process). Most of
 * their work is this worker's garbage: decoding a 56 MB GPX collects a 75–170 MB heap every
 * second or two, marked and swept on the helpers. At nice 0 they took the event loop's core
 * (perf sched: a third of its waits for a core while uploads were processed, 8–16 ms at a time).
 * The event loop's own collections are short (scavenges of 5–15 ms, which its thread can finish
 * alone), so it loses little when they wait.
 */
export const DERIVE_THREAD_NICE = 10;
const V8_HELPER = "V8 DefaultWorke"; // the kernel keeps 15 characters of a thread's name
try {
  const [pid, , tid] = readlinkSync("/proc/thread-self").split("/");
  if (Number(tid) > 0) setPriority(Number(tid), DERIVE_THREAD_NICE);
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (readFileSync(`/proc/${pid}/task/${thread}/comm`, "utf8").startsWith(V8_HELPER)) {
        setPriority(Number(thread), DERIVE_THREAD_NICE);
      }
    } catch {
      // The thread has ended.
    }
  }
} catch {
  // Not Linux, or not allowed: the threads keep the process's priority.
}

type Port = { postMessage(message: unknown, transfer: ArrayBuffer[]): void };

/** A synthetic 20-minute GPX ride (1 Hz, with elevation and heart rate) for warming the code up. */
function warmUpGpx(): Uint8Array {
  const start = Date.UTC(2020, 0, 1, 8);
  const points: string[] = [];
  for (let i = 0; i < 1200; i++) {
    const lat = 45 + 0.00008 * i, lng = 6 + 0.00005 * Math.sin(i / 50);
    points.push(
      `<trkpt lat="${lat.toFixed(6)}" lon="${lng.toFixed(6)}"><ele>${(500 + 20 * Math.sin(i / 100)).toFixed(1)}</ele>` +
        `<time>${new Date(start + i * 1000).toISOString()}</time><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>${
          130 + (i % 20)
        }</gpxtpx:hr>` +
        `</gpxtpx:TrackPointExtension></extensions></trkpt>`,
    );
  }
  return new TextEncoder().encode(
    `<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="warm-up" xmlns="http://www.topografix.com/GPX/1/1" ` +
      `xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><type>cycling</type><trkseg>${
        points.join("")
      }</trkseg></trk></gpx>`,
  );
}

let warmed = false;

/** Takes in the segments and runs the whole derivation once on a synthetic ride (see DerivePool.prestart). */
async function warmUp(request: DeriveRequest, port: Port) {
  try {
    const index = request.segments ? replicas.apply(request.segments.source, request.segments.added) : null;
    if (warmed) return;
    warmed = true;
    const bytes = warmUpGpx();
    const result = await decodeAndDerive(bytes, "gpx", request.context, bytes.byteLength * 2);
    if (index) trackMatches(index, result.derived.facts.type, result.derived.streams);
    packStreams(result.derived.streams);
  } catch {
    // A warm-up that fails changes nothing: the worker derives files as it would have.
  } finally {
    port.postMessage({ id: request.id, ok: false, name: "warm", message: "" } satisfies DeriveReply, []);
  }
}

async function handle(request: DeriveRequest, port: Port) {
  if (request.warm) return await warmUp(request, port);
  try {
    // The segments sent are taken in first, whatever becomes of this file (the pool counts them as sent).
    const t0 = performance.now();
    const index = request.segments ? replicas.apply(request.segments.source, request.segments.added) : null;
    const t1 = performance.now();
    const result = await decodeAndDerive(
      request.original,
      request.dataType,
      request.context,
      request.maxUploadBytes,
      request.window,
    );
    // Segment matching runs here too, where the streams are: the event loop only ranks the efforts.
    const t2 = performance.now();
    const matches = index ? trackMatches(index, result.derived.facts.type, result.derived.streams) : undefined;
    const t3 = performance.now();
    const streams = packStreams(result.derived.streams);
    let streamsJson = result.streamsJson;
    let streamsFile: { path: string; size: number } | undefined;
    if (request.streamsBlobDir && streamsJson.byteLength >= FILE_THRESHOLD) {
      try {
        // Written here, off the event loop (a 163,000-point ride's streams are 10+ MB); the job
        // only inserts the blob's row.
        streamsFile = {
          path: await writeFileBlob(request.streamsBlobDir, result.streamsSha256, streamsJson),
          size: streamsJson.byteLength,
        };
        streamsJson = new Uint8Array(0);
      } catch {
        // Not the file's fault (a full disk…): the bytes go back and the job stores them (and
        // retries on a failure there) as it did before.
      }
    }
    // So is a long track's full polyline (1 MB for 163,000 points), which the activity keeps as a
    // blob: the event loop then inserts only its row (keepPolyline did the rest there).
    let polylineFile: { sha256: string; size: number } | undefined;
    const polyline = result.derived.facts.polyline;
    if (request.streamsBlobDir && polyline !== null && polyline.length > POLYLINE_BLOB_ABOVE) {
      const bytes = new TextEncoder().encode(polyline);
      if (bytes.byteLength >= FILE_THRESHOLD) {
        try {
          const sha256 = sha256Hex(bytes);
          await writeFileBlob(request.streamsBlobDir, sha256, bytes);
          polylineFile = { sha256, size: bytes.byteLength };
          result.derived.facts.polyline = null;
        } catch {
          // As for the streams: the text goes back and the job stores it.
        }
      }
    }
    const t4 = performance.now();
    const reply: DeriveReply = {
      id: request.id,
      ok: true,
      facts: result.derived.facts,
      streams,
      streamsJson,
      streamsSha256: result.streamsSha256,
      streamsFile,
      polylineFile,
      notes: result.notes,
      matches,
      timings: { segments: t1 - t0, ...result.timings, match: t3 - t2, packAndWrite: t4 - t3 },
    };
    port.postMessage(reply, [streamsJson.buffer as ArrayBuffer, ...packedBuffers(streams)]);
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    const reply: DeriveReply = { id: request.id, ok: false, name: e.name, message: e.message };
    port.postMessage(reply, []);
  }
}

const scope = globalThis as unknown as {
  Deno?: unknown;
  onmessage: ((event: { data: DeriveRequest }) => void) | null;
  postMessage: Port["postMessage"];
};
if (scope.Deno !== undefined || !parentPort) {
  const port: Port = { postMessage: (message, transfer) => scope.postMessage(message, transfer) };
  scope.onmessage = (event) => void handle(event.data, port);
} else {
  const nodePort = parentPort;
  nodePort.on("message", (request: DeriveRequest) => void handle(request, nodePort as unknown as Port));
}
