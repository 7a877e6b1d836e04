import type { Context, Hono } from "hono";
import type { Platform } from "../platform.ts";
import { readParams } from "./body.ts";
import { jsonResponse, tokenLookupOf } from "./conventions.ts";
import { ApiError, authorizationError } from "./errors.ts";
import { parseWith } from "./input.ts";
import { type AnyRoute, routePermission } from "./route.ts";

/** The Hono paths a route answers on: /v3 routes also under /api/v3 (the real service's layout). */
export function routePaths(route: AnyRoute): string[] {
  return route.path.startsWith("/v3/") ? [route.path, `/api${route.path}`] : [route.path];
}

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

/** Mounts declared routes: authentication, scope, validation, then the handler's JSON. */
export function mountRoutes(app: Hono, platform: Platform, routes: AnyRoute[]): void {
  for (const route of routes) {
    const handler = async (c: Context) => {
      const auth = authenticate(c, route);
      const params = route.params ? parseWith(route.params, c.req.param(), route.resource) : {};
      const query = route.query ? parseWith(route.query, c.req.query(), route.resource) : {};
      // Body fields may also come in the query string (the body wins): server/http/body.ts.
      const body = route.body ? parseWith(route.body, await readParams(c), route.resource) : {};
      const result = await route.handler({
        c,
        platform,
        auth,
        params,
        query,
        body,
        requestId: c.get("requestId" as never) as string,
      });
      if (result instanceof Response) return result;
      return jsonResponse(c, result ?? {}, route.status ?? 200);
    };
    for (const path of routePaths(route)) app.on(route.method, path, handler);
  }
}

/** Refuses a request unless a condition holds (403 with the given triple). */
export function ensure(condition: unknown, error: ApiError): asserts condition {
  if (!condition) throw error;
}
