import { createHash, randomBytes } from "node:crypto";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { WebClient } from "../oauth/web-client.ts";

/**
 * An MCP client's sign-in done over plain HTTP (the consent form posted by a cookie-keeping agent,
 * tests/oauth/web-client.ts): dynamic registration, authorization code + PKCE S256 with the
 * `resource` of /mcp, token. The Chromium suites (tests/mcp/clients.test.ts) do it as a person would.
 */

export const LOOPBACK_REDIRECT = "http://127.0.0.1:33418/oauth/callback";

export interface McpGrant {
  clientId: string;
  accessToken: string;
  refreshToken: string;
  scope: string;
}

export async function registerClient(baseUrl: string, metadata: Record<string, unknown> = {}) {
  const res = await fetch(new URL("/oauth/register", baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test assistant",
      redirect_uris: [LOOPBACK_REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...metadata,
    }),
  });
  return { status: res.status, body: await res.json() as Record<string, unknown> };
}

export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

/** Signs `email` in and approves every scope asked; the MCP grant. */
export async function mcpGrant(
  baseUrl: string,
  email: string,
  password: string,
  scope = "read activity:read_all activity:write",
): Promise<McpGrant> {
  const { body } = await registerClient(baseUrl);
  const clientId = String(body.client_id);
  const browser = new WebClient(baseUrl);
  const signedIn = await browser.signIn(email, password);
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  const { verifier, challenge } = pkce();
  const resource = new URL("/mcp", baseUrl).href;
  const back = await browser.authorize({
    client_id: clientId,
    redirect_uri: LOOPBACK_REDIRECT,
    response_type: "code",
    scope,
    state: "s1",
    code_challenge: challenge,
    code_challenge_method: "S256",
    resource,
  });
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code: ${back}`);
  const res = await fetch(new URL("/oauth/token", baseUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: clientId,
      redirect_uri: LOOPBACK_REDIRECT,
      resource,
    }),
  });
  const tokens = await res.json() as Record<string, string>;
  if (res.status !== 200) throw new Error(`token answered ${res.status}: ${JSON.stringify(tokens)}`);
  return { clientId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token, scope };
}

/** The SDK's own client, connected with a bearer token. */
export async function mcpClient(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "fitness-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL("/mcp", baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST to /mcp (what a broken client may send). */
export async function rawMcp(
  baseUrl: string,
  token: string | undefined,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(new URL("/mcp", baseUrl), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body,
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed, headers: res.headers };
}
