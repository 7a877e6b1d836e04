import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { accessTokensRevoked, authorizationStream } from "../../events/application/events.ts";
import { createApp } from "../../server/app.ts";
import { configFromEnv } from "../../server/config.ts";
import { paging, zId, zInt, zPaging } from "../../server/http/input.ts";
import { RateLimiter } from "../../server/http/rate-limit.ts";
import { defineRoute } from "../../server/http/route.ts";
import { type Platform } from "../../server/platform.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { allRoutes } from "../../server/route-table.ts";
import { listen, type Listening } from "../../server/serve.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { type Api, api } from "../helpers/http.ts";

/** A route used only here to exercise the conventions on a POST with a body and paging. */
const echo = defineRoute({
  method: "POST",
  path: "/v3/conventions_echo/:id",
  summary: "test only",
  tag: "Test",
  auth: "token",
  permission: "write",
  resource: "Echo",
  params: z.object({ id: zId }),
  query: z.object(zPaging),
  body: z.object({ count: zInt, name: z.string().optional() }),
  async handler({ params, query, body, auth }) {
    return {
      id: params.id,
      paging: paging(query),
      count: body.count,
      name: body.name ?? null,
      athlete: auth.athleteId,
    };
  },
});

let platform: Platform;
let server: Listening;
let call: Api;
let token: string;
let readOnly: string;
let athleteId: number;
let applicationId: number;

beforeAll(async () => {
  platform = await openPlatform(
    configFromEnv({
      port: 0,
      databaseUrl: undefined,
      dataDir: "",
      seedDemo: false,
      quiet: true,
      rateLimitShort: 1000,
      rateLimitLong: 100000,
    }),
  );
  const { app } = createApp(platform, { routes: [...allRoutes, echo] });
  server = await listen(app.fetch, { port: 0, hostname: "127.0.0.1" });
  call = api(`http://127.0.0.1:${server.port}`);
  athleteId = await createAthlete(platform, {
    firstname: "Conv",
    lastname: "Entions",
    email: "conv@example.com",
    password: "password123",
  });
  const created = await createApplication(platform, {
    name: "Conventions",
    ownerId: athleteId,
    callbackDomain: "localhost",
  });
  applicationId = created.client_id;
  token = await issueToken(platform, { athleteId, applicationId, permissions: ["read", "write"] });
  readOnly = await issueToken(platform, { athleteId, applicationId, permissions: ["read"] });
});
afterAll(async () => {
  await server.close();
  await platform.close();
});

const fault = (message: string, resource: string, field: string, code: string) => ({
  message,
  errors: [{ resource, field, code }],
});

