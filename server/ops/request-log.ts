import type { Context, MiddlewareHandler } from "hono";
import type { LogFormat } from "../config.ts";
import { RATE_LIMITED } from "../http/conventions.ts";
import { runInRequest } from "./context.ts";
import { batchedLines } from "./line-writer.ts";

/** A client's own request id is kept when it is short and plain; otherwise the server makes one. */
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const REQUEST_ID_HEADER = "X-Request-Id";

/** Random bytes for this many request ids are drawn at once. */
const IDS_PER_DRAW = 256;
const ID_BYTES = 12;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
let pool = new Uint8Array(0);
let next = 0;

/**
 * A new request id: 12 random bytes as 24 hex digits, as `randomSecret(12)` makes them, drawn from
 * the system's generator in batches (one randomBytes call and a Buffer per request were 19 µs of a
 * GET's ≈ 1.1 ms in process: docs/bench-profiles.md).
 */
export function newRequestId(): string {
  if (next + ID_BYTES > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(IDS_PER_DRAW * ID_BYTES));
    next = 0;
  }
  let id = "";
  for (const end = next + ID_BYTES; next < end; next++) id += HEX[pool[next]];
  return id;
}

/** One finished request, as the log line and the metrics see it. */
export interface RequestRecord {
  requestId: string;
  method: string;
  /** The route pattern that answered (e.g. /v3/activities/:id), or "other" when none did. */
  route: string;
  path: string;
  status: number;
  seconds: number;
  /** Refused by a rate limit: the API's (403 "Rate Limit Exceeded", as the spec says) or a 429. */
  rateLimited: boolean;
}

/**
 * The route pattern the request matched (a registered pattern, never the path: no ids), also when a
 * middleware answered before the route's handler ran (401, rate limit): the last matched route that
 * is not a wildcard middleware, else a method's own wildcard route (/heatmap-viewer/*); "other"
 * when no route matched (the metrics fold anything outside the registered patterns into "other").
 */
export function routeOf(c: Context): string {
  const matched = c.req.matchedRoutes.filter((r) => !r.path.endsWith("*"));
  const route = matched.findLast((r) => r.method !== "ALL") ?? matched.at(-1) ??
    c.req.matchedRoutes.findLast((r) => r.method !== "ALL");
  return route?.path ?? "other";
}

export function formatLine(format: LogFormat, r: RequestRecord, time = new Date()): string {
  const ms = Math.round(r.seconds * 10_000) / 10;
  if (format === "json") {
    return JSON.stringify({
      time: time.toISOString(),
      level: "info",
      msg: "request",
      request_id: r.requestId,
      method: r.method,
      path: r.path,
      route: r.route,
      status: r.status,
      duration_ms: ms,
    });
  }
  return `${time.toISOString()} ${r.method} ${r.path} ${r.status} ${ms}ms id=${r.requestId}`;
}

/**
 * First middleware: gives each request an id (the client's X-Request-Id when plain, else a new one),
 * returns it in X-Request-Id, makes it the `requestId` of every event the request appends, and
 * reports the finished request (one log line, written in batches by line-writer.ts; metrics).
 */
export function requestLog(
  format: LogFormat,
  finished: (r: RequestRecord) => void,
  publicUrl?: () => string,
): MiddlewareHandler {
  const write = format === "off" ? undefined : batchedLines();
  return async (c, next) => {
    const incoming = c.req.header(REQUEST_ID_HEADER);
    const requestId = incoming && CLIENT_ID.test(incoming) ? incoming : newRequestId();
    c.set("requestId" as never, requestId as never);
    const started = performance.now();
    await runInRequest({ requestId, publicUrl: publicUrl?.() }, () => next());
    try {
      c.res.headers.set(REQUEST_ID_HEADER, requestId);
    } catch {
      // A response with immutable headers (e.g. passed through from fetch): copy it.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set(REQUEST_ID_HEADER, requestId);
    }
    const record: RequestRecord = {
      requestId,
      method: c.req.method,
      route: routeOf(c),
      path: c.req.path,
      status: c.res.status,
      seconds: (performance.now() - started) / 1000,
      rateLimited: c.get(RATE_LIMITED as never) === true || c.res.status === 429,
    };
    finished(record);
    write?.(formatLine(format, record));
  };
}
