import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { activityStreams, expectNear, field, readFit, sumOf, uploadActivity } from "./device-totals.ts";

/**
 * Issue #32 item 5: a triathlon recorded as one multisport FIT (FR920XT: open-water swim, transition,
 * ride, transition, run). One activity typed by the sport with the most timer time (read here from the
 * file's sessions with the Garmin FIT SDK); each leg's moving time judged by its own sport's threshold
 * (the swim leg at ~0.8 m/s was "stopped" under a ride's 1 m/s: 433 of its 1,988 s).
 */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

const FILE = "fit/garmin-fr920xt-triathlon-openwater.fit";
const TYPES: Record<string, string> = { swimming: "Swim", cycling: "Ride", running: "Run" };

describe("a triathlon in one FIT file", () => {
  it("is one activity of its longest sport, its legs moving by their own sport", async () => {
    const { sessions } = readFit(deviceFile(FILE));
    expect(sessions.map((s) => s.sport)).toEqual(["swimming", "transition", "cycling", "transition", "running"]);
    const bySport = new Map<string, number>();
    for (const s of sessions) {
      if (TYPES[String(s.sport)]) {
        bySport.set(TYPES[String(s.sport)], (bySport.get(TYPES[String(s.sport)]) ?? 0) + field(s, "totalTimerTime"));
      }
    }
    const longest = [...bySport].sort((a, b) => b[1] - a[1])[0][0];

    const activity = await uploadActivity(
      server,
      athlete,
      new Uint8Array(readFileSync(deviceFile(FILE))),
      "triathlon.fit",
    );
    expect(activity.type).toBe(longest);
    expectNear(activity.distance, sumOf(sessions, "totalDistance"), 0.01);
    const timer = sumOf(sessions, "totalTimerTime");
    expectNear(activity.elapsed_time, timer, 0.02);
    // Moving: every leg's own (the transitions, partly standing, are the rest).
    const legs = sessions.filter((s) => TYPES[String(s.sport)]);
    expect(activity.moving_time).toBeGreaterThanOrEqual(sumOf(legs, "totalTimerTime") * 0.98);
    expect(activity.moving_time).toBeLessThanOrEqual(activity.elapsed_time);

    // The swim leg by itself, from the streams: moving within 2 % of its timer time.
    const streams = await activityStreams(server, athlete, activity.id);
    const start = Date.parse(activity.start_date);
    const swim = sessions[0];
    const from = new Date(swim.startTime as Date).getTime();
    const to = from + field(swim, "totalElapsedTime") * 1000;
    let swimMoving = 0;
    for (let i = 1; i < streams.time.length; i++) {
      const t = start + streams.time[i] * 1000;
      if (t > from && t <= to && streams.moving[i]) swimMoving += streams.time[i] - streams.time[i - 1];
    }
    expectNear(swimMoving, field(swim, "totalTimerTime"), 0.02);
    // The highest heart rate is the sessions' own maximum. The swim leg's heart rate is in the file's
    // HR messages (7 of its 350 records carry one): it is put onto the records, so the stream has it
    // over the swim (its mean and maximum agree with the swim session's) and the activity's average
    // agrees with the sessions' (weighted by their timer time).
    expect(activity.max_heartrate).toBe(Math.max(...sessions.map((s) => field(s, "maxHeartRate"))));
    const withHr = sessions.filter((s) => s.avgHeartRate != null);
    const sessionsAverage = withHr.reduce((a, s) => a + field(s, "avgHeartRate") * field(s, "totalTimerTime"), 0) /
      sumOf(withHr, "totalTimerTime");
    expect(Math.abs(activity.average_heartrate - sessionsAverage)).toBeLessThanOrEqual(0.5);
    const swimHr = streams.heartrate.filter((_, i) => {
      const t = start + streams.time[i] * 1000;
      return t > from && t <= to;
    });
    const swimMean = swimHr.reduce((a, b) => a + b, 0) / swimHr.length;
    expect(Math.abs(swimMean - field(swim, "avgHeartRate"))).toBeLessThanOrEqual(2);
    expect(Math.abs(Math.max(...swimHr) - field(swim, "maxHeartRate"))).toBeLessThanOrEqual(2);
  });

  it("each lap carries the sport of its leg (null in a transition), the laps of another file the activity's", async () => {
    const { sessions, laps } = readFit(deviceFile(FILE));
    // Another athlete (the file is the first test's: a duplicate for that athlete).
    const other = await server.athlete();
    const activity = await uploadActivity(
      server,
      other,
      new Uint8Array(readFileSync(deviceFile(FILE))),
      "triathlon-laps.fit",
    );
    // The file's own laps of each session (FIT session first_lap_index and num_laps).
    const legs: (string | null)[] = laps.map(() => null);
    for (const s of sessions) {
      for (let k = 0; k < field(s, "numLaps"); k++) {
        legs[field(s, "firstLapIndex") + k] = TYPES[String(s.sport)] ?? null;
      }
    }
    expect(activity.laps.length).toBe(laps.length);
    expect(activity.laps.map((l: { sport_type: string | null }) => l.sport_type)).toEqual(legs);
    expect(activity.laps.map((l: { sport_type: string | null }) => l.sport_type)).toEqual([
      "Swim",
      null,
      "Ride",
      null,
      "Run",
    ]);
    const ride = await uploadActivity(
      server,
      athlete,
      new Uint8Array(readFileSync(deviceFile("fit/garmin-edge500-cycling-hr-cad-pauses.fit"))),
      "ride.fit",
    );
    expect(ride.laps.length).toBeGreaterThan(0);
    expect(ride.laps.every((l: { sport_type: string | null }) => l.sport_type === ride.sport_type)).toBe(true);
  });
});
