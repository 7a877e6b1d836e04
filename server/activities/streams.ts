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

/**
 * Indices of exactly min(n, target) samples (Strava's point counts: low 100, medium 1000, high
 * 10000), spread evenly along the series axis (distance or time), first and last included. Where
 * the axis stands still (a stop on the distance axis) the next free index is taken, so the count
 * never falls short.
 */
export function sampleIndices(axis: readonly number[], target: number): number[] {
  const n = axis.length;
  if (n <= target) return axis.map((_, i) => i);
  if (target <= 1) return [0];
  const first = axis[0], last = axis[n - 1];
  const out: number[] = new Array(target);
  let i = 0;
  for (let k = 0; k < target; k++) {
    const goal = first + ((last - first) * k) / (target - 1);
    while (i < n - 1 && axis[i] < goal) i++;
    const lowest = k === 0 ? 0 : out[k - 1] + 1;
    const highest = n - (target - k);
    out[k] = Math.min(Math.max(i, lowest), highest);
  }
  out[target - 1] = n - 1;
  return out;
}

/**
 * Shapes named series as Strava does: key_by_type → an object keyed by type whose values have no
 * `type`, else an array of objects with `type`; each with data, series_type, original_size and
 * resolution ("high" when not down-sampled). With a resolution, every series is sampled at the
 * same indices of `axis`.
 */
export function shapeStreams(
  series: readonly [string, readonly unknown[]][],
  options: { axis: readonly number[]; keyByType: boolean; resolution?: Resolution; seriesType: SeriesType },
) {
  const originalSize = options.axis.length;
  const indices = options.resolution ? sampleIndices(options.axis, RESOLUTION_POINTS[options.resolution]) : null;
  const entries = series.map(([key, data]) =>
    [key, {
      data: indices ? indices.map((i) => data[i]) : data,
      series_type: options.seriesType,
      original_size: originalSize,
      resolution: options.resolution ?? "high",
    }] as const
  );
  if (options.keyByType) return Object.fromEntries(entries);
  return entries.map(([type, s]) => ({ type, ...s }));
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
    if ((STREAM_KEYS as readonly string[]).includes(key) && !wanted.includes(key as StreamKey)) {
      wanted.push(key as StreamKey);
    }
  }
  if (!wanted.includes("distance")) wanted.push("distance");
  const axis = request.seriesType === "time" ? streams.time : streams.distance;
  const series = wanted.flatMap((key) => {
    const data = streams[key] as unknown[] | undefined;
    return data ? [[key, data] as [string, unknown[]]] : [];
  });
  return shapeStreams(series, {
    axis,
    keyByType: request.keyByType,
    resolution: request.resolution,
    seriesType: request.seriesType,
  });
}
