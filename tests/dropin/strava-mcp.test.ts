import { request as httpRequest } from "node:http";
import process from "node:process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, configFromEnv } from "../../server/config.ts";
import { api } from "../helpers/http.ts";
import { type DropinServer, startDropinServer, upload } from "./deno-server.ts";
import { generalPath, missingKeys, STRAVA_RULES, violations } from "./strava-model.ts";

/**
 * The Strava MCP server AI assistants use (github.com/r-huijts/strava-mcp, src/stravaClient.ts and
 * src/tools/*.ts, the version with 18 tools that issue 31 counts), issue 31: its 18 tools' requests over HTTP against the Deno server, each answer
 * checked the way the tool parses it (its zod schemas: the fields it requires and their types,
 * written out here from reading them), plus Strava's model (enums, dates). The tool's client has
 * baseURL https://www.strava.com/api/v3 and paths with or without a leading slash (axios joins
 * them); here the base is this server's /api/v3, and once more the API host without /v3
 * (PUBLIC_API_URL), as a tool moved to https://api-v3.strava.com would call it.
 */
let s: DropinServer;
/** The API host: this server reached as 127.0.0.1 (PUBLIC_API_URL's host), unprefixed paths. */
let apiHost = "";
const ids = { ride: 0, segment: 0, effort: "", club: 0, route: 0 };

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
  await s.call("POST", `/v3/clubs/${ids.club}/join`, { token: s.people.Bob.token });
  const route = await s.call("POST", "/v3/routes", { token: ann, json: { activity_id: ids.ride, name: "MCP route" } });
  expect(route.status, route.text).toBe(201);
  ids.route = route.body.id;
  // Starred before the tools run (list-starred-segments comes before star-segment).
  await s.call("PUT", `/v3/segments/${ids.segment}/starred`, { token: ann, form: { starred: true } });
}, 600_000);
afterAll(() => s?.close());

/** The types the tool's zod schemas ask for ("?" = optional, "|null" = nullable). */
type Kind = "int" | "number" | "string" | "url" | "datetime" | "bool" | "array" | "object";
type Shape = Record<string, string>;

function kindOk(v: unknown, kind: Kind): boolean {
  switch (kind) {
    case "int":
      return Number.isInteger(v);
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "string":
      return typeof v === "string";
    case "url":
      return typeof v === "string" && URL.canParse(v) && /^https?:$/.test(new URL(v).protocol);
    // zod's datetime(): ISO 8601 with Z (no offset unless asked).
    case "datetime":
      return typeof v === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v);
    case "bool":
      return typeof v === "boolean";
    case "array":
      return Array.isArray(v);
    case "object":
      return v !== null && typeof v === "object" && !Array.isArray(v);
  }
}

/** Where an answer fails the tool's parse: "field: expected url, got \"avatar/…\"". */
function parseErrors(value: unknown, shape: Shape, at = ""): string[] {
  if (value === null || typeof value !== "object") return [`${at || "answer"}: not an object`];
  return Object.entries(shape).flatMap(([field, spec]) => {
    const optional = spec.includes("?");
    const nullable = spec.includes("|null");
    const kind = spec.replace("?", "").replace("|null", "") as Kind;
    const v = (value as Record<string, unknown>)[field];
    const path = [at, field].filter(Boolean).join(".");
    if (v === undefined) return optional ? [] : [`${path}: missing`];
    if (v === null) return nullable ? [] : [`${path}: null`];
    return kindOk(v, kind) ? [] : [`${path}: expected ${kind}, got ${JSON.stringify(v).slice(0, 60)}`];
  });
}

