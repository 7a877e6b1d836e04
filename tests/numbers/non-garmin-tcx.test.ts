import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { expectNear, readTcxLaps, uploadActivity } from "./device-totals.ts";

/**
 * Issue #32 item 3: a TCX not written by Garmin — CrewNerd (an iPhone rowing app), a row on the water
 * of 2016, 3 laps, 3,377 trackpoints, gzipped as its repository keeps it. Compared with the file's own
 * lap totals, read here from the text.
 */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

// In gz/: the suites that walk fit/, tcx/ and gpx/ take every file there as plain XML or FIT.
const FILE = "gz/crewnerd-iphone-rowing-hr.tcx.gz";

describe("CrewNerd rowing TCX", () => {
  it("distance, laps, moving time and heart rate against the file's own totals", async () => {
    const gz = new Uint8Array(readFileSync(deviceFile(FILE)));
    const text = gunzipSync(gz).toString("utf8");
    expect(text).toMatch(/<Name>CrewNerd<\/Name>/);
    expect(text).toMatch(/<Activity Sport="Other">/);
    const laps = readTcxLaps(text);
    expect(laps).toHaveLength(3);
    const activity = await uploadActivity(server, athlete, gz, "crewnerd.tcx.gz", {
      data_type: "tcx.gz",
      sport_type: "Rowing",
    });
    // Sport="Other" names no sport: the upload's sport_type gives the type (Strava takes Rowing there, not in activity_type).
    expect(activity.type).toBe("Rowing");
    expectNear(activity.distance, laps.reduce((a, l) => a + l.distanceMeters, 0), 0.01);
    expect(activity.laps).toHaveLength(3);
    for (const [k, lap] of activity.laps.entries()) {
      expect(Math.abs(lap.elapsed_time - laps[k].totalTimeSeconds), `lap ${k + 1}`).toBeLessThanOrEqual(1);
      expect(Math.abs(lap.distance - laps[k].distanceMeters), `lap ${k + 1}`).toBeLessThanOrEqual(0.01);
      expect(lap.moving_time).toBeLessThanOrEqual(lap.elapsed_time);
    }
    // Moving: the laps' timer time less the intervals in which the file's own distance stood still
    // (the app's timer ran at the start with the boat at rest: 91 s of lap 1).
    let still = 0;
    for (const lap of text.split(/<Lap\b/).slice(1)) {
      const points = [...lap.matchAll(/<Time>([^<]+)<\/Time>[\s\S]*?<DistanceMeters>([\d.]+)<\/DistanceMeters>/g)].map((
        m,
      ) => [Date.parse(m[1]), Number(m[2])]);
      for (let i = 1; i < points.length; i++) {
        if (points[i][1] === points[i - 1][1]) still += (points[i][0] - points[i - 1][0]) / 1000;
      }
    }
    const timer = laps.reduce((a, l) => a + l.totalTimeSeconds, 0);
    expect(still).toBeGreaterThan(60);
    expectNear(activity.moving_time, timer - still, 0.02);
    // The highest heart rate is the laps' own maximum.
    const lapMax = Math.max(
      ...[...text.matchAll(/<MaximumHeartRateBpm[^>]*>\s*<Value>(\d+)<\/Value>/g)].map((m) => Number(m[1])),
    );
    expect(activity.max_heartrate).toBe(lapMax);
    // No climbing on the water.
    expect(activity.total_elevation_gain).toBe(0);
  });
});
