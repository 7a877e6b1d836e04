import { z } from "zod";
import type { Permission } from "./auth.ts";
import { zDeauthorizeResponse, zTokenResponse } from "../oauth/schema.ts";
export { operationIdOf } from "./operation-ids.ts";

/**
 * Response schemas as JSON Schema (what the server sends: zod's output side), with every named
 * model (the families' schema.ts files, ids in zod's global registry) collected once into `components`
 * and referenced as `#/components/schemas/<id>`.
 */
export class ResponseSchemas {
  readonly components: Record<string, unknown> = {};

  /** The schema of one response body; named models it uses land in `components`. */
  of(schema: z.ZodType): Record<string, unknown> {
    const { $schema: _drop, $defs, ...rest } = z.toJSONSchema(schema, {
      io: "output",
      unrepresentable: "any",
    }) as Record<string, unknown> & { $defs?: Record<string, unknown> };
    for (const [id, def] of Object.entries($defs ?? {})) this.components[id] = relink(def);
    const root = relink(rest) as Record<string, unknown>;
    // A response that is itself a named model: a reference to its component.
    const id = z.globalRegistry.get(schema)?.id;
    if (typeof id === "string" && root.$ref === undefined) {
      const { id: _id, ...model } = root;
      this.components[id] = model;
      return { $ref: `#/components/schemas/${id}` };
    }
    return root;
  }
}

/**
 * `#/$defs/X` (zod's local definitions) → `#/components/schemas/X`, everywhere in a schema; and
 * integers without zod's ±(2^53 − 1) bounds: 64-bit ids (segment efforts) lie above them.
 */
function relink(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relink);
  if (value && typeof value === "object") {
    const integer = (value as { type?: unknown }).type === "integer";
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k, v]) => !(integer && (k === "minimum" || k === "maximum") && Math.abs(v as number) === Number.MAX_SAFE_INTEGER))
        .map(([k, v]) => [
          k,
          k === "$ref" && typeof v === "string" ? v.replace(/^#\/\$defs\//, "#/components/schemas/") : relink(v),
        ]),
    );
  }
  return value;
}

/** Strava's OAuth scopes and what each grants here. */
export const OAUTH_SCOPES: Record<string, string> = {
  read: "Public segments, routes, profile, club feeds and leaderboards",
  read_all: "Private routes, segments and events",
  "profile:read_all": "The full profile even when only followers may see it; zones",
  "profile:write": "Update weight and FTP; star segments",
  "activity:read": "Activities visible to Everyone and Followers (privacy zones applied)",
  "activity:read_all": "Also Only Me activities, without privacy zones",
  "activity:write": "Create manual activities, upload and edit activities",
};

/** The scope names a route's permission is satisfied by, for the OAuth2 security requirement. */
export function scopesOf(permission: Permission): string[] {
  return { read: ["read"], write: ["activity:write"], view_private: ["activity:read_all"] }[permission];
}

/** The OAuth 2.0 authorization-code scheme with our authorize and token URLs. */
export function oauthScheme(serverUrl: string) {
  const base = serverUrl.replace(/\/$/, "");
  return {
    type: "oauth2",
    description: "Authorization code flow (optional PKCE). Scopes are comma-separated, as Strava's.",
    flows: {
      authorizationCode: {
        authorizationUrl: `${base}/oauth/authorize`,
        tokenUrl: `${base}/oauth/token`,
        refreshUrl: `${base}/oauth/token`,
        scopes: OAUTH_SCOPES,
      },
    },
  };
}

const fault = { description: "Fault", content: { "application/json": { schema: { $ref: "#/components/schemas/Fault" } } } };
const form = (properties: Record<string, unknown>, required: string[]) => ({
  required: true,
  content: { "application/x-www-form-urlencoded": { schema: { type: "object", properties, required } } },
});
const str = { type: "string" };

/** The /oauth endpoints (served by the web pages, not the route table), documented. */
export const oauthPaths = (schemas: ResponseSchemas): Record<string, unknown> => ({
  "/oauth/authorize": {
    get: {
      operationId: "authorize",
      tags: ["OAuth"],
      summary: "The consent page: the athlete signs in and authorizes the application; redirects to redirect_uri with code, scope and state.",
      parameters: [
        { name: "client_id", in: "query", required: true, schema: { type: "integer" } },
        { name: "redirect_uri", in: "query", required: true, schema: str },
        { name: "response_type", in: "query", required: true, schema: { type: "string", enum: ["code"] } },
        { name: "approval_prompt", in: "query", required: false, schema: { type: "string", enum: ["auto", "force"] } },
        { name: "scope", in: "query", required: false, schema: str, description: `Comma list of ${Object.keys(OAUTH_SCOPES).join(", ")}` },
        { name: "state", in: "query", required: false, schema: str },
        { name: "code_challenge", in: "query", required: false, schema: str },
        { name: "code_challenge_method", in: "query", required: false, schema: { type: "string", enum: ["S256", "plain"] } },
      ],
      responses: { "200": { description: "The consent page (HTML)", content: { "text/html": { schema: str } } }, "302": { description: "Back to redirect_uri" }, "4XX": fault },
    },
  },
  "/oauth/token": {
    post: {
      operationId: "token",
      tags: ["OAuth"],
      summary: "Exchanges an authorization code (grant_type=authorization_code) or a refresh token (grant_type=refresh_token) for tokens.",
      requestBody: form({
        client_id: { type: "integer" }, client_secret: str, grant_type: { type: "string", enum: ["authorization_code", "refresh_token"] },
        code: str, refresh_token: str, code_verifier: str,
      }, ["client_id", "client_secret", "grant_type"]),
      responses: {
        "200": {
          description: "Tokens (with the summary athlete for an authorization code)",
          content: { "application/json": { schema: schemas.of(zTokenResponse) } },
        },
        "4XX": fault,
      },
    },
  },
  "/oauth/deauthorize": {
    post: {
      operationId: "deauthorize",
      tags: ["OAuth"],
      summary: "Revokes the application's access for the athlete (every token of that athlete and application).",
      requestBody: form({ access_token: str }, ["access_token"]),
      responses: { "200": { description: "{access_token}", content: { "application/json": { schema: schemas.of(zDeauthorizeResponse) } } }, "4XX": fault },
    },
  },
});
