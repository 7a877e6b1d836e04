// deno-lint-ignore-file no-explicit-any -- @garmin/fitsdk's decoded FIT messages are read field by field
import { readFileSync } from "node:fs";
import { Decoder, Stream } from "@garmin/fitsdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { segmentCommands } from "../../server/segments/cli.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer, uploadUntilReady } from "../helpers/server.ts";

/**
 * Issue #22: a segment created from bare coordinates (`segment create --points`) takes its elevation,
 * grades and climb category from the first public activity with altitudes that rides it — GPS-only
 * altitudes first, replaced once by a barometric device's — recorded as SegmentProfileMeasured so
 * replay reproduces it. Every expected number is computed here from the device files themselves
 * (decoded with Garmin's FIT SDK / read from the GPX text), never from our own output.
 */
const FIT = "fit/garmin-edge1000-cycling-power-hr.fit";
/** The same ride exported by Strava as GPX (GPS-only altitudes as far as its creator says). */
const GPX = "gpx/strava-export-cycling-power-hr-cad-atemp.gpx";

interface Rec {
  t: number;
  lat: number;
  lng: number;
  alt: number;
  d: number;
}

const SEMICIRCLE = 180 / 2 ** 31;
const R = 6_371_008.8;
const rad = (x: number) => (x * Math.PI) / 180;
function haversine(a: [number, number], b: [number, number]) {
  const s = Math.sin(rad(b[0] - a[0]) / 2) ** 2 +
    Math.cos(rad(a[0])) * Math.cos(rad(b[0])) * Math.sin(rad(b[1] - a[1]) / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(s));
}

/** The FIT's records with position, altitude and the device's own distance, via @garmin/fitsdk. */
function fitRecords(): Rec[] {
  const decoder = new Decoder(Stream.fromByteArray(readFileSync(deviceFile(FIT))));
  const { messages, errors } = decoder.read();
  expect(errors).toEqual([]);
  return (messages.recordMesgs as any[])
    .filter((r) =>
      r.positionLat !== undefined && (r.enhancedAltitude ?? r.altitude) !== undefined && r.distance !== undefined
    )
    .map((r) => ({
      t: new Date(r.timestamp).getTime() / 1000,
      lat: r.positionLat * SEMICIRCLE,
      lng: r.positionLong * SEMICIRCLE,
      alt: r.enhancedAltitude ?? r.altitude,
      d: r.distance,
    }));
}

/** The GPX's points: time and altitude, read from the text. */
function gpxPoints(): { t: number; alt: number }[] {
  const text = readFileSync(deviceFile(GPX), "utf8");
  return [...text.matchAll(/<trkpt[^>]*>\s*<ele>([^<]+)<\/ele>\s*<time>([^<]+)<\/time>/g)]
    .map((m) => ({ t: Date.parse(m[2]) / 1000, alt: Number(m[1]) }));
}

/** The commonly cited rule: score = distance (m) × grade (%), grade ≥ 3 %; 8k/16k/32k/64k/80k → 1…5. */
function categoryByRule(distance: number, grade: number) {
  if (grade < 3) return 0;
  return [8_000, 16_000, 32_000, 64_000, 80_000].filter((t) => distance * grade >= t).length;
}

/** Steepest grade between each record and the first one at least 100 m further along. */
function maxGrade100(recs: Rec[]) {
  let best = -Infinity;
  for (let i = 0; i < recs.length; i++) {
    const j = recs.findIndex((r) => r.d - recs[i].d >= 100);
    if (j < 0) break;
    best = Math.max(best, ((recs[j].alt - recs[i].alt) / (recs[j].d - recs[i].d)) * 100);
  }
  return best;
}

let server: TestServer;
let records: Rec[];
/** The steepest 1.5 km of the ride (records i..j), found in the file. */
let stretch: Rec[];
let segmentId: number;

async function upload(athlete: TestAthlete, file: string): Promise<number> {
  return uploadUntilReady(server, athlete.token, {
    bytes: readFileSync(deviceFile(file)),
    name: file.split("/").pop()!,
    dataType: file.split(".").pop()!,
  });
}

async function measurements() {
  const events = await server.platform.store.readStream(`segment-${segmentId}`);
  return events.filter((e) => e.type === "SegmentProfileMeasured").map((e) =>
    e.data as { source: string; activityId: number }
  );
}

beforeAll(async () => {
  server = await startTestServer();
  records = fitRecords();
  let best = { i: 0, j: 0, rise: -Infinity };
  for (let i = 0, j = 0; i < records.length; i++) {
    while (j < records.length && records[j].d - records[i].d < 1500) j++;
    if (j >= records.length) break;
    if (records[j].alt - records[i].alt > best.rise) best = { i, j, rise: records[j].alt - records[i].alt };
  }
  stretch = records.slice(best.i, best.j + 1);
  // Every 10th record's position (and the last), no altitudes: what `segment create --points` takes.
  const picked = stretch.filter((_, k) => k % 10 === 0 || k === stretch.length - 1);
  const points = picked.map((r) => `${r.lat.toFixed(6)},${r.lng.toFixed(6)}`).join(";");
  const create = segmentCommands.find((c) => c.name === "segment create")!;
  const out = await create.run(server.platform, { name: "Steepest stretch", "activity-type": "Ride", points }, {
    progress() {},
    interactive: false,
  }) as { id: number };
  segmentId = out.id;
}, 120_000);
afterAll(() => server.close());

