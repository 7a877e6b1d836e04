import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decode as decodePng } from "fast-png";
import polyline from "@mapbox/polyline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChallenge } from "../../server/challenges/commands.ts";
import { parseDeviceFile } from "../../server/ingest/decode.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { SHARED_DEVICES as DEVICES } from "../helpers/fixtures.ts"; // copyleft files included: a *.shared suite

/**
 * Private activities (uploaded from real files and created by hand) and a privacy zone, then every
 * list, leaderboard, feed, heatmap tile, stream and effort walked as other athletes and as the owner
 * without view_private: none of the private ids or names, and no point inside the zone, may appear.
 */
const ROUTE_FILE = "gpx/garmin-connect-edge1000-cycling-short-3formats.gpx"; // private for the owner, public for a rival
const ZONED_FILE = "gpx/suunto-movescount-hr-temp.gpx"; // public, starts inside the owner's privacy zone
const ZONE_RADIUS = 400;

let server: TestServer;
let owner: TestAthlete; // full scopes
let ownerRead: string; // the owner's token without view_private
let rival: TestAthlete;
let clubmate: TestAthlete;
const secret = {
  activityIds: [] as number[],
  names: [] as string[],
  effortIds: [] as string[],
  uploadIds: [] as number[],
};
let zone: { lat: number; lng: number };
let zonedActivity: number;
let segmentId: number;
let clubId: number;
let challengeId: number;
let routeMid: [number, number];

