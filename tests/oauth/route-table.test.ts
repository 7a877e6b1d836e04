import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../server/app.ts";
import { type AnyRoute, routePermission } from "../../server/http/route.ts";
import { allRoutes } from "../../server/route-table.ts";
import { OAUTH_ENDPOINTS } from "../../server/web/oauth-endpoints.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * Every /v3 route the real app answers must be declared in the route table (server/routes), so it
 * has a declared permission that the mount enforces. Exempt: the OpenAPI document (public) and the
 * OAuth endpoints' /v3 and /api/v3 aliases (client credentials or the token being revoked, not a scope).
 */
const EXEMPT = new Set(["GET /v3/openapi.json", ...OAUTH_ENDPOINTS]);

function undeclaredRoutes(app: Hono, table: AnyRoute[]): string[] {
  const declared = new Set(table.map((r) => `${r.method} ${r.path}`));
  const missing = new Set<string>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue; // middleware (conventions, body limit)
    if (!route.path.startsWith("/v3/") && !route.path.startsWith("/api/v3/")) continue;
    const key = `${route.method} ${route.path}`;
    if (EXEMPT.has(key)) continue;
    if (!declared.has(`${route.method} ${route.path.replace(/^\/api\/v3\//, "/v3/")}`)) missing.add(key);
  }
  return [...missing].sort();
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/** A path with every :param filled in (auth is checked before parameters are validated). */
const concrete = (path: string) => path.replace(/:[A-Za-z_]+/g, "1");

describe("the route table", () => {
  it("declares every /v3 route of the real app", () => {
    const { app } = createApp(server.platform);
    const v3 = app.routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/v3/"));
    expect(v3.length).toBeGreaterThanOrEqual(allRoutes.length);
    expect(undeclaredRoutes(app, allRoutes)).toEqual([]);
  });

  it("catches a route added without an entry", () => {
    const { app } = createApp(server.platform);
    app.post("/v3/sneaky/:id", (c) => c.text("no permission declared"));
    app.get("/api/v3/hidden", (c) => c.text("nor here"));
    expect(undeclaredRoutes(app, allRoutes)).toEqual(["GET /api/v3/hidden", "POST /v3/sneaky/:id"]);
  });

  it("mounts every declared route under /v3 and /api/v3, each token route with a permission", () => {
    const { app } = createApp(server.platform);
    const mounted = new Set(app.routes.map((r) => `${r.method} ${r.path}`));
    for (const route of allRoutes) {
      expect(mounted.has(`${route.method} ${route.path}`), route.path).toBe(true);
      if (route.path.startsWith("/v3/")) {
        expect(mounted.has(`${route.method} /api${route.path}`), route.path).toBe(true);
      }
      if (route.auth === "token") expect(["read", "write", "view_private"]).toContain(routePermission(route));
    }
  });

  it("enforces each route's permission: no token → 401 missing, a token without the scope → 401 <scope>_permission", async () => {
    const readOnly = await server.athlete({ permissions: ["read"] });
    const tokenRoutes = allRoutes.filter((r) => r.auth === "token");
    expect(tokenRoutes.length).toBeGreaterThan(0);
    for (const route of tokenRoutes) {
      const path = concrete(route.path);
      const anonymous = await server.api(route.method, path);
      expect({ path, status: anonymous.status, body: anonymous.body }).toEqual({
        path,
        status: 401,
        body: {
          message: "Authorization Error",
          errors: [{ resource: "Athlete", field: "access_token", code: "missing" }],
        },
      });
      const permission = routePermission(route)!;
      if (permission === "read") continue;
      const res = await server.api(route.method, path, { token: readOnly.token });
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 401,
        body: {
          message: "Authorization Error",
          errors: [{ resource: "AccessToken", field: `${permission}_permission`, code: "missing" }],
        },
      });
    }
  });
});
