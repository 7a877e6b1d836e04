import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHARED_DEVICES } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { activityStreams, expectNear, field, readFit, uploadActivity } from "./device-totals.ts";

/**
 * Suunto 9 Baro run (copyleft, read from the shared corpus): distance in whole metres on every other
 * record, GPS on the others (causes 1 and 3).
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const FILE = join(SHARED_DEVICES, "fit/suunto-9baro-running-hr-partial-gps.fit");

describe("Suunto 9: distance on alternating records", () => {
  it(
    "moving time is the timer time; the distance stream ends at the session's distance; splits and best efforts follow it",
    async () => {
      const [session] = readFit(FILE).sessions;
      const athlete = await server.athlete();
      const activity = await uploadActivity(server, athlete, new Uint8Array(readFileSync(FILE)), "suunto.fit");
      expect(activity.type).toBe("Run");
      expectNear(activity.moving_time, field(session, "totalTimerTime"), 0.02);
      expectNear(activity.distance, field(session, "totalDistance"), 0.01);
      const streams = await activityStreams(server, athlete, activity.id);
      expectNear(streams.distance.at(-1), field(session, "totalDistance"), 0.01);
      for (let i = 1; i < streams.distance.length; i++) {
        expect(streams.distance[i]).toBeGreaterThanOrEqual(streams.distance[i - 1]);
      }
      const splitSum = activity.splits_metric.reduce((a: number, s: { distance: number }) => a + s.distance, 0);
      expectNear(splitSum, field(session, "totalDistance"), 0.01);
      const best400 = activity.best_efforts.find((e: { name: string }) => e.name === "400m");
      expect(best400).toBeDefined();
      expect(best400.elapsed_time).toBeGreaterThanOrEqual(400 / activity.max_speed - 1);
      expect(best400.moving_time).toBeLessThanOrEqual(best400.elapsed_time);
    },
    60_000,
  );
});
