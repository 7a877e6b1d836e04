import { z } from "zod";
import { createRoute, deleteRoute } from "./commands.ts";
import { requestActor } from "../actor.ts";
import { routeGpx, routeTcx } from "./export.ts";
import { decodePolyline, distancesAlong, type LatLng } from "./geometry.ts";
import { visibleRoute, visibleRoutesOf } from "./read.ts";
import { routeJson, routesJson } from "./represent.ts";
import { ownersOf } from "./read.ts";
import { shapeStreams } from "../activities/streams.ts";
import { badRequest } from "../http/errors.ts";
import { paging, zBool, zInt, zNumId, zPaging } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { zRoute, zRouteGpx, zRoutes, zRouteStreams, zRouteTcx } from "./schema.ts";
import { viewerOf } from "../privacy/engine.ts";

/**
 * A JSON array sent as a form field (a string) or inside a JSON body (already an array), whose items
 * must all pass `valid`; a bad item is reported on the field itself (one error triple, not one per item).
 */
const jsonArray = <T>(valid: (item: unknown) => item is T, max: number) =>
  z.preprocess((value) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }, z.array(z.unknown()).min(1).max(max)).superRefine((items, ctx) => {
    if (!items.every(valid)) ctx.addIssue({ code: "custom", message: "invalid item" });
  }).transform((items) => items as T[]);

const isLatLng = (p: unknown): p is [number, number] =>
  Array.isArray(p) && p.length === 2 && typeof p[0] === "number" && typeof p[1] === "number" &&
  Number.isFinite(p[0]) && Number.isFinite(p[1]) && Math.abs(p[0]) <= 90 && Math.abs(p[1]) <= 180;
const isAltitude = (a: unknown): a is number => typeof a === "number" && Number.isFinite(a);

const createBody = z.object({
  name: z.string().trim().min(1).max(255),
  description: z.string().max(2000).optional(),
  /** 1 ride, 2 run (also the words). */
  type: z.union([z.literal("ride"), z.literal("run"), zInt.pipe(z.union([z.literal(1), z.literal(2)]))]).optional(),
  sub_type: zInt.pipe(z.number().int().min(1).max(5)).optional(),
  private: zBool.optional(),
  activity_id: zNumId.optional(),
  /** A drawn line as an encoded polyline (precision 5)… */
  polyline: z.string().min(1).max(2_000_000).optional(),
  /** …or as [[lat, lng], …]. */
  latlng: jsonArray(isLatLng, 50_000).optional(),
  /** Altitudes (m) of a drawn line, one per point, when the caller has them. */
  altitude: jsonArray(isAltitude, 50_000).optional(),
});

const CREATE_NOTE = `Extension (Strava has no public create): a route from exactly one of activity_id (the part of the
activity the token may see; a public route never keeps points inside the activity owner's privacy zones and is
never cut from a private activity), polyline (an encoded polyline, precision 5) or latlng ([[lat, lng], …]).
name is required; type 1 ride / 2 run (default: the activity's sport, else 1); sub_type 1 road, 2 mountain bike,
3 cross, 4 trail, 5 mixed (default 1); private (default false). Elevation: the activity's altitude stream; a drawn
line has altitudes only when given as altitude (one per point), else elevation_gain 0 and no altitude stream.
estimated_moving_time: the activity's pace over the route, or 25 km/h (ride) / 10 km/h (run) for a drawn line.`;

const idParams = z.object({ id: zNumId });

const fileName = (name: string, ext: string) =>
  `${name.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60) || "route"}.${ext}`;

function file(body: string, type: string, name: string) {
  return new Response(body, {
    status: 200,
    headers: { "content-type": `${type}; charset=utf-8`, "content-disposition": `attachment; filename="${name}"` },
  });
}

const PRIVACY_NOTE =
  "A private route is answered only to its owner's token with read_all (view_private); others get 404. Of a public route, points inside the owner's privacy zones are withheld from everyone but the owner with read_all.";

