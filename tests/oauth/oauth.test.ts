import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication } from "../../server/applications/commands.ts";
import { exchangeCode, refreshAccess } from "../../server/oauth/commands.ts";
import { hashSecret } from "../../server/security.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { WebClient } from "./web-client.ts";

let server: TestServer;
let app: { client_id: number; client_secret: string; access_token: string };
let athlete: { id: number; email: string };
let browser: WebClient;
/** Every secret, code and token seen in clear: none may appear in the event log. */
const clear = new Set<string>();
const REDIRECT = "http://127.0.0.1:9/callback";

beforeAll(async () => {
  server = await startTestServer();
  const owner = await server.athlete();
  app = await createApplication(server.platform, {
    name: "Route Planner",
    ownerId: owner.id,
    callbackDomain: "planner.example",
  });
  clear.add(app.client_secret).add(app.access_token);
  const a = await server.athlete({ password: "correct horse" });
  athlete = { id: a.id, email: a.email };
  browser = new WebClient(server.url);
  const signedIn = await browser.signIn(athlete.email, "correct horse");
  expect(signedIn.status).toBe(303);
});
afterAll(() => server.close());

const authorizeQuery = (extra: Record<string, string> = {}) => ({
  client_id: String(app.client_id),
  redirect_uri: REDIRECT,
  response_type: "code",
  approval_prompt: "force",
  scope: "activity:read_all,activity:write",
  state: "xyz-123",
  ...extra,
});

async function code(extra: Record<string, string> = {}): Promise<string> {
  const back = await browser.authorize(authorizeQuery(extra));
  const value = back.searchParams.get("code")!;
  clear.add(value);
  return value;
}

async function exchange(form: Record<string, string>) {
  const res = await server.api("POST", "/oauth/token", { form });
  for (const key of ["access_token", "refresh_token"]) if (res.body?.[key]) clear.add(res.body[key]);
  return res;
}

describe("GET /oauth/authorize refuses bad requests without redirecting", () => {
  const cases: [string, Record<string, string>, [string, string, string]][] = [
    ["unknown client", { client_id: "999999" }, ["Application", "client_id", "invalid"]],
    ["missing client", { client_id: "" }, ["Application", "client_id", "missing"]],
    ["redirect_uri on another host", { redirect_uri: "https://evil.example/cb" }, [
      "Application",
      "redirect_uri",
      "invalid",
    ]],
    ["look-alike host", { redirect_uri: "https://planner.example.evil.com/cb" }, [
      "Application",
      "redirect_uri",
      "invalid",
    ]],
    ["missing redirect_uri", { redirect_uri: "" }, ["Application", "redirect_uri", "missing"]],
    ["response_type token", { response_type: "token" }, ["Authorize", "response_type", "invalid"]],
    ["malformed scope", { scope: "read,everything" }, ["Authorize", "scope", "invalid"]],
    ["bad approval_prompt", { approval_prompt: "never" }, ["Authorize", "approval_prompt", "invalid"]],
    ["plain PKCE", { code_challenge: "a".repeat(43), code_challenge_method: "plain" }, [
      "Authorize",
      "code_challenge_method",
      "invalid",
    ]],
  ];
  for (const [name, extra, [resource, field, code]] of cases) {
    it(name, async () => {
      const query = Object.fromEntries(Object.entries(authorizeQuery(extra)).filter(([, v]) => v !== ""));
      const res = await server.api("GET", "/oauth/authorize", { query });
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.body).toEqual({ message: "Bad Request", errors: [{ resource, field, code }] });
      const page = await browser.get(`/oauth/authorize?${new URLSearchParams(query)}`);
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.text).toContain("not valid");
    });
  }

  it("accepts sub-domains of the callback domain and localhost", async () => {
    for (const uri of ["https://app.planner.example/cb", "https://planner.example/cb", "http://localhost:3000/x"]) {
      const back = await browser.authorize(authorizeQuery({ redirect_uri: uri }));
      expect(back.origin).toBe(new URL(uri).origin);
      expect(back.searchParams.get("code")).toMatch(/^[0-9a-f]{40}$/);
    }
  });
});