describe("a segment created from coordinates only (issue #22)", () => {
  it("holds no elevation until an activity rides it: null elevations, flat grades, uncategorized", async () => {
    const viewer = await server.athlete();
    const res = await server.api("GET", `/v3/segments/${segmentId}`, { token: viewer.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      elevation_high: null,
      elevation_low: null,
      average_grade: 0,
      maximum_grade: 0,
      total_elevation_gain: 0,
      climb_category: 0,
    });
  });

  it("is measured from a GPS-only upload: numbers within the file's altitudes over that stretch", async () => {
    const rider = await server.athlete();
    await upload(rider, GPX);
    const res = await server.api("GET", `/v3/segments/${segmentId}`, { token: rider.token });
    // The GPX's altitudes while the rider was on the stretch (the FIT's timestamps, 15 s either side).
    const t0 = stretch[0].t - 15;
    const t1 = stretch[stretch.length - 1].t + 15;
    const alts = gpxPoints().filter((p) => p.t >= t0 && p.t <= t1).map((p) => p.alt);
    expect(alts.length).toBeGreaterThan(100);
    expect(typeof res.body.elevation_high).toBe("number");
    expect(res.body.elevation_high).toBeLessThanOrEqual(Math.max(...alts));
    expect(res.body.elevation_low).toBeGreaterThanOrEqual(Math.min(...alts));
    expect(res.body.average_grade).toBeGreaterThan(0);
    expect(await measurements()).toMatchObject([{ source: "gps" }]);
  }, 120_000);

  it("is measured again, once, from a barometric device: elevation, grades and category match the FIT", async () => {
    const rider = await server.athlete();
    const activityId = await upload(rider, FIT);
    const res = await server.api("GET", `/v3/segments/${segmentId}`, { token: rider.token });
    expect(await measurements()).toMatchObject([{ source: "gps" }, { source: "barometric", activityId }]);

    const alts = stretch.map((r) => r.alt);
    const distance = stretch.slice(1).reduce(
      (sum, r, k) => sum + haversine([stretch[k].lat, stretch[k].lng], [r.lat, r.lng]),
      0,
    );
    // The segment's length is that of its points: every 10th record of the stretch.
    expect(Math.abs(res.body.distance - distance)).toBeLessThan(distance * 0.02);
    // Matching may start or end the effort a record or two from the segment's ends (~1 m of climb).
    expect(Math.abs(res.body.elevation_high - Math.max(...alts))).toBeLessThanOrEqual(2);
    expect(Math.abs(res.body.elevation_low - Math.min(...alts))).toBeLessThanOrEqual(2);
    const gain = alts.slice(1).reduce((sum, a, k) => sum + Math.max(0, a - alts[k]), 0);
    expect(Math.abs(res.body.total_elevation_gain - gain)).toBeLessThanOrEqual(3);
    const grade = ((alts[alts.length - 1] - alts[0]) / res.body.distance) * 100;
    expect(Math.abs(res.body.average_grade - grade)).toBeLessThanOrEqual(0.3);
    // Maximum over 100 m windows (not point to point): close to the file's, well under its point-to-point maximum.
    expect(Math.abs(res.body.maximum_grade - maxGrade100(stretch))).toBeLessThanOrEqual(1);
    expect(res.body.maximum_grade).toBeGreaterThanOrEqual(res.body.average_grade);
    expect(res.body.climb_category).toBe(categoryByRule(res.body.distance, res.body.average_grade));
    expect(res.body.climb_category).toBe(categoryByRule(distance, grade));
    expect(res.body.climb_category).toBeGreaterThan(0);
    // Explore answers the same category and the profile's rise (last altitude − first).
    const [lat, lng] = res.body.start_latlng;
    const explore = await server.api("GET", "/v3/segments/explore", {
      token: rider.token,
      query: { bounds: `${lat - 0.01},${lng - 0.01},${lat + 0.01},${lng + 0.01}`, activity_type: "riding" },
    });
    const item = explore.body.segments.find((s: { id: number }) => s.id === segmentId);
    expect(item.climb_category).toBe(res.body.climb_category);
    expect(Math.abs(item.elev_difference - (alts[alts.length - 1] - alts[0]))).toBeLessThanOrEqual(2);
  }, 120_000);

  it("keeps a barometric measurement: a later GPS-only ride changes nothing", async () => {
    const before =
      (await server.api("GET", `/v3/segments/${segmentId}`, { token: (await server.athlete()).token })).body;
    const rider = await server.athlete();
    await upload(rider, GPX);
    const after = (await server.api("GET", `/v3/segments/${segmentId}`, { token: rider.token })).body;
    expect(await measurements()).toHaveLength(2);
    for (
      const key of [
        "elevation_high",
        "elevation_low",
        "average_grade",
        "maximum_grade",
        "total_elevation_gain",
        "climb_category",
      ]
    ) {
      expect(after[key], key).toBe(before[key]);
    }
  }, 120_000);

  it("is reproduced by replay (cli verify finds no difference; a full replay answers the same)", async () => {
    const viewer = await server.athlete();
    const before = (await server.api("GET", `/v3/segments/${segmentId}`, { token: viewer.token })).body;
    expect((await server.platform.projections.verify()).differences).toEqual([]);
    await server.platform.projections.replay();
    const after = (await server.api("GET", `/v3/segments/${segmentId}`, { token: viewer.token })).body;
    expect(after).toEqual(before);
    expect(typeof after.elevation_high).toBe("number");
  }, 120_000);
});
