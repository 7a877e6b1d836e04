import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type DataType, parseDeviceFile } from "../../server/ingest/decode.ts";
import { BEST_EFFORTS, deriveActivity, type DeriveContext } from "../../server/ingest/derive.ts";
import { SHARED_DEVICES } from "../helpers/fixtures.ts";
import { readFit, sumOf } from "./device-totals.ts";

/**
 * Over every device file of the corpus (copyleft ones included, hence `.shared`) and every damaged
 * one that still makes an activity, derived as the file says and once more as each kind of sport
 * (a run, a walk, a hike, a ride, a swim: what an athlete may pick as activity_type): streams hold
 * numbers only, moving time is never above elapsed time (activity and laps), a run's splits add up
 * to its distance and times (a multisport file's: to its running sessions' own totals), best efforts
 * are monotone and never faster than max_speed allows.
 */
const ctx: DeriveContext = {
  uploadId: 1,
  externalId: null,
  activityType: null,
  defaultType: "Ride",
  name: null,
  description: null,
  visibility: "everyone",
  trainer: false,
  commute: false,
  athlete: { premium: true, weight: 70, birthdate: "1985-06-01", sex: null },
};
const FILES = ["fit", "tcx", "gpx", "broken"].flatMap((dir) =>
  readdirSync(join(SHARED_DEVICES, dir)).map((f) => `${dir}/${f}`)
);
/** Damaged files the server refuses (with a 400 and a message; tests/ingest checks those). */
const REFUSED = new Set([
  "broken/garmin-edge500-activity-no-records.fit",
  "broken/gpsbabel-8tracks-without-times.gpx",
  "broken/osmand-empty-track.gpx",
  "broken/osmand-invalid-coordinates.gpx",
  "broken/strava-android-app-truncated-datasize.fit",
]);

const NUMERIC = [
  "time",
  "distance",
  "altitude",
  "velocity_smooth",
  "heartrate",
  "cadence",
  "watts",
  "temp",
  "grade_smooth",
] as const;

describe("every fixture", () => {
  it("the corpus is there", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(30);
  });
  it("the damaged files left out are refused with a message, not derived", async () => {
    for (const file of REFUSED) {
      const bytes = new Uint8Array(readFileSync(join(SHARED_DEVICES, file)));
      await expect(parseDeviceFile(bytes, file.split(".").pop() as DataType), file).rejects.toThrow(/\w/);
    }
  });
  for (const file of FILES.filter((f) => !REFUSED.has(f))) {
    it(file, async () => {
      const bytes = new Uint8Array(readFileSync(join(SHARED_DEVICES, file)));
      const parsed = await parseDeviceFile(bytes, file.split(".").pop() as DataType);
      // Multisport FIT: the run's distance is its running sessions' own total.
      const sessions = file.endsWith(".fit") && !file.startsWith("broken/")
        ? readFit(join(SHARED_DEVICES, file)).sessions
        : [];
      const multisport = sessions.length > 1;
      const runningSessions = sessions.filter((s) => s.sport === "running");
      for (const activityType of [null, "Run", "Walk", "Hike", "Ride", "Swim"] as const) {
        const { facts, streams } = deriveActivity(structuredClone(parsed), { ...ctx, activityType });
        const n = streams.time.length;

        // Streams: numbers only, all of one length, distance monotone.
        for (const key of NUMERIC) {
          const series = streams[key] as unknown[] | undefined;
          if (!series) continue;
          expect(series, key).toHaveLength(n);
          expect(series.every((v) => typeof v === "number" && Number.isFinite(v)), `${key} holds only numbers`).toBe(
            true,
          );
        }
        if (streams.latlng) {
          expect(streams.latlng.every((p) => Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1]))).toBe(
            true,
          );
        }
        for (let i = 1; i < n; i++) {
          if (streams.distance[i] < streams.distance[i - 1]) expect.fail(`distance falls at ${i}`);
        }
        expect(facts.movingTime).toBeLessThanOrEqual(facts.elapsedTime);
        for (const lap of facts.laps) {
          expect(lap.movingTime, `lap ${lap.lapIndex}`).toBeLessThanOrEqual(lap.elapsedTime);
          expect(lap.movingTime).toBeGreaterThanOrEqual(0);
        }

        if (facts.type !== "Run") continue;
        // Splits add up to the run's distance and times.
        const runDistance = multisport ? sumOf(runningSessions, "totalDistance") : facts.distance;
        for (const splits of [facts.splitsMetric, facts.splitsStandard]) {
          if (runDistance <= 0) continue;
          const distance = splits.reduce((a, s) => a + s.distance, 0);
          expect(Math.abs(distance - runDistance), `splits ${distance} vs ${runDistance}`).toBeLessThanOrEqual(
            runDistance * 0.01 + 0.5,
          );
          const elapsed = splits.reduce((a, s) => a + s.elapsedTime, 0);
          if (!multisport) {
            expect(Math.abs(elapsed - facts.elapsedTime)).toBeLessThanOrEqual(1);
            expect(Math.abs(splits.reduce((a, s) => a + s.movingTime, 0) - facts.movingTime)).toBeLessThanOrEqual(1);
          } else {
            // The running legs' own elapsed time, as the device summed it (FIT sessions).
            const legs = sumOf(runningSessions, "totalElapsedTime");
            expect(Math.abs(elapsed - legs), `splits ${elapsed} s vs running sessions ${legs} s`).toBeLessThanOrEqual(
              Math.max(2, legs * 0.02),
            );
          }
          for (const s of splits) {
            expect(s.movingTime).toBeLessThanOrEqual(s.elapsedTime);
            expect(s.movingTime).toBeGreaterThanOrEqual(0);
          }
        }
        // Best efforts: monotone, moving ≤ elapsed, never faster than max_speed.
        const names = BEST_EFFORTS.map(([name]) => name);
        let previous = 0;
        for (const effort of facts.bestEfforts) {
          expect(names).toContain(effort.name);
          expect(effort.elapsedTime, `${effort.name} after a shorter effort`).toBeGreaterThanOrEqual(previous);
          previous = effort.elapsedTime;
          expect(effort.movingTime).toBeLessThanOrEqual(effort.elapsedTime);
          expect(effort.distance / Math.max(1, effort.elapsedTime), `${effort.name} vs max_speed ${facts.maxSpeed}`)
            .toBeLessThanOrEqual(facts.maxSpeed + 0.01);
          expect(effort.distance).toBeLessThanOrEqual(runDistance * 1.01);
        }
      }
    }, 60_000);
  }
});