async function upload(athlete: TestAthlete, file: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.set("file", new Blob([readFileSync(join(DEVICES, file))]), file.split("/").pop()!);
  form.set("data_type", "gpx");
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const res = await server.api("POST", "/v3/uploads", { token: athlete.token, multipart: form });
  expect(res.status, res.text).toBe(201);
  for (let i = 0; i < 600; i++) {
    const poll = await server.api("GET", `/v3/uploads/${res.body.id}`, { token: athlete.token });
    if (poll.body.status !== UPLOAD_STATUS.processing) {
      expect(poll.body.status, poll.body.error).toBe(UPLOAD_STATUS.ready);
      return { uploadId: res.body.id as number, activityId: poll.body.activity_id as number };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("upload still processing");
}

function metres(a: [number, number], b: [number, number]): number {
  const rad = Math.PI / 180;
  const dLat = (b[0] - a[0]) * rad, dLng = (b[1] - a[1]) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371000 * Math.asin(Math.sqrt(h));
}

beforeAll(async () => {
  server = await startTestServer({ rateLimitShort: 100_000_000, rateLimitLong: 100_000_000 });
  owner = await server.athlete({ firstname: "Private", lastname: "Person", premium: true });
  ownerRead = await server.token(owner.id, owner.applicationId, ["read", "write"]);
  rival = await server.athlete({ firstname: "Rival" });
  clubmate = await server.athlete({ firstname: "Clubmate" });

  // The owner's privacy zone around the start of the zoned file.
  const zoned = await parseDeviceFile(new Uint8Array(readFileSync(join(DEVICES, ZONED_FILE))), "gpx");
  const first = zoned.samples.find((s) => s.lat !== null)!;
  zone = { lat: first.lat!, lng: first.lng! };
  const z = await server.api("POST", "/v3/athlete/privacy_zones", {
    token: owner.token,
    form: { lat: zone.lat, lng: zone.lng, radius: ZONE_RADIUS },
  });
  expect(z.status).toBe(201);

  // A segment on the route, from the rival's public ride of it; then the owner's private ride of it.
  const route = await parseDeviceFile(new Uint8Array(readFileSync(join(DEVICES, ROUTE_FILE))), "gpx");
  const mid = route.samples.filter((s) => s.lat !== null)[Math.floor(route.samples.length / 2)];
  routeMid = [mid.lat!, mid.lng!];
  const rivalRide = await upload(rival, ROUTE_FILE);
  const seg = await server.api("POST", "/v3/segments", {
    token: rival.token,
    form: { name: "Leak sprint", activity_id: rivalRide.activityId, start_index: 5, end_index: 80 },
  });
  expect(seg.status, seg.text).toBe(201);
  segmentId = seg.body.id;
  const privateRide = await upload(owner, ROUTE_FILE, { private: "1", name: "SECRET-UPLOADED-RIDE" });
  secret.activityIds.push(privateRide.activityId);
  secret.uploadIds.push(privateRide.uploadId);
  secret.names.push("SECRET-UPLOADED-RIDE");
  const efforts = await server.platform.db.query<{ id: string }>(
    "select id::text as id from segment_efforts where activity_id = $1",
    [privateRide.activityId],
  );
  expect(efforts.length, "the private ride matched the segment").toBeGreaterThan(0);
  secret.effortIds.push(...efforts.map((e) => e.id));

  // A private manual activity, and a public one through the zone.
  const manual = await server.api("POST", "/v3/activities", {
    token: owner.token,
    form: {
      name: "SECRET-MANUAL-RUN",
      type: "Run",
      start_date_local: "2026-05-02T07:00:00Z",
      elapsed_time: 1800,
      distance: 5000,
      private: true,
    },
  });
  expect(manual.status).toBe(201);
  secret.activityIds.push(manual.body.id);
  secret.names.push("SECRET-MANUAL-RUN");
  zonedActivity = (await upload(owner, ZONED_FILE, { name: "Public through the zone" })).activityId;

  // A club and a challenge both athletes share.
  const club = await server.api("POST", "/v3/clubs", {
    token: clubmate.token,
    form: { name: "Leak Club", sport_type: "cycling" },
  });
  clubId = club.body.id;
  for (const a of [owner, rival]) {
    expect((await server.api("POST", `/v3/clubs/${clubId}/join`, { token: a.token })).status).toBe(200);
  }
  challengeId = await createChallenge(server.platform, {
    name: "Leak challenge",
    type: "CumulativeChallenge",
    dimension: "distance",
    goal: 1_000_000,
    startDate: "2000-01-01",
    endDate: "2099-12-31",
  });
  for (const a of [owner, rival, clubmate]) {
    expect((await server.api("POST", `/v3/challenges/${challengeId}/athletes`, { token: a.token })).status).toBe(200);
  }
}, 240_000);
afterAll(() => server.close());

/** Every point-like value in a JSON answer: [lat, lng] pairs and decoded polylines. */
function points(value: unknown, out: [number, number][] = []): [number, number][] {
  if (Array.isArray(value)) {
    if (
      value.length === 2 && typeof value[0] === "number" && typeof value[1] === "number" && Math.abs(value[0]) <= 90 &&
      Math.abs(value[1]) <= 180
    ) {
      out.push([value[0], value[1]]);
    } else for (const v of value) points(v, out);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === "string" && /polyline/i.test(k) && v) {
        try {
          for (const p of polyline.decode(v, 5)) out.push(p as [number, number]);
        } catch { /* not a polyline */ }
      } else points(v, out);
    }
  }
  return out;
}

/** Leaks found in one answer. */
function leaks(path: string, text: string, body: unknown): string[] {
  const found: string[] = [];
  for (const name of secret.names) if (text.includes(name)) found.push(`${path}: name ${name}`);
  for (const id of secret.effortIds) if (text.includes(id)) found.push(`${path}: effort ${id}`);
  const walk = (v: unknown, key: string) => {
    if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      const isActivity = "sport_type" in o || "start_date" in o || ("type" in o && "distance" in o);
      if (isActivity && secret.activityIds.includes(Number(o.id))) found.push(`${path}: activity ${o.id}`);
      if ("activity_id" in o && secret.activityIds.includes(Number(o.activity_id))) {
        found.push(`${path}: activity_id ${o.activity_id}`);
      }
      if (key === "activity" && secret.activityIds.includes(Number(o.id))) found.push(`${path}: activity ${o.id}`);
      for (const [k, x] of Object.entries(o)) walk(x, k);
    }
  };
  walk(body, "");
  for (const p of points(body)) {
    if (metres(p, [zone.lat, zone.lng]) < ZONE_RADIUS - 5) found.push(`${path}: point ${p} inside the privacy zone`);
  }
  return found;
}

