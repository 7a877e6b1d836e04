import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { polyline } from "../helpers/polyline.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { DEVICES } from "../helpers/fixtures.ts";
import { type Api, api, uploadUntilReady } from "../helpers/http.ts";

/**
 * Routes attacked over HTTP on the server as `npm start` runs it (issue #19, routes' privacy rules):
 * another athlete cuts routes from the owner's private ride and from a public ride through her
 * privacy zone, the owner publishes a route from her private ride or through her zone, a line drawn
 * before the zone existed crosses it; then every route path (detail, list, streams, GPX, TCX) is read
 * as another athlete and as the owner's token without read_all: no private route, no name of one, and
 * no point inside the zone may come out. The owner with read_all still sees her private route's points
 * in the zone, so the probes can see what they look for.
 */
const PUBLIC_FILE = "gpx/strava-export-cycling-power-hr-cad-atemp.gpx";
const PRIVATE_FILE = "fit/garmin-edge1000-cycling-short-3formats.fit";
const ZONE_RADIUS = 250;

let server: DenoServer;
let call: Api;
const tokens = { ownerFull: "", ownerWrite: "", rival: "" };
let ownerId = 0;
let publicRide = 0;
let privateRide = 0;
let latlng: [number, number][] = [];
let zone: { lat: number; lng: number };
/** Routes made below, by name. */
const routes: Record<string, number> = {};

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

async function makeRoute(token: string, body: Record<string, unknown>): Promise<number> {
  const res = await call("POST", "/v3/routes", { token, json: body });
  expect(res.status, res.text).toBe(201);
  routes[String(body.name)] = res.body.id;
  return res.body.id;
}

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-route-privacy-"));
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
    name: "Routes",
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
  latlng = streams.body.latlng.data;
  const homeIndex = Math.floor(latlng.length / 3);
  const home = latlng[homeIndex];
  zone = { lat: home[0], lng: home[1] };
  // A public line drawn through the place before it became a privacy zone.
  await makeRoute(tokens.ownerFull, {
    name: "Drawn before the zone",
    latlng: latlng.slice(homeIndex - 150, homeIndex + 150),
  });
  const z = await call("POST", "/v3/athlete/privacy_zones", {
    token: tokens.ownerFull,
    form: { lat: zone.lat, lng: zone.lng, radius: ZONE_RADIUS },
  });
  expect(z.status, z.text).toBe(201);
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

/** Every [lat, lng] in an answer: JSON pairs, encoded polylines, and GPX/TCX coordinates. */
function positions(text: string): [number, number][] {
  const out: [number, number][] = [];
  for (const m of text.matchAll(/lat="(-?[\d.]+)" lon="(-?[\d.]+)"/g)) out.push([Number(m[1]), Number(m[2])]);
  for (
    const m of text.matchAll(
      /<LatitudeDegrees>(-?[\d.]+)<\/LatitudeDegrees><LongitudeDegrees>(-?[\d.]+)<\/LongitudeDegrees>/g,
    )
  ) {
    out.push([Number(m[1]), Number(m[2])]);
  }
  if (text.startsWith("{") || text.startsWith("[")) {
    const walk = (value: unknown, key: string) => {
      if (Array.isArray(value)) {
        if (
          value.length === 2 && typeof value[0] === "number" && typeof value[1] === "number" && Math.abs(value[0]) <= 90
        ) {
          out.push([value[0], value[1]]);
        } else for (const v of value) walk(v, key);
      } else if (value && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) walk(v, k);
      } else if (typeof value === "string" && /polyline/.test(key) && value) {
        out.push(...(polyline.decode(value) as [number, number][]));
      }
    };
    walk(JSON.parse(text), "");
  }
  return out;
}

