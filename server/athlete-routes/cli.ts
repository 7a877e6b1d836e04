import { DomainError } from "../../events/decider.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { createRoute, deleteRoute, type NewRoute } from "./commands.ts";
import { systemActor } from "../actor.ts";
import { decodePolyline } from "./geometry.ts";
import { visibleRoute, visibleRoutesOf } from "./read.ts";
import { routeJson } from "./represent.ts";
import { ownersOf } from "./read.ts";
import { ApiError } from "../http/errors.ts";
import type { Viewer } from "../privacy/engine.ts";
import { parsePoints } from "../segments/geometry.ts";
import { type CliCommand, CliUsageError, optionalString, requireInt, requireString } from "../cli/command.ts";

type RouteJson = { id: number; name: string; distance: number; elevation_gain: number; private: boolean; type: number };

/** The CLI acts as the athlete with every scope (an operator's tool): it sees their routes and activities exactly. */
const ownerViewer = (athleteId: number): Viewer => ({ athleteId, viewPrivate: true });

function explain(error: unknown): never {
  if (error instanceof DomainError) {
    const option = ({
      activity_id: "activity",
      latlng: "points",
      altitude: "points",
      polyline: "polyline",
      id: "activity",
    } as Record<string, string>)[error.field] ?? error.field;
    throw new CliUsageError(`--${option}: ${error.message}`);
  }
  if (error instanceof ApiError) throw new CliUsageError(`${error.errors[0]?.resource ?? "route"} not found`);
  throw error;
}

export const routeCommands: CliCommand[] = [
  {
    name: "route create",
    summary:
      'Create a route for an athlete from one of --activity, --points "lat,lng[,alt];…" or --polyline (encoded).',
    options: {
      athlete: { type: "string", description: "athlete id (the route's owner)", required: true },
      name: { type: "string", description: "route name", required: true },
      description: { type: "string", description: "route description" },
      activity: { type: "string", description: "cut from this activity of the athlete (or a public one of another)" },
      points: { type: "string", description: "a drawn line: lat,lng or lat,lng,altitude separated by ;" },
      polyline: { type: "string", description: "a drawn line as an encoded polyline (precision 5)" },
      type: { type: "string", description: "ride or run (default: the activity's sport, else ride)" },
      private: { type: "boolean", description: "only the athlete sees it" },
    },
    async run(platform, o) {
      const athleteId = requireInt(o, "athlete");
      if (!(await findAthlete(platform.db, athleteId))) throw new CliUsageError(`athlete ${athleteId} does not exist`);
      const name = requireString(o, "name");
      const activity = optionalString(o, "activity");
      const pointsText = optionalString(o, "points");
      const encoded = optionalString(o, "polyline");
      if ([activity, pointsText, encoded].filter((v) => v !== undefined).length !== 1) {
        throw new CliUsageError("give exactly one of --activity, --points or --polyline");
      }
      const typeWord = optionalString(o, "type");
      if (typeWord !== undefined && typeWord !== "ride" && typeWord !== "run") {
        throw new CliUsageError("--type must be ride or run");
      }
      let source: NewRoute["source"];
      if (activity !== undefined) {
        source = { activityId: requireInt(o, "activity") };
      } else if (pointsText !== undefined) {
        try {
          const parsed = parsePoints(pointsText);
          source = { points: parsed.points, altitudes: parsed.altitudes as number[] | null };
        } catch (error) {
          throw new CliUsageError(`--points: ${(error as Error).message}`);
        }
      } else {
        try {
          source = { points: decodePolyline(encoded!), altitudes: null, field: "polyline" };
        } catch {
          throw new CliUsageError("--polyline is not an encoded polyline");
        }
      }
      const viewer = ownerViewer(athleteId);
      try {
        const id = await createRoute(platform, viewer, {
          name,
          description: optionalString(o, "description"),
          type: typeWord === "run" ? 2 : typeWord === "ride" ? 1 : undefined,
          private: o.private === true,
          source,
        }, systemActor("cli", athleteId));
        const route = await visibleRoute(platform.db, id, viewer);
        return routeJson(route, await ownersOf(platform.db, [route]), viewer);
      } catch (error) {
        explain(error);
      }
    },
    format: (result) => {
      const r = result as RouteJson;
      return `route ${r.id} "${r.name}": ${(r.distance / 1000).toFixed(2)} km, +${r.elevation_gain} m${
        r.private ? " (private)" : ""
      }`;
    },
  },
  {
    name: "route list",
    summary: "List an athlete's routes, newest first.",
    options: { athlete: { type: "string", description: "athlete id", required: true } },
    async run(platform, o) {
      const athleteId = requireInt(o, "athlete");
      const viewer = ownerViewer(athleteId);
      const routes = [];
      for (let offset = 0;; offset += 200) {
        const page = await visibleRoutesOf(platform.db, athleteId, viewer, { limit: 200, offset });
        routes.push(...page);
        if (page.length < 200) break;
      }
      return routes.map(({ row }) => ({
        id: row.id,
        name: row.name,
        distance: row.distance,
        elevation_gain: row.elevation_gain,
        private: row.private,
        type: row.type,
      }));
    },
    format: (result) => {
      const rows = result as RouteJson[];
      if (rows.length === 0) return "no routes";
      return rows.map((r) =>
        `route ${r.id}  ${r.type === 2 ? "run " : "ride"}  ${
          (r.distance / 1000).toFixed(2)
        } km  +${r.elevation_gain} m${r.private ? "  private" : ""}  ${r.name}`
      ).join("\n");
    },
  },
  {
    name: "route delete",
    summary: "Delete one of an athlete's routes.",
    options: {
      athlete: { type: "string", description: "athlete id", required: true },
      id: { type: "string", description: "route id", required: true },
    },
    async run(platform, o) {
      const athleteId = requireInt(o, "athlete");
      const id = requireInt(o, "id");
      try {
        await deleteRoute(platform, athleteId, id, systemActor("cli", athleteId));
      } catch (error) {
        if (error instanceof DomainError) throw new CliUsageError(`route ${id} of athlete ${athleteId} does not exist`);
        throw error;
      }
      return { deleted: id };
    },
  },
];
