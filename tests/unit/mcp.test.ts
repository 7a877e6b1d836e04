import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogue } from "../../events/index.ts";
import { pkceChallenge } from "../../events/oauth/crypto.ts";
import { type OAuthCommand, oauthDecider } from "../../events/oauth/decide.ts";
import { authorizationGranted } from "../../events/oauth/events.ts";
import { allowedHostnames, rebindingRefusal } from "../../server/mcp/guard.ts";
import { clock, exactId, localTime, zoneName } from "../../server/mcp/format.ts";
import { audienceOf } from "../../server/oauth/resource.ts";
import { checkClientMetadata, redirectMatches, RegistrationError } from "../../server/oauth/registration.ts";
import { allRoutes } from "../../server/route-table.ts";
import { ROOT } from "../helpers/deno.ts";
import { given } from "../helpers/decider.ts";

/** The MCP feature's pure parts: its routes exist, the audience rules, the guard, registration's rules. */

describe("MCP tools call routes of the table", () => {
  it("every route a tool names exists and answers JSON", () => {
    const dir = join(ROOT, "server/mcp/tools");
    const calls = readdirSync(dir).flatMap((f) =>
      [...readFileSync(join(dir, f), "utf8").matchAll(/callRoute\(ctx, "(GET|PUT|POST|DELETE)", "([^"]+)"/g)]
        .map((m) => [m[1], m[2]] as const)
    );
    expect(calls.length).toBeGreaterThan(20);
    for (const [method, path] of calls) {
      const route = allRoutes.find((r) => r.method === method && r.path === path);
      expect(route, `${method} ${path}`).toBeDefined();
      expect(route!.auth, path).toBe("token");
    }
  });
});

describe("RFC 8707 audience", () => {
  const url = "https://fitness.example";
  it("names /mcp or the API of this server only", () => {
    expect(audienceOf(undefined, url)).toBeUndefined();
    expect(audienceOf("https://fitness.example/mcp", url)).toBe("mcp");
    expect(audienceOf("https://FITNESS.example/mcp/", url)).toBe("mcp");
    for (const api of ["https://fitness.example", "https://fitness.example/", "https://fitness.example/v3"]) {
      expect(audienceOf(api, url)).toBe("api");
    }
    for (
      const bad of [
        "https://evil.example/mcp",
        "http://fitness.example/mcp",
        "https://fitness.example/mcp?x=1",
        "https://fitness.example/other",
        "not a url",
      ]
    ) {
      expect(audienceOf(bad, url), bad).toBe("invalid");
    }
  });

  it("events recorded before version 2 were the API's", () => {
    expect(catalogue.upcast("AccessTokenIssued", 1, { tokenHash: "t" })).toEqual({ tokenHash: "t", audience: "api" });
    expect(catalogue.upcast("AuthorizationGranted", 1, { grantId: "g" })).toEqual({ grantId: "g", audience: "api" });
    expect(catalogue.upcast("AccessTokenIssued", 2, { audience: "mcp" })).toEqual({ audience: "mcp" });
  });

  const grant = {
    grantId: "g-1",
    athleteId: 1,
    applicationId: 7,
    permissions: ["read" as const],
    scope: "read",
    codeHash: "code-hash",
    redirectUri: "http://127.0.0.1:1/cb",
    codeChallenge: pkceChallenge("v".repeat(43)),
    codeExpiresAt: "2026-01-01T12:10:00.000Z",
    prompted: true,
    audience: "mcp" as const,
  };
  const exchange = (over: Partial<Extract<OAuthCommand, { type: "exchange" }>> = {}): OAuthCommand => ({
    type: "exchange",
    athleteId: 1,
    applicationId: 7,
    codeHash: "code-hash",
    codeVerifier: "v".repeat(43),
    secretChecked: false,
    now: "2026-01-01T12:00:00.000Z",
    access: { tokenHash: "access-1", expiresAt: "2026-01-01T18:00:00.000Z" },
    refreshTokenHash: "refresh-1",
    sealedAccessToken: "sealed-1",
    ...over,
  });

  it("the OAuth decider: an MCP grant needs PKCE; its tokens carry its audience; another resource gets nothing", () => {
    given(oauthDecider, []).when({ type: "grant", grant: { ...grant, codeChallenge: null } }).thenError(
      "invalid",
      "missing",
    );
    const granted = authorizationGranted.create(grant);
    const events = given(oauthDecider, [granted]).when(exchange()).events();
    expect(events.map((e) => [e.type, (e.data as { audience?: string }).audience])).toEqual([
      ["AuthorizationCodeRedeemed", undefined],
      ["AccessTokenIssued", "mcp"],
      ["RefreshTokenIssued", undefined],
    ]);
    const state = oauthDecider.evolve(oauthDecider.initialState(), granted);
    expect(() => oauthDecider.decide(exchange({ audience: "api" }), state)).toThrow(
      "AuthorizationCode.resource: invalid",
    );
    expect(given(oauthDecider, [granted]).when(exchange({ audience: "mcp" })).events()).toHaveLength(3);
  });
});

describe("DNS-rebinding guard", () => {
  const allowed = allowedHostnames(["https://fitness.example"]);
  it("answers this server's names and loopback ones only", () => {
    expect(rebindingRefusal("fitness.example", undefined, allowed)).toBeUndefined();
    expect(rebindingRefusal("127.0.0.1:4000", "http://127.0.0.1:4000", allowed)).toBeUndefined();
    expect(rebindingRefusal("[::1]:8080", undefined, allowed)).toBeUndefined();
    expect(rebindingRefusal("fitness.example", "https://fitness.example", allowed)).toBeUndefined();
    expect(rebindingRefusal("evil.example", undefined, allowed)).toMatch(/Host/);
    expect(rebindingRefusal("fitness.example", "https://evil.example", allowed)).toMatch(/Origin/);
    expect(rebindingRefusal("fitness.example", "null", allowed)).toMatch(/Origin/);
    expect(rebindingRefusal(undefined, undefined, allowed)).toMatch(/Host/);
  });
});

describe("dynamic registration rules", () => {
  it("loopback redirect URIs may change port, https ones must match exactly", () => {
    const registered = ["http://localhost:3334/oauth/callback", "https://claude.ai/api/mcp/auth_callback"];
    expect(redirectMatches(registered, "http://localhost:49152/oauth/callback")).toBe(true);
    expect(redirectMatches(registered, "http://localhost:49152/other")).toBe(false);
    expect(redirectMatches(registered, "http://127.0.0.1:3334/oauth/callback")).toBe(false);
    expect(redirectMatches(registered, "https://claude.ai/api/mcp/auth_callback")).toBe(true);
    expect(redirectMatches(registered, "https://claude.ai:444/api/mcp/auth_callback")).toBe(false);
  });

  it("metadata: defaults, and the refusal names what to change", () => {
    const m = checkClientMetadata({ redirect_uris: ["http://127.0.0.1:1/cb"], client_name: "A\u0000B" });
    expect(m).toMatchObject({ name: "A B", tokenEndpointAuthMethod: "none" });
    expect(() => checkClientMetadata({ redirect_uris: ["ftp://x/cb"] })).toThrow(RegistrationError);
    expect(() => checkClientMetadata("not an object")).toThrow(/JSON object/);
  });
});

describe("values as a model reads them", () => {
  it("zones, local times, clocks and 64-bit ids", () => {
    expect(zoneName("(GMT+01:00) Europe/Paris")).toBe("Europe/Paris");
    expect(localTime("2024-05-04T09:31:12Z")).toBe("2024-05-04 09:31");
    expect(clock(3723)).toBe("1:02:03");
    expect(clock(83)).toBe("1:23");
    expect(exactId(12n)).toBe(12);
    expect(exactId(2n ** 60n)).toBe("1152921504606846976");
  });
});
