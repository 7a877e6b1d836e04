import type { Context, MiddlewareHandler } from "hono";
import { toJson } from "../../shared/json.ts";
import type { Platform } from "../platform.ts";
import { lookupToken, type TokenLookup } from "./auth.ts";
import { readBody } from "./body.ts";
import { ApiError, rateLimitExceeded } from "./errors.ts";
import { type RequestLimiter, retryAfterSeconds } from "./rate-limit.ts";

export const JSON_TYPE = "application/json; charset=utf-8";

/** A JSON response with exact 64-bit integers. */
export function jsonResponse(c: Context, value: unknown, status = 200): Response {
  if (status === 204) return c.body(null, 204);
  return jsonTextResponse(c, toJson(value), status);
}

/** A response of JSON text already serialised (by toJson), as jsonResponse answers it. */
export function jsonTextResponse(c: Context, text: string, status = 200): Response {
  return c.body(text, status as 200, { "content-type": JSON_TYPE });
}

export function faultResponse(c: Context, error: ApiError): Response {
  const body = error.body ?? { message: error.message, errors: error.errors };
  return jsonResponse(c, body, error.status);
}

/** The access token of a request: Authorization header (Bearer), query parameter or body field. */
export async function requestToken(c: Context): Promise<string | undefined> {
  const header = c.req.header("authorization");
  if (header) {
    const match = /^\s*(?:bearer|access_token|token)\s+(\S+)\s*$/i.exec(header);
    if (match) return match[1];
  }
  const query = c.req.query("access_token");
  if (query) return query;
  if (c.req.method === "POST" || c.req.method === "PUT" || c.req.method === "DELETE") {
    const body = await readBody(c);
    if (typeof body.access_token === "string" && body.access_token) return body.access_token;
  }
  return undefined;
}

export const TOKEN_KEY = "tokenLookup";

/** The token lookup the API middleware made for this request (undefined = no token sent). */
export function tokenLookupOf(c: Context): TokenLookup | undefined {
  return c.get(TOKEN_KEY as never) as TokenLookup | undefined;
}

/**
 * The /v3 conventions in one place: token resolution, per-application rate limits with their
 * headers on every response, and JSON-P.
 */
/** Context key set on a request refused by the rate limit (counted by the metrics). */
export const RATE_LIMITED = "rateLimited";

/**
 * `athleteLimiter` counts this server's own (internal) applications — the web pages — per athlete:
 * every athlete's pages share one application, and one busy athlete must not lock the others out.
 * A refused request also carries `Retry-After` (seconds until the exceeded window resets).
 */
export function apiConventions(
  platform: Platform,
  limiter: RequestLimiter,
  athleteLimiter: RequestLimiter = limiter,
): MiddlewareHandler {
  return async (c, next) => {
    let usage = { short: 0, long: 0 };
    let used = limiter;
    let retryAfter: number | undefined;
    try {
      const token = await requestToken(c);
      if (token !== undefined) {
        const lookup = await lookupToken(platform.db, token);
        c.set(TOKEN_KEY as never, lookup as never);
        if (lookup.ok) {
          const { applicationId, athleteId, application } = lookup.auth;
          used = application.internal ? athleteLimiter : limiter;
          const hit = await (application.internal
            ? used.hit(`app:${applicationId}:athlete:${athleteId}`)
            : used.hit(`app:${applicationId}`));
          usage = hit;
          if (!hit.allowed) {
            c.set(RATE_LIMITED as never, true as never);
            retryAfter = retryAfterSeconds(used, hit);
            throw rateLimitExceeded();
          }
        }
      }
      await next();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      c.res = faultResponse(c, error);
    }
    c.res.headers.set("X-RateLimit-Limit", `${used.shortLimit},${used.longLimit}`);
    c.res.headers.set("X-RateLimit-Usage", `${usage.short},${usage.long}`);
    if (retryAfter !== undefined) c.res.headers.set("Retry-After", String(retryAfter));
    await jsonp(c);
  };
}

const CALLBACK = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

/** callback=<name> wraps a JSON body as a call to that function (JSON-P). */
async function jsonp(c: Context): Promise<void> {
  const callback = c.req.query("callback");
  if (callback === undefined) return;
  if (!CALLBACK.test(callback) || callback.length > 128) {
    const error = new ApiError(400, "Bad Request", [{ resource: "Request", field: "callback", code: "invalid" }]);
    const headers = new Headers(c.res.headers);
    c.res = new Response(toJson({ message: error.message, errors: error.errors }), {
      status: 400,
      headers,
    });
    return;
  }
  const type = c.res.headers.get("content-type") ?? "";
  if (!type.includes("application/json")) return;
  const text = c.req.method === "HEAD" ? "" : await c.res.text();
  const headers = new Headers(c.res.headers);
  headers.set("content-type", "text/javascript; charset=utf-8");
  headers.delete("content-length");
  c.res = new Response(c.req.method === "HEAD" ? null : `/**/${callback}(${text || "null"})`, {
    status: c.res.status,
    headers,
  });
}
