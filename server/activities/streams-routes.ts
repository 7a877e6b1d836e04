import { z } from "zod";
import { ownedActivity, visibleActivity } from "./access.ts";
import { loadStreams, streamsResponse } from "./streams.ts";
import { activityZones } from "./zones.ts";
import type { Auth } from "../http/auth.ts";
import { forbidden, notFound } from "../http/errors.ts";
import { zBool, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { zStreamSet } from "./streams-schema.ts";
import type { Platform } from "../platform.ts";
import { loadRelease, releasedStreams, viewerAudience, viewerOf } from "../privacy/engine.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { laps } from "./represent.ts";
import { zActivityZoneList, zLapList } from "./schema.ts";

const streamQuery = z.object({
  keys: z.string().max(500).optional(),
  key_by_type: zBool.optional(),
  resolution: z.enum(["low", "medium", "high"]).optional(),
  series_type: z.enum(["distance", "time"]).optional(),
});

async function streams(platform: Platform, auth: Auth, id: number, keys: string, query: z.infer<typeof streamQuery>) {
  const row = await visibleActivity(platform.db, id, auth);
  const release = await loadRelease(platform.db, row, viewerAudience(viewerOf(auth)));
  const data = releasedStreams(release, await loadStreams(platform.db, row.facts.streamsSha256));
  return streamsResponse(data, {
    keys: keys.split(",").map((k) => k.trim()).filter(Boolean),
    keyByType: query.key_by_type ?? false,
    resolution: query.resolution,
    seriesType: query.series_type ?? "distance",
  });
}

const STREAMS_NOTE =
  "keys: comma list of time, latlng, distance, altitude, velocity_smooth, heartrate, cadence, watts, temp, moving, grade_smooth (distance is always returned; unknown keys ignored); key_by_type=true answers an object keyed by type; resolution low|medium|high (≈100/1000/10000 points; full data without it); series_type distance|time (down-sampling axis, default distance). Points inside the owner's privacy zones are removed unless the owner reads with view_private.";

export const activityDataRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/streams",
    summary: "Streams of an activity.",
    description: STREAMS_NOTE,
    tag: "Streams",
    auth: "token",
    resource: "Activity",
    params: z.object({ id: zNumId }),
    query: streamQuery,
    response: zStreamSet,
    handler: ({ platform, auth, params, query }) => streams(platform, auth, params.id, query.keys ?? "", query),
  }),
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/streams/:types",
    summary: "Streams of an activity, legacy form with the types in the path.",
    description: STREAMS_NOTE,
    tag: "Streams",
    auth: "token",
    resource: "Activity",
    params: z.object({ id: zNumId, types: z.string().max(500) }),
    query: streamQuery,
    response: zStreamSet,
    handler: ({ platform, auth, params, query }) => streams(platform, auth, params.id, params.types, query),
  }),
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/laps",
    response: zLapList,
    summary: "Laps of an activity (lap summaries).",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    params: z.object({ id: zNumId }),
    async handler({ platform, auth, params }) {
      return laps(await visibleActivity(platform.db, params.id, auth));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id/zones",
    response: zActivityZoneList,
    summary: "Heartrate and power zone distributions (owner only; the owner must be premium).",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    params: z.object({ id: zNumId }),
    async handler({ platform, auth, params, dialect }) {
      const row = await ownedActivity(platform.db, params.id, auth);
      const athlete = await findAthlete(platform.db, auth.athleteId);
      if (!athlete) throw notFound("Athlete");
      if (!athlete.premium) throw forbidden("Athlete", "premium", "required");
      const release = await loadRelease(platform.db, row, viewerAudience(viewerOf(auth)));
      const data = releasedStreams(release, await loadStreams(platform.db, row.facts.streamsSha256));
      return activityZones(data, { birthdate: athlete.birthdate, ftp: athlete.ftp }, {
        startDate: row.start_date,
        deviceWatts: row.facts.deviceWatts,
      }, dialect);
    },
  }),
];
