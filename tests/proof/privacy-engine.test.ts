import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { polyline } from "../helpers/polyline.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type DenoServer, ROOT, startDenoServer } from "../helpers/deno.ts";
import { DEVICES } from "../helpers/fixtures.ts";
import { type Api, api, uploadUntilReady } from "../helpers/http.ts";
import { WebClient } from "../oauth/web-client.ts";
import { signInWith } from "./web-attacks.ts";

/**
 * Privacy is one engine (issue #15, item 1), attacked over HTTP on the server as `npm start` runs it.
 * The attacker cuts segments from what must not be published — a private activity with a token
 * without view_private, a private activity into a public segment, a stretch inside the owner's
 * privacy zone — then every path that copies activity data elsewhere (segments and their streams,
 * explore, efforts, club feed, activity maps and streams) is read as another athlete and as the
 * owner without view_private: no private activity and no point inside the zone may come out.
 * A source scan then fails when a file reads activity points without the privacy engine.
 */
const PUBLIC_FILE = "gpx/strava-export-cycling-power-hr-cad-atemp.gpx";
const PRIVATE_FILE = "fit/garmin-edge1000-cycling-short-3formats.fit";
const ZONE_RADIUS = 250;

let server: DenoServer;
let call: Api;
const tokens = { ownerFull: "", ownerWrite: "", ownerRead: "", rival: "" };
let ownerId = 0;
let publicRide = 0;
let privateRide = 0;
let latlng: ([number, number] | null)[] = [];
let zone: { lat: number; lng: number };
let clubId = 0;
const segmentsMade: number[] = [];

/** Great-circle distance in metres (haversine, mean Earth radius), written here independently of the server. */
function metres(a: readonly [number, number], b: readonly [number, number]): number {
  const rad = Math.PI / 180;
  const dLat = (b[0] - a[0]) * rad, dLng = (b[1] - a[1]) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371000 * Math.asin(Math.min(1, Math.sqrt(h)));
}
const inZone = (p: readonly [number, number]) => metres(p, [zone.lat, zone.lng]) <= ZONE_RADIUS;

