import { distancesAlong, ESTIMATED_SPEED } from "./geometry.ts";
import type { SeenRoute } from "./read.ts";

/**
 * A route as a file other software reads: GPX 1.1 (one track) and TCX v2 (one Course), each with the
 * points the viewer may see. Routes have no recorded times; both files carry times at the route's
 * estimated pace from its creation time (GPX allows none, TCX requires them, and our own upload, like
 * most, needs them), so a file exported here and uploaded back gives an activity of the route's
 * distance in its estimated moving time.
 */

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!)
    // Characters XML 1.0 does not allow at all.
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "");

const coordinate = (n: number) => n.toFixed(6).replace(/\.?0+$/, "");

/** Times of the points (ms), strictly increasing, at the route's estimated pace from its creation. */
function timesOf(route: SeenRoute, along: number[]): number[] {
  const { row } = route;
  const speed = row.estimated_moving_time > 0 && row.distance > 0
    ? row.distance / row.estimated_moving_time
    : ESTIMATED_SPEED[row.type];
  const start = Date.parse(row.created_at);
  const out: number[] = [];
  for (let i = 0; i < along.length; i++) {
    const t = start + Math.round((along[i] / speed) * 1000);
    out.push(i > 0 && t <= out[i - 1] ? out[i - 1] + 1 : t);
  }
  return out;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function routeGpx(route: SeenRoute, options: { creator: string; link: string }): string {
  const { row, points, altitudes } = route;
  const along = distancesAlong(points);
  const times = timesOf(route, along);
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<gpx version="1.1" creator="${
      escapeXml(options.creator)
    }" xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">`,
    ` <metadata>`,
    `  <name>${escapeXml(row.name)}</name>`,
    ...(row.description ? [`  <desc>${escapeXml(row.description)}</desc>`] : []),
    `  <link href="${escapeXml(options.link)}">`,
    `   <text>${escapeXml(row.name)}</text>`,
    `  </link>`,
    `  <time>${iso(Date.parse(row.created_at))}</time>`,
    ` </metadata>`,
    ` <trk>`,
    `  <name>${escapeXml(row.name)}</name>`,
    `  <type>${row.type === 2 ? "running" : "cycling"}</type>`,
    `  <trkseg>`,
  ];
  for (let i = 0; i < points.length; i++) {
    const [lat, lng] = points[i];
    const ele = altitudes ? `<ele>${altitudes[i]}</ele>` : "";
    lines.push(
      `   <trkpt lat="${coordinate(lat)}" lon="${coordinate(lng)}">${ele}<time>${iso(times[i])}</time></trkpt>`,
    );
  }
  lines.push(`  </trkseg>`, ` </trk>`, `</gpx>`, ``);
  return lines.join("\n");
}

/** A TCX Course name: an xsd:token of at most 15 characters (TCX v2's RestrictedToken_t). */
export function courseName(name: string): string {
  const token = [...name.replace(/\s+/g, " ").trim()].slice(0, 15).join("").trim();
  return token || "Route";
}

export function routeTcx(route: SeenRoute): string {
  const { points, altitudes } = route;
  const along = distancesAlong(points);
  const times = timesOf(route, along);
  const total = along.length ? along[along.length - 1] : 0;
  const seconds = times.length ? (times[times.length - 1] - times[0]) / 1000 : 0;
  const position = (p: [number, number]) =>
    `<LatitudeDegrees>${coordinate(p[0])}</LatitudeDegrees><LongitudeDegrees>${coordinate(p[1])}</LongitudeDegrees>`;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2 http://www.garmin.com/xmlschemas/TrainingCenterDatabasev2.xsd">`,
    ` <Courses>`,
    `  <Course>`,
    `   <Name>${escapeXml(courseName(route.row.name))}</Name>`,
    `   <Lap>`,
    `    <TotalTimeSeconds>${seconds.toFixed(3)}</TotalTimeSeconds>`,
    `    <DistanceMeters>${total.toFixed(2)}</DistanceMeters>`,
    ...(points.length
      ? [
        `    <BeginPosition>${position(points[0])}</BeginPosition>`,
        `    <EndPosition>${position(points[points.length - 1])}</EndPosition>`,
      ]
      : []),
    `    <Intensity>Active</Intensity>`,
    `   </Lap>`,
  ];
  // A Track holds at least one Trackpoint: none when the viewer may see no point at all.
  if (points.length) lines.push(`   <Track>`);
  for (let i = 0; i < points.length; i++) {
    const alt = altitudes ? `<AltitudeMeters>${altitudes[i]}</AltitudeMeters>` : "";
    lines.push(
      `    <Trackpoint><Time>${iso(times[i])}</Time><Position>${position(points[i])}</Position>${alt}<DistanceMeters>${
        along[i].toFixed(2)
      }</DistanceMeters></Trackpoint>`,
    );
  }
  if (points.length) lines.push(`   </Track>`);
  lines.push(`  </Course>`, ` </Courses>`, `</TrainingCenterDatabase>`, ``);
  return lines.join("\n");
}
