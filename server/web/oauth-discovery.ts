import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { toJson } from "../../shared/json.ts";
import { registerClient } from "../applications/commands.ts";
import { JSON_TYPE } from "../http/conventions.ts";
import { RateLimiter, type RequestLimiter, retryAfterSeconds } from "../http/rate-limit.ts";
import { SharedRateLimiter } from "../http/shared-rate-limit.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "../oauth/metadata.ts";
import { checkClientMetadata, RegistrationError } from "../oauth/registration.ts";
import type { Platform } from "../platform.ts";
import { clientAddress } from "./throttle.ts";

/**
 * What an MCP client reads and does before the athlete signs in (docs/mcp.md): the protected
 * resource metadata of /mcp (RFC 9728, at the path-suffixed and the root well-known address), the
 * authorization server metadata (RFC 8414), and dynamic client registration (RFC 7591,
 * POST /oauth/register: bounded body, rate-limited per client address — the peer's, forwarded-for
 * headers are not read, so behind a proxy the limit is the proxy's — and from all addresses).
 */

/** Registrations per client address (REGISTRATION_LIMIT_SHORT/LONG): 20 per 15 minutes, 100 a day by default. */
export const REGISTRATIONS_PER_ADDRESS = { short: 20, long: 100 } as const;
/** Registrations from every address together: ten times the per-address limits (bounds the log's growth). */
export const ALL_ADDRESSES_FACTOR = 10;
/** The largest registration request read (client metadata is a few hundred bytes). */
export const MAX_REGISTRATION_BYTES = 16 * 1024;

function documentResponse(c: Context, body: unknown, status = 200, extra: Record<string, string> = {}): Response {
  return c.body(toJson(body), status as 200, {
    "content-type": JSON_TYPE,
    // Public documents, read by browser-based clients too.
    "access-control-allow-origin": "*",
    "cache-control": status === 200 ? "public, max-age=300" : "no-store",
    ...extra,
  });
}

function registrationError(c: Context, error: string, description: string, status = 400, extra = {}): Response {
  return c.body(toJson({ error, error_description: description }), status as 400, {
    "content-type": JSON_TYPE,
    "cache-control": "no-store",
    ...extra,
  });
}

export function oauthDiscovery(platform: Platform): Hono {
  const pages = new Hono();
  const limiter = (short: number, long: number): RequestLimiter =>
    platform.db.kind === "postgres" ? new SharedRateLimiter(platform.db, short, long) : new RateLimiter(short, long);
  const short = platform.config.registrationLimitShort ?? REGISTRATIONS_PER_ADDRESS.short;
  const long = platform.config.registrationLimitLong ?? REGISTRATIONS_PER_ADDRESS.long;
  const perAddress = limiter(short, long);
  const inAll = limiter(short * ALL_ADDRESSES_FACTOR, long * ALL_ADDRESSES_FACTOR);

  const resource = (c: Context) => documentResponse(c, protectedResourceMetadata(platform.config.publicUrl));
  pages.get("/.well-known/oauth-protected-resource", resource);
  pages.get("/.well-known/oauth-protected-resource/mcp", resource);
  pages.get(
    "/.well-known/oauth-authorization-server",
    (c) => documentResponse(c, authorizationServerMetadata(platform.config.publicUrl)),
  );

  pages.post(
    "/oauth/register",
    bodyLimit({
      maxSize: MAX_REGISTRATION_BYTES,
      onError: (c) =>
        registrationError(
          c,
          "invalid_client_metadata",
          `the body must be at most ${MAX_REGISTRATION_BYTES} bytes`,
          413,
        ),
    }),
    async (c) => {
      for (const [used, key] of [[perAddress, `register:${clientAddress(c)}`], [inAll, "register:all"]] as const) {
        const hit = await used.hit(key);
        if (!hit.allowed) {
          return registrationError(c, "too_many_requests", "too many client registrations; try again later", 429, {
            "retry-after": String(retryAfterSeconds(used, hit)),
          });
        }
      }
      if (!(c.req.header("content-type") ?? "").toLowerCase().includes("application/json")) {
        return registrationError(c, "invalid_client_metadata", "send the client metadata as application/json");
      }
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        return registrationError(c, "invalid_client_metadata", "the body is not JSON");
      }
      try {
        const metadata = checkClientMetadata(body);
        const registered = await registerClient(platform, metadata);
        return c.body(
          toJson({
            client_id: String(registered.client_id),
            ...(registered.client_secret
              ? { client_secret: registered.client_secret, client_secret_expires_at: 0 }
              : {}),
            client_id_issued_at: Math.floor(Date.now() / 1000),
            client_name: metadata.name,
            ...(metadata.clientUri ? { client_uri: metadata.clientUri } : {}),
            redirect_uris: metadata.redirectUris,
            grant_types: ["authorization_code", "refresh_token"],
            response_types: ["code"],
            token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
            ...(metadata.scope ? { scope: metadata.scope } : {}),
          }),
          201,
          { "content-type": JSON_TYPE, "cache-control": "no-store", pragma: "no-cache" },
        );
      } catch (error) {
        if (error instanceof RegistrationError) return registrationError(c, error.error, error.description);
        throw error;
      }
    },
  );
  return pages;
}
