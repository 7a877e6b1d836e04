import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { activityStreams, expectNear, field, readFit, sumOf, uploadActivity } from "./device-totals.ts";

/** Cause 10: a multisport FIT file (Fenix 2 triathlon-style: run, bike and generic legs). */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const FILE = "fit/garmin-fenix2-multisport-large.fit";

describe("cause 10: multisport FIT files", () => {
  it("the run's splits, pace and best efforts come from its running sessions only", async () => {
    const fit = readFit(deviceFile(FILE));
    const runs = fit.sessions.filter((s) => s.sport === "running");
    const rides = fit.sessions.filter((s) => s.sport === "cycling");
    expect(runs.length).toBeGreaterThan(0);
    expect(rides.length).toBeGreaterThan(0);
    const inRun = (t: number) =>
      runs.some((s) =>
        t >= (s.startTime as Date).getTime() &&
        t <= (s.startTime as Date).getTime() + field(s, "totalElapsedTime") * 1000
      );
    // Fastest speed the device recorded while running.
    let runMax = 0;
    for (const r of fit.records) {
      const speed = Number(r.enhancedSpeed ?? r.speed ?? 0);
      if (inRun((r.timestamp as Date).getTime()) && speed > runMax) runMax = speed;
    }
    expect(runMax).toBeGreaterThan(0);
    const runDistance = sumOf(runs, "totalDistance");
    const athlete = await server.athlete();
    const activity = await uploadActivity(server, athlete, new Uint8Array(readFileSync(deviceFile(FILE))), "fenix.fit");
    // The type with the most timer time (running legs together outlast the bike leg).
    expect(sumOf(runs, "totalTimerTime")).toBeGreaterThan(sumOf(rides, "totalTimerTime"));
    expect(activity.type).toBe("Run");
    // Distance: every session; splits: the running sessions.
    expectNear(activity.distance, sumOf(fit.sessions, "totalDistance"), 0.01);
    const splitSum = activity.splits_metric.reduce((a: number, s: { distance: number }) => a + s.distance, 0);
    expectNear(splitSum, runDistance, 0.01);
    // Pace over the run legs: their distance over at most their timer time.
    expect(activity.average_speed).toBeGreaterThanOrEqual((runDistance / sumOf(runs, "totalTimerTime")) * 0.98);
    expect(activity.max_speed).toBeLessThanOrEqual(runMax + 0.05);
    expect(activity.best_efforts.length).toBeGreaterThan(0);
    for (const effort of activity.best_efforts) {
      expect(effort.distance).toBeLessThanOrEqual(runDistance);
      // Never faster than the device's own fastest running speed (the bike leg is not a run).
      expect(effort.elapsed_time).toBeGreaterThanOrEqual(Math.floor(effort.distance / runMax));
    }
    const streams = await activityStreams(server, athlete, activity.id);
    expect(streams.time.length).toBeGreaterThan(0);
  }, 120_000);

  it("activity_type given on upload wins over the dominant session", async () => {
    const athlete = await server.athlete();
    const activity = await uploadActivity(
      server,
      athlete,
      new Uint8Array(readFileSync(deviceFile(FILE))),
      "fenix.fit",
      { activity_type: "ride" },
    );
    expect(activity.type).toBe("Ride");
    expect(activity.best_efforts ?? []).toEqual([]);
    expect(activity.splits_metric ?? []).toEqual([]);
    const rides = readFit(deviceFile(FILE)).sessions.filter((s) => s.sport === "cycling");
    // Pace over the bike leg only.
    expect(activity.average_speed).toBeGreaterThanOrEqual(
      (sumOf(rides, "totalDistance") / sumOf(rides, "totalTimerTime")) * 0.98,
    );
  }, 120_000);
});
