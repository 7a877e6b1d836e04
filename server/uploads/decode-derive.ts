import { readFileSync } from "node:fs";
import { sha256Hex } from "../blobs.ts";
import { inflate, parseDeviceFile } from "../ingest/decode.ts";
import { deriveActivity, type DeriveContext, type Derived } from "../ingest/derive.ts";
import { terrainFrom } from "../ingest/terrain.ts";
import { type Window, windowRecording } from "../ingest/window.ts";
import process from "node:process";
import type { DataType } from "../ingest/decode.ts";
import type { TrackMatch } from "../segments/track-matches.ts";

/** What an upload's derivation produces: the facts and streams, the streams as stored (JSON), notes. */
export interface DecodedUpload {
  derived: Derived;
  /** `JSON.stringify(derived.streams)` encoded as UTF-8: the streams blob as stored. */
  streamsJson: Uint8Array;
  /** Its sha256 (hashed here, in the worker, not on the event loop). */
  streamsSha256: string;
  notes: string[];
  /** The track's segment efforts, when the worker matched them (derive-pool.ts). */
  matches?: TrackMatch[];
  /** The streams document already stored as a file blob by the worker (its row is not); `streamsJson` is then empty. */
  streamsFile?: { path: string; size: number };
  /** The full polyline already stored as a file blob by the worker (its row is not); facts.polyline is then null. */
  polylineFile?: { sha256: string; size: number };
  /** Where the derivation's time went (ms; derive workers only). */
  timings?: Record<string, number>;
}

/**
 * Inflates, parses and derives one uploaded file: pure CPU work, run in a derive worker (or in
 * place when workers are off). Throws an IngestError/TooLargeError for a file that can't become an
 * activity. With a window (crop and split), the activity is derived over that part of the recording only.
 */
export async function decodeAndDerive(
  original: Uint8Array | string,
  dataType: DataType,
  context: DeriveContext,
  maxUploadBytes: number,
  window?: Window,
): Promise<DecodedUpload> {
  // A path: the original kept as a file blob, read here (in the worker) rather than on the event loop.
  const t0 = performance.now();
  const bytes = typeof original === "string" ? new Uint8Array(readFileSync(original)) : original;
  const whole = await parseDeviceFile(inflate(bytes, dataType, maxUploadBytes), dataType);
  const parsed = window ? windowRecording(whole, window) : whole;
  const t1 = performance.now();
  // Non-barometric altitude from the operator's terrain tiles, when configured (docs/numbers.md).
  const derived = deriveActivity(parsed, context, { terrain: terrainFrom(process.env.ELEVATION_TILES_DIR) });
  const t2 = performance.now();
  const streamsJson = new TextEncoder().encode(JSON.stringify(derived.streams));
  const streamsSha256 = sha256Hex(streamsJson);
  const t3 = performance.now();
  return {
    derived,
    streamsJson,
    streamsSha256,
    notes: parsed.notes,
    timings: { decode: t1 - t0, derive: t2 - t1, streamsJson: t3 - t2 },
  };
}
