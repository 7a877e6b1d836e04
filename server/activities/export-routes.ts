import { z } from "zod";
import { receivedUpload } from "../../events/upload/received.ts";
import { ownedActivity, visibleActivity } from "./access.ts";
import { loadStreams } from "./streams.ts";
import { getBlob } from "../blobs.ts";
import { forbidden, notFound } from "../http/errors.ts";
import { zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { loadRelease, releasedStreams, seesEverything, viewerAudience, viewerOf } from "../privacy/engine.ts";
import type { ActivityStreams } from "../../shared/streams.ts";

/**
 * Downloads of an activity, through the same privacy engine as its reads: GPX for whoever may see
 * the activity (the streams GET /v3/activities/:id/streams would give them: points inside the owner's
 * privacy zones removed unless the owner reads with view_private); the original device file only
 * where the athlete sees everything (the owner with view_private).
 */
/**
 * An activity as a GPX 1.1 file: one track of the streams a viewer may read (the privacy engine's
 * releasedStreams: points inside the owner's privacy zones already removed for others), each point
 * with its recorded time, elevation and, when recorded, heart rate, cadence (Garmin's
 * TrackPointExtension) and power. An activity without positions gives a track with no points.
 */

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!)
    // deno-lint-ignore no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "");

const coordinate = (n: number) => n.toFixed(7).replace(/\.?0+$/, "");

/** GPX's track type for the activity's type (what Strava's own export writes). */
function trackType(type: string): string {
  if (/Ride/.test(type)) return "cycling";
  if (/Run/.test(type)) return "running";
  if (/Walk|Hike/.test(type)) return "hiking";
  if (/Swim/.test(type)) return "swimming";
  return type.toLowerCase();
}

interface ExportedActivity {
  name: string;
  type: string;
  description: string | null;
  startDate: string;
}

function activityGpx(
  activity: ExportedActivity,
  streams: ActivityStreams | null,
  options: { creator: string; link: string },
): string {
  const start = Date.parse(activity.startDate.endsWith("Z") ? activity.startDate : `${activity.startDate}Z`);
  const iso = (seconds: number) => new Date(start + Math.round(seconds * 1000)).toISOString().replace(/\.000Z$/, "Z");
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<gpx version="1.1" creator="${
      escapeXml(options.creator)
    }" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">`,
    ` <metadata>`,
    `  <name>${escapeXml(activity.name)}</name>`,
    ...(activity.description ? [`  <desc>${escapeXml(activity.description)}</desc>`] : []),
    `  <link href="${escapeXml(options.link)}">`,
    `   <text>${escapeXml(activity.name)}</text>`,
    `  </link>`,
    `  <time>${iso(0)}</time>`,
    ` </metadata>`,
    ` <trk>`,
    `  <name>${escapeXml(activity.name)}</name>`,
    `  <type>${escapeXml(trackType(activity.type))}</type>`,
    `  <trkseg>`,
  ];
  const latlng = streams?.latlng ?? [];
  for (let i = 0; i < latlng.length; i++) {
    const p = latlng[i];
    if (!p) continue;
    const ele = typeof streams?.altitude?.[i] === "number" ? `<ele>${streams.altitude[i]}</ele>` : "";
    const time = typeof streams?.time?.[i] === "number" ? `<time>${iso(streams.time[i])}</time>` : "";
    const hr = streams?.heartrate?.[i], cad = streams?.cadence?.[i], watts = streams?.watts?.[i];
    const tpx = [
      // A heart rate of 0 is no reading (docs/numbers.md, Streams).
      typeof hr === "number" && hr > 0 ? `<gpxtpx:hr>${Math.round(hr)}</gpxtpx:hr>` : "",
      typeof cad === "number" ? `<gpxtpx:cad>${Math.round(cad)}</gpxtpx:cad>` : "",
    ].join("");
    const power = typeof watts === "number" ? `<power>${Math.round(watts)}</power>` : "";
    const extensions = tpx || power
      ? `<extensions>${power}${
        tpx ? `<gpxtpx:TrackPointExtension>${tpx}</gpxtpx:TrackPointExtension>` : ""
      }</extensions>`
      : "";
    lines.push(`   <trkpt lat="${coordinate(p[0])}" lon="${coordinate(p[1])}">${ele}${time}${extensions}</trkpt>`);
  }
  lines.push(`  </trkseg>`, ` </trk>`, `</gpx>`, ``);
  return lines.join("\n");
}

const idParams = z.object({ id: zNumId });
const fileName = (name: string, ext: string) =>
  `${name.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60) || "activity"}.${ext}`;
const zGpx = z.string().meta({ format: "binary", contentMediaType: "application/gpx+xml" });
const zOriginal = z.string().meta({ format: "binary", contentMediaType: "application/octet-stream" });

export const activityExportRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/export_gpx",
    summary: "An activity as a GPX 1.1 file (application/gpx+xml), as the caller may read it.",
    description:
      "Whoever may see the activity (else 404). The track holds the points its streams give this caller: points inside the owner's privacy zones are left out unless the owner reads with view_private. Times, elevation, heart rate, cadence and power per point when recorded.",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    params: idParams,
    response: zGpx,
    async handler({ platform, auth, params }) {
      const row = await visibleActivity(platform.db, params.id, auth);
      const release = await loadRelease(platform.db, row, viewerAudience(viewerOf(auth)));
      const streams = releasedStreams(release, await loadStreams(platform.db, row.facts.streamsSha256 ?? null));
      const body = activityGpx(
        { name: row.name, type: row.type, description: row.description, startDate: row.start_date },
        streams,
        { creator: "Fitness platform", link: `${platform.config.publicUrl}/activities/${row.id}` },
      );
      return new Response(body, {
        status: 200,
        headers: {
          "content-type": "application/gpx+xml; charset=utf-8",
          "content-disposition": `attachment; filename="${fileName(row.name, "gpx")}"`,
        },
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/export_original",
    summary:
      "The device file an activity was uploaded from, as uploaded (the owner with view_private only; application/octet-stream, named .fit, .tcx or .gpx, maybe .gz).",
    description:
      "The athlete's own raw data, every point inside their privacy zones included: only where the athlete sees everything — the owner's token with view_private (the web app's session has it). 401 for a token without view_private (`{AccessToken, view_private_permission, missing}`), 403 for another athlete who may see the activity, 404 when not visible. 404 for a manual activity or when the original is no longer stored.",
    tag: "Activities",
    auth: "token",
    // The file holds every recorded point, privacy zones or not (docs/privacy.md, "The original file").
    permission: "view_private",
    resource: "Activity",
    params: idParams,
    response: zOriginal,
    async handler({ platform, auth, params }) {
      const row = await ownedActivity(platform.db, params.id, auth);
      // The privacy engine's rule for everything of an activity (the owner with view_private).
      if (!seesEverything(row, viewerAudience(viewerOf(auth)))) throw forbidden("Activity", "athlete", "forbidden");
      if (row.upload_id === null) throw notFound("Activity");
      const received = await receivedUpload(platform.store, row.upload_id);
      if (!received) throw notFound("Activity");
      const bytes = await getBlob(platform.db, received.originalSha256);
      if (!bytes) throw notFound("Activity");
      // The bytes as uploaded (FIT, TCX or GPX, maybe gzipped): the file name says which.
      const name = fileName(row.name, received.dataType);
      return new Response(bytes as unknown as BodyInit, {
        status: 200,
        headers: {
          "content-type": "application/octet-stream",
          "content-disposition": `attachment; filename="${name}"`,
        },
      });
    },
  }),
];
