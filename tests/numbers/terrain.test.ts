import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { activityStreams, expectNear, readGpxPoints, uploadActivity } from "./device-totals.ts";
import { definitionGain, istriaAt, istriaTile } from "./terrain-plane.ts";

/**
 * Issue #32, cause 9: with SRTM tiles in the configured folder (ELEVATION_TILES_DIR), a
 * non-barometric recording's altitude and gain come from the terrain model. The tile is generated
 * here: a 3″ SRTM tile (1201 × 1201 big-endian int16, rows north to south, as NASA documents the
 * format) holding an inclined plane, 10 m higher every row northwards, whose elevation at any
 * position the test computes itself.
 */
const SIZE = 1201;
const planeAt = (lat: number) => 1000 + 10 * (SIZE - 1) * (lat - 52); // the tile N52E004: row 1200 is 52°N

let server: TestServer;
let athlete: TestAthlete;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "srtm-"));
  const tile = Buffer.alloc(SIZE * SIZE * 2);
  for (let r = 0; r < SIZE; r++) {
    const value = 1000 + 10 * (SIZE - 1 - r);
    for (let c = 0; c < SIZE; c++) tile.writeInt16BE(value, (r * SIZE + c) * 2);
  }
  writeFileSync(join(dir, "N52E004.hgt"), tile);
  writeFileSync(join(dir, "N45E013.hgt"), istriaTile());
  process.env.ELEVATION_TILES_DIR = dir;
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(async () => {
  await server.close();
  delete process.env.ELEVATION_TILES_DIR;
  rmSync(dir, { recursive: true, force: true });
});

describe("cause 9: elevation from the terrain model", () => {
  it("Garmin Connect GPX of an Edge 1000 ride in Leiden: altitude and gain from the tile, not from the recorded altitudes", async () => {
    const gpx = readFileSync(deviceFile("gpx/garmin-connect-edge1000-cycling-short-3formats.gpx"), "utf8");
    const lats = [...gpx.matchAll(/<trkpt lat="([^"]+)"/g)].map((m) => Number(m[1]));
    const recorded = [...gpx.matchAll(/<ele>([^<]+)<\/ele>/g)].map((m) => Number(m[1]));
    expect(Math.max(...recorded)).toBeLessThan(100); // the recording's own altitudes are near sea level
    // The plane's gain along the recorded positions.
    let expected = 0;
    for (let i = 1; i < lats.length; i++) expected += Math.max(0, planeAt(lats[i]) - planeAt(lats[i - 1]));
    expect(expected).toBeGreaterThan(10);
    const activity = await uploadActivity(server, athlete, new TextEncoder().encode(gpx), "leiden-terrain.gpx");
    expectNear(activity.total_elevation_gain, expected, 0.1);
    expectNear(activity.elev_high, Math.max(...lats.map(planeAt)), 0.001, 0.5);
    expectNear(activity.elev_low, Math.min(...lats.map(planeAt)), 0.001, 0.5);
    const streams = await activityStreams(server, athlete, activity.id);
    const altitude = streams.altitude as number[];
    expect(altitude).toHaveLength(lats.length);
    for (let i = 0; i < lats.length; i += 10) expectNear(altitude[i], planeAt(lats[i]), 0, 0.2);
  });

  it("a phone's walk (My Tracks, Karojba): gain from the terrain, not from the phone's noisy altitude", async () => {
    // Without tiles this walk reads 536 m from the phone's altitude (tests/numbers/phone-gpx-hike.test.ts).
    const gpx = readFileSync(deviceFile("gpx/mytracks-android-hike-karojba.gpx"), "utf8");
    const track = readGpxPoints(gpx);
    const points = track.map((p) => [p.lat, p.lng] as [number, number]), times = track.map((p) => p.time);
    expect(points).toHaveLength(1852);
    expect(times).toHaveLength(points.length);
    // The plane's climbs along the recorded positions as the definition counts them.
    const expected = definitionGain(points, times, istriaAt);
    const profile = points.map(([lat, lng]) => istriaAt(lat, lng));
    expect(expected).toBeGreaterThan(100);
    const activity = await uploadActivity(server, athlete, new TextEncoder().encode(gpx), "karojba-terrain.gpx", {
      activity_type: "hike",
    });
    expectNear(activity.total_elevation_gain, expected, 0.1);
    expectNear(activity.elev_high, Math.max(...profile), 0.001, 1);
    expectNear(activity.elev_low, Math.min(...profile), 0.001, 1);
    // The terrain's, not the phone's GPS altitude: no note that the gain is from GPS (issue #46 item 5).
    expect(activity.elevation_from_gps).toBe(false);
  });

  it("a barometric recording keeps its own altitude and its device's ascent", async () => {
    // The Edge 1000's FIT records barometric altitude in Leiden too (same ride as the GPX above).
    const bytes = new Uint8Array(readFileSync(deviceFile("fit/garmin-edge1000-cycling-short-3formats.fit")));
    const activity = await uploadActivity(server, athlete, bytes, "leiden-baro.fit");
    expect(activity.elev_high).toBeLessThan(100);
    expect(activity.elevation_from_gps).toBe(false);
  });
});
