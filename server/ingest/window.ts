import { type DeviceLap, type DeviceSession, IngestError, type ParsedFile, type Pause, type Sample } from "./types.ts";

/**
 * A window of a recording (crop and split, issue #47): the parsed file as if the device had recorded
 * only from `start` to `end` (ms since the epoch, both kept), so the activity is derived over the
 * window by the same rules as a whole file (derive.ts). Records, pauses, laps, sessions and pool
 * lengths are kept where they fall inside; a cut edge that falls between two records of one track
 * segment gets a record interpolated there; a lap or session the window cuts keeps its span inside
 * and loses the device's own totals for it (distance, timer time, calories, heart rate: they were
 * the whole lap's); the file's totals (FIT session distance, ascent, calories) no longer apply. A
 * cut FIT timer's time is the window less the device's pauses in it. A side within a second of the
 * recording's own start or end is not cut (windows are to the second), so the whole window gives
 * the file back unchanged. A cut side is where the activity starts or ends, even between two records.
 */
export interface Window {
  start: number;
  end: number;
}

const SLACK_MS = 1000;

/** The recording's own start and end (the timer's, where the file says, else the first and last record). */
export function recordingSpan(parsed: ParsedFile): Window {
  const samples = parsed.samples;
  return {
    start: Math.min(samples[0].time, parsed.timerStart ?? Infinity),
    end: Math.max(samples[samples.length - 1].time, parsed.timerEnd ?? -Infinity),
  };
}

/** The parsed file over the window (a new object; the input is not changed). Throws when the window holds under two records. */
export function windowRecording(parsed: ParsedFile, window: Window): ParsedFile {
  const own = recordingSpan(parsed);
  const cutStart = window.start > own.start + SLACK_MS;
  const cutEnd = window.end < own.end - SLACK_MS;
  if (!cutStart && !cutEnd) return parsed;
  const start = cutStart ? window.start : own.start;
  const end = cutEnd ? window.end : own.end;
  const inside = (t: number) => t >= start && t <= end;

  let first = -1, last = -1;
  for (let i = 0; i < parsed.samples.length; i++) {
    if (!inside(parsed.samples[i].time)) continue;
    if (first === -1) first = i;
    last = i;
  }
  if (first === -1 || last - first < 1) {
    throw new IngestError("The kept window holds fewer than two of the recording's records.");
  }
  const all = parsed.samples;
  const samples = all.slice(first, last + 1).map((s) => ({ ...s }));
  // A cut edge between two records of one track segment gets a record of its own, interpolated: the
  // way from the last record before it to the first after is then shared at the edge (a split's two
  // parts add up to the whole), not lost with the sparser recordings (a pool length, a phone's 5 s).
  const gapAt = new Set(parsed.segmentStarts ?? []);
  const before = cutStart && all[first].time > start && first > 0 && !gapAt.has(first);
  const after = cutEnd && all[last].time < end && last + 1 < all.length && !gapAt.has(last + 1);
  if (before) samples.unshift(between(all[first - 1], all[first], start));
  if (after) samples.push(between(all[last], all[last + 1], end));
  const shift = before ? 1 : 0;
  const segmentStarts = parsed.segmentStarts?.map((i) => i - first + shift).filter((i) => i > 0 && i < samples.length);
  const pauses: Pause[] = parsed.pauses
    .filter((p) => p.end > start && p.start < end)
    .map((p) => ({ start: Math.max(p.start, start), end: Math.min(p.end, end) }));
  const pausedMs = pauses.reduce((a, p) => a + (p.end - p.start), 0);

  return {
    ...parsed,
    samples,
    laps: windowLaps(parsed, start, end, samples),
    pauses,
    ...(segmentStarts === undefined ? {} : { segmentStarts }),
    ...(parsed.sessions === undefined ? {} : { sessions: windowSessions(parsed.sessions, start, end) }),
    ...(parsed.lengths === undefined ? {} : {
      lengths: parsed.lengths.filter((l) => l.startTime >= start && l.startTime + l.elapsedTime * 1000 <= end),
    }),
    deviceTotals: { ascent: null, calories: null, distance: null },
    // The activity runs from the window's start to its end, wherever the first and last record fall
    // (any format: the span takes the timer's start and end where they are wider than the records).
    ...(cutStart ? { timerStart: start } : parsed.timerStart == null ? {} : { timerStart: parsed.timerStart }),
    ...(cutEnd ? { timerEnd: end } : parsed.timerEnd == null ? {} : { timerEnd: parsed.timerEnd }),
    // The timer's own time over the window: the window less the device's pauses inside it.
    ...(parsed.timerTime == null ? {} : { timerTime: (end - start - pausedMs) / 1000 }),
    ...(parsed.devicePaused === undefined ? {} : { devicePaused: parsed.devicePaused && pauses.length > 0 }),
    ...(parsed.sessionHeartrate === undefined ? {} : { sessionHeartrate: null }),
    notes: [...parsed.notes],
  };
}

