import { describe, expect, it } from "vitest";
import { routeGpx, routeTcx } from "../../server/athlete-routes/export.ts";
import { routeGeometry } from "../../server/athlete-routes/geometry.ts";
import type { SeenRoute } from "../../server/athlete-routes/read.ts";
import { parseGpx } from "../../server/ingest/gpx.ts";
import { parseTcx } from "../../server/ingest/tcx.ts";

/** Route exports read back by our own parsers (the upload's), point for point; a TCX without Activity or Course refused. */
const line: [number, number][] = [[46.2, 6.1], [46.201, 6.1015], [46.2035, 6.102], [46.205, 6.1], [46.206, 6.098]];
const g = routeGeometry(line, [372, 375.5, 380, 377, 390]);
const route: SeenRoute = {
  row: {
    id: 3,
    athlete_id: 1,
    name: 'Lake <&> "quote" and a long name',
    description: "desc & more",
    type: 1,
    sub_type: 1,
    private: false,
    activity_id: null,
    polyline: g.polyline,
    altitudes: g.altitudes,
    distance: g.distance,
    elevation_gain: g.elevationGain,
    estimated_moving_time: 120,
    created_at: "2026-05-01T08:00:00.000Z",
    updated_at: "2026-05-01T08:00:00.000Z",
  },
  points: g.points,
  altitudes: g.altitudes,
  exact: true,
};

describe("route exports, parsed back", () => {
  it("TCX Course: every point, altitude, distance and time, as the upload reads it", () => {
    const parsed = parseTcx(new TextEncoder().encode(routeTcx(route)));
    expect(parsed.samples.map((s) => [s.lat, s.lng])).toEqual(line);
    expect(parsed.samples.map((s) => s.altitude)).toEqual([372, 375.5, 380, 377, 390]);
    expect(parsed.samples[0].time).toBe(Date.parse("2026-05-01T08:00:00.000Z"));
    // 120 s over the whole route at an even pace (the recorded distance is rounded to 0.1 m: a few ms off).
    expect(Math.abs(parsed.samples[parsed.samples.length - 1].time - parsed.samples[0].time - 120_000)).toBeLessThan(
      50,
    );
    expect(Math.abs(parsed.samples[parsed.samples.length - 1].distance! - g.distance)).toBeLessThan(0.1);
    expect(parsed.sport).toBeNull();
  });

  it("GPX: every point with its time and elevation; names escaped", () => {
    const text = routeGpx(route, { creator: "Test", link: "http://localhost/v3/routes/3" });
    expect(text).toContain("<name>Lake &lt;&amp;&gt; &quot;quote&quot; and a long name</name>");
    const parsed = parseGpx(new TextEncoder().encode(text));
    expect(parsed.samples.map((s) => [s.lat, s.lng])).toEqual(line);
    expect(parsed.samples.map((s) => s.altitude)).toEqual([372, 375.5, 380, 377, 390]);
    expect(parsed.sport).toBe("Ride");
  });

  it("refuses a TCX with neither an Activity nor a Course", () => {
    const empty =
      `<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Courses/></TrainingCenterDatabase>`;
    expect(() => parseTcx(new TextEncoder().encode(empty))).toThrow("The TCX file holds no Activity and no Course.");
  });
});
