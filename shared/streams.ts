/**
 * Index-aligned time series of one activity, as stored (content-addressed, JSON) and served by
 * GET /v3/activities/:id/streams. Every array has the same length; absent channels are omitted. A
 * numeric series never holds null (the gap rules are in server/ingest/gaps.ts and docs/numbers.md).
 */
export interface ActivityStreams {
  /** Seconds since the start (elapsed). */
  time: number[];
  /** Metres, cumulative. */
  distance: number[];
  /** [lat, lng]; a record without a position is interpolated between its neighbours. */
  latlng?: [number, number][];
  /** Metres; gaps interpolated. */
  altitude?: number[];
  /** m/s, smoothed. */
  velocity_smooth?: number[];
  /** bpm; short gaps hold the last reading, longer ones are bridged linearly. */
  heartrate?: number[];
  /** Short gaps hold the last reading, longer ones are 0. */
  cadence?: number[];
  /** W; short gaps hold the last reading, longer ones are 0. */
  watts?: number[];
  /** °C; gaps interpolated. */
  temp?: number[];
  moving: boolean[];
  /** Percent. */
  grade_smooth?: number[];
}

export const STREAM_KEYS = [
  "time",
  "latlng",
  "distance",
  "altitude",
  "velocity_smooth",
  "heartrate",
  "cadence",
  "watts",
  "temp",
  "moving",
  "grade_smooth",
] as const;
export type StreamKey = (typeof STREAM_KEYS)[number];
