import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import jpegJs from "jpeg-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, configFromEnv } from "../../server/config.ts";
import { api } from "../helpers/http.ts";
import { WebClient } from "../oauth/web-client.ts";
import { type DropinServer, startDropinServer, upload } from "./deno-server.ts";
import { type McpClient, type McpTool, startMcpServer } from "./mcp-stdio.ts";
import { startStravaProxy, type StravaProxy } from "./strava-proxy.ts";

/**
 * The Strava MCP server AI assistants use (github.com/r-huijts/strava-mcp, npm
 * @r-huijts/strava-mcp-server 1.2.1, a devDependency), issue #42: the real thing, unchanged, run as an
 * assistant's host runs it — a child process spoken to in MCP over stdio — with its token in
 * STRAVA_ACCESS_TOKEN. Its base URL is written into its code (https://www.strava.com/api/v3, token
 * refresh at https://www.strava.com/oauth/token), so it reaches this server the way a user would
 * point it without changing it: HTTPS_PROXY names a proxy that answers www.strava.com with a
 * certificate from a local authority the tool's Node is told to trust (NODE_EXTRA_CA_CERTS) and
 * sends each request here (tests/dropin/strava-proxy.ts). Every tool that calls Strava's API is
 * called; each parses our answers with its own response schemas (zod, in its stravaClient), and a
 * parse failure is its isError answer. The issue-31 count was 18 tools; 1.2.1 registers 24, 21 of
 * which call the API (the others: connect-strava and disconnect-strava open a browser sign-in,
 * get-server-version touches no API).
 */
const MCP_SERVER = resolve(import.meta.dirname!, "../../node_modules/@r-huijts/strava-mcp-server/dist/server.js");
const EXPECTED_TOOLS = 24;
let s: DropinServer;
let proxy: StravaProxy;
let mcp: McpClient;
/** The API host: this server reached as 127.0.0.1 (PUBLIC_API_URL's host), unprefixed paths. */
let apiHost = "";
const home = mkdtempSync(join(tmpdir(), "strava-mcp-home-"));
const exports = join(home, "routes");
const ids = { ride: 0, segment: 0, effort: "", club: 0, route: 0 };

/** The tool's process environment: its token and client credentials, the proxy, a home of its own. */
function toolEnv(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    STRAVA_ACCESS_TOKEN: token,
    STRAVA_CLIENT_ID: String(s.application.clientId),
    STRAVA_CLIENT_SECRET: s.application.clientSecret,
    ROUTE_EXPORT_PATH: exports,
    HTTPS_PROXY: proxy.url,
    NODE_EXTRA_CA_CERTS: proxy.caFile,
    ...extra,
  };
}

/**
 * Ann's tokens as the tool's connect flow leaves them: she signs in and approves the application on
 * the consent page, and the code is exchanged at /oauth/token for an access and a refresh token.
 */
async function authorizeAnn(): Promise<{ access_token: string; refresh_token: string }> {
  const web = new WebClient(s.server.url);
  await web.signIn("ann@example.com", "password123");
  const redirect = await web.authorize({
    client_id: String(s.application.clientId),
    redirect_uri: "http://localhost/cb",
    response_type: "code",
    scope: "read,activity:read_all,profile:read_all,activity:write",
  });
  const tokens = await s.call("POST", "/oauth/token", {
    form: {
      client_id: s.application.clientId,
      client_secret: s.application.clientSecret,
      code: redirect.searchParams.get("code")!,
      grant_type: "authorization_code",
    },
  });
  expect(tokens.status, tokens.text).toBe(200);
  return tokens.body;
}

/** A real JPEG (jpeg-js), 64×48. */
function photoForm() {
  const [width, height] = [64, 48];
  const data = new Uint8Array(width * height * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 7) % 256));
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(jpegJs.encode({ data, width, height }, 85).data)]), "top.jpg");
  form.set("caption", "At the top");
  return form;
}