describe("creating routes from what must not be published", () => {
  it("refuses what the token may not see or must not publish, and cuts the zone out of the rest", async () => {
    expect(latlng.filter(inZone).length, "the public ride passes through the zone").toBeGreaterThan(2);
    const attacks: { what: string; token: string; body: Record<string, unknown>; status: number; field: string }[] = [
      {
        what: "another athlete, the owner's private ride",
        token: tokens.rival,
        body: { activity_id: privateRide, private: true },
        status: 404,
        field: "id",
      },
      {
        what: "the owner without read_all, her private ride",
        token: tokens.ownerWrite,
        body: { activity_id: privateRide, private: true },
        status: 404,
        field: "id",
      },
      {
        what: "a public route from a private ride",
        token: tokens.ownerFull,
        body: { activity_id: privateRide },
        status: 400,
        field: "private",
      },
    ];
    for (const attack of attacks) {
      const res = await call("POST", "/v3/routes", {
        token: attack.token,
        json: { name: `Attack: ${attack.what}`, ...attack.body },
      });
      expect([attack.what, res.status], res.text).toEqual([attack.what, attack.status]);
      expect(res.body.errors[0].field, attack.what).toBe(attack.field);
    }
    // Allowed, but without the zone: the rival's own routes (public and private) from the public ride,
    // and the owner's public one; the owner's private routes keep everything.
    await makeRoute(tokens.rival, { name: "Rival public copy", activity_id: publicRide });
    await makeRoute(tokens.rival, { name: "Rival private copy", activity_id: publicRide, private: true });
    await makeRoute(tokens.ownerFull, { name: "Owner public route", activity_id: publicRide });
    await makeRoute(tokens.ownerFull, { name: "SECRET-ROUTE-HOME", activity_id: publicRide, private: true });
    await makeRoute(tokens.ownerFull, { name: "SECRET-ROUTE-PRIVATE-RIDE", activity_id: privateRide, private: true });

    // Read exactly by their own owners with read_all: what was stored.
    const stored = async (name: string, token: string) =>
      positions((await call("GET", `/v3/routes/${routes[name]}/streams`, { token })).text);
    for (const name of ["Rival public copy", "Rival private copy"]) {
      const pts = await stored(name, tokens.rival);
      expect(pts.length, name).toBeGreaterThan(1000);
      expect(pts.filter(inZone), `${name} holds no point of Zoe's zone`).toEqual([]);
    }
    expect((await stored("Owner public route", tokens.ownerFull)).filter(inZone)).toEqual([]);
    expect(
      (await stored("SECRET-ROUTE-HOME", tokens.ownerFull)).filter(inZone).length,
      "the owner's private route keeps her home",
    ).toBeGreaterThan(2);
    expect(
      (await stored("Drawn before the zone", tokens.ownerFull)).filter(inZone).length,
      "the owner sees her drawn line whole",
    ).toBeGreaterThan(2);
  }, 120_000);
});

describe("every route path, read by others", () => {
  it("lets no private route and no point inside the zone out", async () => {
    const viewers = { rival: tokens.rival, "owner without read_all": tokens.ownerWrite };
    const leaks: string[] = [];
    let probes = 0, pointsSeen = 0;
    const zoes = ["Drawn before the zone", "Owner public route", "SECRET-ROUTE-HOME", "SECRET-ROUTE-PRIVATE-RIDE"];
    for (const [who, token] of Object.entries(viewers)) {
      const paths = [`/v3/athletes/${ownerId}/routes?per_page=200`];
      for (const name of zoes) {
        const id = routes[name];
        paths.push(
          `/v3/routes/${id}`,
          `/v3/routes/${id}/streams`,
          `/v3/routes/${id}/streams?key_by_type=true`,
          `/v3/routes/${id}/export_gpx`,
          `/v3/routes/${id}/export_tcx`,
        );
      }
      for (const path of paths) {
        const res = await call("GET", path, { token });
        probes++;
        expect(res.status, `${who} ${path}`).toBeLessThan(500);
        const isSecret = zoes.slice(2).some((n) => path.includes(`/routes/${routes[n]}`));
        if (isSecret && res.status !== 404) leaks.push(`${who} ${path}: a private route answered ${res.status}`);
        if (res.text.includes("SECRET-ROUTE")) leaks.push(`${who} ${path}: a private route's name`);
        const seen = positions(res.text);
        pointsSeen += seen.length;
        const inside = seen.filter(inZone).length;
        if (inside > 0) leaks.push(`${who} ${path}: ${inside} points inside the zone`);
      }
    }
    expect(pointsSeen, "the probes read positions at all").toBeGreaterThan(1000);
    expect(leaks).toEqual([]);
    console.log(
      `route privacy: ${leaks.length} leaks in ${probes} probes (${pointsSeen} positions read by 2 viewers); 3 create attacks refused`,
    );
  }, 120_000);
});