describe("format and errors", () => {
  it("answers JSON with charset utf-8, and the documented body for an unknown route", async () => {
    const res = await call("GET", "/v3/no/such/route", { token });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.body).toEqual(fault("Record Not Found", "resource", "path", "invalid"));
  });

  it("answers 404 Record Not Found for an unknown record", async () => {
    const res = await call("GET", "/v3/athletes/987654", { token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(fault("Record Not Found", "Athlete", "id", "invalid"));
  });

  it("answers HEAD on every GET route with headers only", async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/v3/athlete`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("x-ratelimit-limit")).toBe("1000,100000");
    expect(await res.text()).toBe("");
  });

  it("wraps the body in a JSON-P call when callback is given, and refuses a bad callback name", async () => {
    const res = await call("GET", "/v3/athlete", { token, query: { callback: "handle.athlete" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const m = /^\/\*\*\/handle\.athlete\((.*)\)$/s.exec(res.text);
    expect(m).not.toBeNull();
    expect(JSON.parse(m![1]).id).toBe(athleteId);
    const bad = await call("GET", "/v3/athlete", { token, query: { callback: "alert(1);x" } });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toEqual(fault("Bad Request", "Request", "callback", "invalid"));
  });

  it("answers under /api/v3 too", async () => {
    const res = await call("GET", "/api/v3/athlete", { token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(athleteId);
  });

  it("keeps 64-bit ids exact", async () => {
    const res = await call("POST", "/v3/conventions_echo/9223372036854775807", { token, json: { count: 1 } });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"id":9223372036854775807');
    expect(res.body.id).toBe(9223372036854775807n);
  });
});

describe("access tokens", () => {
  it("accepts the token in the Authorization header, the query string or the body", async () => {
    expect((await call("GET", "/v3/athlete", { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await call("GET", "/v3/athlete", { query: { access_token: token } })).status).toBe(200);
    const form = await call("POST", "/v3/conventions_echo/5", { form: { access_token: token, count: 3 } });
    expect(form.status).toBe(200);
    expect(form.body).toMatchObject({ id: 5, count: 3, athlete: athleteId });
    const json = await call("POST", "/v3/conventions_echo/5", { json: { access_token: token, count: 4 } });
    expect(json.body.count).toBe(4);
  });

  it("answers 401 without a token, with an unknown one, and after revocation", async () => {
    expect(await call("GET", "/v3/athlete")).toMatchObject({
      status: 401,
      body: fault("Authorization Error", "Athlete", "access_token", "missing"),
    });
    expect(await call("GET", "/v3/athlete", { token: "nope" })).toMatchObject({
      status: 401,
      body: fault("Authorization Error", "Athlete", "access_token", "invalid"),
    });
    const doomed = await issueToken(platform, { athleteId, applicationId, permissions: ["read"] });
    expect((await call("GET", "/v3/athlete", { token: doomed })).status).toBe(200);
    await platform.store.append(authorizationStream(athleteId, applicationId), "any", [
      accessTokensRevoked.create({ athleteId, applicationId, reason: "test" }),
    ]);
    expect((await call("GET", "/v3/athlete", { token: doomed })).status).toBe(401);
    token = await issueToken(platform, { athleteId, applicationId, permissions: ["read", "write"] });
    readOnly = await issueToken(platform, { athleteId, applicationId, permissions: ["read"] });
  });

  it("answers 401 with the missing permission for a token without the route's scope", async () => {
    const res = await call("POST", "/v3/conventions_echo/5", { token: readOnly, json: { count: 1 } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(fault("Authorization Error", "AccessToken", "write_permission", "missing"));
  });
});

describe("bad input", () => {
  const cases: [string, string, Record<string, unknown>, unknown, string][] = [
    ["an id that is not an integer", "/v3/conventions_echo/abc", {}, { count: 1 }, "id"],
    ["an id beyond 64 bits", "/v3/conventions_echo/18446744073709551616", {}, { count: 1 }, "id"],
    ["a negative id", "/v3/conventions_echo/-4", {}, { count: 1 }, "id"],
    ["page 0", "/v3/conventions_echo/1", { page: 0 }, { count: 1 }, "page"],
    ["a negative page", "/v3/conventions_echo/1", { page: -2 }, { count: 1 }, "page"],
    ["per_page over 200", "/v3/conventions_echo/1", { per_page: 201 }, { count: 1 }, "per_page"],
    ["per_page that is not a number", "/v3/conventions_echo/1", { per_page: "ten" }, { count: 1 }, "per_page"],
    ["a wrongly typed field", "/v3/conventions_echo/1", {}, { count: "many" }, "count"],
  ];
  for (const [what, path, query, json, field] of cases) {
    it(`answers 400 for ${what}`, async () => {
      const res = await call("POST", path, { token, query: query as Record<string, string>, json });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("Bad Request");
      expect(res.body.errors).toContainEqual({ resource: "Echo", field, code: "invalid" });
    });
  }

  it("answers 400 missing for an absent required field", async () => {
    const res = await call("POST", "/v3/conventions_echo/1", { token, json: {} });
    expect(res).toMatchObject({ status: 400, body: fault("Bad Request", "Echo", "count", "missing") });
  });

  it("answers 400 for malformed JSON and JSON that is not an object", async () => {
    for (const body of ["{not json", "[1,2]", "42"]) {
      const res = await fetch(`http://127.0.0.1:${server.port}/v3/conventions_echo/1`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body,
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(fault("Bad Request", "Request", "body", "invalid"));
    }
  });

  it("applies the default page size of 30 and the documented paging", async () => {
    const res = await call("POST", "/v3/conventions_echo/1", { token, query: { page: 3 }, json: { count: 1 } });
    expect(res.body.paging).toEqual({ page: 3, perPage: 30, offset: 60 });
  });
});