describe("the authorization code flow", () => {
  it("approve → code, state and scope; token exchange → tokens and the athlete with email", async () => {
    const back = await browser.authorize(authorizeQuery());
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe("xyz-123");
    expect(back.searchParams.get("scope")).toBe("activity:read_all,activity:write");
    const c = back.searchParams.get("code")!;
    clear.add(c);
    const res = await exchange({ client_id: String(app.client_id), client_secret: app.client_secret, code: c });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const now = Math.floor(Date.now() / 1000);
    expect(res.body).toMatchObject({ token_type: "Bearer", expires_in: 21600 });
    expect(Math.abs(res.body.expires_at - (now + 21600))).toBeLessThan(60);
    expect(res.body.access_token).toMatch(/^[0-9a-f]{40}$/);
    expect(res.body.refresh_token).toMatch(/^[0-9a-f]{40}$/);
    expect(res.body.athlete).toMatchObject({ id: athlete.id, resource_state: 2, email: athlete.email });
    const me = await server.api("GET", "/v3/athlete", { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(athlete.id);
  });

  it("deny → error=access_denied with the state", async () => {
    const back = await browser.authorize(authorizeQuery({ state: "s t&ate" }), "deny");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("s t&ate");
    expect(back.searchParams.get("code")).toBeNull();
  });

  it("unticked scopes are not granted", async () => {
    const page = await browser.get(
      `/oauth/authorize?${new URLSearchParams(authorizeQuery({ scope: "read,activity:write" }))}`,
    );
    const res = await browser.post("/oauth/authorize", { ...WebClient.hiddenFields(page.text), decision: "approve" });
    const back = new URL(res.location!);
    expect(back.searchParams.get("scope")).toBe("read");
    const tokens = await exchange({
      client_id: String(app.client_id),
      client_secret: app.client_secret,
      code: back.searchParams.get("code")!,
    });
    expect(tokens.status).toBe(200);
    const [row] = await server.platform.db.query<{ scopes: string }>(
      "select scopes from access_tokens where token_hash = $1",
      [hashSecret(tokens.body.access_token)],
    );
    expect(row.scopes).toBe("read");
  });

  it("a used code is refused and revokes the tokens issued from it", async () => {
    const c = await code();
    const form = { client_id: String(app.client_id), client_secret: app.client_secret, code: c };
    const first = await exchange(form);
    expect(first.status).toBe(200);
    const again = await exchange(form);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      message: "Bad Request",
      errors: [{ resource: "AuthorizationCode", field: "code", code: "invalid" }],
      error: "invalid_grant",
      error_description: "AuthorizationCode code: invalid",
    });
    const me = await server.api("GET", "/v3/athlete", { token: first.body.access_token });
    expect(me.status).toBe(401);
    expect(me.body.errors[0]).toEqual({ resource: "Athlete", field: "access_token", code: "invalid" });
    const refresh = await exchange({ ...form, grant_type: "refresh_token", refresh_token: first.body.refresh_token });
    expect(refresh.status).toBe(400);
  });

  it("bad input at /oauth/token gives the documented 400 bodies", async () => {
    const c = await code();
    const base = { client_id: String(app.client_id), client_secret: app.client_secret, code: c };
    // The API's triple, and RFC 6749's error code beside it (what OAuth clients such as the MCP SDK read).
    const cases: [Record<string, string>, [string, string, string, string]][] = [
      [{ ...base, client_id: "424242" }, ["Application", "client_id", "invalid", "invalid_client"]],
      [{ ...base, client_id: "abc" }, ["Application", "client_id", "invalid", "invalid_client"]],
      [{ client_secret: app.client_secret, code: c }, ["Application", "client_id", "missing", "invalid_client"]],
      [{ ...base, client_secret: "wrong" }, ["Application", "client_secret", "invalid", "invalid_client"]],
      [{ client_id: String(app.client_id), code: c }, ["Application", "client_secret", "missing", "invalid_client"]],
      [{ ...base, code: "" }, ["AuthorizationCode", "code", "missing", "invalid_grant"]],
      [{ ...base, code: "not-a-code" }, ["AuthorizationCode", "code", "invalid", "invalid_grant"]],
      [{ ...base, redirect_uri: "http://127.0.0.1:9/other" }, [
        "AuthorizationCode",
        "redirect_uri",
        "invalid",
        "invalid_grant",
      ]],
      [{ ...base, grant_type: "password" }, ["Request", "grant_type", "invalid", "unsupported_grant_type"]],
      [{ ...base, grant_type: "refresh_token", refresh_token: "nope" }, [
        "RefreshToken",
        "refresh_token",
        "invalid",
        "invalid_grant",
      ]],
      [{ ...base, grant_type: "refresh_token" }, ["RefreshToken", "refresh_token", "missing", "invalid_grant"]],
      [{ ...base, resource: "https://elsewhere.example/mcp" }, [
        "Token",
        "resource",
        "invalid_target",
        "invalid_target",
      ]],
    ];
    for (const [form, [resource, field, codeName, error]] of cases) {
      const res = await exchange(form);
      expect({ form, status: res.status, body: res.body }).toEqual({
        form,
        status: 400,
        body: {
          message: "Bad Request",
          errors: [{ resource, field, code: codeName }],
          error,
          error_description: `${resource} ${field}: ${codeName}`,
        },
      });
    }
    // None of the refusals used the code up.
    const ok = await exchange({ ...base, redirect_uri: REDIRECT });
    expect(ok.status).toBe(200);
  });

  it("a code of another application is refused", async () => {
    const owner = await server.athlete();
    const other = await createApplication(server.platform, {
      name: "Other",
      ownerId: owner.id,
      callbackDomain: "other.example",
    });
    clear.add(other.client_secret).add(other.access_token);
    const res = await exchange({
      client_id: String(other.client_id),
      client_secret: other.client_secret,
      code: await code(),
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ resource: "AuthorizationCode", field: "code", code: "invalid" });
  });

  it("codes expire after 10 minutes", async () => {
    const c = await code();
    const later = new Date(Date.now() + 11 * 60 * 1000);
    await expect(
      exchangeCode(
        server.platform,
        { clientId: String(app.client_id), clientSecret: app.client_secret, code: c },
        later,
      ),
    )
      .rejects.toMatchObject({ resource: "AuthorizationCode", field: "code", code: "invalid" });
  });

  it("accepts the parameters in the query string, JSON and HTTP Basic, and at /api/v3/oauth/token", async () => {
    const q = await server.api("POST", "/oauth/token", {
      query: { client_id: app.client_id, client_secret: app.client_secret, code: await code() },
    });
    expect(q.status).toBe(200);
    const j = await server.api("POST", "/api/v3/oauth/token", {
      json: { client_id: app.client_id, client_secret: app.client_secret, code: await code() },
    });
    expect(j.status).toBe(200);
    const basic = Buffer.from(`${app.client_id}:${app.client_secret}`).toString("base64");
    const b = await server.api("POST", "/oauth/token", {
      form: { code: await code(), grant_type: "authorization_code" },
      headers: { authorization: `Basic ${basic}` },
    });
    expect(b.status).toBe(200);
    for (const r of [q, j, b]) clear.add(r.body.access_token).add(r.body.refresh_token);
  });
});

