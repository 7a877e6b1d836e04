import type { ActivityStreams } from "../../shared/streams.ts";
import type { LatLng } from "./geometry.ts";
import {
  type EffortTimes,
  effortTimes,
  type MatchableSegment,
  PreparedTrack,
  SegmentIndex,
  segmentTypesFor,
} from "./matching.ts";

/**
 * The geometric half of segment matching, computed where the streams are (a derive worker): every
 * effort of a track over a set of segments, with its times and sensor figures. What needs the
 * database (privacy of segments, ranking against the boards) stays in `matchActivity`
 * (efforts.ts), which takes these instead of matching the streams itself.
 */
export interface TrackMatch {
  segmentId: number;
  startIndex: number;
  endIndex: number;
  times: EffortTimes;
  averageHeartrate: number | null;
  maxHeartrate: number | null;
  averageWatts: number | null;
  averageCadence: number | null;
  /** Where the effort was recorded to start and end (the privacy rule for efforts reads them). */
  startLatlng?: [number, number];
  endLatlng?: [number, number];
}

export function meanOver(
  values: (number | null)[] | undefined,
  from: number,
  to: number,
  noReading?: number,
): number | null {
  if (!values) return null;
  let sum = 0, n = 0;
  for (let k = from; k <= to; k++) {
    const v = values[k];
    if (typeof v === "number" && v !== noReading) {
      sum += v;
      n++;
    }
  }
  return n ? Math.round((sum / n) * 10) / 10 : null;
}

export function maxOver(values: (number | null)[] | undefined, from: number, to: number): number | null {
  if (!values) return null;
  let m: number | null = null;
  for (let k = from; k <= to; k++) {
    const v = values[k];
    if (typeof v === "number" && (m === null || v > m)) m = v;
  }
  return m;
}

/** The recorded positions at an effort's first and last index, when both are known. */
export function effortEndpoints(
  latlng: ActivityStreams["latlng"],
  first: number,
  last: number,
): { startLatlng?: [number, number]; endLatlng?: [number, number] } {
  const start = latlng?.[first], end = latlng?.[last];
  return start && end ? { startLatlng: [start[0], start[1]], endLatlng: [end[0], end[1]] } : {};
}

/** Every effort of the streams over the index's segments of the activity's sport (sorted by start, then segment). */
export function trackMatches(index: SegmentIndex, activityType: string, streams: ActivityStreams): TrackMatch[] {
  const types = segmentTypesFor(activityType);
  if (!streams.latlng || !types.length || streams.time.length !== streams.latlng.length) return [];
  const track = new PreparedTrack(streams.latlng as (LatLng | null)[]);
  return index.match(track, types, streams.distance ?? null).map((m) => ({
    segmentId: m.segmentId,
    startIndex: m.startIndex,
    endIndex: m.endIndex,
    times: effortTimes(streams, m.startIndex, m.endIndex),
    // A heart rate of 0 is no reading (docs/numbers.md, Streams).
    averageHeartrate: meanOver(streams.heartrate, m.startIndex, m.endIndex, 0),
    maxHeartrate: maxOver(streams.heartrate, m.startIndex, m.endIndex),
    averageWatts: meanOver(streams.watts, m.startIndex, m.endIndex),
    averageCadence: meanOver(streams.cadence, m.startIndex, m.endIndex),
    ...effortEndpoints(streams.latlng, m.startIndex, m.endIndex),
  }));
}

/**
 * A worker's copies of the servers' segment indexes, by source (one per database the process
 * serves): the event loop sends each worker only the segments it has not seen yet.
 */
export class SegmentReplicas {
  #indexes = new Map<string, SegmentIndex>();
  apply(source: string, added: MatchableSegment[]): SegmentIndex {
    let index = this.#indexes.get(source);
    if (!index) {
      index = new SegmentIndex();
      this.#indexes.set(source, index);
    }
    if (added.length) index.add(added);
    return index;
  }
}