function upload(token: string, file: string, fields: Record<string, string>) {
  return uploadUntilReady(call, token, {
    bytes: readFileSync(join(DEVICES, file)),
    name: file.split("/").pop()!,
    dataType: file.split(".").pop()!,
  }, fields);
}

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-privacy-engine-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  ownerId = await createAthlete(setup, {
    firstname: "Zoe",
    lastname: "Zoned",
    email: "zoe@example.com",
    password: "password123",
  });
  const rivalId = await createAthlete(setup, {
    firstname: "Rex",
    lastname: "Rival",
    email: "rex@example.com",
    password: "password123",
  });
  const app = await createApplication(setup, {
    name: "Privacy",
    ownerId,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  tokens.ownerFull = await issueToken(setup, {
    athleteId: ownerId,
    applicationId: app.client_id,
    permissions: ["read", "write", "view_private"],
  });
  tokens.ownerWrite = await issueToken(setup, {
    athleteId: ownerId,
    applicationId: app.client_id,
    permissions: ["read", "write"],
  });
  tokens.ownerRead = await issueToken(setup, {
    athleteId: ownerId,
    applicationId: app.client_id,
    permissions: ["read"],
  });
  tokens.rival = await issueToken(setup, {
    athleteId: rivalId,
    applicationId: app.client_id,
    permissions: ["read", "write", "view_private"],
  });
  await setup.close();
  server = await startDenoServer({
    dataDir,
    env: { SEED_DEMO: "0", RATE_LIMIT_SHORT: "1000000", RATE_LIMIT_LONG: "1000000" },
  });
  call = api(server.url);

  publicRide = await upload(tokens.ownerFull, PUBLIC_FILE, { name: "Public ride past home" });
  privateRide = await upload(tokens.ownerFull, PRIVATE_FILE, { name: "SECRET-RIDE", private: "1" });
  const streams = await call("GET", `/v3/activities/${publicRide}/streams`, {
    token: tokens.ownerFull,
    query: { keys: "latlng", key_by_type: true },
  });
  expect(streams.status).toBe(200);
  latlng = streams.body.latlng.data;
  // The owner's home: a privacy zone around a point a third of the way along the public ride.
  const home = latlng[Math.floor(latlng.length / 3)]!;
  zone = { lat: home[0], lng: home[1] };
  const z = await call("POST", "/v3/athlete/privacy_zones", {
    token: tokens.ownerFull,
    form: { lat: zone.lat, lng: zone.lng, radius: ZONE_RADIUS },
  });
  expect(z.status, z.text).toBe(201);

  const club = await call("POST", "/v3/clubs", {
    token: tokens.ownerFull,
    form: { name: "Zoe's club", sport_type: "cycling" },
  });
  expect(club.status, club.text).toBe(201);
  clubId = club.body.id;
  expect((await call("POST", `/v3/clubs/${clubId}/join`, { token: tokens.rival })).status).toBe(200);
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

/** Stream indexes of the public ride whose position lies inside the zone (by the test's own haversine). */
function zoneIndexes(): number[] {
  return latlng.flatMap((p, i) => (p && inZone(p) ? [i] : []));
}

describe("cutting segments from what must not be published (POST /v3/segments)", () => {
  it("refuses every attack with the documented error, and still cuts a clean public stretch", async () => {
    const inside = zoneIndexes();
    expect(inside.length, "the public ride passes through the zone").toBeGreaterThan(2);
    const first = inside[0], last = inside[inside.length - 1];
    const outsideFrom = last + 50; // a stretch after the zone, clear of it
    const outsideTo = Math.min(latlng.length - 1, outsideFrom + 300);
    expect(latlng.slice(outsideFrom, outsideTo + 1).every((p) => !p || !inZone(p))).toBe(true);

    const attacks: {
      what: string;
      token: string;
      form: Record<string, string | number>;
      status: number;
      field?: string;
    }[] = [
      {
        what: "private activity, token without view_private",
        token: tokens.ownerWrite,
        form: { activity_id: privateRide, start_index: 5, end_index: 60 },
        status: 404,
      },
      {
        what: "private activity into a public segment",
        token: tokens.ownerFull,
        form: { activity_id: privateRide, start_index: 5, end_index: 60 },
        status: 400,
        field: "private",
      },
      {
        what: "private activity into a 'private=0' segment",
        token: tokens.ownerFull,
        form: { activity_id: privateRide, start_index: 5, end_index: 60, private: 0 },
        status: 400,
        field: "private",
      },
      {
        what: "stretch starting inside the zone",
        token: tokens.ownerFull,
        form: { activity_id: publicRide, start_index: first + 1, end_index: last + 40 },
        status: 400,
        field: "start_index",
      },
      {
        what: "stretch crossing the zone",
        token: tokens.ownerFull,
        form: { activity_id: publicRide, start_index: Math.max(0, first - 40), end_index: last + 40 },
        status: 400,
        field: "end_index",
      },
      {
        what: "stretch ending inside the zone",
        token: tokens.ownerFull,
        form: { activity_id: publicRide, start_index: Math.max(0, first - 40), end_index: first + 1 },
        status: 400,
        field: "end_index",
      },
      {
        what: "another athlete's activity",
        token: tokens.rival,
        form: { activity_id: publicRide, start_index: outsideFrom, end_index: outsideTo },
        status: 404,
      },
    ];
    for (const attack of attacks) {
      const res = await call("POST", "/v3/segments", {
        token: attack.token,
        form: { name: `Attack: ${attack.what}`, ...attack.form },
      });
      expect([attack.what, res.status], res.text).toEqual([attack.what, attack.status]);
      expect(res.body.message, attack.what).toEqual(expect.any(String));
      expect(res.body.errors, attack.what).toEqual(expect.any(Array));
      if (attack.field) {
        expect(res.body.errors, attack.what).toEqual([{ resource: "Segment", field: attack.field, code: "invalid" }]);
      }
      expect(res.text, attack.what).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
    }

    // What the owner may publish still works: a public stretch outside the zone, and a private
    // segment from the private ride (seen by the owner only).
    const clean = await call("POST", "/v3/segments", {
      token: tokens.ownerFull,
      form: { name: "Clean climb", activity_id: publicRide, start_index: outsideFrom, end_index: outsideTo },
    });
    expect(clean.status, clean.text).toBe(201);
    segmentsMade.push(clean.body.id);
    const mine = await call("POST", "/v3/segments", {
      token: tokens.ownerFull,
      form: { name: "SECRET-SEGMENT", activity_id: privateRide, start_index: 5, end_index: 60, private: 1 },
    });
    expect(mine.status, mine.text).toBe(201);
    segmentsMade.push(mine.body.id);

    // Nothing was half-written: the refused attacks left no segment behind.
    const explore = await call("GET", "/v3/segments/explore", {
      token: tokens.rival,
      query: { bounds: boundsAround(latlng, 0.05) },
    });
    expect(explore.status).toBe(200);
    expect(explore.body.segments.map((s: { name: string }) => s.name).filter((n: string) => n.startsWith("Attack")))
      .toEqual([]);
    console.log(
      `privacy engine: ${attacks.length} segment attacks refused (404 or 400 naming the field), 2 legitimate cuts accepted`,
    );
  }, 120_000);
});

function boundsAround(points: readonly ([number, number] | null)[], margin: number): string {
  const fixed = points.filter((p): p is [number, number] => p !== null);
  const lats = fixed.map((p) => p[0]), lngs = fixed.map((p) => p[1]);
  return [
    Math.min(...lats) - margin,
    Math.min(...lngs) - margin,
    Math.max(...lats) + margin,
    Math.max(...lngs) + margin,
  ].join(",");
}

/** Every [lat, lng] in a JSON answer: pairs, and the points of every encoded polyline string. */
function positions(value: unknown, key = "", out: [number, number][] = []): [number, number][] {
  if (Array.isArray(value)) {
    if (
      value.length === 2 && typeof value[0] === "number" && typeof value[1] === "number" && Math.abs(value[0]) <= 90 &&
      Math.abs(value[1]) <= 180
    ) {
      out.push([value[0], value[1]]);
    } else for (const v of value) positions(v, key, out);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) positions(v, k, out);
  } else if (typeof value === "string" && /polyline|points/.test(key) && value.length > 0) {
    out.push(...(polyline.decode(value) as [number, number][]));
  }
  return out;
}

describe("every copy path, read by others", () => {
  it("gives the original file only where the athlete sees everything: the owner with view_private, or the web app's session", async () => {
    // Issue #41 item 2: the owner's read-only token got the file as uploaded, home and all.
    const file = readFileSync(join(DEVICES, PUBLIC_FILE));
    const filePoints = [...file.toString("utf8").matchAll(/<trkpt lat="([-\d.]+)" lon="([-\d.]+)"/g)]
      .map((m) => [Number(m[1]), Number(m[2])] as [number, number]);
    expect(filePoints.filter(inZone).length, "the file itself passes through the zone").toBeGreaterThan(2);
    const original = (token: string, id = publicRide) =>
      fetch(new URL(`/v3/activities/${id}/export_original`, server.url), {
        headers: { authorization: `Bearer ${token}` },
      }).then(async (res) => ({ status: res.status, bytes: Buffer.from(await res.arrayBuffer()) }));
    const refused: Record<string, number> = {};
    for (
      const [who, token, id] of [
        ["owner, read only", tokens.ownerRead, publicRide],
        ["owner, read and write", tokens.ownerWrite, publicRide],
        ["another athlete with view_private (public ride)", tokens.rival, publicRide],
        ["another athlete with view_private (private ride)", tokens.rival, privateRide],
      ] as const
    ) {
      const res = await original(token, id);
      refused[who] = res.status;
      expect(res.bytes.includes(Buffer.from("<trkpt")), who).toBe(false);
    }
    expect(refused).toEqual({
      "owner, read only": 401,
      "owner, read and write": 401,
      "another athlete with view_private (public ride)": 403,
      "another athlete with view_private (private ride)": 404,
    });
    // The same token's GPX export leaves the zone out (the positive control of the engine's rule).
    const gpx = await call("GET", `/v3/activities/${publicRide}/export_gpx`, { token: tokens.ownerRead });
    expect(gpx.status).toBe(200);
    const gpxPoints = [...gpx.text.matchAll(/<trkpt lat="([-\d.]+)" lon="([-\d.]+)"/g)]
      .map((m) => [Number(m[1]), Number(m[2])] as [number, number]);
    expect(gpxPoints.length).toBeGreaterThan(100);
    expect(gpxPoints.filter(inZone)).toEqual([]);
    // The owner with view_private, and the web app's session (its page token), get the bytes as uploaded.
    const own = await original(tokens.ownerFull);
    expect(own.status).toBe(200);
    expect(own.bytes.equals(file)).toBe(true);
    const web = new WebClient(server.url);
    expect((await signInWith(web, "zoe@example.com", "password123")).status).toBe(303);
    const pageToken = /<meta name="api-token" content="([0-9a-f]+)">/.exec((await web.get("/")).text)?.[1];
    expect(pageToken).toBeTruthy();
    const session = await original(pageToken!);
    expect(session.status).toBe(200);
    expect(session.bytes.equals(file)).toBe(true);
    console.log(
      `export_original: read-only ${refused["owner, read only"]}, read+write ${
        refused["owner, read and write"]
      }, another athlete ${refused["another athlete with view_private (public ride)"]}/${
        refused["another athlete with view_private (private ride)"]
      }; owner with view_private and the web session: 200, the file as uploaded (${
        filePoints.filter(inZone).length
      } points in the zone); the read-only token's GPX: ${gpxPoints.length} points, 0 in the zone`,
    );
  });

  it("lets no private activity and no point inside the privacy zone out", async () => {
    expect(segmentsMade).toHaveLength(2);
    const [cleanSegment, privateSegment] = segmentsMade;
    const viewers = { rival: tokens.rival, "owner without view_private": tokens.ownerWrite };
    const reads: [string, Record<string, string | number | boolean>?][] = [
      [`/v3/activities/${publicRide}`],
      [`/v3/activities/${publicRide}/streams`, { keys: "latlng,time", key_by_type: true }],
      [`/v3/activities/${publicRide}/streams/latlng`],
      [`/v3/activities/${privateRide}`],
      [`/v3/activities/${privateRide}/streams`, { keys: "latlng" }],
      [`/v3/activities/${privateRide}/laps`],
      [`/v3/clubs/${clubId}/activities`, { per_page: 200 }],
      [`/v3/segments/explore`, { bounds: boundsAround(latlng, 0.05) }],
      [`/v3/segments/${cleanSegment}`],
      [`/v3/segments/${cleanSegment}/streams`, { keys: "latlng" }],
      [`/v3/segments/${cleanSegment}/all_efforts`, { per_page: 200 }],
      [`/v3/segments/${cleanSegment}/leaderboard`],
      [`/v3/segments/${privateSegment}`],
      [`/v3/segments/${privateSegment}/streams`, { keys: "latlng" }],
      [`/v3/segments/${privateSegment}/all_efforts`],
    ];
    const leaks: string[] = [];
    let probes = 0;
    let pointsSeen = 0;
    for (const [who, token] of Object.entries(viewers)) {
      for (const [path, query] of reads) {
        const res = await call("GET", path, { token, query });
        expect(res.status, `${who} ${path}`).toBeLessThan(500);
        probes++;
        const seen = positions(res.body);
        pointsSeen += seen.length;
        const inside = seen.filter(inZone).length;
        if (inside > 0) leaks.push(`${who} ${path}: ${inside} points inside the zone`);
        for (const secret of ["SECRET-RIDE", "SECRET-SEGMENT", `"id":${privateRide},`]) {
          if (res.status === 200 && res.text.includes(secret)) leaks.push(`${who} ${path}: ${secret}`);
        }
        if (
          res.status === 200 &&
          JSON.stringify(res.body, (_k, v) => (typeof v === "bigint" ? v.toString() : v)).includes(
            `"activity":{"id":${privateRide}`,
          )
        ) leaks.push(`${who} ${path}: an effort of the private ride`);
      }
    }
    // The probes can see: the owner with view_private reads the zone and the private ride.
    const exact = await call("GET", `/v3/activities/${publicRide}/streams`, {
      token: tokens.ownerFull,
      query: { keys: "latlng", key_by_type: true },
    });
    expect(positions(exact.body).filter(inZone).length, "the owner with view_private sees the zone's points")
      .toBeGreaterThan(0);
    expect((await call("GET", `/v3/activities/${privateRide}`, { token: tokens.ownerFull })).text).toContain(
      "SECRET-RIDE",
    );
    expect(pointsSeen, "the probes read positions at all").toBeGreaterThan(100);

    expect(leaks).toEqual([]);
    console.log(
      `privacy engine: ${leaks.length} leaks of ${probes} probes (${pointsSeen} positions read by 2 viewers over ${reads.length} copy paths)`,
    );
  }, 120_000);
});

/**
 * Files that read activity points or streams (the words below) without going through the privacy
 * engine, and why they may: they produce an activity's own data, or handle positions that reach
 * nobody but through a path that asks the engine. Anything else must import server/privacy/engine.ts.
 */
const POINT_READERS_WITHOUT_ENGINE: Record<string, string> = {
  "server/ingest/derive.ts": "produces the activity's own facts from the decoded file",
  "server/blobs.ts":
    "the blob store: reads the latlng part of stored streams for server/heatmaps/gather.ts, which decides through the engine what may be drawn",
  "server/heatmaps/commands.ts":
    "records the built tracks' blob and deletes it with its heatmap (what is drawn was chosen through the engine)",
  "server/segments/commands.ts":
    "records a new segment's source activity (its streams' blob name); the points cut are the engine's answer (segments/create.ts pointsFromActivity)",
  "server/uploads/job.ts": "stores the upload's streams as the activity's own data",
  "server/analysts/reprocess.ts": "re-derives the activity's own facts (operator tool)",
  "server/crop/rederive.ts":
    "re-derives the owner's activity's own facts and efforts from its original file over the kept window (crop and split); they reach others through the activity's own read paths",
  "server/activities/streams.ts": "loads and shapes streams; the only route answering them applies the engine first",
  "server/segments/matching.ts":
    "matches an activity against segments; efforts carry no positions and follow the activity's privacy",
  "server/segments/efforts.ts":
    "records efforts with the activity's privacy and their recorded end points, which the segments projection turns into the shield the engine reads (effortsOthersSee)",
  "server/segments/source-efforts.ts":
    "matches the activity a segment was cut from against the new segment (its owner's own track); its results reach others only as efforts, through efforts.ts's ranking and the segments projection's shield",
  "server/segments/track-matches.ts":
    "matches the activity's own track against segments (in the derive worker); its results reach others only through efforts.ts",
  "server/ingest/gaps.ts": "fills gaps in the activity's own streams while deriving",
  "server/uploads/decode-derive.ts": "decodes and derives the upload's own file in the derive worker",
  "server/uploads/derive-pool.ts": "hands the upload's own streams between the derive worker and the upload job",
  "server/uploads/derive-worker.ts": "the derive worker: decodes, derives and matches the upload's own data",
  "server/segments/geometry.ts": "pure geometry over a segment's own points",
  "server/athlete-routes/geometry.ts":
    "pure geometry over a route's own points (what reaches others is chosen in read.ts and create.ts, through the engine)",
  "server/athlete-routes/schema.ts": "the response schema of a route's streams (names the latlng key; holds no data)",
  "projections/queries/athlete-records.ts":
    "the records' queries: which activities count is the caller's list of visibility classes (the engine's visibilityClassesFor, in server/training/records.ts); the rides recorded before power curves were kept are named by their streams blob, of which that file reads only the watts (no positions)",
  "projections/heatmaps/queries.ts":
    "the heatmaps read models' queries: which activities and streams may be drawn is the engine's predicate, passed in by server/heatmaps (build.ts, gather.ts, tiles.ts)",
  "server/uploads/streams-transfer.ts":
    "packs the activity's own streams for the trip from a derive worker to the upload job",
  "server/activities/schema.ts":
    "zod schemas of the answers' shape for the OpenAPI document (map.summary_polyline is a member's name); reads no data",
  "server/segments/schema.ts":
    "zod schemas of the segment answers for the OpenAPI document (map.summary_polyline is a member's name); reads no data",
  "projections/queries/recorded-tracks.ts":
    "the operator's `elevation fetch` (server/elevation/cli.ts): which one-degree terrain tiles the recordings pass through; only tile names reach the operator, no point leaves the server",
  "server/mcp/tools/activities.ts":
    "an MCP tool's answer is the API route's answer (server/mcp/call-route.ts runs the route of the table: GET /v3/activities/:id/streams applies the engine first); it only samples and renames what the route returned",
  "server/mcp/tools/segments.ts":
    "an MCP tool's answer is the API route's answer (server/mcp/call-route.ts: the segment routes' own reads); start_latlng/end_latlng are the segment's, copied from that answer",
  "server/uploads/warm-up.ts":
    "warms the first upload's path with a synthetic recording whose points are all null, rolled back: reads no activity",
  "server/segments/represent.ts":
    "a segment's own line (map.polyline and summary_polyline), cut from an activity through the engine when the segment was made (server/segments/create.ts: pointsFromActivity)",
};
const POINT_WORDS =
  /\b(latlng|summaryPolyline|summary_polyline|streamsSha256|streams_sha256|startLatlng|endLatlng|loadStreams|tracks_sha256|tracksSha256)\b/;
const ENGINE_IMPORT = /from "(\.\.\/)+privacy\/engine\.ts"|from "\.\/engine\.ts"/;
const ENGINE_INTERNALS = /from "[./]*(server\/)?privacy\/(activities|maps)\.ts"/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(name) ? [path] : [];
  });
}

