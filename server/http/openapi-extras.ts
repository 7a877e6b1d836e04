import { z } from "zod";
import type { Permission } from "./auth.ts";
export { operationIdOf } from "./operation-ids.ts";

/** A response body's JSON Schema (what the server sends: zod's output side), inlined. */
export function responseSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
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
export const OAUTH_PATHS: Record<string, unknown> = {
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
      responses: { "200": { description: "The consent page (HTML)" }, "302": { description: "Back to redirect_uri" }, "4XX": fault },
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
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  token_type: str, access_token: str, refresh_token: str, expires_at: { type: "integer" },
                  expires_in: { type: "integer" }, athlete: { type: "object" },
                },
                required: ["token_type", "access_token", "refresh_token", "expires_at", "expires_in"],
              },
            },
          },
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
      responses: { "200": { description: "{access_token}", content: { "application/json": { schema: { type: "object", properties: { access_token: str } } } } }, "4XX": fault },
    },
  },
};
