import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { startTestServer } from "../helpers/server.ts";
import { WebClient } from "../oauth/web-client.ts";
import { freshEmail, signUp } from "./web-attacks.ts";

/**
 * Issue 29 item 5: the security headers on every answer, errors included. Before, /login,
 * /register, /settings/* and /oauth/authorize had no X-Content-Type-Options, and the heatmap
 * viewer's 400 and 404 pages had no CSP, no frame protection and no Referrer-Policy (each page set
 * its own copy, or none). Now one middleware (server/http/security-headers.ts) sets them on every
 * response; pages that need another CSP declare it. This walks every HTML page (anonymous and
 * signed in, their errors and redirects) and API answers (200s, 4xxs from the handlers, onError and
 * the not-found handler) of the Deno server and checks each.
 */
let server: DenoServer;
let anonymous: WebClient;
let athlete: WebClient;
let clientId: string;
let apiToken: string;
let athleteId: number;

beforeAll(async () => {
  server = await startDenoServer({ env: { SEED_DEMO: "0", LOG_FORMAT: "off" } });
  anonymous = new WebClient(server.url);
  athlete = new WebClient(server.url);
  expect((await signUp(athlete, freshEmail("headers"), "correct horse battery")).status).toBe(303);
  const page = await athlete.get("/settings/api");
  const created = await athlete.post("/settings/api", {
    _csrf: WebClient.csrf(page.text),
    name: "Headers app",
    callback_domain: "localhost",
  });
  expect(created.status).toBe(303);
  clientId = /id="client-id">(\d+)</.exec((await athlete.get("/settings/api")).text)![1];
  apiToken = /<meta name="api-token" content="([^"]+)">/.exec((await athlete.get("/")).text)![1];
  athleteId =
    (await (await fetch(`${server.url}/v3/athlete`, { headers: { authorization: `Bearer ${apiToken}` } })).json()).id;
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

interface Seen {
  status: number;
  headers: Headers;
}

/** One raw request (any method, no redirects followed). */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: server.port, method, path, headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => {
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          for (const v of Array.isArray(value) ? value : [value ?? ""]) h.append(name, v);
        }
        resolve({ status: res.statusCode ?? 0, headers: h });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

const api = (method: string, path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { method, headers, redirect: "manual" }).then(async (res) => {
    await res.arrayBuffer();
    return res;
  });

const REFERRER_POLICIES = ["no-referrer", "same-origin", "strict-origin-when-cross-origin"];

/** What is wrong with one answer's security headers ([] = nothing). */
function problems(what: string, res: Seen, fault = false): string[] {
  const h = res.headers;
  const out: string[] = [];
  const csp = h.get("content-security-policy") ?? "";
  if (h.get("x-content-type-options") !== "nosniff") {
    out.push(`${what}: X-Content-Type-Options ${h.get("x-content-type-options")}`);
  }
  if (!/default-src 'none'/.test(csp)) out.push(`${what}: CSP ${JSON.stringify(csp)}`);
  // One policy, not two (a page's own copy on top of the middleware's would be joined with ", ").
  if (csp.split("default-src").length !== 2) out.push(`${what}: ${csp.split("default-src").length - 1} CSPs`);
  if (h.get("x-frame-options") !== "DENY" && !/frame-ancestors 'none'/.test(csp)) {
    out.push(`${what}: no frame protection`);
  }
  if (!REFERRER_POLICIES.includes(h.get("referrer-policy") ?? "")) {
    out.push(`${what}: Referrer-Policy ${h.get("referrer-policy")}`);
  }
  if (res.status >= 500 && !fault) out.push(`${what}: ${res.status}`);
  return out;
}

const checked: { what: string; status: number; html: boolean }[] = [];
const found: string[] = [];
/** Checks one answer (`fault`: a 5xx is what the test provokes). */
function see(what: string, res: Seen, fault = false): Seen {
  checked.push({ what, status: res.status, html: (res.headers.get("content-type") ?? "").startsWith("text/html") });
  found.push(...problems(what, res, fault));
  return res;
}

