import Flatbush from "flatbush";
import type { ActivityStreams } from "../../shared/streams.ts";
import { cumulativeDistances, degreesFor, haversine, type LatLng, LocalProjection } from "./geometry.ts";

/**
 * Matching a recorded track against segments (reference §8): the track must pass near the
 * segment's start, then follow its path in its direction staying within a corridor, then pass near
 * its end. Start and end are the recorded points nearest the segment's start and end (no
 * interpolation), so an effort can be a little longer or shorter than the segment.
 */
export const MATCH_TOLERANCE = {
  /** A recorded point within this distance of the segment's start/end can be the effort's start/end. */
  endpointRadius: 35,
  /** Every recorded point between start and end must be within this distance of the segment's path. */
  corridor: 50,
  /** The effort's recorded distance may not exceed the segment's by more than this factor (+ corridor). */
  maxDistanceFactor: 1.5,
};

export interface MatchableSegment {
  id: number;
  activityType: string;
  points: LatLng[];
}

/** A segment prepared for matching: projected points and cumulative distances. */
export interface PreparedSegment extends MatchableSegment {
  cumulative: number[];
  length: number;
  projection: LocalProjection;
  xs: Float64Array;
  ys: Float64Array;
}

export function prepareSegment(segment: MatchableSegment): PreparedSegment {
  const projection = new LocalProjection(segment.points[0][0], segment.points[0][1]);
  const cumulative = cumulativeDistances(segment.points);
  return {
    ...segment,
    cumulative,
    length: cumulative[cumulative.length - 1],
    projection,
    xs: Float64Array.from(segment.points, (p) => projection.x(p)),
    ys: Float64Array.from(segment.points, (p) => projection.y(p)),
  };
}

export interface SegmentMatch {
  segmentId: number;
  startIndex: number;
  endIndex: number;
}

/** A track with a spatial index over its recorded points. */
export class PreparedTrack {
  readonly points: (LatLng | null)[];
  /** Index into `points` for each entry of the point index. */
  readonly #pointIndexOf: number[] = [];
  readonly #index: Flatbush | null;
  /** Bounding boxes of consecutive chunks of the track (for querying the segment index). */
  readonly chunks: { minLat: number; minLng: number; maxLat: number; maxLng: number }[] = [];

  /** recordedBefore[i]: how many of points[0 … i-1] are recorded (have a position). */
  readonly recordedBefore: Uint32Array;

