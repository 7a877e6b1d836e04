import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { alongTrack, distanceSmoothedGain, expectNear, readGpxPoints, uploadActivity } from "./device-totals.ts";

/**
 * Issue #32, "Numbers": a walk recorded by a phone. The GPX is srtm.py's sample track (tkrajina/srtm.py,
 * Apache-2.0), a family walk near Karojba (Istria) on 30 June 2013, recorded by Google My Tracks on an
 * Android phone and rewritten by gpxpy. Its altitude is the phone's GPS altitude (srtm.py's README:
 * "the original elevation (taken with an Android smartphone)"): a point every 1–5 s, 1,852 points,
 * 1 h 52 min, and noisy: the raw climbs sum to 947 m on a walk whose altitude spans 170–438 m.
 *
 * Uploaded over HTTP; every reference is computed here from the file's own points (an independent
 * parser and haversine), not by the server's code.
 *
 * The gain is checked against the definition of docs/numbers.md, not against the ground: the terrain
 * there climbs about 190 m (the SRTM profile srtm.py publishes for this track), and without terrain
 * tiles a phone's altitude reads far more (536 m; docs/numbers.md says why and what was tried). With
 * tiles the same walk's gain is the terrain's: tests/numbers/terrain.test.ts.
 */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

const FILE = "gpx/mytracks-android-hike-karojba.gpx";

describe("a phone's GPX walk (My Tracks, Android): distance, times, name and elevation gain", () => {
  it("distance, elapsed time, start, name and type against the file's own points; gain against altitude smoothed over distance", async () => {
    const text = readFileSync(deviceFile(FILE), "utf8");
    const points = readGpxPoints(text);
    // The file as described: every point timed and with the phone's altitude, one track, no <type>.
    expect(points).toHaveLength(1852);
    expect(points.every((p) => Number.isFinite(p.time) && Number.isFinite(p.ele))).toBe(true);
    expect(text.match(/<trkseg>/g)).toHaveLength(1);
    expect(text).not.toMatch(/<type>/);
    const trackName = text.match(/<trk>\s*<name>([^<]+)<\/name>/)![1];
    expect(trackName).toBe("6/30/2013 17:42"); // My Tracks names a track by its start, local time

    const cum = alongTrack(points.map((p) => [p.lat, p.lng]));
    const distance = cum[cum.length - 1];
    const elapsed = (points[points.length - 1].time - points[0].time) / 1000;
    expect(elapsed).toBeGreaterThan(3600);

    // The file names no sport: the uploader says it was a hike.
    const activity = await uploadActivity(server, athlete, new TextEncoder().encode(text), "karojba.gpx", {
      activity_type: "hike",
    });
    expect(activity.type).toBe("Hike");
    expect(activity.name).toBe(trackName);
    expectNear(activity.distance, distance, 0.01);
    expectNear(activity.elapsed_time, elapsed, 0.02);
    expect(Date.parse(activity.start_date)).toBe(points[0].time);
    expect(activity.moving_time).toBeGreaterThan(0);
    expect(activity.moving_time).toBeLessThanOrEqual(activity.elapsed_time);
    expect(activity.elev_high).toBe(Math.max(...points.map((p) => p.ele)));
    expect(activity.elev_low).toBe(Math.min(...points.map((p) => p.ele)));

    // Elevation gain. The raw climbs (every positive step between readings) are the phone's noise.
    let raw = 0;
    for (let i = 1; i < points.length; i++) raw += Math.max(0, points[i].ele - points[i - 1].ele);
    expect(raw).toBeGreaterThan(900);
    const smoothed = distanceSmoothedGain(points.map((p) => p.ele), cum, 20, 2);
    expectNear(activity.total_elevation_gain, smoothed, 0.1);
    expect(activity.total_elevation_gain).toBeLessThan(raw * 0.6);
    // Never below the largest climb the altitude makes from a low to a later high (174 m → 395 m).
    let largest = 0;
    let low = Infinity;
    for (const p of points) {
      low = Math.min(low, p.ele);
      largest = Math.max(largest, p.ele - low);
    }
    expect(largest).toBeGreaterThan(200);
    expect(activity.total_elevation_gain).toBeGreaterThan(largest);
  });
});
