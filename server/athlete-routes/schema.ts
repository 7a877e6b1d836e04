import { z } from "zod";
import { model } from "../http/schema.ts";

/**
 * Response schemas (Strava's API model: Route, StreamSet of a route) of the routes operations
 * (issue #19); the OpenAPI document carries them (route `response`), tests validate real answers.
 */
/** An ISO-8601 UTC time as the API writes it (2024-05-01T09:30:00.000Z or without milliseconds). */
const isoTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);

const summaryAthlete = z.object({ id: z.number().int(), resource_state: z.number().int() }).passthrough();

export const zRoute = model(
  "Route",
  z.object({
    athlete: summaryAthlete,
    description: z.string(),
    distance: z.number(),
    elevation_gain: z.number(),
    id: z.number().int(),
    id_str: z.string(),
    resource_state: z.number().int(),
    map: z.object({
      id: z.string(),
      polyline: z.string(),
      summary_polyline: z.string(),
      resource_state: z.number().int(),
    }),
    name: z.string(),
    private: z.boolean(),
    starred: z.boolean(),
    timestamp: z.number().int(),
    type: z.union([z.literal(1), z.literal(2)]),
    sub_type: z.number().int().min(1).max(5),
    created_at: isoTime,
    updated_at: isoTime,
    estimated_moving_time: z.number().int(),
    segments: z.array(z.object({ id: z.number().int() }).passthrough()),
    waypoints: z.array(z.object({ latlng: z.tuple([z.number(), z.number()]) }).passthrough()),
    directions: z.array(z.object({ distance: z.number(), action: z.number().int(), name: z.string() })).describe(
      "Strava's Route model lists turn-by-turn directions (RouteDirection: distance, action, name); this server computes none, so the list is empty.",
    ),
  }),
  "Strava's Route: a planned course, cut from an activity or drawn (extension: POST /v3/routes).",
  {
    athlete: { id: 134815, resource_state: 2 },
    description: "Sunday loop along the river",
    distance: 57676.8,
    elevation_gain: 312.4,
    id: 3184562900012,
    id_str: "3184562900012",
    resource_state: 3,
    map: {
      id: "r3184562900012",
      polyline: "_p~iF~ps|U_ulLnnqC_mqNvxq`@",
      summary_polyline: "_p~iF~ps|U_ulLnnqC_mqNvxq`@",
      resource_state: 3,
    },
    name: "River loop",
    private: false,
    starred: false,
    timestamp: 1714980489,
    type: 1,
    sub_type: 1,
    created_at: "2024-05-06T07:08:09Z",
    updated_at: "2024-05-06T07:08:09Z",
    estimated_moving_time: 8305,
    segments: [],
    waypoints: [],
    directions: [],
  },
);

export const zRoutes = z.array(zRoute);

const stream = z.object({
  data: z.array(z.union([z.number(), z.tuple([z.number(), z.number()])])),
  series_type: z.literal("distance"),
  original_size: z.number().int(),
  resolution: z.enum(["low", "medium", "high"]),
});

const ROUTE_STREAM_KEYS = ["latlng", "distance", "altitude"] as const;

/** A route's streams: latlng, distance and (when it has elevation) altitude; keyed or as an array. */
export const zRouteStreams = z.union([
  z.object({ latlng: stream.optional(), distance: stream.optional(), altitude: stream.optional() }).strict(),
  z.array(stream.extend({ type: z.enum(ROUTE_STREAM_KEYS) }).strict()),
]);

/** An exported file (GPX or TCX): XML text. */
export const zRouteFile = z.string();

/** The route as a GPX 1.1 file (getRouteAsGPX). */
export const zRouteGpx = z.string().meta({ format: "binary", contentMediaType: "application/gpx+xml" });
/** The route as a TCX v2 Course file (getRouteAsTCX). */
export const zRouteTcx = z.string().meta({ format: "binary", contentMediaType: "application/vnd.garmin.tcx+xml" });
