import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { longGpx } from "../helpers/long-gpx.ts";
import { type DropinServer, startDropinServer, upload } from "./deno-server.ts";

/**
 * Streams as Strava serves them (issue #19; reference §3), over HTTP on the Deno server: every key,
 * the values the device wrote, key_by_type, series_type, and resolution down-sampled to Strava's
 * point counts (low 100, medium 1000, high 10000).
 */
const FILE = "gpx/strava-export-cycling-power-hr-cad-atemp.gpx";
const ALL_KEYS = [
  "time",
  "distance",
  "latlng",
  "altitude",
  "velocity_smooth",
  "heartrate",
  "cadence",
  "watts",
  "temp",
  "moving",
  "grade_smooth",
];
const POINTS = { low: 100, medium: 1000, high: 10000 } as const;

let s: DropinServer;
let ride = 0;
let long = 0;
const LONG_POINTS = 12_500;

beforeAll(async () => {
  s = await startDropinServer(["Ann", "Bob"]);
  ride = await upload(s.call, s.people.Ann.token, FILE);
  long = await upload(s.call, s.people.Ann.token, { bytes: longGpx(LONG_POINTS).bytes, name: "long.gpx" });
}, 600_000);
afterAll(() => s?.close());

/** The trackpoints as the device wrote them (read with regular expressions, not our decoder). */
function devicePoints() {
  const text = readFileSync(deviceFile(FILE), "utf8");
  return [...text.matchAll(/<trkpt[\s\S]*?<\/trkpt>/g)].map(([block]) => {
    const tag = (name: string) => {
      const m = new RegExp(`<${name}>([^<]+)</${name}>`).exec(block);
      return m ? Number(m[1]) : undefined;
    };
    return {
      lat: Number(/lat="([^"]+)"/.exec(block)![1]),
      lng: Number(/lon="([^"]+)"/.exec(block)![1]),
      time: Date.parse(/<time>([^<]+)<\/time>/.exec(block)![1]) / 1000,
      ele: tag("ele"),
      power: tag("power"),
      hr: tag("gpxtpx:hr"),
      cad: tag("gpxtpx:cad"),
      temp: tag("gpxtpx:atemp"),
    };
  });
}

type Keyed = Record<
  string,
  { data: unknown[]; series_type: string; original_size: number; resolution: string; type?: string }
>;