export const athleteRouteEndpoints = [
  defineRoute({
    method: "POST",
    path: "/v3/routes",
    summary: "Extension: create a route from an activity or a drawn line.",
    description: CREATE_NOTE,
    tag: "Routes",
    auth: "token",
    permission: "write",
    resource: "Route",
    status: 201,
    body: createBody,
    response: zRoute,
    async handler({ platform, auth, body, requestId }) {
      const given =
        [body.activity_id !== undefined, body.polyline !== undefined, body.latlng !== undefined].filter(Boolean).length;
      if (given !== 1) {
        throw badRequest("Route", given === 0 ? "activity_id" : "polyline", given === 0 ? "missing" : "invalid");
      }
      if (body.altitude && body.activity_id !== undefined) throw badRequest("Route", "altitude", "invalid");
      let points: LatLng[] = [];
      if (body.polyline !== undefined) {
        try {
          points = decodePolyline(body.polyline);
        } catch {
          throw badRequest("Route", "polyline");
        }
        if (
          points.some((p) =>
            !Number.isFinite(p[0]) || !Number.isFinite(p[1]) || Math.abs(p[0]) > 90 || Math.abs(p[1]) > 180
          )
        ) {
          throw badRequest("Route", "polyline");
        }
      } else if (body.latlng) points = body.latlng;
      const viewer = viewerOf(auth)!;
      const id = await createRoute(platform, viewer, {
        name: body.name,
        description: body.description,
        type: body.type === "ride" ? 1 : body.type === "run" ? 2 : body.type,
        subType: body.sub_type,
        private: body.private ?? false,
        source: body.activity_id !== undefined
          ? { activityId: body.activity_id }
          : { points, altitudes: body.altitude ?? null, field: body.polyline !== undefined ? "polyline" : "latlng" },
      }, requestActor(auth, requestId));
      const route = await visibleRoute(platform.db, id, viewer);
      return routeJson(route, await ownersOf(platform.db, [route]), viewer);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/routes/:id",
    summary: "A route.",
    description: PRIVACY_NOTE,
    tag: "Routes",
    auth: "token",
    resource: "Route",
    params: idParams,
    response: zRoute,
    async handler({ platform, auth, params }) {
      const viewer = viewerOf(auth);
      const route = await visibleRoute(platform.db, params.id, viewer);
      return routeJson(route, await ownersOf(platform.db, [route]), viewer);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/routes/:id",
    summary: "Extension: delete one of one's routes (204).",
    tag: "Routes",
    auth: "token",
    permission: "write",
    resource: "Route",
    params: idParams,
    status: 204,
    async handler({ platform, auth, params, requestId }) {
      // Someone else's private route is not found; someone else's public one is forbidden.
      await visibleRoute(platform.db, params.id, viewerOf(auth));
      await deleteRoute(platform, auth.athleteId, params.id, requestActor(auth, requestId));
      return null;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/routes",
    summary: "An athlete's routes, newest first.",
    description: `${PRIVACY_NOTE} page, per_page as everywhere.`,
    tag: "Routes",
    auth: "token",
    resource: "Route",
    params: idParams,
    query: z.object(zPaging),
    response: zRoutes,
    async handler({ platform, auth, params, query }) {
      const viewer = viewerOf(auth);
      const { perPage, offset } = paging(query);
      const routes = await visibleRoutesOf(platform.db, params.id, viewer, { limit: perPage, offset });
      return routesJson(routes, await ownersOf(platform.db, routes), viewer);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athlete/routes",
    summary: "The authenticated athlete's routes, newest first (as GET /v3/athletes/:id/routes with one's own id).",
    description:
      "Extension: Strava's reference has only /athletes/{id}/routes; clients such as the Strava MCP server (list-athlete-routes) call this path. page, per_page as everywhere.",
    tag: "Routes",
    auth: "token",
    resource: "Route",
    query: z.object(zPaging),
    response: zRoutes,
    async handler({ platform, auth, query }) {
      const viewer = viewerOf(auth);
      const { perPage, offset } = paging(query);
      const routes = await visibleRoutesOf(platform.db, auth.athleteId, viewer, { limit: perPage, offset });
      return routesJson(routes, await ownersOf(platform.db, routes), viewer);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/routes/:id/streams",
    summary: "A route's streams: latlng, distance and altitude (when the route has elevation).",
    description: `${PRIVACY_NOTE} key_by_type=true answers an object keyed by type.`,
    tag: "Streams",
    auth: "token",
    resource: "Route",
    params: idParams,
    query: z.object({ key_by_type: zBool.optional() }),
    response: zRouteStreams,
    async handler({ platform, auth, params, query }) {
      const { points, altitudes } = await visibleRoute(platform.db, params.id, viewerOf(auth));
      const along = distancesAlong(points).map((d) => Math.round(d * 10) / 10);
      const series: [string, readonly unknown[]][] = [["latlng", points], ["distance", along]];
      if (altitudes) series.push(["altitude", altitudes]);
      return shapeStreams(series, { axis: along, keyByType: query.key_by_type ?? false, seriesType: "distance" });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/routes/:id/export_gpx",
    summary: "A route as a GPX 1.1 file (application/gpx+xml).",
    description: `${PRIVACY_NOTE} One track, times at the route's estimated pace from its creation.`,
    tag: "Routes",
    auth: "token",
    resource: "Route",
    params: idParams,
    response: zRouteGpx,
    async handler({ platform, auth, params }) {
      const route = await visibleRoute(platform.db, params.id, viewerOf(auth));
      const link = `${platform.config.publicUrl}/v3/routes/${route.row.id}`;
      return file(
        routeGpx(route, { creator: "Fitness platform", link }),
        "application/gpx+xml",
        fileName(route.row.name, "gpx"),
      );
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/routes/:id/export_tcx",
    summary: "A route as a TCX v2 Course file (application/vnd.garmin.tcx+xml).",
    description:
      `${PRIVACY_NOTE} One Course (name cut to 15 characters, as TCX requires), times at the route's estimated pace.`,
    tag: "Routes",
    auth: "token",
    resource: "Route",
    params: idParams,
    response: zRouteTcx,
    async handler({ platform, auth, params }) {
      const route = await visibleRoute(platform.db, params.id, viewerOf(auth));
      return file(routeTcx(route), "application/vnd.garmin.tcx+xml", fileName(route.row.name, "tcx"));
    },
  }),
];
