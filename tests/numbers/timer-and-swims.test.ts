// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { activityStreams, expectNear, field, readFit, sumOf, uploadActivity } from "./device-totals.ts";

/**
 * Issue #32, causes 1, 3 and 7, against the device's own totals (read with the Garmin FIT SDK):
 * the activity runs from the moment the timer started; a pool swim's streams come from its lengths;
 * a run the athlete paused on the device moves for the device's timer time.
 */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

const bytes = (relative: string) => new Uint8Array(readFileSync(deviceFile(relative)));
/** Each file is uploaded once (a second upload of the same file is a duplicate). */
const uploads = new Map<string, Promise<Record<string, any>>>();
const upload = (file: string) => {
  if (!uploads.has(file)) uploads.set(file, uploadActivity(server, athlete, bytes(file), file.split("/").pop()!));
  return uploads.get(file)!;
};
const startOf = (session: Record<string, unknown>) => (session.startTime as Date).getTime();

describe("cause 1: start and end are the timer's, not the first and last record's", () => {
  it("Edge 530 whose first record comes 45 s after the timer started", async () => {
    const file = "fit/garmin-edge530-cycling-timer-before-first-record.fit";
    const fit = readFit(deviceFile(file));
    const [session] = fit.sessions;
    const firstRecord = (fit.records[0].timestamp as Date).getTime();
    expect(firstRecord - startOf(session)).toBeGreaterThanOrEqual(30_000); // the file is what the issue says
    const activity = await upload(file);
    expect(Date.parse(activity.start_date)).toBe(startOf(session));
    expectNear(activity.elapsed_time, field(session, "totalElapsedTime"), 0.02, 2);
    expect(Math.abs(activity.elapsed_time - field(session, "totalElapsedTime"))).toBeLessThanOrEqual(2);
    expect(activity.moving_time).toBeLessThanOrEqual(activity.elapsed_time);
    expectNear(activity.distance, field(session, "totalDistance"), 0.01);
  });

  it("pool swims: elapsed is the session's total_elapsed_time, start the session's start_time", async () => {
    for (const file of ["fit/garmin-fenix3-pool-swim-hr-messages.fit", "fit/garmin-fr735xt-pool-swim-lengths.fit"]) {
      const [session] = readFit(deviceFile(file)).sessions;
      const activity = await upload(file);
      expect(activity.type).toBe("Swim");
      expect(Date.parse(activity.start_date), file).toBe(startOf(session));
      expect(Math.abs(activity.elapsed_time - field(session, "totalElapsedTime")), file).toBeLessThanOrEqual(2);
      expect(activity.moving_time, file).toBeLessThanOrEqual(activity.elapsed_time);
    }
  });
});

