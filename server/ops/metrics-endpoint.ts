import type { Context, Hono } from "hono";
import { faultResponse } from "../http/conventions.ts";
import { ApiError } from "../http/errors.ts";
import { constantTimeEqual } from "../security.ts";
import type { Metrics } from "./metrics.ts";

/** The peer address of a request, on Deno (Deno.serve's info) or Node (@hono/node-server). */
function peerAddress(c: Context): string | undefined {
  // deno-lint-ignore no-explicit-any
  const env = c.env as any;
  return env?.remoteAddr?.hostname ?? env?.incoming?.socket?.remoteAddress;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * A request that came straight from this machine: a loopback peer and no proxy headers (a reverse
 * proxy on the same host connects from loopback too, on behalf of anyone).
 */
export function fromLoopback(c: Context): boolean {
  const peer = peerAddress(c);
  const proxied = ["forwarded", "x-forwarded-for", "x-real-ip"].some((h) => c.req.header(h) !== undefined);
  return !!peer && LOOPBACK.test(peer) && !proxied;
}

/**
 * GET /metrics (Prometheus text format). With METRICS_TOKEN set it needs `Authorization: Bearer
 * <token>`; without, it answers loopback clients only (403 to anyone else). Route labels are the
 * app's registered route patterns (a closed set: an unmatched path is "other").
 */
export function mountMetrics(app: Hono, metrics: Metrics, token: string | undefined): void {
  metrics.routesFrom(() => app.routes.map((r) => r.path));
  app.get("/metrics", async (c) => {
    if (token !== undefined) {
      if (!constantTimeEqual(c.req.header("authorization") ?? "", `Bearer ${token}`)) {
        return faultResponse(
          c,
          new ApiError(401, "Authorization Error", [{ resource: "Metrics", field: "access_token", code: "invalid" }]),
        );
      }
    } else if (!fromLoopback(c)) {
      return faultResponse(
        c,
        new ApiError(403, "Forbidden", [{ resource: "Metrics", field: "client", code: "not loopback" }]),
      );
    }
    return c.body(await metrics.text(), 200, { "content-type": metrics.contentType });
  });
}