/** Every read a viewer can make that could carry the owner's data. */
function reads(): string[] {
  const a = [...secret.activityIds, zonedActivity];
  return [
    "/v3/athlete/activities?per_page=200",
    `/v3/athletes/${owner.id}`,
    ...a.flatMap((id) => [
      `/v3/activities/${id}`,
      `/v3/activities/${id}/streams?keys=latlng,time,distance,altitude`,
      `/v3/activities/${id}/streams/latlng`,
      `/v3/activities/${id}/laps`,
      `/v3/activities/${id}/zones`,
      `/v3/activities/${id}/kudos`,
      `/v3/activities/${id}/comments`,
      `/v3/activities/${id}/photos`,
    ]),
    `/v3/activities/${zonedActivity}?include_all_efforts=true`,
    `/v3/segments/${segmentId}`,
    `/v3/segments/${segmentId}/leaderboard`,
    `/v3/segments/${segmentId}/all_efforts?per_page=200`,
    `/v3/segments/${segmentId}/streams?keys=latlng,distance`,
    `/v3/segments/explore?bounds=${routeMid[0] - 0.05},${routeMid[1] - 0.05},${routeMid[0] + 0.05},${
      routeMid[1] + 0.05
    }`,
    ...secret.effortIds.map((id) => `/v3/segment_efforts/${id}`),
    `/v3/clubs/${clubId}/activities?per_page=200`,
    `/v3/clubs/${clubId}/members`,
    `/v3/challenges/${challengeId}/leaderboard`,
    `/v3/challenges/${challengeId}`,
    "/v3/challenges/joined",
    ...secret.uploadIds.map((id) => `/v3/uploads/${id}`),
    `/v3/athletes/${owner.id}/segments/starred`,
  ];
}