describe("refresh tokens", () => {
  it("rotate: same access token while > 1 h is left, the old refresh token stops working", async () => {
    const first = await exchange({
      client_id: String(app.client_id),
      client_secret: app.client_secret,
      code: await code(),
    });
    const form = { client_id: String(app.client_id), client_secret: app.client_secret, grant_type: "refresh_token" };
    const refreshed = await exchange({ ...form, refresh_token: first.body.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).toBe(first.body.access_token);
    expect(refreshed.body.expires_at).toBe(first.body.expires_at);
    expect(refreshed.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(refreshed.body.athlete).toBeUndefined();
    expect(refreshed.body.token_type).toBe("Bearer");
    const old = await exchange({ ...form, refresh_token: first.body.refresh_token });
    expect(old.status).toBe(400);
    expect(old.body.errors[0]).toEqual({ resource: "RefreshToken", field: "refresh_token", code: "invalid" });
    const again = await exchange({ ...form, refresh_token: refreshed.body.refresh_token });
    expect(again.status).toBe(200);
  });

  it("with ≤ 1 h left a new access token is minted and the old one keeps working", async () => {
    const first = await exchange({
      client_id: String(app.client_id),
      client_secret: app.client_secret,
      code: await code(),
    });
    const later = new Date(Date.now() + 5.5 * 3600 * 1000);
    const refreshed = await refreshAccess(server.platform, {
      clientId: String(app.client_id),
      clientSecret: app.client_secret,
      refreshToken: first.body.refresh_token,
    }, later);
    clear.add(refreshed.access_token).add(refreshed.refresh_token);
    expect(refreshed.access_token).not.toBe(first.body.access_token);
    expect(refreshed.expires_in).toBe(21600);
    for (const token of [first.body.access_token, refreshed.access_token]) {
      expect((await server.api("GET", "/v3/athlete", { token })).status).toBe(200);
    }
  });
});

describe("PKCE (S256) for public clients", () => {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");

  it("exchanges and refreshes without the client secret, with the verifier", async () => {
    const c = await code({ code_challenge: challenge, code_challenge_method: "S256" });
    const missing = await exchange({ client_id: String(app.client_id), code: c });
    expect(missing.body.errors[0]).toEqual({ resource: "AuthorizationCode", field: "code_verifier", code: "missing" });
    const wrong = await exchange({
      client_id: String(app.client_id),
      code: c,
      code_verifier: randomBytes(32).toString("base64url"),
    });
    expect(wrong.body.errors[0]).toEqual({ resource: "AuthorizationCode", field: "code_verifier", code: "invalid" });
    const ok = await exchange({ client_id: String(app.client_id), code: c, code_verifier: verifier });
    expect(ok.status).toBe(200);
    const refreshed = await exchange({
      client_id: String(app.client_id),
      grant_type: "refresh_token",
      refresh_token: ok.body.refresh_token,
    });
    expect(refreshed.status).toBe(200);
  });

  it("a confidential grant cannot be refreshed without the secret", async () => {
    const ok = await exchange({
      client_id: String(app.client_id),
      client_secret: app.client_secret,
      code: await code(),
    });
    const res = await exchange({
      client_id: String(app.client_id),
      grant_type: "refresh_token",
      refresh_token: ok.body.refresh_token,
    });
    expect(res.body.errors[0]).toEqual({ resource: "Application", field: "client_secret", code: "missing" });
  });
});

describe("approval_prompt", () => {
  it("auto skips the consent page once authorized; force shows it", async () => {
    const b = new WebClient(server.url);
    const who = await server.athlete({ password: "password123" });
    await b.signIn(who.email, "password123");
    const query = new URLSearchParams(authorizeQuery({ approval_prompt: "auto", scope: "read" }));
    const first = await b.get(`/oauth/authorize?${query}`);
    expect(first.status).toBe(200);
    expect(first.text).toContain("Authorize Route Planner");
    await b.authorize(Object.fromEntries(query));
    const second = await b.get(`/oauth/authorize?${query}`);
    expect(second.status).toBe(302);
    expect(new URL(second.location!).searchParams.get("code")).toMatch(/^[0-9a-f]{40}$/);
    clear.add(new URL(second.location!).searchParams.get("code")!);
    const wider = await b.get(
      `/oauth/authorize?${new URLSearchParams(
        authorizeQuery({ approval_prompt: "auto", scope: "read,activity:write" }),
      )}`,
    );
    expect(wider.status).toBe(200);
    query.set("approval_prompt", "force");
    expect((await b.get(`/oauth/authorize?${query}`)).status).toBe(200);
  });

  it("sends a visitor who is not signed in to the sign-in page and back", async () => {
    const res = await new WebClient(server.url).get(`/oauth/authorize?${new URLSearchParams(authorizeQuery())}`);
    expect(res.status).toBe(302);
    const to = new URL(res.location!, server.url);
    expect(to.pathname).toBe("/login");
    expect(to.searchParams.get("next")).toMatch(/^\/oauth\/authorize\?client_id=/);
  });
});

describe("POST /oauth/deauthorize", () => {
  it("invalidates every token of the pair and returns the submitted token", async () => {
    const a = await exchange({
      client_id: String(app.client_id),
      client_secret: app.client_secret,
      code: await code(),
    });
    const b = await exchange({
      client_id: String(app.client_id),
      client_secret: app.client_secret,
      code: await code(),
    });
    const res = await server.api("POST", "/oauth/deauthorize", { token: a.body.access_token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: a.body.access_token });
    for (const token of [a.body.access_token, b.body.access_token]) {
      const me = await server.api("GET", "/v3/athlete", { token });
      expect(me.status).toBe(401);
      expect(me.body).toEqual({
        message: "Authorization Error",
        errors: [{ resource: "Athlete", field: "access_token", code: "invalid" }],
      });
    }
    const refresh = await exchange({
      client_id: String(app.client_id),
      client_secret: app.client_secret,
      grant_type: "refresh_token",
      refresh_token: b.body.refresh_token,
    });
    expect(refresh.status).toBe(400);
    const apps = await browser.get("/settings/apps");
    expect(apps.text).not.toContain("Route Planner");
    const again = await server.api("POST", "/oauth/revoke", { form: { access_token: a.body.access_token } });
    expect(again.status).toBe(401);
    expect(again.body.errors[0]).toEqual({ resource: "Athlete", field: "access_token", code: "invalid" });
    const none = await server.api("POST", "/oauth/deauthorize");
    expect(none.status).toBe(401);
    expect(none.body.errors[0]).toEqual({ resource: "Athlete", field: "access_token", code: "missing" });
  });
});

describe("events", () => {
  it("hold no secret, code or token in clear, and replay rebuilds the read models exactly", async () => {
    expect(clear.size).toBeGreaterThan(20);
    const rows = await server.platform.db.query<{ text: string }>(
      "select data::text || metadata::text as text from events",
    );
    const log = rows.map((r) => r.text).join("\n");
    for (const value of clear) expect(log.includes(value), `clear value in the event log`).toBe(false);
    const types = await server.platform.db.query<{ type: string }>("select distinct type from events order by type");
    expect(types.map((t) => t.type)).toEqual(expect.arrayContaining([
      "AuthorizationGranted",
      "AuthorizationCodeRedeemed",
      "AuthorizationCodeReplayed",
      "RefreshTokenIssued",
      "AccessTokensRevoked",
    ]));
    const { differences } = await server.platform.projections.verify();
    expect(differences).toEqual([]);
  });
});