describe("no path bypasses the engine (source scan)", () => {
  it("every server file that reads activity points imports the engine or is a listed producer; nobody imports its internals", () => {
    // The server's files and the read models' queries (projections/<name>/queries.ts, projections/queries/).
    const files = [...sourceFiles(join(ROOT, "server")), ...sourceFiles(join(ROOT, "projections"))]
      .map((f) => relative(ROOT, f).split("\\").join("/"))
      .filter((f) => f.startsWith("server/") || f.endsWith("/queries.ts") || f.startsWith("projections/queries/"));
    const bypasses: string[] = [];
    const readers: string[] = [];
    for (const file of files) {
      if (file.startsWith("server/privacy/")) continue;
      const text = readFileSync(join(ROOT, file), "utf8");
      if (ENGINE_INTERNALS.test(text)) {
        bypasses.push(`${file} imports the engine's internals (privacy/activities.ts or privacy/maps.ts)`);
      }
      if (!POINT_WORDS.test(text)) continue;
      readers.push(file);
      if (!ENGINE_IMPORT.test(text) && !(file in POINT_READERS_WITHOUT_ENGINE)) {
        bypasses.push(`${file} reads activity points without server/privacy/engine.ts`);
      }
    }
    // The list names only files that exist and still read points (no stale exemptions).
    for (const listed of Object.keys(POINT_READERS_WITHOUT_ENGINE)) {
      expect(readers, `listed ${listed}`).toContain(listed);
    }
    expect(bypasses).toEqual([]);
    console.log(
      `privacy engine scan: ${readers.length} server files read activity points, ${
        readers.length - Object.keys(POINT_READERS_WITHOUT_ENGINE).length
      } through the engine, ${Object.keys(POINT_READERS_WITHOUT_ENGINE).length} listed producers, 0 bypasses`,
    );
  });
});
