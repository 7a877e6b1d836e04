import { z } from "zod";
import { callRoute } from "../call-route.ts";
import { clock, km, num, round, str } from "../format.ts";
import { zId, zLimit, zPage } from "../shapes.ts";
import { defineTool, type Tool } from "../tool.ts";

type Json = Record<string, unknown>;

const zRoute = z.object({
  id: z.number().int().describe("Route id (get_route)."),
  name: z.string(),
  description: z.string().nullable(),
  type: z.string().describe("ride or run."),
  distance_m: z.number().nullable(),
  elevation_gain_m: z.number().nullable(),
  estimated_moving_time_s: z.number().nullable(),
  private: z.boolean().nullable(),
  starred: z.boolean().nullable(),
  segment_count: z.number().int(),
});

const routeOf = (r: Json) => ({
  id: Number(r.id),
  name: String(r.name),
  description: str(r.description) || null,
  type: r.type === 2 ? "run" : "ride",
  distance_m: round(r.distance, 1),
  elevation_gain_m: round(r.elevation_gain, 1),
  estimated_moving_time_s: num(r.estimated_moving_time),
  private: typeof r.private === "boolean" ? r.private : null,
  starred: typeof r.starred === "boolean" ? r.starred : null,
  segment_count: Array.isArray(r.segments) ? r.segments.length : 0,
});

const line = (r: ReturnType<typeof routeOf>) =>
  `#${r.id} "${r.name}" (${r.type}) ${km(r.distance_m)}, +${Math.round(r.elevation_gain_m ?? 0)} m, ~${
    clock(r.estimated_moving_time_s)
  }`;

export const listRoutes = defineTool({
  name: "list_routes",
  title: "My routes",
  description:
    "The signed-in athlete's planned routes (GET /v3/athlete/routes): id, name, ride or run, distance (m), elevation gain (m), estimated moving time (s).",
  input: { page: zPage, limit: zLimit(100, 30) },
  output: { routes: z.array(zRoute) },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const rows = await callRoute(ctx, "GET", "/v3/athlete/routes", {
      query: { page: args.page, per_page: args.limit },
    }) as Json[];
    const routes = rows.map(routeOf);
    return { structured: { routes }, text: routes.length ? routes.map(line).join("\n") : "No routes." };
  },
});

export const getRoute = defineTool({
  name: "get_route",
  title: "One route",
  description:
    "A route (GET /v3/routes/{id}): name, description, ride or run, distance (m), elevation gain (m), estimated moving time (s), how many segments it passes.",
  input: { id: zId.describe("Route id.") },
  output: { route: zRoute },
  write: false,
  idempotent: true,
  async run(ctx, args) {
    const r = routeOf(await callRoute(ctx, "GET", "/v3/routes/:id", { params: { id: args.id } }) as Json);
    return { structured: { route: r }, text: `${line(r)}${r.description ? `\n${r.description}` : ""}` };
  },
});

export const routeTools: Tool[] = [listRoutes, getRoute];
