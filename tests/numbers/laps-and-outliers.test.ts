import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { activityStreams, expectNear, greatCircle, readTcxLaps, uploadActivity } from "./device-totals.ts";

/**
 * Issue #32, causes 5 and 6: TCX laps belong to their own Track, and broken device fields (a speed
 * that disagrees with the distance, a stray record dated weeks early) do not reach the figures.
 * Where the files are not public, a real recording gets the one fault the cause is about,
 * written into its text (as the lapless TCX of issue #17).
 */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

const text = (relative: string) => readFileSync(deviceFile(relative), "utf8");
const encode = (s: string) => new TextEncoder().encode(s);

/** Trackpoints of a TCX text: time (ms) and DistanceMeters. */
function trackpoints(tcx: string): { time: number; distance: number | null }[] {
  return [...tcx.matchAll(/<Trackpoint>([\s\S]*?)<\/Trackpoint>/g)].map((m) => ({
    time: Date.parse(m[1].match(/<Time>([^<]+)<\/Time>/)![1]),
    distance: m[1].match(/<DistanceMeters>([^<]+)<\/DistanceMeters>/)
      ? Number(m[1].match(/<DistanceMeters>([^<]+)<\/DistanceMeters>/)![1])
      : null,
  }));
}

describe("cause 5: a TCX lap is its own Track", () => {
  it("a lap whose StartTime runs in timer time (as a Polar V800 writes it) still owns its trackpoints", async () => {
    const original = text("tcx/garmin-fr410-running-hr.tcx");
    const laps = readTcxLaps(original);
    expect(laps).toHaveLength(3);
    // The third lap's StartTime an hour early: no trackpoint lies in its time window any more.
    const third = original.split(/<Lap\b/)[3].match(/StartTime="([^"]+)"/)![1];
    const early = new Date(Date.parse(third) - 3600_000).toISOString().replace(".000Z", "Z");
    const edited = original.replace(`StartTime="${third}"`, `StartTime="${early}"`);
    expect(readTcxLaps(edited)[2].trackpoints).toBe(laps[2].trackpoints);
    const distances = trackpoints(edited).map((p) => p.distance).filter((d): d is number => d !== null);
    const activity = await uploadActivity(server, athlete, encode(edited), "fr410-timer-laps.tcx");
    // The device's own distance at its last trackpoint that has one, and the laps' DistanceMeters summed.
    expectNear(activity.distance, distances[distances.length - 1], 0.01);
    expectNear(activity.distance, laps.reduce((a, l) => a + l.distanceMeters, 0), 0.01);
    expect(activity.laps).toHaveLength(3);
    expect(activity.laps[2].elapsed_time).toBeGreaterThan(0);
    expectNear(activity.laps[2].distance, laps[2].distanceMeters, 0.02);
    // Splits add up to the activity.
    const splitDistance = activity.splits_metric.reduce((a: number, s: { distance: number }) => a + s.distance, 0);
    expectNear(splitDistance, activity.distance, 0.01);
  });
});

