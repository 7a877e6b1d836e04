import { type Context, Hono } from "hono";
import { toJson } from "../../shared/json.ts";
import { ApiError, badRequest } from "../http/errors.ts";
import { toApiError } from "../http/fault.ts";
import { deauthorizeToken, exchangeCode, refreshAccess } from "../oauth/commands.ts";
import { readParams } from "../http/body.ts";
import { JSON_TYPE } from "../http/conventions.ts";
import type { Platform } from "../platform.ts";
import { athleteFor } from "../athletes/represent.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";

/**
 * Where an OAuth endpoint answers: at the host root (the spec's auth_url) and under every prefix the
 * API answers under (/v3, /api/v3), since clients address it relative to either — stravalib posts
 * `oauth/deauthorize` relative to its API base, Strava serves /api/v3/oauth/token.
 */
export const OAUTH_PREFIXES = ["/oauth", "/v3/oauth", "/api/v3/oauth"] as const;
export const oauthPaths = (endpoint: string): string[] => OAUTH_PREFIXES.map((prefix) => `${prefix}/${endpoint}`);

/** The OAuth JSON endpoints (client credentials, not access tokens; outside the /v3 route table). */
export const OAUTH_TOKEN_PATHS = oauthPaths("token");
export const OAUTH_DEAUTHORIZE_PATHS = [...oauthPaths("deauthorize"), ...oauthPaths("revoke")];
/** Every OAuth endpoint as "METHOD path" (the consent page, token, deauthorize), under every prefix. */
export const OAUTH_ENDPOINTS = [
  ...oauthPaths("authorize").flatMap((path) => [`GET ${path}`, `POST ${path}`]),
  ...OAUTH_TOKEN_PATHS.map((path) => `POST ${path}`),
  ...OAUTH_DEAUTHORIZE_PATHS.map((path) => `POST ${path}`),
];

/** Parameters from the query string and the body (form or JSON); the body wins. */
async function paramsOf(c: Context): Promise<Record<string, string | undefined>> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(await readParams(c))) {
    if (typeof value === "string") out[key] = value;
    else if (typeof value === "number" || typeof value === "bigint") out[key] = String(value);
  }
  return out;
}

/** client_id and client_secret from HTTP Basic authentication (RFC 6749 §2.3.1), when used. */
function basicCredentials(c: Context): { clientId?: string; clientSecret?: string } {
  const header = c.req.header("authorization") ?? "";
  const match = /^\s*basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return {};
  try {
    const decoded = atob(match[1]);
    const colon = decoded.indexOf(":");
    if (colon < 0) return {};
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon)),
      clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    return {};
  }
}

function noStoreJson(c: Context, value: unknown): Response {
  return c.body(toJson(value), 200, { "content-type": JSON_TYPE, "cache-control": "no-store", pragma: "no-cache" });
}

/**
 * The OAuth 2.0 error code (RFC 6749 §5.2, RFC 8707 §2) of a refused token request, added to the
 * API's error body so OAuth clients (the MCP SDK's) read `error` and `error_description`.
 */
function oauthErrorOf(error: ApiError): { error: string; error_description: string } {
  const [first] = error.errors;
  const described = first ? `${first.resource} ${first.field}: ${first.code}` : error.message;
  const code = !first
    ? "invalid_request"
    : first.field === "resource"
    ? "invalid_target"
    : first.field === "grant_type"
    ? "unsupported_grant_type"
    : first.resource === "Application"
    ? "invalid_client"
    : first.resource === "AuthorizationCode" || first.resource === "RefreshToken"
    ? "invalid_grant"
    : "invalid_request";
  return { error: code, error_description: described };
}

/** POST /oauth/token, its refusals in both vocabularies (the API's triples, OAuth's error code). */
async function tokenOrError(c: Context, platform: Platform): Promise<Response> {
  try {
    return await token(c, platform);
  } catch (error) {
    const api = toApiError(error);
    if (api.status >= 500) throw error;
    const body = { message: api.message, errors: api.errors, ...oauthErrorOf(api) };
    return c.body(toJson(body), api.status as 400, {
      "content-type": JSON_TYPE,
      "cache-control": "no-store",
      pragma: "no-cache",
    });
  }
}

/** POST /oauth/token: grant_type authorization_code (the default) or refresh_token. */
async function token(c: Context, platform: Platform): Promise<Response> {
  const p = await paramsOf(c);
  const basic = basicCredentials(c);
  const credentials = {
    clientId: p.client_id ?? basic.clientId,
    clientSecret: p.client_secret ?? basic.clientSecret,
    resource: p.resource,
  };
  const grantType = p.grant_type ?? "authorization_code";
  if (grantType === "authorization_code") {
    const { athleteId, ...tokens } = await exchangeCode(platform, {
      ...credentials,
      code: p.code,
      redirectUri: p.redirect_uri,
      codeVerifier: p.code_verifier,
    });
    const athlete = await findAthlete(platform.db, athleteId);
    return noStoreJson(c, {
      ...tokens,
      athlete: athlete ? athleteFor(athlete, { athleteId }, { form: "token-exchange" }) : null,
    });
  }
  if (grantType === "refresh_token") {
    return noStoreJson(c, await refreshAccess(platform, { ...credentials, refreshToken: p.refresh_token }));
  }
  throw badRequest("Request", "grant_type", "invalid");
}

/** POST /oauth/deauthorize: the pair of the access token given (header or form). */
async function deauthorize(c: Context, platform: Platform): Promise<Response> {
  const header = c.req.header("authorization") ?? "";
  const bearer = /^\s*(?:bearer|access_token|token)\s+(\S+)\s*$/i.exec(header)?.[1];
  const p = await paramsOf(c);
  const submitted = p.access_token || bearer || p.token;
  await deauthorizeToken(platform, submitted);
  return noStoreJson(c, { access_token: submitted });
}

/** The OAuth token and deauthorize endpoints, mounted at `/` (at the host root and under every API prefix). */
export function oauthEndpoints(platform: Platform): Hono {
  const endpoints = new Hono();
  for (const path of OAUTH_TOKEN_PATHS) endpoints.post(path, (c) => tokenOrError(c, platform));
  for (const path of OAUTH_DEAUTHORIZE_PATHS) endpoints.post(path, (c) => deauthorize(c, platform));
  return endpoints;
}
