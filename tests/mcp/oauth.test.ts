// deno-lint-ignore-file no-explicit-any
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { WebClient } from "../oauth/web-client.ts";
import { LOOPBACK_REDIRECT, mcpGrant, pkce, rawMcp, registerClient } from "./helpers.ts";

/**
 * The MCP authorization spec's side of the OAuth server, over HTTP: the discovery documents,
 * dynamic registration's rules, PKCE and the resource (audience) bound into every token, the
 * consent page in words, My apps.
 */
let server: TestServer;
let ann: { id: number; email: string; token: string };

beforeAll(async () => {
  server = await startTestServer({ registrationLimitShort: 1000, registrationLimitLong: 1000 });
  ann = await server.athlete({ password: "ann password" });
});
afterAll(() => server.close());

const json = async (path: string) => {
  const res = await fetch(new URL(path, server.url));
  return { status: res.status, body: await res.json() as any, headers: res.headers };
};

describe("discovery", () => {
  it("protected resource metadata (RFC 9728) at the path-suffixed and the root address", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const { status, body } = await json(path);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        resource: `${server.url}/mcp`,
        authorization_servers: [new URL(server.url).origin],
        bearer_methods_supported: ["header"],
      });
      expect(body.scopes_supported).toEqual(["read", "activity:read_all", "activity:write"]);
    }
  });

  it("authorization server metadata (RFC 8414) names the endpoints, S256 and registration", async () => {
    const { body } = await json("/.well-known/oauth-authorization-server");
    expect(body.issuer).toBe(new URL(server.url).origin);
    expect(body.authorization_endpoint).toBe(`${server.url}/oauth/authorize`);
    expect(body.token_endpoint).toBe(`${server.url}/oauth/token`);
    expect(body.registration_endpoint).toBe(`${server.url}/oauth/register`);
    expect(body.code_challenge_methods_supported).toEqual(["S256"]);
    expect(body.response_types_supported).toEqual(["code"]);
    expect(body.token_endpoint_auth_methods_supported).toContain("none");
  });

  it("/mcp without a token: 401 naming the metadata", async () => {
    const res = await rawMcp(server.url, undefined, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});

describe("dynamic client registration (RFC 7591)", () => {
  it("registers a public client with loopback or https redirect URIs", async () => {
    const { status, body } = await registerClient(server.url, {
      redirect_uris: ["http://localhost:6274/oauth/callback", "https://assistant.example/callback"],
    });
    expect(status).toBe(201);
    expect(body.client_id).toMatch(/^\d+$/);
    expect(body.client_secret).toBeUndefined();
    expect(body.token_endpoint_auth_method).toBe("none");
    expect(body.grant_types).toEqual(["authorization_code", "refresh_token"]);
  });

  it("gives a secret only to a client that asks to authenticate with one", async () => {
    const { body } = await registerClient(server.url, { token_endpoint_auth_method: "client_secret_post" });
    expect(body.client_secret).toMatch(/^[0-9a-f]{40}$/);
  });

  it("refuses other redirect URIs and bad metadata with RFC 7591 errors", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ redirect_uris: ["http://assistant.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://assistant.example/cb#frag"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["https://user:pw@assistant.example/cb"] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["myapp://callback"] }, "invalid_redirect_uri"],
      [{ redirect_uris: [] }, "invalid_redirect_uri"],
      [{ redirect_uris: ["javascript:alert(1)"] }, "invalid_redirect_uri"],
      [{ grant_types: ["client_credentials"] }, "invalid_client_metadata"],
      [{ response_types: ["token"] }, "invalid_client_metadata"],
      [{ token_endpoint_auth_method: "private_key_jwt" }, "invalid_client_metadata"],
      [{ client_name: 42 }, "invalid_client_metadata"],
    ];
    for (const [metadata, error] of cases) {
      const { status, body } = await registerClient(server.url, metadata);
      expect({ metadata, status, error: body.error }).toEqual({ metadata, status: 400, error });
      expect(String(body.error_description).length).toBeGreaterThan(10);
    }
    const notJson = await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(notJson.status).toBe(400);
    const huge = await fetch(`${server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [LOOPBACK_REDIRECT], client_name: "x".repeat(20_000) }),
    });
    expect(huge.status).toBe(413);
  });

  it("is rate-limited per client address", async () => {
    const fresh = await startTestServer({ registrationLimitShort: 3 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await registerClient(fresh.url)).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
    } finally {
      await fresh.close();
    }
  });
});

describe("authorization for MCP clients", () => {
  const authorizeQuery = (clientId: string, extra: Record<string, string> = {}) => ({
    client_id: clientId,
    redirect_uri: LOOPBACK_REDIRECT,
    response_type: "code",
    scope: "read activity:read_all",
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    resource: `${server.url}/mcp`,
    ...extra,
  });

  it("refuses a self-registered client without PKCE, with another redirect URI or the API as resource", async () => {
    const clientId = String((await registerClient(server.url)).body.client_id);
    const cases: [Record<string, string | undefined>, string][] = [
      [{ code_challenge: undefined, code_challenge_method: undefined }, "code_challenge"],
      [{ redirect_uri: "http://127.0.0.1:33418/other" }, "redirect_uri"],
      [{ redirect_uri: "https://evil.example/oauth/callback" }, "redirect_uri"],
      [{ resource: server.url }, "resource"],
      [{ resource: "https://elsewhere.example/mcp" }, "resource"],
    ];
    for (const [extra, field] of cases) {
      const query = Object.fromEntries(
        Object.entries(authorizeQuery(clientId, extra as Record<string, string>)).filter(([, v]) => v !== undefined),
      );
      const res = await server.api("GET", "/oauth/authorize", { query });
      expect({ extra, status: res.status, field: res.body.errors?.[0]?.field }).toEqual({ extra, status: 400, field });
    }
  });

  it("a loopback redirect may change port (RFC 8252); scopes it does not know are left out", async () => {
    const clientId = String((await registerClient(server.url)).body.client_id);
    const browser = new WebClient(server.url);
    await browser.signIn(ann.email, "ann password");
    const back = await browser.authorize(
      authorizeQuery(clientId, {
        redirect_uri: "http://127.0.0.1:40999/oauth/callback",
        scope: "openid email profile read activity:write offline_access",
      }),
    );
    expect(back.origin).toBe("http://127.0.0.1:40999");
    expect(back.searchParams.get("scope")).toBe("read,activity:write");
  });

  it("binds the resource into the token: an MCP token is not an API token and vice versa", async () => {
    const grant = await mcpGrant(server.url, ann.email, "ann password");
    const onApi = await server.api("GET", "/v3/athlete", { token: grant.accessToken });
    expect(onApi.status).toBe(401);
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const apiOnMcp = await rawMcp(server.url, ann.token, ping);
    expect(apiOnMcp.status).toBe(401);
    expect(apiOnMcp.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await rawMcp(server.url, grant.accessToken, ping)).status).toBe(200);
    // A refresh keeps the audience; asking it for the API is refused.
    const refresh = (resource?: string) =>
      server.api("POST", "/oauth/token", {
        form: {
          grant_type: "refresh_token",
          refresh_token: grant.refreshToken,
          client_id: grant.clientId,
          ...(resource ? { resource } : {}),
        },
      });
    const wrong = await refresh(`${server.url}/v3`);
    expect([wrong.status, wrong.body.error]).toEqual([400, "invalid_target"]);
    const ok = await refresh(`${server.url}/mcp`);
    expect(ok.status, ok.text).toBe(200);
    expect((await server.api("GET", "/v3/athlete", { token: ok.body.access_token })).status).toBe(401);
    expect((await rawMcp(server.url, ok.body.access_token, ping)).status).toBe(200);
  });

  it("the consent page says in words what the assistant may do", async () => {
    const clientId = String((await registerClient(server.url, { client_name: "Claude" })).body.client_id);
    const browser = new WebClient(server.url);
    await browser.signIn(ann.email, "ann password");
    const page = await browser.get(
      `/oauth/authorize?${new URLSearchParams(
        authorizeQuery(clientId, { scope: "read activity:read_all activity:write" }),
      )}`,
    );
    expect(page.status).toBe(200);
    expect(page.text).toContain("Connect Claude to your training log");
    expect(page.text).toContain("registered itself");
    expect(page.text).toContain("Also read your private activities and their data inside your privacy zones");
    expect(page.text).toContain("give kudos and comment");
    expect(page.text).toContain("You will return to 127.0.0.1:33418");
  });

  it("My apps lists the assistant and revoking it ends its tokens", async () => {
    const grant = await mcpGrant(server.url, ann.email, "ann password");
    const browser = new WebClient(server.url);
    await browser.signIn(ann.email, "ann password");
    const apps = await browser.get("/settings/apps");
    expect(apps.text).toContain("Test assistant");
    expect(apps.text).toContain("AI assistant connected through /mcp");
    const revoked = await browser.post(`/settings/apps/${grant.clientId}/revoke`, { _csrf: WebClient.csrf(apps.text) });
    expect(revoked.status).toBe(303);
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    expect((await rawMcp(server.url, grant.accessToken, ping)).status).toBe(401);
  });
});

describe("the MCP endpoint's edge", () => {
  it("refuses a foreign Host or Origin before anything, GET and DELETE with 405", async () => {
    const grant = await mcpGrant(server.url, ann.email, "ann password");
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const foreign = await rawMcp(server.url, grant.accessToken, ping, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    const own = await rawMcp(server.url, grant.accessToken, ping, { origin: new URL(server.url).origin });
    expect(own.status).toBe(200);
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${server.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${grant.accessToken}` },
      });
      expect(res.status).toBe(405);
    }
  });
});

describe("the Connect your AI assistant page", () => {
  it("gives the address to paste, the steps per assistant and the scopes in words", async () => {
    const page = await new WebClient(server.url).get("/settings/assistant");
    expect(page.status).toBe(200);
    expect(page.text).toContain(`value="${server.url}/mcp"`);
    for (const words of ["Claude", "ChatGPT", "mcp-remote", "activity:read_all", "activity:write", "Connected apps"]) {
      expect(page.text).toContain(words);
    }
  });
});