const ACTIVITY: Shape = { id: "int?", name: "string", distance: "number", start_date: "datetime" };
const ATHLETE: Shape = {
  id: "int",
  resource_state: "int",
  username: "string|null",
  firstname: "string",
  lastname: "string",
  city: "string|null",
  state: "string|null",
  country: "string|null",
  sex: "string|null",
  premium: "bool",
  summit: "bool",
  created_at: "datetime",
  updated_at: "datetime",
  profile_medium: "url",
  profile: "url",
  weight: "number|null",
};
const TOTAL: Shape = {
  count: "int",
  distance: "number",
  moving_time: "int",
  elapsed_time: "int",
  elevation_gain: "number",
  achievement_count: "int?|null",
};
const STATS: Shape = Object.fromEntries(
  ["recent", "ytd", "all"].flatMap((p) => ["ride", "run", "swim"].map((k) => [`${p}_${k}_totals`, "object"])),
);
const CLUB: Shape = {
  id: "int",
  resource_state: "int",
  name: "string",
  profile_medium: "url",
  cover_photo: "url|null",
  cover_photo_small: "url|null",
  sport_type: "string",
  activity_types: "array",
  city: "string",
  state: "string",
  country: "string",
  private: "bool",
  member_count: "int",
  featured: "bool",
  verified: "bool",
  url: "string|null",
};
const SEGMENT: Shape = {
  id: "int",
  name: "string",
  activity_type: "string",
  distance: "number",
  average_grade: "number",
  maximum_grade: "number",
  elevation_high: "number?|null",
  elevation_low: "number?|null",
  start_latlng: "array?|null",
  end_latlng: "array?|null",
  climb_category: "int?|null",
  private: "bool?",
  starred: "bool?",
};
const DETAILED_SEGMENT: Shape = {
  ...SEGMENT,
  created_at: "datetime",
  updated_at: "datetime",
  total_elevation_gain: "number?|null",
  map: "object|null",
  effort_count: "int",
  athlete_count: "int",
  hazardous: "bool",
  star_count: "int",
};
const DETAILED_ACTIVITY: Shape = {
  id: "int",
  resource_state: "int",
  athlete: "object",
  name: "string",
  elapsed_time: "int",
  type: "string",
  sport_type: "string",
  start_date: "datetime",
  start_date_local: "datetime",
  timezone: "string",
  start_latlng: "array|null",
  end_latlng: "array|null",
  kudos_count: "int",
  comment_count: "int",
  photo_count: "int",
  map: "object|null",
  trainer: "bool",
  commute: "bool",
  manual: "bool",
  private: "bool",
  flagged: "bool",
  gear_id: "string|null",
  has_heartrate: "bool",
  description: "string|null",
  device_name: "string|null",
};
const EFFORT: Shape = {
  id: "int",
  activity: "object",
  athlete: "object",
  segment: "object",
  name: "string",
  elapsed_time: "int",
  moving_time: "int",
  start_date: "datetime",
  start_date_local: "datetime",
  distance: "number",
  kom_rank: "int?|null",
  pr_rank: "int?|null",
};
const ROUTE: Shape = {
  athlete: "object",
  description: "string|null",
  distance: "number",
  elevation_gain: "number|null",
  id: "int",
  id_str: "string",
  map: "object|null",
  name: "string",
  private: "bool",
  resource_state: "int",
  starred: "bool",
  sub_type: "int",
  type: "int",
  created_at: "datetime",
  updated_at: "datetime",
};
const LAP: Shape = {
  id: "int",
  resource_state: "int",
  name: "string",
  activity: "object",
  athlete: "object",
  elapsed_time: "int",
  moving_time: "int",
  start_date: "datetime",
  start_date_local: "datetime",
  distance: "number",
  lap_index: "int",
};
const EXPLORER_SEGMENT: Shape = {
  id: "int",
  name: "string",
  climb_category: "int",
  climb_category_desc: "string",
  avg_grade: "number",
  start_latlng: "array",
  end_latlng: "array",
  elev_difference: "number",
  distance: "number",
  points: "string",
};

interface Tool {
  /** The tool's name in the MCP server. */
  name: string;
  method: "GET" | "PUT";
  /** The path as the tool writes it (relative to its base URL). */
  path: () => string;
  query?: Record<string, string | number>;
  json?: unknown;
  /** The tool's parse of the answer; the Strava model the answer is (for enums, dates, declared keys). */
  check: (body: unknown) => string[];
  model?: string;
  text?: boolean;
}

const each = (shape: Shape) => (body: unknown) =>
  Array.isArray(body)
    ? (body.length ? body.flatMap((item, i) => parseErrors(item, shape, String(i))) : ["an empty list proves nothing"])
    : ["not an array"];
const one = (shape: Shape) => (body: unknown) => parseErrors(body, shape);

