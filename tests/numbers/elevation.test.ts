import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { expectNear, field, readFit, sumOf, uploadActivity } from "./device-totals.ts";

/** Issue #32, cause 2: elevation gain of non-barometric altitude, and none on water. */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

const bytes = (relative: string) => new Uint8Array(readFileSync(deviceFile(relative)));

describe("cause 2: elevation gain counts climbs, not altitude noise", () => {
  it("MapSource GPX (3 tracks, GPS altitude every ~15 m): the independent estimates' 16–19 m, within 10 %", async () => {
    const activity = await uploadActivity(
      server,
      athlete,
      bytes("gpx/garmin-mapsource-multitrack.gpx"),
      "mapsource.gpx",
    );
    expect(activity.total_elevation_gain).toBeGreaterThanOrEqual(16 * 0.9);
    expect(activity.total_elevation_gain).toBeLessThanOrEqual(19 * 1.1);
  });

  it("GPS-smoothing over distance keeps a real climb: the Strava GPX of an Edge 1000 ride against the device's total_ascent", async () => {
    const [session] = readFit(deviceFile("fit/garmin-edge1000-cycling-power-hr.fit")).sessions;
    const activity = await uploadActivity(
      server,
      athlete,
      bytes("gpx/strava-export-cycling-power-hr-cad-atemp.gpx"),
      "edge1000-gain.gpx",
    );
    expectNear(activity.total_elevation_gain, field(session, "totalAscent"), 0.1);
  });

  it("a swim climbs nothing: the FR920XT triathlon uploaded as a swim, whatever ascent its sessions sum", async () => {
    const file = "fit/garmin-fr920xt-triathlon-openwater.fit";
    const fit = readFit(deviceFile(file));
    expect(fit.sessions.some((s) => s.sport === "swimming" && s.subSport === "openWater")).toBe(true);
    // What a gain taken from the device's totals would have said.
    expect(sumOf(fit.sessions, "totalAscent")).toBeGreaterThan(0);
    const activity = await uploadActivity(server, athlete, bytes(file), "tri-swim.fit", { activity_type: "swim" });
    expect(activity.type).toBe("Swim");
    expect(activity.total_elevation_gain).toBe(0);
    for (const lap of activity.laps) expect(lap.total_elevation_gain).toBe(0);
  });
});
