import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { field, readFit, uploadActivity } from "./device-totals.ts";

/**
 * Issue #32 item 4: the sport a file names. FIT sport/sub_sport (a vivoactive HR's indoor rowing:
 * fitness_equipment + indoor_rowing, sub_sport 14) and TCX `<Activity Sport="…">`: the schema allows
 * Running, Biking and Other, but exporters also write words of their own ("Swimming", "Rowing"). The
 * athlete's default type (Ride here) applies only when the file names no sport at all.
 */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

describe("the sport a file names", () => {
  it("vivoactive HR indoor rowing (FIT sub_sport indoor_rowing) is a Rowing on the trainer, with the device's timer and heart rate", async () => {
    const path = deviceFile("fit/garmin-vivoactivehr-indoor-rowing-nogps.fit");
    const device = readFit(path);
    const [session] = device.sessions;
    expect(session.sport).toBe("fitnessEquipment");
    expect(session.subSport).toBe("indoorRowing");
    const activity = await uploadActivity(server, athlete, new Uint8Array(readFileSync(path)), "rowing.fit");
    expect(activity).toMatchObject({ type: "Rowing", sport_type: "Rowing", trainer: true });
    const timer = field(session, "totalTimerTime");
    expect(Math.abs(activity.moving_time - timer)).toBeLessThanOrEqual(timer * 0.02);
    expect(Math.abs(activity.average_heartrate - field(session, "avgHeartRate"))).toBeLessThanOrEqual(1);
    expect(activity.max_heartrate).toBe(field(session, "maxHeartRate"));
    // A rower doesn't climb.
    expect(activity.total_elevation_gain).toBe(0);
  });

  // The vivoactive HR pool swim as Garmin Connect exported it (Sport="Other"), and the same file with the
  // Sport attribute rewritten by the test to the words other exporters use; nothing else is changed.
  for (
    const [sport, type] of [["Other", "Workout"], ["Swimming", "Swim"], ["Rowing", "Rowing"], [
      "Running",
      "Run",
    ]] as const
  ) {
    it(`TCX <Activity Sport="${sport}"> is a ${type}, not the athlete's default Ride`, async () => {
      const original = readFileSync(deviceFile("tcx/garmin-vivoactivehr-pool-swim.tcx"), "utf8");
      expect(original).toContain('<Activity Sport="Other">');
      const text = original.replace('<Activity Sport="Other">', `<Activity Sport="${sport}">`);
      // An athlete of its own each time: the same recording twice is a duplicate.
      const own = await server.athlete();
      const activity = await uploadActivity(server, own, new TextEncoder().encode(text), `sport-${sport}.tcx`);
      expect(activity.type).toBe(type);
    });
  }
});
