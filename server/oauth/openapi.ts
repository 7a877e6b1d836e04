import { OAUTH_SCOPES, type ResponseSchemas } from "../http/openapi-extras.ts";
import { zDeauthorizeResponse, zTokenResponse } from "./schema.ts";

const fault = {
  description: "Fault",
  content: { "application/json": { schema: { $ref: "#/components/schemas/Fault" } } },
};
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
      summary:
        "The consent page: the athlete signs in and authorizes the application; redirects to redirect_uri with code, scope and state.",
      parameters: [
        { name: "client_id", in: "query", required: true, schema: { type: "integer" } },
        { name: "redirect_uri", in: "query", required: true, schema: str },
        { name: "response_type", in: "query", required: true, schema: { type: "string", enum: ["code"] } },
        { name: "approval_prompt", in: "query", required: false, schema: { type: "string", enum: ["auto", "force"] } },
        {
          name: "scope",
          in: "query",
          required: false,
          schema: str,
          description: `Comma list of ${Object.keys(OAUTH_SCOPES).join(", ")}`,
        },
        { name: "state", in: "query", required: false, schema: str },
        { name: "code_challenge", in: "query", required: false, schema: str },
        {
          name: "code_challenge_method",
          in: "query",
          required: false,
          schema: { type: "string", enum: ["S256", "plain"] },
        },
      ],
      responses: {
        "200": { description: "The consent page (HTML)", content: { "text/html": { schema: str } } },
        "302": { description: "Back to redirect_uri" },
        "4XX": fault,
      },
    },
  },
  "/oauth/token": {
    post: {
      operationId: "token",
      tags: ["OAuth"],
      summary:
        "Exchanges an authorization code (grant_type=authorization_code) or a refresh token (grant_type=refresh_token) for tokens.",
      requestBody: form({
        client_id: { type: "integer" },
        client_secret: str,
        grant_type: { type: "string", enum: ["authorization_code", "refresh_token"] },
        code: str,
        refresh_token: str,
        code_verifier: str,
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
      responses: {
        "200": {
          description: "{access_token}",
          content: { "application/json": { schema: schemas.of(zDeauthorizeResponse) } },
        },
        "4XX": fault,
      },
    },
  },
});