describe("security headers on every answer (issue 29 item 5)", () => {
  it("HTML pages, anonymous: sign-in, sign-up, start, docs, settings (redirects), OAuth, heatmap viewer 400/404, not found", async () => {
    for (const path of ["/login", "/register", "/", "/docs", "/docs/connect", "/login?next=%2Fsettings%2Fapps"]) {
      expect(see(`GET ${path} (anonymous)`, await anonymous.get(path)).status).toBe(200);
    }
    for (
      const path of [
        "/settings/api",
        "/settings/apps",
        "/settings/account",
        "/settings/import",
        "/settings",
        "/upload",
        "/heatmaps",
      ]
    ) {
      const res = see(`GET ${path} (anonymous)`, await anonymous.get(path));
      expect([302, 303]).toContain(res.status);
    }
    const missing = see("GET /no/such/page (HTML 404)", await anonymous.get(`/no/such/page-${Date.now()}`));
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^text\/html/);
    // The heatmap viewer's error pages: its own policy (inline styles), frame protection, no referrer.
    const bad = see("GET /heatmaps/abc/1 (viewer 400)", await anonymous.get("/heatmaps/abc/1"));
    expect(bad.status).toBe(400);
    const none = see("GET /heatmaps/1/999999 (viewer 404)", await anonymous.get("/heatmaps/1/999999"));
    expect(none.status).toBe(404);
    for (const res of [bad, none]) {
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      expect(res.headers.get("content-security-policy")).toContain("style-src 'self' 'unsafe-inline'");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
    }
    // The OAuth page with a bad client: an error page.
    const authorize = see(
      "GET /oauth/authorize (unknown client)",
      await anonymous.get("/oauth/authorize?client_id=999999&redirect_uri=http://localhost/cb&response_type=code"),
    );
    expect(authorize.status).toBeGreaterThanOrEqual(300);
    // A form without its CSRF token: the 403 page.
    see("POST /login (no CSRF token)", await anonymous.post("/login", { email: "a@example.com", password: "x" }));
    // The docs page keeps its own CSP (Swagger UI's scripts and fonts), one copy.
    expect((await anonymous.get("/docs")).headers.get("content-security-policy")).toContain("font-src 'self' data:");
    expect(found).toEqual([]);
  });

  it("HTML pages, signed in: the app pages, settings/*, the consent page, the heatmap viewer, 404s", async () => {
    const pages = [
      "/",
      "/upload",
      "/segments",
      "/heatmaps",
      "/settings",
      "/settings/api",
      "/settings/apps",
      "/settings/account",
      "/settings/import",
      `/athletes/${athleteId}`,
    ];
    for (const path of pages) {
      const res = see(`GET ${path} (signed in)`, await athlete.get(path));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    }
    see("GET /activities/999999999 (signed in, 404 page)", await athlete.get("/activities/999999999"));
    see("GET /no/such/page (signed in, 404 page)", await athlete.get("/no/such/page"));
    const consent = see(
      "GET /oauth/authorize (consent page)",
      await athlete.get(
        `/oauth/authorize?${new URLSearchParams({
          client_id: clientId,
          redirect_uri: "http://localhost/cb",
          response_type: "code",
          scope: "read",
          approval_prompt: "force",
        })}`,
      ),
    );
    expect(consent.status).toBe(200);
    // The consent form's answer redirects to the app's callback: its CSP allows that form action.
    expect(consent.headers.get("content-security-policy")).toContain("form-action 'self' http: https:");
    const bad = see(
      "GET /oauth/authorize (bad redirect_uri)",
      await athlete.get(
        `/oauth/authorize?client_id=${clientId}&redirect_uri=http://evil.example/cb&response_type=code`,
      ),
    );
    expect(bad.status).toBeGreaterThanOrEqual(400);
    see("POST /settings/api (no CSRF token: 403 page)", await athlete.post("/settings/api", { name: "x" }));

    // The heatmap viewer itself (any state of the map): its own CSP, no referrer.
    const created = await fetch(`${server.url}/v3/athlete/heatmaps`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
      body: JSON.stringify({ activity_type_ids: "1" }),
    });
    expect(created.status).toBe(201);
    const map = await created.json();
    const viewer = see(
      "GET /heatmaps/:athlete_id/:map_id (viewer)",
      await anonymous.get(`/heatmaps/${athleteId}/${map.id}`),
    );
    expect(viewer.status).toBe(200);
    expect(viewer.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(viewer.headers.get("referrer-policy")).toBe("no-referrer");
    expect(found).toEqual([]);
  });

  it("API answers, assets and operating endpoints: 200s, 4xxs from handlers, onError and the not-found handler", async () => {
    const bearer = { authorization: `Bearer ${apiToken}` };
    expect(see("GET /v3/athlete", await api("GET", "/v3/athlete", bearer)).status).toBe(200);
    expect(see("GET /v3/athlete (no token)", await api("GET", "/v3/athlete")).status).toBe(401);
    expect(see("GET /v3/athlete (bad token)", await api("GET", "/v3/athlete", { authorization: "Bearer nope" })).status)
      .toBe(401);
    expect(see("GET /v3/activities/abc", await api("GET", "/v3/activities/abc", bearer)).status).toBe(400);
    expect(see("GET /v3/activities/999999999", await api("GET", "/v3/activities/999999999", bearer)).status).toBe(404);
    expect(see("GET /v3/no-such-endpoint (JSON 404)", await api("GET", "/v3/no-such-endpoint")).status).toBe(404);
    expect(see("GET /api/v3/athlete", await api("GET", "/api/v3/athlete", bearer)).status).toBe(200);
    expect(see("GET /v3/openapi.json", await api("GET", "/v3/openapi.json")).status).toBe(200);
    expect(see("POST /oauth/token (bad grant)", await api("POST", "/oauth/token?grant_type=nope")).status).toBe(400);
    expect(see("GET /health", await api("GET", "/health")).status).toBe(200);
    expect(see("GET /ready", await api("GET", "/ready")).status).toBe(200);
    expect(see("GET /metrics", await api("GET", "/metrics")).status).toBe(200);
    expect(
      see("GET /metrics (proxied: 403)", await api("GET", "/metrics", { "x-forwarded-for": "203.0.113.9" })).status,
    ).toBe(403);
    // A thrown ApiError answered by onError (the tile's z is checked in the handler).
    expect(see("GET tile z=99 (onError 400)", await api("GET", "/heatmaps/1/1/tiles/99/0/0.png")).status).toBe(400);
    // Bodies refused before any handler: too large, bad JSON.
    const huge = see(
      "PUT /v3/athlete (declared 2 GB: 413)",
      await raw("PUT", "/v3/athlete", {
        ...bearer,
        "content-type": "application/json",
        "content-length": "2000000000",
      }),
    );
    expect(huge.status).toBe(413);
    expect(
      see(
        "PUT /v3/athlete (bad JSON)",
        await raw("PUT", "/v3/athlete", { ...bearer, "content-type": "application/json" }, "{nope"),
      ).status,
    ).toBeLessThan(500);
    // Made-up methods, HEAD, OPTIONS.
    expect(see("BREW /v3/athlete (made-up method)", await raw("BREW", "/v3/athlete")).status).toBeLessThan(500);
    expect(see("HEAD /login", await raw("HEAD", "/login")).status).toBe(200);
    see("OPTIONS /v3/athlete", await raw("OPTIONS", "/v3/athlete"));
    // Static files: assets, favicon, the viewer's scripts, an unknown asset.
    expect(see("GET /favicon.ico", await api("GET", "/favicon.ico")).status).toBe(200);
    expect(see("GET /app/assets/app.js", await api("GET", "/app/assets/app.js")).status).toBe(200);
    expect(see("GET /app/assets/nope.js (404)", await api("GET", "/app/assets/nope.js")).status).toBe(404);
    expect(see("GET /docs/assets/docs.css", await api("GET", "/docs/assets/docs.css")).status).toBe(200);
    expect(see("GET /heatmap-viewer/viewer.js", await api("GET", "/heatmap-viewer/viewer.js")).status).toBe(200);
    expect(see("GET /heatmap-viewer/nope.js (404)", await api("GET", "/heatmap-viewer/nope.js")).status).toBe(404);
    // Names of Object.prototype's members are no assets either (the asset tables answered them with a 500).
    for (
      const path of [
        "/heatmap-viewer/constructor",
        "/app/assets/constructor",
        "/docs/assets/__proto__",
        "/avatars/athletes/1/constructor",
      ]
    ) {
      expect(see(`GET ${path} (404)`, await api("GET", path)).status).toBe(404);
    }
    // The admin endpoint (loopback, for the CLI): its answers carry them too.
    const admin = JSON.parse(readFileSync(join(server.dataDir, "admin.json"), "utf8")) as {
      port: number;
      secret: string;
    };
    const ping = (headers: Record<string, string>) =>
      fetch(`http://127.0.0.1:${admin.port}/ping`, { headers }).then(async (res) => (await res.arrayBuffer(), res));
    expect(see("GET admin /ping", await ping({ authorization: `Bearer ${admin.secret}` })).status).toBe(200);
    expect(see("GET admin /ping (no secret: 401)", await ping({})).status).toBe(401);
    // A tile of a map that does not exist (a 404 thrown in the handler).
    expect(see("GET tile of an unknown map (404)", await api("GET", "/heatmaps/1/1/tiles/1/0/0.png")).status).toBe(404);
    expect(found).toEqual([]);
  });

  it("a 500 from the error handler carries them too (the database gone; an in-process server, where it can be closed)", async () => {
    const doomed = await startTestServer();
    try {
      const rider = await doomed.athlete();
      await doomed.platform.db.close();
      const fault = see(
        "GET /v3/athlete (database gone: 500)",
        await fetch(`${doomed.url}/v3/athlete`, { headers: { authorization: `Bearer ${rider.token}` } }),
        true,
      );
      expect(fault.status).toBe(500);
      const page = see("GET /login (database gone)", await new WebClient(doomed.url).get("/login"), true);
      expect(page.status).toBeGreaterThanOrEqual(500);
      expect(found).toEqual([]);
    } finally {
      await doomed.close().catch(() => {});
    }
  });

  it("counts what was checked", () => {
    const html = checked.filter((c) => c.html).length;
    console.log(
      `[security-headers] ${checked.length} responses checked (${html} HTML, ${checked.length - html} other; statuses ${
        [...new Set(checked.map((c) => c.status))].sort().join(", ")
      }): every one with nosniff, one CSP, frame protection and a Referrer-Policy`,
    );
    expect(checked.length).toBeGreaterThanOrEqual(60);
    expect(html).toBeGreaterThanOrEqual(25);
    expect(new Set(checked.map((c) => c.status)).size).toBeGreaterThanOrEqual(7);
  });
});
