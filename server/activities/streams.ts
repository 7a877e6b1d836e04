import type { Queryable } from "../../events/db/types.ts";
import { type ActivityStreams, STREAM_KEYS, type StreamKey } from "../../shared/streams.ts";
import { getBlob } from "../blobs.ts";

export type Resolution = "low" | "medium" | "high";
export type SeriesType = "distance" | "time";

export const RESOLUTION_POINTS: Record<Resolution, number> = { low: 100, medium: 1000, high: 10000 };

/** The stored streams of an activity (blob JSON), or null when it has none (manual activities). */
export async function loadStreams(db: Queryable, sha256: string | null): Promise<ActivityStreams | null> {
  if (!sha256) return null;
  const bytes = await getBlob(db, sha256);
  if (!bytes) return null;
  return JSON.parse(new TextDecoder().decode(bytes)) as ActivityStreams;
}

/** Indices of about `target` samples evenly spaced along the series axis (distance or time). */
export function sampleIndices(axis: readonly number[], target: number): number[] {
  const n = axis.length;
  if (n <= target) return axis.map((_, i) => i);
  const first = axis[0], last = axis[n - 1];
  const out: number[] = [];
  let i = 0;
  for (let k = 0; k < target; k++) {
    const goal = first + ((last - first) * k) / (target - 1);
    while (i < n - 1 && axis[i] < goal) i++;
    if (out[out.length - 1] !== i) out.push(i);
  }
  if (out[out.length - 1] !== n - 1) out[out.length - 1] = n - 1;
  return out;
}

export interface StreamRequest {
  keys: string[];
  keyByType: boolean;
  resolution?: Resolution;
  seriesType: SeriesType;
}

/**
 * The streams response as the real service shapes it: requested keys that exist plus distance
 * (always), in the requested order; unknown keys ignored; key_by_type → object without `type`,
 * else array with `type`.
 */
export function streamsResponse(streams: ActivityStreams | null, request: StreamRequest) {
  if (!streams) return request.keyByType ? {} : [];
  const wanted: StreamKey[] = [];
  for (const key of request.keys) {
    if ((STREAM_KEYS as readonly string[]).includes(key) && !wanted.includes(key as StreamKey)) wanted.push(key as StreamKey);
  }
  if (!wanted.includes("distance")) wanted.push("distance");
  const originalSize = streams.time.length;
  const axis = request.seriesType === "time" ? streams.time : streams.distance;
  const indices = request.resolution ? sampleIndices(axis, RESOLUTION_POINTS[request.resolution]) : null;
  const entries = wanted.flatMap((key) => {
    const data = streams[key] as unknown[] | undefined;
    if (!data) return [];
    return [[key, {
      data: indices ? indices.map((i) => data[i]) : data,
      series_type: request.seriesType,
      original_size: originalSize,
      resolution: request.resolution ?? "high",
    }]] as [StreamKey, Record<string, unknown>][];
  });
  if (request.keyByType) return Object.fromEntries(entries);
  return entries.map(([type, s]) => ({ type, ...s }));
}