beforeAll(async () => {
  s = await startDropinServer(["Ann", "Bob"], { env: { PUBLIC_API_URL: "http://127.0.0.1" } });
  apiHost = s.server.url.replace("localhost", "127.0.0.1");
  const ann = s.people.Ann.token;
  ids.ride = await upload(s.call, ann, "fit/garmin-edge1000-cycling-power-hr.fit");
  const short = await upload(s.call, ann, "fit/garmin-edge1000-cycling-short-3formats.fit");
  const points =
    (await s.call("GET", `/v3/activities/${short}/streams`, { token: ann, query: { keys: "time", key_by_type: true } }))
      .body.time.original_size;
  const segment = await s.call("POST", "/v3/segments", {
    token: ann,
    form: {
      name: "MCP climb",
      activity_id: short,
      start_index: Math.floor(points * 0.2),
      end_index: Math.floor(points * 0.8),
    },
  });
  expect(segment.status, segment.text).toBe(201);
  ids.segment = segment.body.id;
  await upload(s.call, ann, "gpx/garmin-connect-edge1000-cycling-short-3formats.gpx");
  const efforts = await s.call("GET", `/v3/segments/${ids.segment}/all_efforts`, { token: ann });
  expect(efforts.body.length).toBeGreaterThan(0);
  ids.effort = String(efforts.body[0].id);
  const club = await s.call("POST", "/v3/clubs", {
    token: ann,
    form: { name: "MCP Club", sport_type: "cycling", city: "Utrecht", state: "Utrecht", country: "Netherlands" },
  });
  ids.club = club.body.id;
  // A club with no place given: its city, state and country are strings all the same (Strava's model).
  await s.call("POST", "/v3/clubs", { token: ann, form: { name: "Nowhere Club", sport_type: "running" } });
  await s.call("POST", `/v3/clubs/${ids.club}/join`, { token: s.people.Bob.token });
  const route = await s.call("POST", "/v3/routes", { token: ann, json: { activity_id: ids.ride, name: "MCP route" } });
  expect(route.status, route.text).toBe(201);
  ids.route = route.body.id;
  await s.call("PUT", `/v3/segments/${ids.segment}/starred`, { token: ann, form: { starred: true } });
  const photo = await s.call("POST", `/v3/activities/${ids.ride}/photos`, { token: ann, multipart: photoForm() });
  expect(photo.status, photo.text).toBe(201);
  proxy = await startStravaProxy(s.server.url);
  const tokens = await authorizeAnn();
  mcp = await startMcpServer(
    process.execPath,
    [MCP_SERVER],
    toolEnv(tokens.access_token, { STRAVA_REFRESH_TOKEN: tokens.refresh_token }),
  );
}, 600_000);
afterAll(async () => {
  await mcp?.close();
  await proxy?.close();
  await s?.close();
  rmSync(home, { recursive: true, force: true });
});

/** The answer's text, or the failure with what the tool wrote to stderr. */
function textOf(name: string, result: { content: { type: string; text?: string }[]; isError?: boolean }): string {
  const text = result.content.map((c) => c.text ?? "").join("\n");
  if (result.isError || /^\s*❌/.test(text)) {
    throw new Error(`${name} failed: ${text.slice(0, 600)}\n${mcp.stderr().slice(-1500)}`);
  }
  return text;
}

/** Every tool that calls Strava's API, with arguments, and a word of the answer that shows our data reached it. */
const CALLS: [string, () => Record<string, unknown>, RegExp][] = [
  ["get-athlete-profile", () => ({}), /Ann Tester/],
  ["get-athlete-stats", () => ({ athleteId: s.people.Ann.id }), /Ride/i],
  ["get-activity-details", () => ({ activityId: ids.ride }), /km|Distance/i],
  ["get-recent-activities", () => ({ perPage: 30 }), /MCP|Ride|km/i],
  ["get-all-activities", () => ({ startDate: "2000-01-01", endDate: "2100-01-01" }), /activit/i],
  ["list-athlete-clubs", () => ({}), /MCP Club[\s\S]*Location: Utrecht, Utrecht, Netherlands/],
  ["list-starred-segments", () => ({}), /MCP climb/],
  ["get-segment", () => ({ segmentId: ids.segment }), /MCP climb/],
  ["explore-segments", () => ({ bounds: "-90,-180,90,180", activityType: "riding" }), /MCP climb/],
  ["star-segment", () => ({ segmentId: ids.segment, starred: true }), /MCP climb|starred/i],
  ["get-segment-effort", () => ({ effortId: Number(ids.effort) }), /MCP climb/],
  [
    "list-segment-efforts",
    () => ({ segmentId: ids.segment, startDateLocal: "2000-01-01T00:00:00Z", endDateLocal: "2099-12-31T23:59:59Z" }),
    /MCP climb|effort/i,
  ],
  ["list-athlete-routes", () => ({}), /MCP route/],
  ["get-route", () => ({ routeId: String(ids.route) }), /MCP route/],
  ["export-route-gpx", () => ({ routeId: String(ids.route) }), /exported successfully/],
  ["export-route-tcx", () => ({ routeId: String(ids.route) }), /exported successfully/],
  [
    "get-activity-streams",
    () => ({ id: ids.ride, types: ["time", "distance", "heartrate", "cadence", "watts"] }),
    /heartrate|watts/i,
  ],
  ["get-activity-laps", () => ({ id: ids.ride }), /Lap/i],
  ["get-athlete-zones", () => ({}), /Heart Rate|zone/i],
  ["get-activity-photos", () => ({ id: ids.ride }), /photo/i],
  ["check-strava-connection", () => ({}), /Connected to Strava as Ann Tester/],
];
const WITHOUT_API = ["connect-strava", "disconnect-strava", "get-server-version"];

