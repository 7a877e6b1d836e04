import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { blobTempDir } from "./blobs.ts";
import { spooledBodies } from "./http/body.ts";
import { isArchiveUpload } from "./archive/receive.ts";
import { apiConventions, faultResponse, jsonResponse } from "./http/conventions.ts";
import { ApiError } from "./http/errors.ts";
import { toApiError } from "./http/fault.ts";
import { mountRoutes } from "./http/mount.ts";
import { openApiDocument } from "./http/openapi.ts";
import { docsPages } from "./web/docs.ts";
import { RateLimiter, type RequestLimiter } from "./http/rate-limit.ts";
import { SharedRateLimiter } from "./http/shared-rate-limit.ts";
import { securityHeaders } from "./http/security-headers.ts";
import type { AnyRoute } from "./http/route.ts";
import type { Platform } from "./platform.ts";
import { allRoutes, documentedPaths } from "./route-table.ts";
import { type Lifecycle, mountHealth } from "./ops/health.ts";
import { foreground } from "./event-loop-turn.ts";
import { Metrics } from "./ops/metrics.ts";
import { mountMetrics } from "./ops/metrics-endpoint.ts";
import { requestLog } from "./ops/request-log.ts";
import { mountWebPages } from "./web/index.ts";
import { notFoundPage } from "./web/app/index.ts";
import { mountMcp } from "./mcp/endpoint.ts";

export interface AppOptions {
  routes?: AnyRoute[];
}

const isMultipart = (c: Context) => (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/");

/** A large request body read as a stream: a multipart form (uploads) or an export archive. */
function isBulkBody(c: Context): boolean {
  return isArchiveUpload(c.req.method, c.req.path) || isMultipart(c);
}

/**
 * The whole HTTP surface: /v3 API (also /api/v3), OpenAPI, docs, OAuth and web pages, and the
 * operating endpoints (/health, /ready, /metrics).
 */
export function createApp(
  platform: Platform,
  options: AppOptions = {},
): { app: Hono; routes: AnyRoute[]; lifecycle: Lifecycle; metrics: Metrics } {
  const routes = options.routes ?? allRoutes;
  const app = new Hono();
  // On PostgreSQL the counters are in the database, shared by every server on it (one budget per
  // application and per athlete); the embedded store serves one process and counts in memory.
  const makeLimiter = (short: number, long: number): RequestLimiter =>
    platform.db.kind === "postgres" ? new SharedRateLimiter(platform.db, short, long) : new RateLimiter(short, long);
  const limiter = makeLimiter(platform.config.rateLimitShort, platform.config.rateLimitLong);
  const athleteLimiter = makeLimiter(
    platform.config.athleteRateLimitShort ?? platform.config.rateLimitShort,
    platform.config.athleteRateLimitLong ?? platform.config.rateLimitLong,
  );
  const lifecycle: Lifecycle = { draining: false, inFlight: 0 };
  const metrics = new Metrics(platform);

  app.onError((error, c) => {
    const api = toApiError(error);
    // (503: the request log's line says it; the database's absence is no bug to trace.)
    if (api.status === 503) c.header("Retry-After", "5");
    else if (api.status >= 500) {
      console.error(
        `[${c.get("requestId" as never)}] ${c.req.method} ${c.req.path}: ${(error as Error)?.stack ?? error}`,
      );
    }
    return faultResponse(c, api);
  });
  // JSON for the API (and any client that does not ask for HTML); the HTML page with a way back for browsers.
  app.notFound((c) => notFoundPage(c, platform));

  // First: nosniff, CSP, frame protection and Referrer-Policy on every response, errors and 404s
  // included (a page's own CSP by pagePolicy, server/http/security-headers.ts).
  app.use("*", securityHeaders());
  app.use("*", async (c, next) => {
    if (lifecycle.draining) {
      // Shutting down: requests already in flight finish, new ones are turned away.
      c.header("Connection", "close");
      c.header("Retry-After", "5");
      return faultResponse(
        c,
        new ApiError(503, "Service Unavailable", [{ resource: "Server", field: "state", code: "shutting down" }]),
      );
    }
    // Large bodies are read between other requests, never ahead of them (server/event-loop-turn.ts).
    const bulk = isBulkBody(c);
    lifecycle.inFlight++;
    if (!bulk) foreground.enter();
    try {
      await next();
    } finally {
      lifecycle.inFlight--;
      if (!bulk) foreground.leave();
    }
  });
  app.use(
    "*",
    requestLog(
      platform.config.logFormat ?? (platform.config.quiet ? "off" : "text"),
      (r) => metrics.observe(r),
      () => platform.config.publicUrl,
    ),
  );
  // Large multipart files are written to the blob directory's tmp folder as they arrive.
  app.use("*", spooledBodies(blobTempDir(platform.db), platform.config.maxBodyBytes));
  const limitBody = bodyLimit({
    maxSize: platform.config.maxBodyBytes,
    onError: (c) =>
      faultResponse(
        c,
        new ApiError(413, "Payload Too Large", [{ resource: "Request", field: "body", code: "too large" }]),
      ),
  });
  // Bulk bodies are streamed to disk under their own limits: export archives under MAX_IMPORT_BYTES
  // (server/archive/receive.ts), multipart forms under the same limit as here (server/http/body.ts).
  // A declared Content-Length over the limit is refused here before anything is read; a chunked
  // multipart body is not given to Hono's bodyLimit, which would read it whole into memory first.
  app.use("*", (c, next) => {
    if (isArchiveUpload(c.req.method, c.req.path)) return next();
    const declared = c.req.header("content-length") !== undefined && c.req.header("transfer-encoding") === undefined;
    return isMultipart(c) && !declared ? next() : limitBody(c, next);
  });
  const conventions = apiConventions(platform, limiter, athleteLimiter);
  app.use("/v3/*", conventions);
  app.use("/api/v3/*", conventions);

  // Generated once: the routes and the public URL do not change while the server runs.
  let openApi: Record<string, unknown> | undefined;
  app.get(
    "/v3/openapi.json",
    (c) => jsonResponse(c, openApi ??= openApiDocument(routes, `${platform.config.publicUrl}`, documentedPaths)),
  );
  app.route("/docs", docsPages(platform, routes));
  mountHealth(app, platform, lifecycle);
  mountMetrics(app, metrics, platform.config.metricsToken);

  mountRoutes(app, platform, routes);
  // The MCP endpoint: the same routes as tools, counted against the API's limits per athlete.
  mountMcp(app, platform, routes, limiter);
  mountWebPages(app, platform);
  return { app, routes, lifecycle, metrics };
}
