// deno-lint-ignore-file no-explicit-any -- FIT messages and the API's JSON answers are read field by field
import { Decoder, Encoder, Stream } from "@garmin/fitsdk";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { field, readFit, uploadActivity } from "./device-totals.ts";

/**
 * Issue #32 item 4: a lap is measured over its own span, not up to the next lap's start. Two files:
 * a real Edge 1000 ride whose lap 4's start + total_elapsed_time runs 20 s into lap 5 (the device
 * counted the pause before the lap into its elapsed time; the lap's timestamp says where it ended),
 * and a real FR920XT run with autolaps every mile into which the test writes a manual lap overlapping
 * three autolaps (no public recording with such a lap was found): the file is decoded and re-encoded
 * with the Garmin FIT SDK, its own messages unchanged but for the added lap (developer fields left out).
 */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

type Mesg = Record<string, any>;
const LAP = 19;

/** The file with one more lap message from `from` to `to` (ms), its distance read from the records. */
function withManualLap(
  bytes: Uint8Array,
  from: number,
  to: number,
): { bytes: Uint8Array<ArrayBuffer>; distance: number } {
  const mesgs: [number, Mesg][] = [];
  const { errors } = new Decoder(Stream.fromByteArray(bytes)).read({
    mesgListener: (n: number, m: Mesg) => mesgs.push([n, m]),
    expandComponents: false,
    expandSubFields: false,
    convertTypesToStrings: false,
    mergeHeartRates: false,
  });
  expect(errors).toEqual([]);
  const records = mesgs.filter(([n]) => n === 20).map(([, m]) => m);
  const distanceAt = (t: number) =>
    records.find((r) => r.timestamp.getTime() >= t && r.distance != null)!.distance as number;
  const distance = distanceAt(to) - distanceAt(from);
  const encoder = new Encoder();
  let added = false;
  for (const [n, m] of mesgs) {
    if (n === 206 || n === 207) continue; // developer data ids and field descriptions
    delete m.developerFields;
    encoder.onMesg(n, m);
    if (n === LAP && !added && m.timestamp.getTime() >= to) {
      const lap: Mesg = {
        timestamp: new Date(to),
        startTime: new Date(from),
        totalElapsedTime: (to - from) / 1000,
        totalTimerTime: (to - from) / 1000,
        totalDistance: distance,
        event: 9,
        eventType: 1,
        lapTrigger: 0,
        messageIndex: 99,
      };
      encoder.onMesg(LAP, lap as Parameters<Encoder["onMesg"]>[1]);
      added = true;
    }
  }
  expect(added).toBe(true);
  return { bytes: encoder.close() as Uint8Array<ArrayBuffer>, distance };
}

describe("laps over their own span", () => {
  it("Edge 1000: a lap whose elapsed time holds the pause before it ends at its timestamp; moving times are the laps' timer times", async () => {
    const path = deviceFile("fit/garmin-edge1000-cycling-short-3formats.fit");
    const device = readFit(path);
    const activity = await uploadActivity(server, athlete, new Uint8Array(readFileSync(path)), "edge1000-laps.fit");
    expect(activity.laps).toHaveLength(device.laps.length);
    // The overlap is in the file: lap 4's start + elapsed is 20 s past lap 5's start.
    const lap4End = new Date(device.laps[3].startTime as Date).getTime() +
      1000 * field(device.laps[3], "totalElapsedTime");
    expect(lap4End - new Date(device.laps[4].startTime as Date).getTime()).toBeGreaterThan(15_000);
    for (const [k, lap] of activity.laps.entries()) {
      const own = device.laps[k];
      // Timer time within 1 s (ours is whole seconds); lap 4 was 37 s against the device's 17.65 s.
      expect(Math.abs(lap.moving_time - field(own, "totalTimerTime")), `lap ${k + 1}`).toBeLessThanOrEqual(1);
      expect(lap.moving_time).toBeGreaterThan(0);
      expect(Math.abs(lap.distance - field(own, "totalDistance"))).toBeLessThanOrEqual(0.01);
    }
  });

  it("FR920XT run: a manual lap over three autolaps gets its own moving time and a speed no faster than the file's maximum", async () => {
    const path = deviceFile("fit/garmin-fr920xt-running-paused.fit");
    const device = readFit(path);
    const [session] = device.sessions;
    const maxSpeed = field(session, "enhancedMaxSpeed");
    // From the middle of autolap 4 to the middle of autolap 6, over the whole of autolap 5 (which holds pauses of the timer).
    const mid = (k: number) => {
      const start = new Date(device.laps[k].startTime as Date).getTime();
      return start + Math.round(field(device.laps[k], "totalElapsedTime") / 2) * 1000;
    };
    const from = mid(3);
    const to = mid(5);
    const edited = withManualLap(new Uint8Array(readFileSync(path)), from, to);
    const again = new Decoder(Stream.fromByteArray(edited.bytes)).read();
    expect(again.errors).toEqual([]);
    expect(again.messages.lapMesgs).toHaveLength(device.laps.length + 1);
    expect(again.messages.recordMesgs).toHaveLength(device.records.length);

    const activity = await uploadActivity(server, athlete, edited.bytes, "fr920xt-manual-lap.fit");
    expect(activity.laps).toHaveLength(device.laps.length + 1);
    const manual = activity.laps.find((l: Mesg) => Date.parse(l.start_date) === from)!;
    expect(manual).toBeDefined();
    expect(manual.moving_time).toBeGreaterThan(0);
    // Its moving time is its span less the timer's pauses within it (the file's timer events).
    const events = (again.messages.eventMesgs ?? []).filter((e: Mesg) => e.event === "timer");
    let paused = 0;
    let stoppedAt: number | null = null;
    for (const e of events) {
      const t = new Date(e.timestamp as Date).getTime();
      if (e.eventType === "start" && stoppedAt !== null) {
        paused += Math.max(0, Math.min(t, to) - Math.max(stoppedAt, from));
        stoppedAt = null;
      } else if (e.eventType !== "start" && stoppedAt === null) stoppedAt = t;
    }
    expect(paused).toBeGreaterThan(0);
    expect(
      Math.abs(manual.moving_time - (to - from - paused) / 1000),
      `moving ${manual.moving_time}, span ${(to - from) / 1000}, paused ${paused / 1000}`,
    ).toBeLessThanOrEqual(2);
    expect(Math.abs(manual.distance - edited.distance)).toBeLessThanOrEqual(0.01);
    for (const lap of activity.laps) {
      expect(lap.moving_time, lap.name).toBeGreaterThan(0);
      expect(lap.average_speed, lap.name).toBeLessThanOrEqual(maxSpeed);
    }
    // The autolaps keep their own timer times (2 %).
    const autolaps = activity.laps.filter((l: Mesg) => l !== manual);
    for (const [k, lap] of autolaps.entries()) {
      const timer = field(device.laps[k], "totalTimerTime");
      expect(Math.abs(lap.moving_time - timer), lap.name).toBeLessThanOrEqual(Math.max(1, timer * 0.02));
    }
  });
});
