import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type DataType, parseDeviceFile } from "../../server/ingest/decode.ts";
import { BEST_EFFORTS, deriveActivity, type DeriveContext } from "../../server/ingest/derive.ts";
import { SHARED_DEVICES } from "../helpers/fixtures.ts";
import { readFit, sumOf } from "./device-totals.ts";

/**
 * Over every device file of the corpus (copyleft ones included, hence `.shared`), derived as the
 * file says and once more as a run: streams hold numbers only, splits add up to the run's distance
 * and times, best efforts are monotone and never faster than max_speed allows.
 */
const ctx: DeriveContext = {
  uploadId: 1, externalId: null, activityType: null, defaultType: "Ride", name: null, description: null,
  private: false, trainer: false, commute: false, athlete: { premium: true, weight: 70, birthdate: "1985-06-01", sex: null },
};
const FILES = ["fit", "tcx", "gpx"].flatMap((dir) => readdirSync(join(SHARED_DEVICES, dir)).map((f) => `${dir}/${f}`));

const NUMERIC = ["time", "distance", "altitude", "velocity_smooth", "heartrate", "cadence", "watts", "temp", "grade_smooth"] as const;

describe("every fixture", () => {
  it("the corpus is there", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(30);
  });
  for (const file of FILES) {
    it(file, async () => {
      const bytes = new Uint8Array(readFileSync(join(SHARED_DEVICES, file)));
      const parsed = await parseDeviceFile(bytes, file.split(".").pop() as DataType);
      // Multisport FIT: the run's distance is its running sessions' own total.
      const sessions = file.endsWith(".fit") ? readFit(join(SHARED_DEVICES, file)).sessions : [];
      const multisport = sessions.length > 1;
      for (const activityType of [null, "Run"] as const) {
        const { facts, streams } = deriveActivity(parsed, { ...ctx, activityType });
        const n = streams.time.length;

        // Streams: numbers only, all of one length, distance monotone.
        for (const key of NUMERIC) {
          const series = streams[key] as unknown[] | undefined;
          if (!series) continue;
          expect(series, key).toHaveLength(n);
          expect(series.every((v) => typeof v === "number" && Number.isFinite(v)), `${key} holds only numbers`).toBe(true);
        }
        if (streams.latlng) {
          expect(streams.latlng.every((p) => Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1]))).toBe(true);
        }
        for (let i = 1; i < n; i++) if (streams.distance[i] < streams.distance[i - 1]) expect.fail(`distance falls at ${i}`);
        expect(facts.movingTime).toBeLessThanOrEqual(facts.elapsedTime);

        if (facts.type !== "Run") continue;
        // Splits add up to the run's distance and times.
        const runDistance = multisport ? sumOf(sessions.filter((s) => s.sport === "running"), "totalDistance") : facts.distance;
        for (const splits of [facts.splitsMetric, facts.splitsStandard]) {
          if (runDistance <= 0) continue;
          const distance = splits.reduce((a, s) => a + s.distance, 0);
          expect(Math.abs(distance - runDistance), `splits ${distance} vs ${runDistance}`).toBeLessThanOrEqual(runDistance * 0.01 + 0.5);
          if (!multisport) {
            expect(Math.abs(splits.reduce((a, s) => a + s.elapsedTime, 0) - facts.elapsedTime)).toBeLessThanOrEqual(1);
            expect(Math.abs(splits.reduce((a, s) => a + s.movingTime, 0) - facts.movingTime)).toBeLessThanOrEqual(1);
          }
          for (const s of splits) expect(s.movingTime).toBeLessThanOrEqual(s.elapsedTime);
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
