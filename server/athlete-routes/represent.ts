import type { Queryable } from "../../events/db/types.ts";
import { findAthletes } from "../../projections/athletes/queries.ts";
import type { Viewer } from "../privacy/engine.ts";
import { athleteFor, metaAthlete } from "../athletes/represent.ts";
import { encodePolyline, summaryPolyline } from "./geometry.ts";
import type { SeenRoute } from "./read.ts";

/**
 * Routes as Strava's API model shapes them (Route): the owner as a summary athlete, the map of what
 * the viewer may see, type 1 ride / 2 run, sub_type 1 road … 5 mixed, timestamp (epoch seconds of
 * creation), estimated_moving_time in seconds. Segments and waypoints are not kept: always [].
 */
export async function routesJson(db: Queryable, routes: SeenRoute[], viewer: Viewer | null): Promise<Record<string, unknown>[]> {
  const athletes = await findAthletes(db, [...new Set(routes.map((r) => r.row.athlete_id))]);
  return routes.map(({ row, points }) => {
    const owner = athletes.get(row.athlete_id);
    return {
      athlete: owner ? athleteFor(owner, { athleteId: viewer?.athleteId ?? 0 }, { form: "summary" }) : metaAthlete(row.athlete_id),
      description: row.description,
      distance: row.distance,
      elevation_gain: row.elevation_gain,
      id: row.id,
      id_str: String(row.id),
      // Strava's answers carry it (the Strava MCP server's route parse requires it): a route is always detailed.
      resource_state: 3,
      map: {
        id: `r${row.id}`,
        polyline: points.length ? encodePolyline(points) : null,
        summary_polyline: points.length ? summaryPolyline(points) : null,
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
    };
  });
}

export async function routeJson(db: Queryable, route: SeenRoute, viewer: Viewer | null): Promise<Record<string, unknown>> {
  return (await routesJson(db, [route], viewer))[0];
}