const TOOLS: Tool[] = [
  {
    name: "get-recent-activities",
    method: "GET",
    path: () => "athlete/activities",
    query: { per_page: 30 },
    check: each(ACTIVITY),
    model: "SummaryActivity",
  },
  { name: "get-athlete-profile", method: "GET", path: () => "athlete", check: one(ATHLETE), model: "DetailedAthlete" },
  {
    name: "get-athlete-stats",
    method: "GET",
    path: () => `athletes/${s.people.Ann.id}/stats`,
    model: "ActivityStats",
    check: (
      body,
    ) => [
      ...parseErrors(body, STATS),
      ...Object.keys(STATS).flatMap((k) => parseErrors((body as Record<string, unknown>)[k], TOTAL, k)),
    ],
  },
  {
    name: "get-activity-details",
    method: "GET",
    path: () => `activities/${ids.ride}`,
    check: one(DETAILED_ACTIVITY),
    model: "DetailedActivity",
  },
  { name: "list-athlete-clubs", method: "GET", path: () => "athlete/clubs", check: each(CLUB), model: "SummaryClub" },
  {
    name: "list-starred-segments",
    method: "GET",
    path: () => "segments/starred",
    check: each(SEGMENT),
    model: "SummarySegment",
  },
  {
    name: "get-segment",
    method: "GET",
    path: () => `segments/${ids.segment}`,
    check: one(DETAILED_SEGMENT),
    model: "DetailedSegment",
  },
  {
    name: "explore-segments",
    method: "GET",
    path: () => "segments/explore",
    query: { bounds: "-90,-180,90,180", activity_type: "riding" },
    model: "ExplorerResponse",
    check: (body) => {
      const list = (body as { segments?: unknown }).segments;
      if (!Array.isArray(list) || list.length === 0) return ["segments: none"];
      return list.flatMap((seg, i) => parseErrors(seg, EXPLORER_SEGMENT, `segments.${i}`));
    },
  },
  {
    name: "star-segment",
    method: "PUT",
    path: () => `segments/${ids.segment}/starred`,
    json: { starred: true },
    check: one(DETAILED_SEGMENT),
    model: "DetailedSegment",
  },
  {
    name: "get-segment-effort",
    method: "GET",
    path: () => `segment_efforts/${ids.effort}`,
    check: one(EFFORT),
    model: "DetailedSegmentEffort",
  },
  {
    name: "list-segment-efforts",
    method: "GET",
    path: () => "segment_efforts",
    model: "DetailedSegmentEffort",
    query: {
      segment_id: 0,
      start_date_local: "2000-01-01T00:00:00Z",
      end_date_local: "2099-12-31T23:59:59Z",
      per_page: 30,
    },
    check: each(EFFORT),
  },
  {
    name: "list-athlete-routes",
    method: "GET",
    path: () => "athlete/routes",
    query: { page: 1, per_page: 30 },
    check: each(ROUTE),
    model: "Route",
  },
  { name: "get-route", method: "GET", path: () => `routes/${ids.route}`, check: one(ROUTE), model: "Route" },
  {
    name: "export-route-gpx",
    method: "GET",
    path: () => `routes/${ids.route}/export_gpx`,
    text: true,
    check: (t) => (String(t).includes("<gpx") ? [] : ["not GPX"]),
  },
  {
    name: "export-route-tcx",
    method: "GET",
    path: () => `routes/${ids.route}/export_tcx`,
    text: true,
    check: (t) => (String(t).includes("<TrainingCenterDatabase") ? [] : ["not TCX"]),
  },
  {
    name: "get-activity-laps",
    method: "GET",
    path: () => `/activities/${ids.ride}/laps`,
    check: each(LAP),
    model: "Lap",
  },
  {
    name: "get-athlete-zones",
    method: "GET",
    path: () => "/athlete/zones",
    model: "Zones",
    check: (body) => {
      const hr = (body as { heart_rate?: { custom_zones?: unknown; zones?: unknown } }).heart_rate;
      return hr && typeof hr.custom_zones === "boolean" && Array.isArray(hr.zones)
        ? []
        : ["heart_rate: custom_zones and zones expected"];
    },
  },
  {
    name: "get-activity-streams",
    method: "GET",
    path: () => `/activities/${ids.ride}/streams/time,distance,heartrate,cadence,watts`,
    query: { series_type: "distance" },
    check: (body) => {
      if (!Array.isArray(body)) return ["not an array of streams"];
      const types = body.map((b: { type: string }) => b.type);
      const wrong = body.filter((b: { data?: unknown; original_size?: unknown }) =>
        !Array.isArray(b.data) || !Number.isInteger(b.original_size)
      );
      return ["time", "distance", "heartrate", "cadence", "watts"].every((t) => types.includes(t)) && wrong.length === 0
        ? []
        : [`streams ${types}`];
    },
  },
];

