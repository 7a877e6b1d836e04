import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DataType, parseDeviceFile } from "../../server/ingest/decode.ts";
import { deriveActivity, type DeriveContext } from "../../server/ingest/derive.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { expectNear, greatCircle, uploadActivity } from "./device-totals.ts";

/**
 * Causes 4 and 5: several GPX tracks on different days, and timestamps going backwards. The derive
 * side is tested on ParsedFile objects built from the file here; the HTTP tests also need the
 * streaming parser (segmentStarts, file order with backward points dropped).
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
  athlete: { premium: false, weight: 70, birthdate: null, sex: null },
};
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

interface Point {
  lat: number;
  lng: number;
  time: number;
}
/** The trkpts of each trkseg, in file order, read with regular expressions. */
function segments(text: string): Point[][] {
  return text.split(/<trkseg>/).slice(1).map((seg) =>
    [
      ...seg.split(/<\/trkseg>/)[0].matchAll(
        /<trkpt\s+lat="([-\d.]+)"\s+lon="([-\d.]+)"[^>]*>[\s\S]*?<time>([^<]+)<\/time>/g,
      ),
    ]
      .map((m) => ({ lat: Number(m[1]), lng: Number(m[2]), time: Date.parse(m[3]) }))
  ).filter((s) => s.length > 0);
}
const lengthOf = (points: Point[]) => {
  let d = 0;
  for (let i = 1; i < points.length; i++) {
    d += greatCircle([points[i - 1].lat, points[i - 1].lng], [points[i].lat, points[i].lng]);
  }
  return d;
};

const MULTITRACK = "gpx/garmin-mapsource-multitrack.gpx";

describe("cause 4: several tracks in one GPX", () => {
  const text = readFileSync(deviceFile(MULTITRACK), "utf8");
  const segs = segments(text);
  const withinSegments = segs.reduce((a, s) => a + lengthOf(s), 0);
  const segmentSeconds = segs.reduce((a, s) => a + (s[s.length - 1].time - s[0].time) / 1000, 0);

  it("derive: distance accumulates within a segment only, the gap between segments is a pause", async () => {
    expect(segs.length).toBe(3);
    const parsed = await parseDeviceFile(new TextEncoder().encode(text), "gpx" as DataType);
    expect(parsed.samples.length).toBe(segs.reduce((a, s) => a + s.length, 0));
    // The parser's side (file order, segment starts), as the streaming parser delivers it.
    const starts: number[] = [];
    let k = 0;
    for (const s of segs.slice(0, -1)) starts.push(k += s.length);
    parsed.segmentStarts = starts;
    const { facts } = deriveActivity(parsed, ctx);
    expectNear(facts.distance, withinSegments, 0.01);
    expect(facts.movingTime).toBeLessThanOrEqual(Math.round(segmentSeconds));
  });

  it("upload (needs the streaming parser's segmentStarts)", async () => {
    const athlete = await server.athlete();
    const activity = await uploadActivity(server, athlete, new TextEncoder().encode(text), "multitrack.gpx");
    expectNear(activity.distance, withinSegments, 0.01);
    expect(activity.moving_time).toBeLessThanOrEqual(Math.round(segmentSeconds));
  });
});

describe("cause 5: timestamps that go backwards", () => {
  const original = readFileSync(deviceFile("gpx/strava-export-running-hr.gpx"), "utf8");
  const times = [...original.matchAll(/<trkpt[\s\S]*?<time>([^<]+)<\/time>/g)].map((m) => m[1]);
  // Point 20 gets a time 10 minutes before the start: the file's order is kept, that point dropped.
  const victim = times[20];
  const early = new Date(Date.parse(times[0]) - 600_000).toISOString().replace(".000Z", "Z");
  let seen = 0;
  const edited = original.replace(
    /<time>([^<]+)<\/time>/g,
    (all, t) => (t === victim && seen++ === 0 ? `<time>${early}</time>` : all),
  );
  const points = segments(edited).flat();
  const kept: Point[] = [];
  for (const p of points) if (!kept.length || p.time >= kept[kept.length - 1].time) kept.push(p);
  const expected = lengthOf(kept);

  it("derive: samples in file order are never reordered", async () => {
    expect(kept.length).toBe(points.length - 1);
    const parsed = await parseDeviceFile(new TextEncoder().encode(original), "gpx" as DataType);
    const dropped = parsed.samples.filter((_, i) => i !== 20);
    const { facts } = deriveActivity({ ...parsed, samples: dropped }, ctx);
    expectNear(facts.distance, expected, 0.01);
  });

  it("upload (needs the streaming parser: file order, backward point dropped)", async () => {
    const athlete = await server.athlete();
    const activity = await uploadActivity(server, athlete, new TextEncoder().encode(edited), "backwards.gpx");
    expectNear(activity.distance, expected, 0.01);
    expect(Date.parse(activity.start_date)).toBe(Date.parse(times[0]));
  });
});
