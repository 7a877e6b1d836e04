import type { Context, Hono } from "hono";
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { toJson } from "../../shared/json.ts";
import { type Auth, lookupToken } from "../http/auth.ts";
import { JSON_TYPE } from "../http/conventions.ts";
import { type RequestLimiter, retryAfterSeconds } from "../http/rate-limit.ts";
import type { AnyRoute } from "../http/route.ts";
import { protectedResourceMetadataUrl } from "../oauth/metadata.ts";
import type { Platform } from "../platform.ts";
import { allowedHostnames, rebindingRefusal } from "./guard.ts";
import { mcpServer } from "./server.ts";

/**
 * POST /mcp: the MCP endpoint (Streamable HTTP, protocol 2025-06-18 and 2025-11-25), stateless —
 * each request gets its own server and transport, so any of several servers on one PostgreSQL
 * answers any request and nothing is kept between them. In order: Host and Origin (DNS
 * rebinding, guard.ts), the bearer token (an MCP token: RFC 8707 audience "mcp"; else 401 with
 * WWW-Authenticate naming the protected resource metadata, RFC 9728), the API's rate limits
 * counted per athlete, then the JSON-RPC message (at most MAX_MCP_BODY_BYTES; malformed → a
 * JSON-RPC error with a 400, never a 5xx). GET (a server-to-client stream) and DELETE (sessions)
 * are 405: there are no sessions and nothing to push.
 */

/** The largest JSON-RPC request read (tool arguments are small). */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
export const MCP_PATH = "/mcp";
const SERVER_VERSION = "1.0.0";

function jsonError(
  c: Context,
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
) {
  return c.body(toJson({ error, error_description: description }), status as 401, {
    "content-type": JSON_TYPE,
    "cache-control": "no-store",
    ...headers,
  });
}

/** Bearer token from the Authorization header only (MCP authorization: never in the query string). */
function bearer(c: Context): string | undefined {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  return match?.[1];
}

/** The athlete's auth as the tools act with it: the MCP feature speaks as one of the server's own (docs/mcp.md). */
function toolAuth(auth: Auth): Auth {
  return { ...auth, application: { internal: true, kudosEnabled: true, challengesEnabled: false } };
}

export function mountMcp(app: Hono, platform: Platform, routes: readonly AnyRoute[], limiter: RequestLimiter): void {
  const allowed = allowedHostnames([platform.config.publicUrl]);
  const metadataUrl = () => protectedResourceMetadataUrl(platform.config.publicUrl);

  app.all(MCP_PATH, async (c) => {
    const refused = rebindingRefusal(c.req.header("host"), c.req.header("origin"), allowed);
    if (refused) {
      return jsonError(c, 403, "forbidden", `${refused}: requests to /mcp must come to this server's own address`);
    }
    if (c.req.method !== "POST") {
      return jsonError(
        c,
        405,
        "method_not_allowed",
        "POST JSON-RPC messages to /mcp (stateless: no GET stream, no sessions)",
        {
          allow: "POST",
        },
      );
    }
    const token = bearer(c);
    const challenge = (extra: string) => ({
      "www-authenticate": `Bearer resource_metadata="${metadataUrl()}"${extra}`,
    });
    if (!token) {
      return jsonError(
        c,
        401,
        "invalid_request",
        "sign in: send an MCP access token as Authorization: Bearer",
        challenge(""),
      );
    }
    const lookup = await lookupToken(platform.db, token, new Date(), "mcp");
    if (!lookup.ok) {
      const why = lookup.reason === "audience"
        ? "this token was issued for the API, not for /mcp (RFC 8707 resource)"
        : `the token is ${lookup.reason === "unknown" ? "not known" : lookup.reason}`;
      return jsonError(c, 401, "invalid_token", why, challenge(`, error="invalid_token", error_description="${why}"`));
    }
    const hit = await limiter.hit(`mcp:athlete:${lookup.auth.athleteId}`);
    const usage = {
      "x-ratelimit-limit": `${limiter.shortLimit},${limiter.longLimit}`,
      "x-ratelimit-usage": `${hit.short},${hit.long}`,
    };
    if (!hit.allowed) {
      return jsonError(c, 429, "rate_limited", "too many requests; wait and try again", {
        ...usage,
        "retry-after": String(retryAfterSeconds(limiter, hit)),
      });
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
    });
    const server = mcpServer({
      c,
      platform,
      routes,
      auth: toolAuth(lookup.auth),
      requestId: c.get("requestId" as never) as string,
    }, SERVER_VERSION);
    await server.connect(transport);
    try {
      const response = await transport.handleRequest(c.req.raw);
      const headers = new Headers(response.headers);
      for (const [k, v] of Object.entries(usage)) headers.set(k, v);
      return new Response(response.body, { status: response.status, headers });
    } finally {
      await server.close();
    }
  });
}
