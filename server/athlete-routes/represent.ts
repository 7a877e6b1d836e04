import type { z } from "zod";
import type { AthleteRow } from "../../projections/athletes/queries.ts";
import type { Viewer } from "../privacy/engine.ts";
import { athleteFor, metaAthlete } from "../athletes/represent.ts";
import { encodePolyline, summaryPolyline } from "./geometry.ts";
import type { SeenRoute } from "./read.ts";
import type { zRoute } from "./schema.ts";

/** A route as the API answers it (the Route model of schema.ts; athletes/represent.ts shapes the athlete). */
type RouteJson = Omit<z.input<typeof zRoute>, "athlete"> & { athlete: Record<string, unknown> };

/**
 * Routes as Strava's API model shapes them (Route): the owner as a summary athlete, the map of what
 * the viewer may see, type 1 ride / 2 run, sub_type 1 road … 5 mixed, timestamp (epoch seconds of
 * creation), estimated_moving_time in seconds. Segments, waypoints and directions (Strava's
 * turn-by-turn RouteDirection list) are not kept: always [], an honest empty list. Strings are never
 * null (Strava's model types them string): a route without points has "" polylines.
 * `owners`: the routes' owners by id (read.ts ownersOf); an owner not found is answered as a meta athlete.
 */
export function routesJson(
  routes: SeenRoute[],
  owners: ReadonlyMap<number, AthleteRow>,
  viewer: Viewer | null,
): RouteJson[] {
  return routes.map(({ row, points }) => {
    const owner = owners.get(row.athlete_id);
    return {
      athlete: owner
        ? athleteFor(owner, { athleteId: viewer?.athleteId ?? 0 }, { form: "summary" })
        : metaAthlete(row.athlete_id),
      description: row.description ?? "",
      distance: row.distance,
      elevation_gain: row.elevation_gain,
      id: row.id,
      id_str: String(row.id),
      // Strava's answers carry it (the Strava MCP server's route parse requires it): a route is always detailed.
      resource_state: 3,
      map: {
        id: `r${row.id}`,
        polyline: points.length ? encodePolyline(points) : "",
        summary_polyline: points.length ? summaryPolyline(points) : "",
        resource_state: 3,
      },
      name: row.name,
      private: row.private,
      starred: false,
      timestamp: Math.floor(Date.parse(row.created_at) / 1000),
      type: row.type,
      sub_type: row.sub_type,
      created_at: row.created_at,
      updated_at: row.updated_at,
      estimated_moving_time: row.estimated_moving_time,
      segments: [],
      waypoints: [],
      directions: [],
    };
  });
}

export function routeJson(route: SeenRoute, owners: ReadonlyMap<number, AthleteRow>, viewer: Viewer | null): RouteJson {
  return routesJson([route], owners, viewer)[0];
}
