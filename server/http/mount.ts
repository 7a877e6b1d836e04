import type { Context, Hono } from "hono";
import type { Platform } from "../platform.ts";
import { readParams } from "./body.ts";
import { jsonResponse, tokenLookupOf } from "./conventions.ts";
import { type Dialect, dialectPaths } from "./dialect.ts";
import { ApiError, authorizationError } from "./errors.ts";
import { parseWith } from "./input.ts";
import { type AnyRoute, routePermission } from "./route.ts";

/** Resolves the caller of a token route, or throws the documented 401. */
function authenticate(c: Context, route: AnyRoute) {
  const lookup = tokenLookupOf(c);
  if (route.auth === "none") return null;
  if (!lookup) {
    if (route.auth === "optional") return null;
    throw authorizationError("Athlete", "access_token", "missing");
  }
  if (!lookup.ok) throw authorizationError("Athlete", "access_token", "invalid");
  const needed = routePermission(route);
  if (needed && !lookup.auth.permissions.has(needed)) {
    throw authorizationError("AccessToken", `${needed}_permission`, "missing");
  }
  return lookup.auth;
}

/**
 * The spec's "cannot be combined" (a route's `exclusive` parameters): on /v3, two or more of them in
 * one request are a 400 naming each one given. Strava's dialect combines them (the route's handler
 * applies the date window first, then the page within it).
 */
function refuseCombined(route: AnyRoute, query: Record<string, unknown>, dialect: Dialect): void {
  if (dialect !== "spec" || !route.exclusive) return;
  const given = route.exclusive.filter((name) => query[name] !== undefined);
  if (given.length > 1) {
    throw new ApiError(
      400,
      "Bad Request",
      given.map((field) => ({ resource: route.resource, field, code: "cannot be combined" })),
    );
  }
}

/**
 * Mounts declared routes: authentication, scope, validation, then the handler's JSON. A /v3 route
 * answers on /v3 in the spec's dialect and on /api/v3 in Strava's (server/http/dialect.ts).
 */
export function mountRoutes(app: Hono, platform: Platform, routes: AnyRoute[]): void {
  for (const route of routes) {
    const handlerIn = (dialect: Dialect) => async (c: Context) => {
      const auth = authenticate(c, route);
      const params = route.params ? parseWith(route.params, c.req.param(), route.resource) : {};
      const query = route.query ? parseWith(route.query, c.req.query(), route.resource) : {};
      refuseCombined(route, query as Record<string, unknown>, dialect);
      // Body fields may also come in the query string (the body wins): server/http/body.ts.
      const body = route.body ? parseWith(route.body, await readParams(c), route.resource) : {};
      const result = await route.handler({
        c,
        platform,
        auth,
        params,
        query,
        body,
        dialect,
        requestId: c.get("requestId" as never) as string,
      });
      if (result instanceof Response) return result;
      return jsonResponse(c, result ?? {}, route.status ?? 200);
    };
    for (const { path, dialect } of dialectPaths(route.path)) app.on(route.method, path, handlerIn(dialect));
  }
}

/** Refuses a request unless a condition holds (403 with the given triple). */
export function ensure(condition: unknown, error: ApiError): asserts condition {
  if (!condition) throw error;
}
