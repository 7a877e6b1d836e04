import type { Platform } from "../platform.ts";
import { createSegment } from "../segments/create.ts";
import { parsePoints } from "../segments/geometry.ts";
import type { Demo } from "./index.ts";

/**
 * Demo segments laid on the routes of two device files shipped with the test fixtures
 * (garmin-edge500-cycling-hr-cad-pauses.fit, Toronto; garmin-fr410-running-hr.tcx, Chapel Hill):
 * uploading either file matches an effort.
 */
const DEMO_SEGMENTS = [
  {
    name: "Bathurst Rollers",
    activityType: "Ride" as const,
    city: "Toronto", state: "ON", country: "Canada",
    points:
      "43.805460,-79.438302,137.2;43.805167,-79.439594,139.0;43.805438,-79.440922,141.8;43.806536,-79.441494,142.8;43.807350,-79.441875,145.0;43.808706,-79.442373,145.2;43.810226,-79.442833,144.0;43.811129,-79.443115,141.0;43.812041,-79.443248,140.8;43.813171,-79.443469,142.2;43.813856,-79.443517,142.8;43.815301,-79.443571,142.8;43.816672,-79.443914,142.8;43.817653,-79.445145,145.6;43.818249,-79.446871,148.8;43.817876,-79.448826,149.4;43.817492,-79.450714,149.4;43.817363,-79.451317,147.8;43.818520,-79.451791,147.4;43.819866,-79.452128,149.6;43.821309,-79.452512,151.2;43.822781,-79.452879,150.0;43.824594,-79.453285,147.8;43.826326,-79.453608,145.6;43.827908,-79.453869,146.2;43.829517,-79.454163,147.2;43.831448,-79.454487,144.4;43.832091,-79.452454,139.4;43.830486,-79.451289,137.2;43.829608,-79.453158,135.4;43.829003,-79.455591,137.6",
  },
  {
    name: "Campus Loop",
    activityType: "Run" as const,
    city: "Chapel Hill", state: "NC", country: "United States",
    points:
      "35.949345,-79.096577,172.7;35.948138,-79.096457,174.6;35.948396,-79.093540,178.9;35.951033,-79.092802,167.9;35.950554,-79.095269,174.1;35.949358,-79.096907,159.7;35.948088,-79.095921,163.1;35.948413,-79.093483,172.2",
  },
];

export async function seedSegments(platform: Platform, demo: Demo): Promise<void> {
  const ids: number[] = [];
  for (const s of DEMO_SEGMENTS) {
    const { points, altitudes } = parsePoints(s.points);
    ids.push(await createSegment(platform, {
      name: s.name, activityType: s.activityType, points, altitudes, athleteId: null, activityId: null,
      city: s.city, state: s.state, country: s.country,
    }, "seed"));
  }
  demo.examples.push(
    `curl -H "Authorization: Bearer $TOKEN" $BASE/v3/segments/${ids[0]}`,
    `curl -H "Authorization: Bearer $TOKEN" "$BASE/v3/segments/explore?bounds=43.7,-79.5,43.9,-79.3"`,
  );
}
