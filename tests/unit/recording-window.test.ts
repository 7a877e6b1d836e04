import { Decoder, Stream } from "@garmin/fitsdk";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { parseDeviceFile } from "../../server/ingest/decode.ts";
import { IngestError } from "../../server/ingest/types.ts";
import { recordingSpan, windowRecording } from "../../server/ingest/window.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { readTcxLaps } from "../numbers/device-totals.ts";
import type { ParsedFile } from "../../server/ingest/types.ts";

/**
 * Crop and split derive over a window of the recording (server/ingest/window.ts). What the window
 * keeps is checked against the file as read here, independently: the FIT SDK's records, laps and
 * timer events, a TCX's trackpoints and laps by regular expressions.
 */
const EDGE500 = deviceFile("fit/garmin-edge500-cycling-hr-cad-pauses.fit");
const FR410 = deviceFile("tcx/garmin-fr410-running-hr.tcx");

// deno-lint-ignore no-explicit-any -- the SDK's messages are read field by field
type Messages = Record<string, any[]>;
let fit: Messages;
let parsed: ParsedFile;
beforeAll(async () => {
  const bytes = new Uint8Array(readFileSync(EDGE500));
  fit = new Decoder(Stream.fromByteArray(bytes)).read().messages as unknown as Messages;
  parsed = await parseDeviceFile(bytes, "fit");
});

describe("a window of a recording", () => {
  it("keeps the FIT records, pauses and laps inside it; cut laps lose the device's totals", () => {
    const own = recordingSpan(parsed);
    const start = own.start + 900_000, end = own.start + 5_400_000;
    const kept = windowRecording(parsed, { start, end });

    const times = [...new Set(fit.recordMesgs.map((r) => (r.timestamp as Date).getTime()))];
    expect(kept.samples.length).toBe(keptCount(times, start, end));
    expect(kept.samples[0].time).toBe(start);
    expect(kept.samples[kept.samples.length - 1].time).toBe(end);
    // The timer starts and stops with the window; the file's totals no longer apply.
    expect([kept.timerStart, kept.timerEnd]).toEqual([start, end]);
    expect(kept.deviceTotals).toEqual({ ascent: null, calories: null, distance: null });
    // The device laps that overlap the window, in order; those it cuts have no device distance.
    const laps = fit.lapMesgs.map((l) => ({
      start: (l.startTime as Date).getTime(),
      end: (l.timestamp as Date).getTime(),
      distance: Number(l.totalDistance),
    }));
    const overlapping = laps.filter((l) => l.end > start && l.start < end);
    expect(kept.laps.length).toBe(overlapping.length);
    kept.laps.forEach((lap, k) => {
      const device = overlapping[k];
      const whole = device.start >= start && device.end <= end;
      expect(lap.startTime).toBe(Math.max(device.start, start));
      if (whole) expect(lap.distance).toBeCloseTo(device.distance, 1);
      else expect(lap.distance).toBeNull();
    });
    // Timer pauses (FIT stop → start events) inside the window, cut at its edges; the timer's time is the rest.
    // deno-lint-ignore no-explicit-any
    const events = fit.eventMesgs.filter((e: any) => e.event === "timer").map((e: any) => ({
      type: String(e.eventType),
      at: (e.timestamp as Date).getTime(),
    }));
    const pauses: [number, number][] = [];
    for (let i = 0; i + 1 < events.length; i++) {
      if (events[i].type.startsWith("stop") && events[i + 1].type === "start") {
        pauses.push([events[i].at, events[i + 1].at]);
      }
    }
    const inside = pauses.filter(([a, b]) => b > start && a < end).map((
      [a, b],
    ) => [Math.max(a, start), Math.min(b, end)]);
    expect(kept.pauses.map((p) => [p.start, p.end])).toEqual(inside);
    const paused = inside.reduce((s, [a, b]) => s + (b - a), 0);
    expect(kept.timerTime).toBeCloseTo((end - start - paused) / 1000, 3);
    // The input is left as it was.
    expect(parsed.samples.length).toBe(times.length);
  });

  it("gives the file back for the whole recording (within a second), refuses a window without two records", () => {
    const own = recordingSpan(parsed);
    expect(windowRecording(parsed, { start: own.start - 400, end: own.end + 400 })).toBe(parsed);
    expect(windowRecording(parsed, { start: own.start + 900, end: own.end - 900 })).toBe(parsed);
    expect(() => windowRecording(parsed, { start: own.start + 5000, end: own.start + 5100 })).toThrow(IngestError);
  });

  it("keeps a TCX lap's own trackpoints inside the window", async () => {
    const text = readFileSync(FR410, "utf8");
    const parsed = await parseDeviceFile(new TextEncoder().encode(text), "tcx");
    const points = [...text.matchAll(/<Trackpoint>\s*<Time>([^<]+)<\/Time>/g)].map((m) => Date.parse(m[1]));
    const own = recordingSpan(parsed);
    const start = own.start + 300_000, end = own.end - 300_000;
    const kept = windowRecording(parsed, { start, end });
    expect(kept.samples.length).toBe(keptCount([...new Set(points)], start, end));
    // The edges' records are interpolated between the trackpoints either side: distance too.
    const first = kept.samples[0];
    expect(first.time).toBe(start);
    const [a, b] = [parsed.samples.findLast((x) => x.time < start)!, parsed.samples.find((x) => x.time > start)!];
    expect(first.distance).toBeCloseTo(
      a.distance! + (b.distance! - a.distance!) * (start - a.time) / (b.time - a.time),
      6,
    );
    // Heart rate in whole beats, as the device records it (an activity's maximum is an integer).
    expect(first.heartrate).toBe(
      Math.round(a.heartrate! + (b.heartrate! - a.heartrate!) * (start - a.time) / (b.time - a.time)),
    );
    expect(kept.samples.every((x) => x.heartrate === null || Number.isInteger(x.heartrate))).toBe(true);
    const laps = readTcxLaps(text);
    const lapEnds = laps.map((_l, k) => (k + 1 < laps.length ? laps[k + 1].startTime : own.end));
    expect(kept.laps.length).toBe(laps.filter((l, k) => lapEnds[k] > start && l.startTime < end).length);
    for (const lap of kept.laps) {
      const own = kept.samples.filter((s) => s.time >= lap.firstPointTime! && s.time <= lap.lastPointTime!);
      expect(lap.points).toBe(lap.distance === null ? own.length : lap.points);
    }
    expect(kept.laps[0].distance).toBeNull(); // the first lap is cut
  });
});

/**
 * How many records a window keeps: the file's records inside it, and one more at each edge that
 * falls between two records (interpolated there).
 */
function keptCount(times: number[], start: number, end: number): number {
  const inside = times.filter((t) => t >= start && t <= end).length;
  const edge = (t: number) => !times.includes(t) && times.some((x) => x < t) && times.some((x) => x > t) ? 1 : 0;
  return inside + edge(start) + edge(end);
}