const NUMBERS = ["lat", "lng", "altitude", "heartrate", "cadence", "watts", "temp", "distance", "speed"] as const;

/** Channels devices record in whole units (bpm, rpm, W): an interpolated value is rounded as theirs are. */
const WHOLE = new Set<string>(["heartrate", "cadence", "watts"]);

/** A record at `time` between two others: each value linear between theirs (null where either has none). */
function between(a: Sample, b: Sample, time: number): Sample {
  const f = (time - a.time) / (b.time - a.time);
  const out: Sample = { ...a, time };
  for (const key of NUMBERS) {
    const x = a[key], y = b[key];
    const v = x === null || y === null ? null : x + f * (y - x);
    out[key] = v !== null && WHOLE.has(key) ? Math.round(v) : v;
  }
  return out;
}

/** Where a device lap ends: its own end, else start + elapsed, else the next lap's start (the recording's end for the last). */
function lapEnd(laps: readonly DeviceLap[], k: number, recordingEnd: number): number {
  const lap = laps[k];
  if (lap.lastPointTime != null) return lap.lastPointTime;
  if (lap.endTime != null && lap.endTime > lap.startTime) return lap.endTime;
  if (lap.elapsedTime !== null && lap.elapsedTime > 0) return lap.startTime + lap.elapsedTime * 1000;
  return k + 1 < laps.length ? laps[k + 1].startTime : recordingEnd;
}

/** The laps inside the window: whole ones as they are, cut ones with their span inside and no device totals. */
function windowLaps(parsed: ParsedFile, start: number, end: number, kept: readonly Sample[]): DeviceLap[] {
  const laps = parsed.laps;
  const recordingEnd = recordingSpan(parsed).end;
  const out: DeviceLap[] = [];
  for (let k = 0; k < laps.length; k++) {
    const lap = laps[k];
    const from = lap.firstPointTime ?? lap.startTime;
    const to = lapEnd(laps, k, recordingEnd);
    if (to <= start || from >= end) continue;
    if (lap.startTime >= start && from >= start && to <= end) {
      out.push({ ...lap });
      continue;
    }
    const a = Math.max(from, start), b = Math.min(to, end);
    const cut: DeviceLap = {
      startTime: a,
      elapsedTime: (b - a) / 1000,
      distance: null,
      timerTime: null,
      calories: null,
      averageHeartrate: null,
      maxHeartrate: null,
    };
    if (lap.endTime !== undefined) cut.endTime = b;
    if (lap.points !== undefined) {
      // TCX: the lap's own trackpoints inside the window (an edge's interpolated record among them).
      const own = kept.filter((s) =>
        s.time >= Math.max(from, start) && s.time <= Math.min(lap.lastPointTime ?? to, end)
      );
      cut.points = own.length;
      cut.firstPointTime = own.length ? own[0].time : null;
      cut.lastPointTime = own.length ? own[own.length - 1].time : null;
      if (own.length === 0) continue;
    }
    out.push(cut);
  }
  return out;
}

/** The sessions (legs) inside the window, cut ones without the device's totals. */
function windowSessions(sessions: readonly DeviceSession[], start: number, end: number): DeviceSession[] {
  return sessions
    .filter((s) => s.endTime > start && s.startTime < end)
    .map((s) => {
      if (s.startTime >= start && s.endTime <= end) return { ...s };
      const a = Math.max(s.startTime, start), b = Math.min(s.endTime, end);
      return { ...s, startTime: a, endTime: b, elapsedTime: (b - a) / 1000, timerTime: null, distance: null };
    });
}