async function keyed(id: number, query: Record<string, string | boolean> = {}): Promise<Keyed> {
  const res = await s.call("GET", `/v3/activities/${id}/streams`, {
    token: s.people.Ann.token,
    query: { keys: ALL_KEYS.join(","), key_by_type: true, ...query },
  });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe("activity streams", () => {
  it("serve every Strava key, index-aligned, with the device's own values and Strava's value types", async () => {
    const body = await keyed(ride);
    expect(Object.keys(body).sort()).toEqual([...ALL_KEYS].sort());
    const device = devicePoints();
    for (const key of ALL_KEYS) {
      expect(body[key], key).toMatchObject({
        series_type: "distance",
        original_size: device.length,
        resolution: "high",
      });
      expect(body[key].data, key).toHaveLength(device.length);
      expect(body[key].type, "no type member when keyed").toBeUndefined();
    }
    const t0 = device[0].time;
    let compared = 0;
    device.forEach((p, i) => {
      expect(body.time.data[i]).toBe(p.time - t0);
      expect(body.latlng.data[i]).toEqual([p.lat, p.lng]);
      if (p.ele !== undefined) expect(body.altitude.data[i]).toBeCloseTo(p.ele, 1);
      if (p.hr !== undefined) expect(body.heartrate.data[i]).toBe(p.hr);
      if (p.cad !== undefined) expect(body.cadence.data[i]).toBe(p.cad);
      if (p.power !== undefined) expect(body.watts.data[i]).toBe(p.power);
      if (p.temp !== undefined) expect(body.temp.data[i]).toBe(p.temp);
      compared++;
    });
    expect(compared).toBe(8357);
    for (const key of ["time", "heartrate", "cadence", "watts", "temp"]) {
      expect(body[key].data.every((v) => Number.isInteger(v)), `${key} integers`).toBe(true);
    }
    for (const key of ["distance", "altitude", "velocity_smooth", "grade_smooth"]) {
      expect(body[key].data.every((v) => typeof v === "number" && Number.isFinite(v)), `${key} numbers`).toBe(true);
    }
    expect(body.moving.data.every((v) => typeof v === "boolean")).toBe(true);
    expect(body.moving.data.filter(Boolean).length).toBeGreaterThan(device.length / 2);
    const distance = body.distance.data as number[];
    expect(distance.every((d, i) => i === 0 || d >= distance[i - 1])).toBe(true);
  });

  it("answer an array with `type` in the requested order without key_by_type, distance always", async () => {
    const res = await s.call("GET", `/v3/activities/${ride}/streams`, {
      token: s.people.Ann.token,
      query: { keys: "watts,latlng,nonsense" },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((x: { type: string }) => x.type)).toEqual(["watts", "latlng", "distance"]);
    expect(Object.keys(res.body[0]).sort()).toEqual(["data", "original_size", "resolution", "series_type", "type"]);
  });

  for (const seriesType of ["distance", "time"] as const) {
    it(`down-sample low/medium/high to 100/1000/10000 points along ${seriesType}`, async () => {
      for (const id of [ride, long]) {
        const full = await keyed(id, { series_type: seriesType });
        const n = full.time.original_size;
        const time = full.time.data as number[];
        const axis = full[seriesType].data as number[];
        for (const [resolution, points] of Object.entries(POINTS)) {
          const body = await keyed(id, { resolution, series_type: seriesType });
          const expected = Math.min(n, points);
          // Each point is a sample of the full series, at the same index in every stream.
          const at = (body.time.data as number[]).map((t) => time.indexOf(t));
          for (const key of ALL_KEYS) {
            expect(body[key], `${resolution} ${key}`).toMatchObject({
              series_type: seriesType,
              original_size: n,
              resolution,
            });
            expect(body[key].data, `${resolution} ${key}`).toHaveLength(expected);
            expect(body[key].data, `${resolution} ${key}`).toEqual(at.map((i) => full[key].data[i]));
          }
          expect(at[0]).toBe(0);
          expect(at[at.length - 1]).toBe(n - 1);
          expect(at.every((i, k) => k === 0 || i > at[k - 1])).toBe(true);
          if (expected < n) {
            // Evenly along the axis: no gap wider than twice the even step plus one sample's step.
            const step = (axis[n - 1] - axis[0]) / (points - 1);
            const maxSample = Math.max(...axis.slice(1).map((v, i) => v - axis[i]));
            const gaps = at.slice(1).map((i, k) => axis[i] - axis[at[k]]);
            expect(Math.max(...gaps)).toBeLessThanOrEqual(2 * step + maxSample);
          }
        }
      }
    });
  }

  it("serve the long ride's full data without resolution, capped at 10000 with resolution=high", async () => {
    const full = await keyed(long);
    expect(full.time.data).toHaveLength(LONG_POINTS);
    expect(full.time.resolution).toBe("high");
    const high = await keyed(long, { resolution: "high" });
    expect(high.time.data).toHaveLength(10_000);
    const bad = await s.call("GET", `/v3/activities/${long}/streams`, {
      token: s.people.Ann.token,
      query: { series_type: "heartrate" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ resource: "Activity", field: "series_type", code: "invalid" }]);
  });

  it("are refused to another athlete when the activity is private", async () => {
    const put = await s.call("PUT", `/v3/activities/${ride}`, { token: s.people.Ann.token, form: { private: 1 } });
    expect(put.status).toBe(200);
    const res = await s.call("GET", `/v3/activities/${ride}/streams`, {
      token: s.people.Bob.token,
      query: { keys: "latlng" },
    });
    expect(res.status).toBe(404);
    await s.call("PUT", `/v3/activities/${ride}`, { token: s.people.Ann.token, form: { private: 0 } });
  });
});

describe("best efforts", () => {
  it("carry average_heartrate, max_heartrate, average_cadence, average_watts and device_watts over their stretch of the streams", async () => {
    const run = await upload(s.call, s.people.Ann.token, "tcx/polar-m400-running-hr-cadence.tcx");
    const detail = await s.call("GET", `/v3/activities/${run}`, { token: s.people.Ann.token });
    expect(detail.status).toBe(200);
    const efforts = detail.body.best_efforts as Record<string, number | boolean | null>[];
    expect(efforts.length).toBeGreaterThan(2);
    const streams = await keyed(run);
    const hr = streams.heartrate.data as number[];
    const cadence = streams.cadence.data as number[];
    const time = streams.time.data as number[];
    const moving = streams.moving.data as boolean[];
    // Strava's moving-time-weighted mean: each moving sample weighs the seconds since the one before.
    const weighted = (series: number[], a: number, b: number, skipZero = false) => {
      let sum = 0;
      let weight = 0;
      for (let i = a + 1; i <= b; i++) {
        const dt = time[i] - time[i - 1];
        if (!moving[i] || dt <= 0 || (skipZero && series[i] === 0)) continue;
        sum += series[i] * dt;
        weight += dt;
      }
      return sum / weight;
    };
    for (const e of efforts) {
      const a = e.start_index as number;
      const b = e.end_index as number;
      expect(e.max_heartrate, String(e.name)).toBe(Math.max(...hr.slice(a, b + 1)));
      expect(Math.abs((e.average_heartrate as number) - weighted(hr, a, b)), String(e.name)).toBeLessThan(1);
      expect(Math.abs((e.average_cadence as number) - weighted(cadence, a, b, true)), String(e.name)).toBeLessThan(1);
      expect(e.average_watts).toBeNull();
      expect(e.device_watts).toBe(false);
    }
  });
});