describe("cause 6: broken device fields", () => {
  it("a speed field that disagrees with the distance (71 km/h on one Edge 520 trackpoint) is not the max speed", async () => {
    const original = text("tcx/garmin-edge520-cycling-power-cadence.tcx");
    const maximum = Number(original.match(/<MaximumSpeed>([^<]+)<\/MaximumSpeed>/)![1]); // the lap's own 8.67 m/s
    const speeds = [...original.matchAll(/<ns3:Speed>([^<]+)<\/ns3:Speed>/g)];
    const target = speeds[150];
    const at = target.index!;
    const edited = original.slice(0, at) + "<ns3:Speed>19.7</ns3:Speed>" + original.slice(at + target[0].length);
    const activity = await uploadActivity(server, athlete, encode(edited), "edge520-broken-speed.tcx");
    expect(activity.max_speed).toBeLessThanOrEqual(maximum * 1.05);
    expectNear(activity.max_speed, maximum, 0.1);
    const streams = await activityStreams(server, athlete, activity.id);
    expect(Math.max(...(streams.velocity_smooth as number[]))).toBeLessThanOrEqual(maximum * 1.05);
  });

  it("a stray first trackpoint dated four weeks early is dropped: elapsed time and start are the recording's", async () => {
    const original = text("gpx/strava-export-running-hr.gpx");
    const times = [...original.matchAll(/<time>([^<]+)<\/time>/g)].map((m) => Date.parse(m[1]));
    const pointTimes = times.slice(times.length - 42); // the 42 trkpt times (a metadata time may come first)
    const first = original.indexOf("<trkpt");
    const firstEnd = original.indexOf("</trkpt>", first) + "</trkpt>".length;
    const stray = original.slice(first, firstEnd).replace(
      /<time>[^<]+<\/time>/,
      `<time>${new Date(pointTimes[0] - 28 * 86400_000).toISOString()}</time>`,
    );
    const edited = original.slice(0, first) + stray + "\n" + original.slice(first);
    const activity = await uploadActivity(server, athlete, encode(edited), "stray-first-point.gpx", {
      activity_type: "run",
    });
    expect(Date.parse(activity.start_date)).toBe(pointTimes[0]);
    expect(activity.elapsed_time).toBe((pointTimes[pointTimes.length - 1] - pointTimes[0]) / 1000);
    // Distance: the great-circle sum of the recording's own points (written in the test).
    const coords = [...original.matchAll(/<trkpt lat="([^"]+)" lon="([^"]+)"/g)].map((m) =>
      [Number(m[1]), Number(m[2])] as [number, number]
    );
    let sum = 0;
    for (let i = 1; i < coords.length; i++) sum += greatCircle(coords[i - 1], coords[i]);
    expectNear(activity.distance, sum, 0.01);
  });
});

describe("cause 5: laps without trackpoints after the last one reach the streams and splits", () => {
  it("FR410 run whose last lap kept only its totals: distance, streams and splits reach the laps' sum", async () => {
    const original = text("tcx/garmin-fr410-running-hr.tcx");
    const parts = original.split(/(?=<Lap\b)/);
    const last = parts[parts.length - 1];
    const trackStart = last.indexOf("<Track>");
    const trackEnd = last.indexOf("</Track>") + "</Track>".length;
    const edited = parts.slice(0, -1).join("") + last.slice(0, trackStart) + last.slice(trackEnd);
    const laps = readTcxLaps(edited);
    expect(laps.map((l) => l.trackpoints > 0)).toEqual([true, true, false]);
    const lapSum = laps.reduce((a, l) => a + l.distanceMeters, 0);
    const other = await server.athlete(); // the same run as the timer-time test above: another athlete's upload
    const activity = await uploadActivity(server, other, encode(edited), "fr410-last-lap-totals.tcx");
    expectNear(activity.distance, lapSum, 0.01);
    const end = laps[2].startTime + laps[2].totalTimeSeconds * 1000;
    expectNear(activity.elapsed_time, (end - laps[0].startTime) / 1000, 0.02, 1);
    const streams = await activityStreams(server, other, activity.id);
    const distance = streams.distance as number[];
    expectNear(distance[distance.length - 1], lapSum, 0.01);
    const splitDistance = activity.splits_metric.reduce((a: number, s: { distance: number }) => a + s.distance, 0);
    expectNear(splitDistance, lapSum, 0.01);
    const splitElapsed = activity.splits_metric.reduce(
      (a: number, s: { elapsed_time: number }) => a + s.elapsed_time,
      0,
    );
    expect(Math.abs(splitElapsed - activity.elapsed_time)).toBeLessThanOrEqual(1);
    expect(activity.laps).toHaveLength(3);
    expectNear(activity.laps[2].distance, laps[2].distanceMeters, 0.01);
    expect(activity.laps[2].moving_time).toBeGreaterThan(0);
  });
});
