import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { expectNear, field, readFit, readTcxLaps, sumOf, uploadActivity } from "./device-totals.ts";

/** Moving time and distance against the device's own totals (issue #17, causes 1, 2 and 6). */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

const bytes = (relative: string) => new Uint8Array(readFileSync(deviceFile(relative)));

describe("cause 1: devices that record distance in steps", () => {
  it("Stryd run (distance in whole metres, no pauses): moving time is the session's timer time", async () => {
    const file = "fit/stryd-running-power-devfields.fit";
    const [session] = readFit(deviceFile(file)).sessions;
    const activity = await uploadActivity(server, athlete, bytes(file), "stryd.fit");
    expectNear(activity.moving_time, field(session, "totalTimerTime"), 0.02);
    expectNear(activity.distance, field(session, "totalDistance"), 0.01);
  });
});

describe("cause 2: no-GPS and pool swims", () => {
  it("FR735XT pool swim: moving time is the active lengths, distance is active lengths × pool length", async () => {
    const file = "fit/garmin-fr735xt-pool-swim-lengths.fit";
    const fit = readFit(deviceFile(file));
    const active = fit.lengths.filter((l) => l.lengthType === "active");
    const idle = fit.lengths.filter((l) => l.lengthType !== "active");
    expect(idle.length).toBeGreaterThan(0); // the file has rests at the wall
    const poolLength = field(fit.sessions[0], "poolLength");
    const activity = await uploadActivity(server, athlete, bytes(file), "pool.fit");
    expect(activity.type).toBe("Swim");
    expectNear(activity.moving_time, sumOf(active, "totalTimerTime"), 0.02);
    expectNear(activity.distance, active.length * poolLength, 0.01);
    expectNear(activity.distance, field(fit.sessions[0], "totalDistance"), 0.01);
    // Rests are elapsed, not moving.
    expect(activity.elapsed_time - activity.moving_time).toBeGreaterThanOrEqual(sumOf(idle, "totalTimerTime") * 0.9);
  });

  it("Vivoactive pool swim TCX (no GPS, a record every ~50 s): moving time is the lap's TotalTimeSeconds", async () => {
    const file = "tcx/garmin-vivoactivehr-pool-swim.tcx";
    const laps = readTcxLaps(readFileSync(deviceFile(file), "utf8"));
    const activity = await uploadActivity(server, athlete, bytes(file), "swim.tcx", { activity_type: "swim" });
    expect(activity.type).toBe("Swim");
    expectNear(activity.moving_time, laps.reduce((a, l) => a + l.totalTimeSeconds, 0), 0.02);
    expectNear(activity.distance, laps.reduce((a, l) => a + l.distanceMeters, 0), 0.01);
  });
});

describe("cause 6: TCX laps without trackpoints", () => {
  it("a lap without trackpoints keeps its TotalTimeSeconds and DistanceMeters, and the start time", async () => {
    const text = readFileSync(deviceFile("tcx/garmin-edge1000-cycling-short-3formats.tcx"), "utf8");
    // The first lap's Track taken out: its totals are all that is left of it.
    const firstLap = text.indexOf("<Lap ");
    const trackStart = text.indexOf("<Track>", firstLap);
    const trackEnd = text.indexOf("</Track>", trackStart) + "</Track>".length;
    const edited = text.slice(0, trackStart) + text.slice(trackEnd);
    const laps = readTcxLaps(edited);
    expect(laps[0].trackpoints).toBe(0);
    expect(laps.slice(1).every((l) => l.trackpoints > 0)).toBe(true);
    const activity = await uploadActivity(server, athlete, new TextEncoder().encode(edited), "lapless.tcx");
    expect(Date.parse(activity.start_date)).toBe(Math.round(laps[0].startTime / 1000) * 1000);
    expectNear(activity.distance, laps.reduce((a, l) => a + l.distanceMeters, 0), 0.01);
    // The same ride recorded as FIT: its session timer time (the TCX laps also count a 32 s pause).
    const [fitSession] = readFit(deviceFile("fit/garmin-edge1000-cycling-short-3formats.fit")).sessions;
    expectNear(activity.moving_time, field(fitSession, "totalTimerTime"), 0.02, 2);
    expectNear(activity.elapsed_time, laps.reduce((a, l) => a + l.totalTimeSeconds, 0), 0.02, 2);
    expect(activity.laps).toHaveLength(laps.length);
    expectNear(activity.laps[0].distance, laps[0].distanceMeters, 0.01);
    expectNear(activity.laps[0].elapsed_time, laps[0].totalTimeSeconds, 0.02, 1);
  });
});