describe("OpenAPI document and reference page", () => {
  it("lists every declared route, generated from the route table", async () => {
    const res = await call("GET", "/v3/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    for (const route of [...allRoutes, echo]) {
      const path = route.path.replace(/:([A-Za-z_]+)/g, "{$1}");
      expect(res.body.paths[path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
    const docs = await fetch(`http://127.0.0.1:${server.port}/docs`);
    expect(docs.headers.get("content-type")).toContain("text/html");
    const html = await docs.text();
    for (const route of allRoutes) expect(html).toContain(route.path);
  });
});

describe("rate limits", () => {
  it("refuses past the short limit with 403 and the exact body; refused requests still count toward the daily limit", async () => {
    const limited = await openPlatform(
      configFromEnv({
        port: 0,
        databaseUrl: undefined,
        dataDir: "",
        seedDemo: false,
        quiet: true,
        rateLimitShort: 3,
        rateLimitLong: 5,
      }),
    );
    const { app } = createApp(limited);
    const s = await listen(app.fetch, { port: 0, hostname: "127.0.0.1" });
    try {
      const owner = await createAthlete(limited, {
        firstname: "R",
        lastname: "L",
        email: "rl@example.com",
        password: "password123",
      });
      const a = await createApplication(limited, { name: "Limited", ownerId: owner, callbackDomain: "localhost" });
      const t = await issueToken(limited, { athleteId: owner, applicationId: a.client_id, permissions: ["read"] });
      const c = api(`http://127.0.0.1:${s.port}`);
      const seen = [];
      for (let i = 0; i < 6; i++) {
        const res = await c("GET", "/v3/athlete", { token: t });
        seen.push([res.status, res.headers.get("x-ratelimit-limit"), res.headers.get("x-ratelimit-usage")]);
        if (res.status === 403) {
          expect(res.body).toEqual(fault("Rate Limit Exceeded", "Application", "rate limit", "exceeded"));
        }
      }
      expect(seen).toEqual([
        [200, "3,5", "1,1"],
        [200, "3,5", "2,2"],
        [200, "3,5", "3,3"],
        [403, "3,5", "4,4"],
        [403, "3,5", "5,5"],
        [403, "3,5", "6,6"],
      ]);
      // Another application is not affected.
      const b = await createApplication(limited, { name: "Other", ownerId: owner, callbackDomain: "localhost" });
      const t2 = await issueToken(limited, { athleteId: owner, applicationId: b.client_id, permissions: ["read"] });
      expect((await c("GET", "/v3/athlete", { token: t2 })).status).toBe(200);
    } finally {
      await s.close();
      await limited.close();
    }
  });

  it("resets the short window at :00, :15, :30 and :45 and the daily one at midnight UTC", () => {
    const limiter = new RateLimiter(2, 3);
    const at = (iso: string) => Date.parse(iso);
    expect(limiter.hit("a", at("2026-05-01T10:14:00Z")).allowed).toBe(true);
    expect(limiter.hit("a", at("2026-05-01T10:14:30Z")).allowed).toBe(true);
    expect(limiter.hit("a", at("2026-05-01T10:14:59Z"))).toEqual({ allowed: false, short: 3, long: 3 });
    // 10:15 starts a new short window, but the daily count (3, including the refused one) is at its limit.
    expect(limiter.hit("a", at("2026-05-01T10:15:00Z"))).toEqual({ allowed: false, short: 1, long: 4 });
    expect(limiter.peek("a", at("2026-05-01T10:29:59Z"))).toEqual({ short: 1, long: 4 });
    expect(limiter.peek("a", at("2026-05-01T10:30:00Z"))).toEqual({ short: 0, long: 4 });
    // Midnight UTC resets the daily count.
    expect(limiter.hit("a", at("2026-05-02T00:00:00Z"))).toEqual({ allowed: true, short: 1, long: 1 });
  });
});
