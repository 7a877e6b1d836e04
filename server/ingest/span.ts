import { coverSpan } from "./timeline.ts";
import { type DeviceLap, IngestError, type ParsedFile, type Sample } from "./types.ts";

/**
 * Distance (m) a TCX device may already read at its first trackpoint (GPS settling, the metres
 * before the first point) beyond the laps it wrote without trackpoints; more has no time in the file.
 */
const LEADING_DISTANCE_M = 50;
/** The longest span a recording may have: 31 days (multi-day ultras and bikepacking trips fit). */
export const MAX_SPAN_MS = 31 * 86_400_000;

/** When an activity runs, and what its device laps without records add to it. */
export interface ActivitySpan {
  /** The timer's start and stop (ms since the epoch). */
  startMs: number;
  endMs: number;
  /** Seconds from start to stop. */
  elapsedTime: number;
  /** Where the distance stream starts: the device's distance at its first record, as far as laps before it explain it. */
  startAt: number;
  /** Distance and timer seconds of the laps the device wrote without records. */
  unrecordedDistance: number;
  unrecordedSeconds: number;
  /** Each sample's time (ms since the epoch), and its seconds since the start (the time stream). */
  times: Float64Array;
  time: number[];
}

/** Laps the device wrote without any record inside them (FIT; a TCX Lap without Trackpoints has samples by now). */
function lapsWithoutSamples(laps: readonly DeviceLap[], samples: readonly Sample[]): DeviceLap[] {
  const out: DeviceLap[] = [];
  let j = 0;
  for (const lap of laps) {
    if (lap.elapsedTime === null || lap.elapsedTime <= 0) continue;
    // TCX: unrecorded only when its own Track is empty.
    if (lap.points !== undefined) {
      if (lap.points === 0) out.push(lap);
      continue;
    }
    const end = lap.startTime + lap.elapsedTime * 1000;
    while (j < samples.length && samples[j].time < lap.startTime) j++;
    if (j >= samples.length || samples[j].time >= end) out.push(lap);
  }
  return out;
}

/**
 * The activity's span and sample times; refuses a span no recording has (IngestError). The samples
 * get one at the start and the end when no record is there (timeline.ts), so the streams span it.
 */
export function activitySpan(parsed: ParsedFile): ActivitySpan {
  let samples = parsed.samples;
  // Laps written without records still count (FIT; a TCX lap's unsampled stretches have samples by now).
  const unrecorded = lapsWithoutSamples(parsed.laps, samples);
  // The activity runs from the moment the timer started to the moment it stopped (FIT sessions),
  // even where the first record came later; laps written without records widen it too.
  let startMs = Math.min(samples[0].time, parsed.timerStart ?? Infinity);
  let endMs = Math.max(samples[samples.length - 1].time, parsed.timerEnd ?? -Infinity);
  for (const lap of unrecorded) {
    startMs = Math.min(startMs, lap.startTime);
    endMs = Math.max(endMs, lap.startTime + (lap.elapsedTime ?? 0) * 1000);
  }
  // A span no recording has (a broken lap or timer field: a mutated file gave 132 years) is refused
  // as a broken file, not stored as an activity of that length.
  if (!(endMs - startMs <= MAX_SPAN_MS)) {
    throw new IngestError(
      `The file's times span ${Math.round((endMs - startMs) / 86_400_000)} days; a recording spans at most ${
        MAX_SPAN_MS / 86_400_000
      }.`,
    );
  }
  // Laps before the first record are already in the device's distance at that record (as far as
  // they go): the stream starts there. Distance the device counted before its first record without
  // such a lap (a Fitbit export that starts mid-ride) has no time in the activity and is left out.
  const first = samples[0];
  const firstDeviceDistance = parsed.format === "fit" ? 0 : first.distance ?? 0;
  const before = unrecorded.filter((l) => l.startTime < first.time).reduce((a, l) => a + (l.distance ?? 0), 0);
  const after = unrecorded.filter((l) => l.startTime >= first.time).reduce((a, l) => a + (l.distance ?? 0), 0);
  const startAt = firstDeviceDistance <= before + LEADING_DISTANCE_M
    ? firstDeviceDistance
    : Math.min(firstDeviceDistance, before);
  const unrecordedDistance = Math.max(0, before - startAt) + after;
  const unrecordedSeconds = unrecorded.reduce((a, l) => a + (l.timerTime ?? l.elapsedTime ?? 0), 0);
  coverSpan(parsed, startMs, endMs);
  samples = parsed.samples;
  const n = samples.length;

  const times = new Float64Array(n);
  const time: number[] = [];
  for (let i = 0; i < n; i++) {
    times[i] = samples[i].time;
    time.push(Math.round((samples[i].time - startMs) / 1000));
  }
  const elapsedTime = Math.round((endMs - startMs) / 1000);
  return { startMs, endMs, elapsedTime, startAt, unrecordedDistance, unrecordedSeconds, times, time };
}
