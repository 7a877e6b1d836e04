import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { writeDurably } from "../ops/durable-file.ts";
import { tileUrl } from "./tile-squares.ts";

/** Where SRTM tiles come from by default: the AWS Open Data terrain tiles ("skadi", 1″, gzip). */
export const DEFAULT_TILE_SOURCE = "https://s3.amazonaws.com/elevation-tiles-prod/skadi/{band}/{tile}.hgt.gz";
/** A tile is 1201² (3″) or 3601² (1″) big-endian 16-bit values: nothing else is written. */
const TILE_BYTES = new Set([1201 * 1201 * 2, 3601 * 3601 * 2]);
/** Largest download accepted for one tile (a 1″ tile is ~26 MB raw, less gzipped). */
const MAX_DOWNLOAD = 40 * 1024 * 1024;

export type TileOutcome =
  | { tile: string; outcome: "present" }
  | { tile: string; outcome: "fetched"; bytes: number }
  | { tile: string; outcome: "none"; reason: string }
  | { tile: string; outcome: "failed"; reason: string };

/**
 * Fetches one tile into `dir` unless it is there: gunzipped when the source is (`.gz`), checked to be
 * a whole 3″ or 1″ grid, written through a temporary file (never a half tile). A 404 is "none" (the
 * sources have no tile over open sea); anything else that goes wrong is "failed" with the reason.
 */
export async function fetchTile(
  dir: string,
  name: string,
  template: string,
  timeoutMs = 120_000,
): Promise<TileOutcome> {
  const path = join(dir, name);
  if (existsSync(path)) return { tile: name, outcome: "present" };
  const url = tileUrl(template, name);
  let body: Uint8Array;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (response.status === 404 || response.status === 403) {
      await response.body?.cancel();
      return { tile: name, outcome: "none", reason: `${response.status} from the source` };
    }
    if (!response.ok) {
      await response.body?.cancel();
      return { tile: name, outcome: "failed", reason: `${response.status} from ${url}` };
    }
    const declared = Number(response.headers.get("content-length") ?? 0);
    if (declared > MAX_DOWNLOAD) {
      await response.body?.cancel();
      return { tile: name, outcome: "failed", reason: `larger than ${MAX_DOWNLOAD} bytes` };
    }
    body = await readBounded(response, MAX_DOWNLOAD);
  } catch (error) {
    return { tile: name, outcome: "failed", reason: `${url}: ${(error as Error).message}` };
  }
  let raw = body;
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      raw = new Uint8Array(gunzipSync(body, { maxOutputLength: 3601 * 3601 * 2 + 1 }));
    } catch (error) {
      return { tile: name, outcome: "failed", reason: `not a gzip tile: ${(error as Error).message}` };
    }
  }
  if (!TILE_BYTES.has(raw.byteLength)) {
    return { tile: name, outcome: "failed", reason: `${raw.byteLength} bytes is not a 1201² or 3601² tile` };
  }
  mkdirSync(dir, { recursive: true });
  writeDurably(path, raw);
  return { tile: name, outcome: "fetched", bytes: raw.byteLength };
}

async function readBounded(response: Response, limit: number): Promise<Uint8Array> {
  const reader = response.body!.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw new Error(`larger than ${limit} bytes`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) out.set(part, offset), offset += part.byteLength;
  return out;
}
