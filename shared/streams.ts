/**
 * Index-aligned time series of one activity, as stored (content-addressed, JSON) and served by
 * GET /v3/activities/:id/streams. Every array has the same length; absent channels are omitted.
 */
export interface ActivityStreams {
  /** Seconds since the start (elapsed). */
  time: number[];
  /** Metres, cumulative. */
  distance: number[];
  /** [lat, lng] or null where the record had no position. */
  latlng?: ([number, number] | null)[];
  /** Metres. */
  altitude?: (number | null)[];
  /** m/s, smoothed. */
  velocity_smooth?: number[];
  heartrate?: (number | null)[];
  cadence?: (number | null)[];
  watts?: (number | null)[];
  /** °C. */
  temp?: (number | null)[];
  moving: boolean[];
  /** Percent. */
  grade_smooth?: number[];
}

export const STREAM_KEYS = [
  "time", "latlng", "distance", "altitude", "velocity_smooth", "heartrate", "cadence", "watts",
  "temp", "moving", "grade_smooth",
] as const;
export type StreamKey = (typeof STREAM_KEYS)[number];