describe("the Strava MCP server, unchanged, against this server", () => {
  it("lists its tools; every one that calls Strava's API answers, our answers parsed by its own schemas", async () => {
    const tools: McpTool[] = await mcp.tools();
    expect(tools).toHaveLength(EXPECTED_TOOLS);
    expect(tools.map((t) => t.name).sort()).toEqual([...CALLS.map(([n]) => n), ...WITHOUT_API].sort());
    const failures: string[] = [];
    for (const [name, args, shows] of CALLS) {
      try {
        const text = textOf(name, await mcp.call(name, args()));
        if (!shows.test(text)) failures.push(`${name}: ${text.slice(0, 300)}`);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    expect(failures).toEqual([]);
    // Its requests went where Strava's clients call: /api/v3, Strava's dialect.
    expect(proxy.requests.length).toBeGreaterThanOrEqual(CALLS.length);
    expect(
      proxy.requests.every((r) => /^(GET|PUT) https:\/\/www\.strava\.com\/api\/v3\//.test(r)),
      proxy.requests.join("\n"),
    )
      .toBe(true);
    // The exports are the route's GPX and TCX files, written where it was told.
    expect(readFileSync(join(exports, `route-${ids.route}.gpx`), "utf8")).toContain("<gpx");
    expect(readFileSync(join(exports, `route-${ids.route}.tcx`), "utf8")).toContain("<TrainingCenterDatabase");
    console.log(
      `Strava MCP server 1.2.1: ${CALLS.length} API tools answered through ${proxy.requests.length} requests`,
    );
  }, 300_000);

  it("refreshes an expired access token at /oauth/token with its client credentials, and retries", async () => {
    // Ann connected it once; its access token is no longer good (expired, or revoked), its refresh token is.
    const tokens = await authorizeAnn();
    const stale = await startMcpServer(
      process.execPath,
      [MCP_SERVER],
      toolEnv("not-a-token-any-more", { STRAVA_REFRESH_TOKEN: tokens.refresh_token }),
    );
    const before = proxy.requests.length;
    try {
      const text = textOf("get-athlete-profile", await stale.call("get-athlete-profile", {}));
      expect(text).toMatch(/Ann Tester/);
    } finally {
      await stale.close();
    }
    expect(proxy.requests.slice(before)).toEqual([
      "GET https://www.strava.com/api/v3/athlete",
      "POST https://www.strava.com/oauth/token",
      "GET https://www.strava.com/api/v3/athlete",
    ]);
  }, 120_000);

  it("answers the club's pictures and covers at the absolute URLs list-athlete-clubs requires", async () => {
    const clubs = (await s.call("GET", "/api/v3/athlete/clubs", { token: s.people.Ann.token })).body;
    const club = clubs.find((c: { id: number }) => c.id === ids.club);
    const sizes: Record<string, [number, number]> = {
      profile: [124, 124],
      profile_medium: [62, 62],
      cover_photo: [1185, 580],
      cover_photo_small: [360, 176],
    };
    for (const [key, [width, height]] of Object.entries(sizes)) {
      const picture = await fetch(club[key]);
      expect(picture.status, `${key} ${club[key]}`).toBe(200);
      expect(picture.headers.get("content-type")).toBe("image/png");
      const bytes = new Uint8Array(await picture.arrayBuffer());
      expect([...bytes.slice(1, 4)].map((b) => String.fromCharCode(b)).join("")).toBe("PNG");
      // The IHDR chunk's width and height (big-endian, bytes 16–23).
      const view = new DataView(bytes.buffer, bytes.byteOffset);
      expect([view.getUint32(16), view.getUint32(20)], key).toEqual([width, height]);
    }
    expect((await fetch(club.profile.replace(`/${ids.club}/`, "/999999999/"))).status).toBe(404);
  });

  it(
    "answers the tool's own requests the same on the API host without /v3 (PUBLIC_API_URL), and leaves other hosts alone",
    async () => {
      // Each GET the MCP server made (www.strava.com/api/v3/…), again on the API host's unprefixed path.
      const gets = [...new Set(proxy.requests.filter((r) => r.startsWith("GET https://www.strava.com/api/v3/")))];
      expect(gets.length).toBeGreaterThanOrEqual(15);
      const failures: string[] = [];
      for (const line of gets) {
        const path = line.slice("GET https://www.strava.com/api/v3".length);
        const headers = { authorization: `Bearer ${s.people.Ann.token}` };
        const [onHost, onApi] = await Promise.all([
          fetch(`${apiHost}${path}`, { headers }),
          fetch(`${s.server.url}/api/v3${path}`, { headers }),
        ]);
        const [a, b] = [await onHost.text(), await onApi.text()];
        if (onHost.status !== 200 || a !== b) failures.push(`${path}: HTTP ${onHost.status} ${a.slice(0, 120)}`);
      }
      expect(failures).toEqual([]);
      // The same path on the main host is not the API (a page or a 404), so the mapping is by host only.
      const main = await fetch(`${s.server.url}/athlete`, {
        headers: { authorization: `Bearer ${s.people.Ann.token}`, accept: "application/json" },
      });
      expect(main.status).toBe(404);
      // Prefixed paths and OAuth still answer on the API host; an unknown path is the API's JSON 404.
      expect((await api(apiHost)("GET", "/v3/athlete", { token: s.people.Ann.token })).body.id).toBe(s.people.Ann.id);
      expect((await api(apiHost)("GET", "/api/v3/athlete", { token: s.people.Ann.token })).body.id).toBe(
        s.people.Ann.id,
      );
      // Files the API links to stay where they are (an avatar mapped to /v3/avatars/… would be a 404).
      const avatar = await fetch(`${apiHost}/avatars/athletes/${s.people.Ann.id}/medium.png`);
      expect(avatar.status).toBe(200);
      expect(avatar.headers.get("content-type")).toBe("image/png");
      const token = await api(apiHost)("POST", "/oauth/token", {
        form: {
          client_id: s.application.clientId,
          client_secret: "wrong",
          grant_type: "refresh_token",
          refresh_token: "x",
        },
      });
      expect(token.status).toBe(400);
      expect(token.body.message).toEqual(expect.any(String));
      const unknown = await api(apiHost)("GET", "/no_such_thing", { token: s.people.Ann.token });
      expect(unknown.status).toBe(404);
      expect(unknown.body.message).toBe("Record Not Found");
      // A Host header naming the API host on the main address is mapped too (a reverse proxy passing Host).
      const viaHost = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const port = new URL(s.server.url).port;
        const req = httpRequest({
          host: "localhost",
          port,
          path: "/athlete",
          headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${s.people.Ann.token}` },
        }, (res) => {
          let body = "";
          res.on("data", (c) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        req.end();
      });
      expect(viaHost.status).toBe(200);
      expect(JSON.parse(viaHost.body).id).toBe(s.people.Ann.id);
    },
    300_000,
  );

  it("documents, on /docs/connect, how to point each tool here, with this server's host and API host", async () => {
    const page = await fetch(`${s.server.url}/docs/connect`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const host = new URL(s.server.url).host;
    expect(html).toContain('id="strava-tools"');
    // Strava's tools are pointed at /api/v3 or the API host (Strava's dialect), /v3 being the spec's.
    expect(html).toContain('id="dialects"');
    expect(html).toContain("Point Strava's tools at <code>/api/v3</code> or the API host");
    expect(html).toContain("tests/dropin/python/strava_here.py");
    expect(html).toContain(`client.protocol.server = "${host}"`);
    for (const tool of ["stravalib", "strava-offline", "Strava MCP server", "Home Assistant", "api-v3.strava.com"]) {
      expect(html).toContain(tool);
    }
    // The API host (PUBLIC_API_URL) is named for tools moved to the new base URL, and is the proxy's upstream for it.
    expect(html).toContain("<code>http://127.0.0.1</code>");
    expect(html).toContain("reverse_proxy http://127.0.0.1 {");
  });

  it(
    "serves a segment effort's streams for every key Strava serves, the activity's own through the privacy engine",
    async () => {
      const KEYS = "time,distance,latlng,altitude,velocity_smooth,heartrate,cadence,watts,temp,moving,grade_smooth";
      const effort = (await s.call("GET", `/v3/segment_efforts/${ids.effort}`, { token: s.people.Ann.token })).body;
      const read = async (token: string) => {
        const part = await s.call("GET", `/v3/segment_efforts/${ids.effort}/streams`, {
          token,
          query: { keys: KEYS, key_by_type: true },
        });
        const whole = await s.call("GET", `/v3/activities/${effort.activity.id}/streams`, {
          token,
          query: { keys: KEYS, key_by_type: true },
        });
        return { part, whole };
      };
      const own = await read(s.people.Ann.token);
      expect(own.part.status, own.part.text).toBe(200);
      const keys = Object.keys(own.whole.body).sort();
      // Everything the activity recorded beyond the three a segment has, and each the activity's stretch.
      expect(keys.filter((k) => !["latlng", "distance", "altitude"].includes(k)).length).toBeGreaterThanOrEqual(4);
      expect(Object.keys(own.part.body).sort()).toEqual(keys);
      for (const key of keys) {
        expect(own.part.body[key].data, key).toEqual(
          own.whole.body[key].data.slice(effort.start_index, effort.end_index + 1),
        );
      }
      // Another athlete reads through the engine: points inside the owner's privacy zone are not released.
      const start = own.part.body.latlng.data[0] as [number, number];
      const zone = await s.call("POST", "/v3/athlete/privacy_zones", {
        token: s.people.Ann.token,
        form: { lat: start[0], lng: start[1], radius: 200 },
      });
      expect(zone.status, zone.text).toBeLessThan(300);
      const bob = await read(s.people.Bob.token);
      const metres = (a: [number, number]) => {
        const rad = Math.PI / 180;
        const x = (a[1] - start[1]) * rad * Math.cos(start[0] * rad);
        return Math.hypot(x, (a[0] - start[0]) * rad) * 6_371_000;
      };
      if (bob.part.status === 200) {
        const shown = (bob.part.body.latlng?.data ?? []) as [number, number][];
        expect(shown.filter((p) => metres(p) < 200), "points inside the zone").toEqual([]);
        expect(shown.length).toBeLessThan(own.part.body.latlng.data.length);
      } else {
        expect(bob.part.status).toBe(404);
      }
      // The owner still reads every point.
      expect((await read(s.people.Ann.token)).part.body.latlng.data).toEqual(own.part.body.latlng.data);
    },
    120_000,
  );

  it("takes PUBLIC_API_URL only on a host other than PUBLIC_URL's (that host answers every path as the API)", () => {
    const saved = { url: process.env.PUBLIC_URL, api: process.env.PUBLIC_API_URL };
    try {
      process.env.PUBLIC_URL = "https://fitness.example.org";
      process.env.PUBLIC_API_URL = "https://api.fitness.example.org";
      expect(configFromEnv({ dataDir: "/tmp/unused" }).publicApiUrl).toBe("https://api.fitness.example.org");
      process.env.PUBLIC_API_URL = "https://fitness.example.org:8443";
      expect(() => configFromEnv({ dataDir: "/tmp/unused" })).toThrow(ConfigError);
      process.env.PUBLIC_API_URL = "api.fitness.example.org";
      expect(() => configFromEnv({ dataDir: "/tmp/unused" })).toThrow(/PUBLIC_API_URL/);
    } finally {
      for (const [key, value] of [["PUBLIC_URL", saved.url], ["PUBLIC_API_URL", saved.api]] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