  constructor(latlng: (LatLng | null)[], chunkSize = 64) {
    this.points = latlng;
    this.recordedBefore = new Uint32Array(latlng.length + 1);
    for (let i = 0; i < latlng.length; i++) {
      this.recordedBefore[i + 1] = this.recordedBefore[i] + (latlng[i] ? 1 : 0);
      if (latlng[i]) this.#pointIndexOf.push(i);
    }
    if (this.#pointIndexOf.length === 0) {
      this.#index = null;
      return;
    }
    const index = new Flatbush(this.#pointIndexOf.length);
    for (const i of this.#pointIndexOf) {
      const p = latlng[i]!;
      index.add(p[1], p[0], p[1], p[0]);
    }
    index.finish();
    this.#index = index;
    for (let c = 0; c < this.#pointIndexOf.length; c += chunkSize) {
      let minLat = Infinity, minLng = Infinity, maxLat = -Infinity, maxLng = -Infinity;
      // Overlap chunks by one point so the path between them is covered.
      for (let k = c; k < Math.min(this.#pointIndexOf.length, c + chunkSize + 1); k++) {
        const p = latlng[this.#pointIndexOf[k]]!;
        minLat = Math.min(minLat, p[0]);
        maxLat = Math.max(maxLat, p[0]);
        minLng = Math.min(minLng, p[1]);
        maxLng = Math.max(maxLng, p[1]);
      }
      this.chunks.push({ minLat, minLng, maxLat, maxLng });
    }
  }

  /** Indexes of recorded points within `radius` metres of a position, ascending. */
  pointsNear(center: LatLng, radius: number): number[] {
    if (!this.#index) return [];
    const { dLat, dLng } = degreesFor(radius, center[0]);
    const hits = this.#index.search(center[1] - dLng, center[0] - dLat, center[1] + dLng, center[0] + dLat);
    const out: number[] = [];
    for (const h of hits) {
      const i = this.#pointIndexOf[h];
      if (haversine(this.points[i]!, center) <= radius) out.push(i);
    }
    return out.sort((a, b) => a - b);
  }
}

/** Runs of consecutive candidate indexes (gaps of unrecorded points allowed) reduced to their nearest point. */
function nearestOfRuns(track: PreparedTrack, indexes: number[], target: LatLng): number[] {
  const out: number[] = [];
  let best = -1;
  let bestDistance = Infinity;
  let previous = -2;
  for (const i of indexes) {
    // Contiguous: no recorded point strictly between the previous candidate and this one.
    const contiguous = previous >= 0 && track.recordedBefore[i] === track.recordedBefore[previous + 1];
    if (!contiguous && best >= 0) {
      out.push(best);
      best = -1;
      bestDistance = Infinity;
    }
    const d = haversine(track.points[i]!, target);
    if (d < bestDistance) {
      bestDistance = d;
      best = i;
    }
    previous = i;
  }
  if (best >= 0) out.push(best);
  return out;
}

/** Distance of a point (projected) to the segment's path near `fromEdge`, and where it projects. */
function nearestOnPath(
  segment: PreparedSegment,
  x: number,
  y: number,
  fromEdge: number,
  lookahead: number,
): { distance: number; edge: number; progress: number } {
  let best = { distance: Infinity, edge: fromEdge, progress: segment.cumulative[fromEdge] };
  const limit = segment.cumulative[fromEdge] + lookahead;
  for (let e = Math.max(0, fromEdge - 1); e < segment.points.length - 1; e++) {
    if (segment.cumulative[e] > limit && e > fromEdge) break;
    const ax = segment.xs[e], ay = segment.ys[e];
    const dx = segment.xs[e + 1] - ax, dy = segment.ys[e + 1] - ay;
    const len2 = dx * dx + dy * dy;
    const t = len2 > 0 ? Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / len2)) : 0;
    const px = ax + t * dx, py = ay + t * dy;
    const distance = Math.hypot(x - px, y - py);
    if (distance < best.distance) {
      best = {
        distance,
        edge: e,
        progress: segment.cumulative[e] + t * (segment.cumulative[e + 1] - segment.cumulative[e]),
      };
    }
  }
  return best;
}

/** Follows the track from a start index along the segment; the end index when it completes. */
function follow(
  track: PreparedTrack,
  segment: PreparedSegment,
  start: number,
  trackDistance: number[] | null,
): number | null {
  const { endpointRadius, corridor, maxDistanceFactor } = MATCH_TOLERANCE;
  const end = segment.points[segment.points.length - 1];
  const endX = segment.xs[segment.xs.length - 1], endY = segment.ys[segment.ys.length - 1];
  const farFromEnd2 = (endpointRadius * 1.5 + 5) ** 2;
  const maxTravel = segment.length * maxDistanceFactor + corridor;
  let edge = 0;
  let progress = 0;
  let travelled = 0;
  let last = track.points[start]!;
  let bestEnd = -1;
  let bestEndDistance = Infinity;
  for (let k = start + 1; k < track.points.length; k++) {
    const p = track.points[k];
    if (!p) continue;
    travelled = trackDistance ? trackDistance[k] - trackDistance[start] : travelled + haversine(last, p);
    last = p;
    const x = segment.projection.x(p), y = segment.projection.y(p);
    // The great-circle distance only where the local projection says the end may be in reach
    // (with a wide margin for the projection's error), so the result is the same as always using it.
    const ex = x - endX, ey = y - endY;
    const toEnd = ex * ex + ey * ey > farFromEnd2 ? Infinity : haversine(p, end);
    const nearEnd = toEnd <= endpointRadius && progress >= segment.length - endpointRadius - corridor;
    if (bestEnd >= 0 && !nearEnd) return bestEnd; // left the end's neighbourhood: nearest point wins
    if (nearEnd) {
      if (toEnd < bestEndDistance) {
        bestEndDistance = toEnd;
        bestEnd = k;
      }
      continue;
    }
    if (travelled > maxTravel) return null;
    const step = nearestOnPath(segment, x, y, edge, corridor * 4 + 100);
    if (step.distance > corridor) return null;
    if (step.progress < progress - corridor) return null; // going backwards along the path
    if (step.progress > progress) {
      progress = step.progress;
      edge = step.edge;
    }
  }
  return bestEnd >= 0 ? bestEnd : null;
}

/** Every traversal of one segment by the track, in track order, not overlapping. */
export function matchSegment(
  track: PreparedTrack,
  segment: PreparedSegment,
  trackDistance: number[] | null = null,
): SegmentMatch[] {
  const startPoint = segment.points[0];
  const starts = nearestOfRuns(track, track.pointsNear(startPoint, MATCH_TOLERANCE.endpointRadius), startPoint);
  if (starts.length === 0) return [];
  const endPoint = segment.points[segment.points.length - 1];
  if (track.pointsNear(endPoint, MATCH_TOLERANCE.endpointRadius).length === 0) return [];
  const matches: SegmentMatch[] = [];
  let after = -1;
  for (const start of starts) {
    if (start <= after) continue;
    const endIndex = follow(track, segment, start, trackDistance);
    if (endIndex !== null && endIndex > start) {
      matches.push({ segmentId: segment.id, startIndex: start, endIndex });
      after = endIndex;
    }
  }
  return matches;
}

/**
 * Segments in memory behind a spatial index of their start points (each start's box grown by the
 * endpoint radius), so finding candidates costs O(log n + near) per chunk of the track, not O(n).
 * Segments are immutable: new ones are added; the static index is rebuilt when the number of
 * recently added segments (scanned linearly meanwhile) grows past a threshold.
 */
export class SegmentIndex {
  readonly #segments: PreparedSegment[] = [];
  #index: Flatbush | null = null;
  /** Segments [indexed, length) are not in the static index yet. */
  #indexed = 0;
  readonly rebuildThreshold: number;

  constructor(options: { rebuildThreshold?: number } = {}) {
    this.rebuildThreshold = options.rebuildThreshold ?? 256;
  }

  get size(): number {
    return this.#segments.length;
  }

  add(segments: MatchableSegment[]): void {
    for (const s of segments) if (s.points.length >= 2) this.#segments.push(prepareSegment(s));
    if (this.#segments.length - this.#indexed > this.rebuildThreshold) this.rebuild();
  }

  rebuild(): void {
    if (this.#segments.length === 0) return;
    const index = new Flatbush(this.#segments.length);
    for (const s of this.#segments) {
      const [lat, lng] = s.points[0];
      const { dLat, dLng } = degreesFor(MATCH_TOLERANCE.endpointRadius, lat);
      index.add(lng - dLng, lat - dLat, lng + dLng, lat + dLat);
    }
    index.finish();
    this.#index = index;
    this.#indexed = this.#segments.length;
  }

  /** Segments whose start lies within the endpoint radius of a box. */
  startsWithin(box: { minLat: number; minLng: number; maxLat: number; maxLng: number }): PreparedSegment[] {
    const out: PreparedSegment[] = [];
    if (this.#index) {
      for (const i of this.#index.search(box.minLng, box.minLat, box.maxLng, box.maxLat)) out.push(this.#segments[i]);
    }
    for (let i = this.#indexed; i < this.#segments.length; i++) {
      const s = this.#segments[i];
      const [lat, lng] = s.points[0];
      const { dLat, dLng } = degreesFor(MATCH_TOLERANCE.endpointRadius, lat);
      if (
        lng + dLng >= box.minLng && lng - dLng <= box.maxLng && lat + dLat >= box.minLat && lat - dLat <= box.maxLat
      ) out.push(s);
    }
    return out;
  }

  /** Every effort of a track over the indexed segments of the given activity types. */
  match(track: PreparedTrack, activityTypes: readonly string[], trackDistance: number[] | null = null): SegmentMatch[] {
    const seen = new Set<number>();
    const matches: SegmentMatch[] = [];
    for (const chunk of track.chunks) {
      for (const segment of this.startsWithin(chunk)) {
        if (seen.has(segment.id)) continue;
        seen.add(segment.id);
        if (!activityTypes.includes(segment.activityType)) continue;
        for (const match of matchSegment(track, segment, trackDistance)) matches.push(match);
      }
    }
    return matches.sort((a, b) => a.startIndex - b.startIndex || a.segmentId - b.segmentId);
  }
}

/** Brute force (every segment checked): the benchmark's baseline and a test oracle. */
export function matchAll(
  track: PreparedTrack,
  segments: PreparedSegment[],
  activityTypes: readonly string[],
): SegmentMatch[] {
  const matches: SegmentMatch[] = [];
  for (const segment of segments) {
    if (!activityTypes.includes(segment.activityType)) continue;
    for (const match of matchSegment(track, segment)) matches.push(match);
  }
  return matches.sort((a, b) => a.startIndex - b.startIndex || a.segmentId - b.segmentId);
}

/** Which segment activity types an activity of a given type competes on. */
export function segmentTypesFor(activityType: string): string[] {
  if (activityType === "Ride") return ["Ride"];
  if (activityType === "Run") return ["Run"];
  return [];
}

export interface EffortTimes {
  elapsedTime: number;
  movingTime: number;
  distance: number;
  /** Seconds from the activity's start to the effort's start. */
  startOffset: number;
}

/** Elapsed/moving time and distance of an effort from the activity's streams (nearest points, no interpolation). */
export function effortTimes(
  streams: Pick<ActivityStreams, "time" | "distance" | "moving">,
  startIndex: number,
  endIndex: number,
): EffortTimes {
  const time = streams.time;
  let movingTime = 0;
  for (let k = startIndex + 1; k <= endIndex; k++) {
    if (!streams.moving || streams.moving[k]) movingTime += time[k] - time[k - 1];
  }
  return {
    elapsedTime: Math.round(time[endIndex] - time[startIndex]),
    movingTime: Math.round(movingTime),
    distance: Math.round((streams.distance[endIndex] - streams.distance[startIndex]) * 10) / 10,
    startOffset: time[startIndex],
  };
}
