import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSegment } from "../../server/segments/commands.ts";
import { systemActor } from "../../server/actor.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { DEVICES, streamsOf } from "../segments/fixture-track.ts";

/**
 * Every real device file with a GPS track, uploaded over segments laid on its own route (one Ride
 * and one Run segment on the same stretch), gets exactly one effort on the segment of its own sport.
 */
const FILES = ["fit", "tcx", "gpx"].flatMap((dir) => readdirSync(join(DEVICES, dir)).map((f) => `${dir}/${f}`));

interface Laid {
  file: string;
  ride: number;
  run: number;
  /** Seconds between the stretch's first and last point in the file. */
  seconds: number;
}

let server: TestServer;
const laid: Laid[] = [];
beforeAll(async () => {
  server = await startTestServer();
  for (const file of FILES) {
    const s = await streamsOf(file);
    // The stretch lies inside the longest run of positioned points without a pause over 5 minutes
    // (multi-day files hold several tracks, not always in time order).
    const positioned = s.latlng.map((p, i) => (p ? i : -1)).filter((i) => i >= 0).sort((a, b) => s.time[a] - s.time[b]);
    let run: number[] = [];
    let longest: number[] = [];
    for (const i of positioned) {
      if (run.length && s.time[i] - s.time[run[run.length - 1]] > 300) run = [];
      run.push(i);
      if (run.length > longest.length) longest = run;
    }
    if (longest.length < 60) continue; // no real GPS track (pool swims, indoor rides, rowing)
    const from = longest[Math.floor(longest.length * 0.3)];
    const to = longest[Math.floor(longest.length * 0.45)];
    if (to <= from) continue;
    const points = [];
    const altitudes = [];
    for (let k = from; k <= to; k++) {
      const p = s.latlng[k];
      if (p) {
        points.push(p);
        altitudes.push(s.altitude?.[k] ?? null);
      }
    }
    const base = { points, altitudes, athleteId: null, activityId: null };
    laid.push({
      file,
      ride: await createSegment(
        server.platform,
        { ...base, name: `${file} stretch`, activityType: "Ride" },
        systemActor("test"),
      ),
      run: await createSegment(
        server.platform,
        { ...base, name: `${file} stretch`, activityType: "Run" },
        systemActor("test"),
      ),
      seconds: s.time[to] - s.time[from],
    });
  }
}, 300_000);
afterAll(() => server.close());

describe("real device files over segments laid on their own routes", () => {
  it("covers the fixture files that have a GPS track", () => {
    // The project's copy of the corpus (permissive files only, tests/fixtures/devices) holds 19 files
    // with a GPS track; the copyleft ones stay in ../shared and are not read here.
    expect(laid.length).toBeGreaterThanOrEqual(19);
  });

  it("gives each file its efforts on its own sport's segment only, timed like the file", async () => {
    const outcomes: string[] = [];
    for (const { file, ride, run, seconds } of laid) {
      // One athlete per file: the same ride in several formats must not count as a duplicate here.
      const athlete = await server.athlete();
      const form = new FormData();
      form.set("file", new Blob([readFileSync(join(DEVICES, file))]), file.split("/").pop()!);
      form.set("data_type", file.split(".").pop()!);
      const created = await server.api("POST", "/v3/uploads", { token: athlete.token, multipart: form });
      expect(created.status, file).toBe(201);
      let activityId: number | null = null;
      for (let i = 0; i < 600 && !activityId; i++) {
        const status = await server.api("GET", `/v3/uploads/${created.body.id}`, { token: athlete.token });
        expect(status.body.error, file).toBeNull();
        activityId = status.body.activity_id;
        if (!activityId) await new Promise((r) => setTimeout(r, 100));
      }
      expect(activityId, file).not.toBeNull();
      const res = await server.api("GET", `/v3/activities/${activityId}`, {
        token: athlete.token,
        query: { include_all_efforts: true },
      });
      const own = res.body.segment_efforts.filter((e: { segment: { id: number } }) =>
        e.segment.id === ride || e.segment.id === run
      );
      const type: string = res.body.type;
      if (type === "Ride" || type === "Run") {
        // Only the segment of the file's sport; more than one effort where the route repeats the stretch.
        const expected = type === "Ride" ? ride : run;
        expect(own.length, `${file} (${type})`).toBeGreaterThanOrEqual(1);
        for (const e of own) expect(e.segment.id, `${file} (${type})`).toBe(expected);
        for (const e of own) expect(e.start_index, file).toBeLessThan(e.end_index);
        const effort = own.reduce((best: { elapsed_time: number }, e: { elapsed_time: number }) =>
          Math.abs(e.elapsed_time - seconds) < Math.abs(best.elapsed_time - seconds) ? e : best
        );
        expect(Math.abs(effort.elapsed_time - seconds), `${file}: effort ${effort.elapsed_time} s, file ${seconds} s`)
          .toBeLessThanOrEqual(Math.max(15, seconds * 0.1));
        outcomes.push(`${file}: ${type} effort ${effort.elapsed_time} s`);
      } else {
        expect(own, `${file} (${type}) competes on no Ride/Run segment`).toEqual([]);
        outcomes.push(`${file}: ${type}, no effort`);
      }
    }
    expect(outcomes.filter((o) => o.includes("effort ")).length).toBeGreaterThanOrEqual(15);
  }, 600_000);
});