describe("leak scan", () => {
  it("the owner with view_private sees the private data (so the scan can fail)", async () => {
    const list = await server.api("GET", "/v3/athlete/activities", { token: owner.token, query: { per_page: 200 } });
    expect(list.body.map((x: { id: number }) => x.id)).toEqual(expect.arrayContaining(secret.activityIds));
    expect(leaks("owner list", list.text, list.body).length).toBeGreaterThan(0);
    const effort = await server.api("GET", `/v3/segment_efforts/${secret.effortIds[0]}`, { token: owner.token });
    expect(effort.status).toBe(200);
    const streams = await server.api("GET", `/v3/activities/${zonedActivity}/streams`, {
      token: owner.token,
      query: { keys: "latlng" },
    });
    expect(leaks("owner streams", streams.text, streams.body).some((l) => l.includes("inside the privacy zone"))).toBe(
      true,
    );
  });

  it("other athletes and the owner without view_private see none of it in any read", async () => {
    const viewers = { rival: rival.token, clubmate: clubmate.token, "owner without view_private": ownerRead };
    const found: string[] = [];
    let requests = 0;
    for (const [who, token] of Object.entries(viewers)) {
      // The uploader's own upload status names the activity the upload created (the spec's upload
      // status, whatever the scope): not walked for the owner; for others it must be a 404.
      for (const path of reads().filter((p) => !(who.startsWith("owner") && p.startsWith("/v3/uploads/")))) {
        const res = await server.api("GET", path, { token });
        requests++;
        expect(res.status, `${who} ${path}`).toBeLessThan(500);
        found.push(...leaks(`${who} GET ${path} (${res.status})`, res.text, res.body));
      }
    }
    expect(found).toEqual([]);
    console.log(
      `leak scan: ${requests} reads by 3 viewers over ${secret.activityIds.length} private activities, ${secret.effortIds.length} private efforts and a ${ZONE_RADIUS} m privacy zone; leaks 0`,
    );
  }, 120_000);

  it("heatmap tiles show neither the private ride nor anything inside the privacy zone", async () => {
    const everyType = Array.from({ length: 29 }, (_, i) => i + 1).join(",");
    const created = await server.api("POST", "/v3/athlete/heatmaps", {
      token: owner.token,
      form: { activity_type_ids: everyType },
    });
    expect(created.status, created.text).toBe(201);
    const mapId = created.body.id;
    for (let i = 0; i < 600; i++) {
      const p = await server.api("GET", `/v3/athletes/${owner.id}/heatmaps/${mapId}/progress`, { token: owner.token });
      if (p.body.status === "done") break;
      expect(p.body.status).not.toBe("error");
      await new Promise((r) => setTimeout(r, 100));
    }
    const z = 15;
    const pixel = ([lat, lng]: [number, number]) => {
      const n = 2 ** z * 256;
      const x = ((lng + 180) / 360) * n;
      const s = Math.sin((lat * Math.PI) / 180);
      const y = (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n;
      return { tx: Math.floor(x / 256), ty: Math.floor(y / 256), px: Math.floor(x % 256), py: Math.floor(y % 256) };
    };
    const tileAt = async (latlng: [number, number]) => {
      const { tx, ty } = pixel(latlng);
      const res = await fetch(`${server.url}/heatmaps/${owner.id}/${mapId}/tiles/${z}/${tx}/${ty}.png`);
      expect(res.status).toBe(200);
      return decodePng(new Uint8Array(await res.arrayBuffer()));
    };
    const alpha = (img: ReturnType<typeof decodePng>, px: number, py: number) => {
      const channels = img.channels;
      return channels === 4 ? img.data[(py * img.width + px) * 4 + 3] : img.data[(py * img.width + px) * channels];
    };
    // Painted: the zoned ride outside the zone (the tiles work). Blank: the zone and the private ride.
    const zoned = await parseDeviceFile(new Uint8Array(readFileSync(join(DEVICES, ZONED_FILE))), "gpx");
    const outside = zoned.samples.find((s) =>
      s.lat !== null && metres([s.lat, s.lng!], [zone.lat, zone.lng]) > ZONE_RADIUS + 300
    )!;
    const o = pixel([outside.lat!, outside.lng!]);
    const outsideTile = await tileAt([outside.lat!, outside.lng!]);
    let painted = 0;
    for (let dy = -3; dy <= 3; dy++) {
      for (let dx = -3; dx <= 3; dx++) {
        const x = o.px + dx, y = o.py + dy;
        if (x >= 0 && y >= 0 && x < 256 && y < 256 && alpha(outsideTile, x, y) > 0) painted++;
      }
    }
    expect(painted, "the public ride outside the zone is drawn").toBeGreaterThan(0);

    let inZone = 0;
    const c = pixel([zone.lat, zone.lng]);
    const zoneTile = await tileAt([zone.lat, zone.lng]);
    const metresPerPixel = (156543.03 * Math.cos((zone.lat * Math.PI) / 180)) / 2 ** z;
    const r = Math.floor((ZONE_RADIUS - 40) / metresPerPixel);
    for (let dy = -r; dy <= r; dy++) {
      for (let dx = -r; dx <= r; dx++) {
        const x = c.px + dx, y = c.py + dy;
        if (dx * dx + dy * dy > r * r || x < 0 || y < 0 || x >= 256 || y >= 256) continue;
        if (alpha(zoneTile, x, y) > 0) inZone++;
      }
    }
    expect(inZone, "pixels inside the privacy zone").toBe(0);

    const privateTile = await tileAt(routeMid);
    const m = pixel(routeMid);
    let onPrivate = 0;
    for (let dy = -5; dy <= 5; dy++) {
      for (let dx = -5; dx <= 5; dx++) {
        const x = m.px + dx, y = m.py + dy;
        if (x >= 0 && y >= 0 && x < 256 && y < 256 && alpha(privateTile, x, y) > 0) onPrivate++;
      }
    }
    expect(onPrivate, "pixels of the private ride").toBe(0);
    console.log(
      `leak scan (heatmap z${z}): ${painted} painted pixels near the public ride, 0 inside the zone (radius ${r}px), 0 on the private ride`,
    );
  }, 120_000);
});
