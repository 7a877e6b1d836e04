import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { expectNear, field, readFit, readTcxLaps, uploadActivity } from "./device-totals.ts";

/** Averages, elevation gain and calories against the devices' own figures (causes 6, 7 and 8). */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete({ weight: 70, birthdate: "1980-05-01", sex: "M" });
});
afterAll(() => server.close());

const bytes = (relative: string) => new Uint8Array(readFileSync(deviceFile(relative)));

describe("cause 7: averages weighted by each sample's duration over the moving time", () => {
  // Rides whose devices record at irregular intervals (smart recording) and average over timer time.
  for (
    const file of [
      "fit/garmin-edge810-cycling-power-vector.fit",
      "fit/garmin-edge530-indoor-cycling-power-hrv-laps.fit",
      "fit/garmin-edge500-cycling-hr-cad-pauses.fit",
      "fit/zwift-virtual-cycling-power.fit",
    ]
  ) {
    it(file, async () => {
      const [session] = readFit(deviceFile(file)).sessions;
      const activity = await uploadActivity(server, athlete, bytes(file), file.split("/").pop()!);
      // Both average over the same time: our moving time within 2 % of the device's timer time.
      expectNear(activity.moving_time, field(session, "totalTimerTime"), 0.02);
      const hr = field(session, "avgHeartRate");
      if (hr > 0) expect(Math.abs(activity.average_heartrate - hr)).toBeLessThanOrEqual(1);
      const watts = field(session, "avgPower");
      if (watts > 0) expectNear(activity.average_watts, watts, 0.02);
      expect(activity.max_heartrate ?? 0).toBe(
        Number.isFinite(field(session, "maxHeartRate")) ? field(session, "maxHeartRate") : 0,
      );
    });
  }
});

describe("cause 8: elevation gain", () => {
  it("an altimeter settling at the start (1,257 m → 2,258 m) is not climbing", async () => {
    const file = "tcx/garmin-vivoactivehr-xcski-runcadence.tcx";
    const text = readFileSync(deviceFile(file), "utf8");
    // Independent figure: the first 30 s left out, the median altitude of each 10 s, rises summed.
    const points = [...text.matchAll(/<Time>([^<]+)<\/Time>[\s\S]*?<AltitudeMeters>([^<]+)<\/AltitudeMeters>/g)]
      .map((m) => [Date.parse(m[1]) / 1000, Number(m[2])] as const);
    expect(points[4][1] - points[0][1]).toBeGreaterThan(900); // the settling is in the file
    const bins = new Map<number, number[]>();
    for (const [t, alt] of points) {
      if (t - points[0][0] < 30) continue;
      const k = Math.floor((t - points[0][0]) / 10);
      bins.set(k, [...(bins.get(k) ?? []), alt]);
    }
    const medians = [...bins.keys()].sort((a, b) => a - b).map((k) => {
      const v = bins.get(k)!.sort((a, b) => a - b);
      return v[Math.floor(v.length / 2)];
    });
    let independent = 0;
    for (let i = 1; i < medians.length; i++) independent += Math.max(0, medians[i] - medians[i - 1]);
    const activity = await uploadActivity(server, athlete, bytes(file), "xcski.tcx");
    expectNear(activity.total_elevation_gain, independent, 0.1);
  });

  it("GPS altitude (Strava GPX export of an Edge 1000 ride) against the barometric device's own ascent", async () => {
    const [session] = readFit(deviceFile("fit/garmin-edge1000-cycling-power-hr.fit")).sessions;
    const activity = await uploadActivity(
      server,
      athlete,
      bytes("gpx/strava-export-cycling-power-hr-cad-atemp.gpx"),
      "edge1000.gpx",
    );
    expectNear(activity.total_elevation_gain, field(session, "totalAscent"), 0.1);
  });
});

describe("cause 6: calories", () => {
  it("FIT: the device's own session total", async () => {
    const file = "fit/garmin-edge810-cycling-power-vector.fit";
    const [session] = readFit(deviceFile(file)).sessions;
    const other = await server.athlete();
    const activity = await uploadActivity(server, other, bytes(file), "edge810.fit");
    expect(activity.calories).toBe(field(session, "totalCalories"));
  });

  it("TCX run with heart rate: Keytel et al. 2005 (female, 70 kg), near the device's lap calories", async () => {
    const file = "tcx/garmin-fr410-running-hr.tcx";
    const text = readFileSync(deviceFile(file), "utf8");
    const points = [...text.matchAll(/<Time>([^<]+)<\/Time>[\s\S]*?<HeartRateBpm[^>]*>\s*<Value>(\d+)<\/Value>/g)]
      .map((m) => [Date.parse(m[1]) / 1000, Number(m[2])] as const);
    const age = new Date(points[0][0] * 1000).getUTCFullYear() - 1980;
    // The published equation, each interval at its closing heart rate (intervals over 10 s are pauses).
    let kcal = 0;
    for (let i = 1; i < points.length; i++) {
      const dt = points[i][0] - points[i - 1][0];
      if (dt <= 0 || dt > 10) continue;
      kcal += Math.max(0, (-20.4022 + 0.4472 * points[i][1] - 0.1263 * 70 + 0.074 * age) / 4.184) * (dt / 60);
    }
    const runner = await server.athlete({ weight: 70, birthdate: "1980-05-01", sex: "F" });
    const activity = await uploadActivity(server, runner, bytes(file), "fr410.tcx");
    expectNear(activity.calories, kcal, 0.05);
    const device = readTcxLaps(text).reduce((a, l) => a + (l.calories ?? 0), 0);
    expectNear(activity.calories, device, 0.25);
  });

  it("TCX ride with a power meter: the work done ÷ 24 % gross efficiency", async () => {
    const activity = await uploadActivity(
      server,
      athlete,
      bytes("tcx/garmin-edge520-cycling-power-cadence.tcx"),
      "edge520.tcx",
    );
    expect(activity.device_watts).toBe(true);
    expectNear(activity.calories, activity.kilojoules / (4.184 * 0.24), 0.01);
    const device = readTcxLaps(readFileSync(deviceFile("tcx/garmin-edge520-cycling-power-cadence.tcx"), "utf8"))[0]
      .calories!;
    expectNear(activity.calories, device, 0.25);
  });
});