/** axios: baseURL and a path with or without its leading slash make one URL. */
const join = (base: string, path: string) => `${base.replace(/\/$/, "")}/${path.replace(/^\//, "")}`;

async function run(tool: Tool, base: string) {
  const query = tool.name === "list-segment-efforts" ? { ...tool.query, segment_id: ids.segment } : tool.query;
  const url = new URL(join(base, tool.path()));
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, String(v));
  const res = await fetch(url, {
    method: tool.method,
    headers: {
      authorization: `Bearer ${s.people.Ann.token}`,
      ...(tool.json ? { "content-type": "application/json" } : {}),
    },
    body: tool.json ? JSON.stringify(tool.json) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, body: tool.text ? text : JSON.parse(text) };
}

describe("the Strava MCP server's tools against this server", () => {
  it("has 18 tools, each a request this server answers as the tool parses it, inside Strava's model", async () => {
    expect(TOOLS.length).toBe(18);
    const failures: string[] = [];
    const missing = new Set<string>();
    for (const tool of TOOLS) {
      const res = await run(tool, `${s.server.url}/api/v3`);
      if (res.status !== 200) {
        failures.push(`${tool.name}: HTTP ${res.status} ${res.text.slice(0, 120)}`);
        continue;
      }
      failures.push(...tool.check(res.body).map((f) => `${tool.name}: ${f}`));
      if (tool.model) {
        for (const item of Array.isArray(res.body) ? res.body : [res.body]) {
          failures.push(...violations(item, STRAVA_RULES[tool.model]).map((f) => `${tool.name}: ${f}`));
        }
        for (const path of missingKeys(res.body, tool.model)) missing.add(`${tool.name}: ${generalPath(path)}`);
      }
    }
    expect(failures).toEqual([]);
    console.log(
      `Strava MCP: ${TOOLS.length} tools answered and parsed; Strava-model paths absent in them: ${
        missing.size ? [...missing].join(", ") : "none"
      }`,
    );
  }, 300_000);

  it("answers the club's pictures at the absolute URLs list-athlete-clubs requires", async () => {
    const clubs = (await s.call("GET", "/api/v3/athlete/clubs", { token: s.people.Ann.token })).body;
    const club = clubs.find((c: { id: number }) => c.id === ids.club);
    for (const key of ["profile", "profile_medium"]) {
      const picture = await fetch(club[key]);
      expect(picture.status, `${key} ${club[key]}`).toBe(200);
      expect(picture.headers.get("content-type")).toBe("image/png");
      const bytes = new Uint8Array(await picture.arrayBuffer());
      expect([...bytes.slice(1, 4)].map((b) => String.fromCharCode(b)).join("")).toBe("PNG");
    }
    expect((await fetch(club.profile.replace(`/${ids.club}/`, "/999999999/"))).status).toBe(404);
  });

  it("serves the same tools on the API host without /v3 (PUBLIC_API_URL), and leaves other hosts alone", async () => {
    const failures: string[] = [];
    for (const tool of TOOLS) {
      const res = await run(tool, apiHost);
      if (res.status !== 200) failures.push(`${tool.name}: HTTP ${res.status} ${res.text.slice(0, 120)}`);
      else failures.push(...tool.check(res.body).map((f) => `${tool.name}: ${f}`));
    }
    expect(failures).toEqual([]);
    // The same path on the main host is not the API (a page or a 404), so the mapping is by host only.
    const main = await fetch(`${s.server.url}/athlete`, {
      headers: { authorization: `Bearer ${s.people.Ann.token}`, accept: "application/json" },
    });
    expect(main.status).toBe(404);
    // Prefixed paths and OAuth still answer on the API host; an unknown path is the API's JSON 404.
    expect((await api(apiHost)("GET", "/v3/athlete", { token: s.people.Ann.token })).body.id).toBe(s.people.Ann.id);
    expect((await api(apiHost)("GET", "/api/v3/athlete", { token: s.people.Ann.token })).body.id).toBe(s.people.Ann.id);
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
  }, 300_000);

  it("documents, on /docs/connect, how to point each tool here, with this server's host and API host", async () => {
    const page = await fetch(`${s.server.url}/docs/connect`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const host = new URL(s.server.url).host;
    expect(html).toContain('id="strava-tools"');
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