describe("cause 3: pool-swim streams and maximums come from the lengths", () => {
  it("Fenix 3 pool swim: distance stream along the lengths, max speed the fastest length, heart rate from the session", async () => {
    const file = "fit/garmin-fenix3-pool-swim-hr-messages.fit";
    const fit = readFit(deviceFile(file));
    const [session] = fit.sessions;
    const poolLength = field(session, "poolLength");
    const active = fit.lengths.filter((l) => l.lengthType === "active");
    const activity = await upload(file);
    expectNear(activity.distance, field(session, "totalDistance"), 0.01);
    expectNear(activity.max_speed, field(session, "enhancedMaxSpeed"), 0.02);
    expect(activity.max_speed).toBeGreaterThanOrEqual(activity.average_speed);
    expect(activity.has_heartrate).toBe(true);
    expect(Math.abs(activity.average_heartrate - field(session, "avgHeartRate"))).toBeLessThanOrEqual(1);
    expect(Math.abs(activity.max_heartrate - field(session, "maxHeartRate"))).toBeLessThanOrEqual(1);

    const streams = await activityStreams(server, athlete, activity.id);
    const distance = streams.distance as number[];
    const time = streams.time as number[];
    expectNear(distance[distance.length - 1], field(session, "totalDistance"), 0.01);
    for (let i = 1; i < distance.length; i++) expect(distance[i]).toBeGreaterThanOrEqual(distance[i - 1]);
    // At the end of every 10th active length the stream has covered that many pool lengths.
    const start = Date.parse(activity.start_date);
    for (let k = 9; k < active.length; k += 10) {
      const end = (active[k].startTime as Date).getTime() + field(active[k], "totalElapsedTime") * 1000;
      const at = time.findIndex((t) => start + t * 1000 >= end);
      if (at === -1) continue;
      expectNear(distance[at], (k + 1) * poolLength, 0.01, 1);
    }
    const velocity = streams.velocity_smooth as number[];
    expect(Math.max(...velocity)).toBeGreaterThan(0);
    expect(Math.max(...velocity)).toBeLessThanOrEqual(field(session, "enhancedMaxSpeed") * 1.15);
  });

  it("FR735XT pool swim: max speed is the device's (fastest length), not a stroke's", async () => {
    const file = "fit/garmin-fr735xt-pool-swim-lengths.fit";
    const [session] = readFit(deviceFile(file)).sessions;
    const activity = await upload(file);
    expectNear(activity.max_speed, field(session, "enhancedMaxSpeed"), 0.02);
    expect(activity.max_speed).toBeGreaterThanOrEqual(activity.average_speed);
  });
});

describe("cause 3: a swim whose heart rate is only in its laps and session summary", () => {
  it("FR735XT and fenix 3 pool swims: activity heart rate from the session, each lap's from its lap message", async () => {
    for (const file of ["fit/garmin-fr735xt-pool-swim-lengths.fit", "fit/garmin-fenix3-pool-swim-hr-messages.fit"]) {
      const fit = readFit(deviceFile(file));
      const [session] = fit.sessions;
      const activity = await upload(file);
      expect(activity.has_heartrate, file).toBe(true);
      expect(Math.abs(activity.average_heartrate - field(session, "avgHeartRate")), file).toBeLessThanOrEqual(1);
      expect(Math.abs(activity.max_heartrate - field(session, "maxHeartRate")), file).toBeLessThanOrEqual(1);
      expect(activity.laps.length, file).toBe(fit.laps.length);
      fit.laps.forEach((lap, i) => {
        const ours = activity.laps[i];
        if (lap.avgHeartRate == null) return expect(ours.average_heartrate ?? null, `${file} lap ${i}`).toBeNull();
        expect(Math.abs(ours.average_heartrate - field(lap, "avgHeartRate")), `${file} lap ${i}`).toBeLessThanOrEqual(
          1,
        );
        expect(Math.abs(ours.max_heartrate - field(lap, "maxHeartRate")), `${file} lap ${i}`).toBeLessThanOrEqual(1);
      });
    }
  });
});

describe("cause 7: a run paused on the device moves for its timer time", () => {
  it("FR920XT run paused 9 times: moving time is the session's total_timer_time, pace from it", async () => {
    const file = "fit/garmin-fr920xt-running-paused.fit";
    const fit = readFit(deviceFile(file));
    const [session] = fit.sessions;
    // The file is what the issue says: the timer was stopped for minutes.
    expect(field(session, "totalElapsedTime") - field(session, "totalTimerTime")).toBeGreaterThan(600);
    const activity = await upload(file);
    expect(activity.type).toBe("Run");
    expect(Math.abs(activity.moving_time - field(session, "totalTimerTime"))).toBeLessThanOrEqual(1);
    expectNear(activity.average_speed, field(session, "totalDistance") / field(session, "totalTimerTime"), 0.005);
    expectNear(activity.elapsed_time, field(session, "totalElapsedTime"), 0.02, 2);
    // Laps' moving times add up to the activity's (within a second a lap).
    const lapMoving = activity.laps.reduce((a: number, l: { moving_time: number }) => a + l.moving_time, 0);
    expect(Math.abs(lapMoving - sumOf(fit.laps, "totalTimerTime"))).toBeLessThanOrEqual(fit.laps.length);
  });
});
