// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../server/applications/commands.ts";
import { createSegment } from "../../server/segments/commands.ts";
import { systemActor } from "../../server/actor.ts";
import { startTestServer, type TestAthlete, type TestServer, uploadUntilReady } from "../helpers/server.ts";

/**
 * Issue #19, segment-effort parts: GET /v3/segment_efforts/:id/streams, GET /v3/segment_efforts
 * (the list endpoint), is_kom on efforts, and effort ids that a client parsing JSON numbers as
 * doubles still tells apart. The rides are GPX files written here (a straight line due north, one
 * point a second at a known speed), so every expected value comes from what the test wrote.
 */
const START_LAT = 46.2;
const LNG = 7.1;
const M_PER_DEG = 111_195; // metres per degree of latitude on the mean sphere
const latAt = (metres: number) => START_LAT + metres / M_PER_DEG;

/** [from, to] metres along the line: overlapping segments, so one ride makes several efforts. */
const STRETCHES: [number, number][] = [[300, 700], [200, 500], [400, 800], [100, 400], [500, 900]];

interface Ride {
  points: { lat: number; lng: number; ele: number; t: number }[];
  gpx: string;
}

/** A ride at `speed` m/s for `seconds`, starting at `startIso`; altitude rises 1 m every 20 m. */
function ride(speed: number, seconds: number, startIso: string): Ride {
  const t0 = Date.parse(startIso) / 1000;
  const points = Array.from({ length: seconds + 1 }, (_, i) => ({
    lat: Number(latAt(i * speed).toFixed(7)),
    lng: LNG,
    ele: Math.round(i * speed * 0.05 * 10) / 10,
    t: t0 + i,
  }));
  const trkpts = points.map((p) =>
    `<trkpt lat="${p.lat}" lon="${p.lng}"><ele>${p.ele}</ele><time>${
      new Date(p.t * 1000).toISOString().replace(/\.000Z$/, "Z")
    }</time></trkpt>`
  );
  return {
    points,
    gpx: `<?xml version="1.0"?><gpx version="1.1" creator="test"><trk><type>cycling</type><trkseg>${
      trkpts.join("")
    }</trkseg></trk></gpx>`,
  };
}

let server: TestServer;
let slow: TestAthlete;
let fast: TestAthlete;
const segmentIds: number[] = [];
let slowRide: Ride;
let fastRide: Ride;
let slowActivity: number;
let fastActivity: number;

async function upload(athlete: TestAthlete, r: Ride, name: string): Promise<number> {
  return uploadUntilReady(server, athlete.token, { bytes: r.gpx, name: `${name}.gpx`, dataType: "gpx" });
}

async function effortsOf(athlete: TestAthlete, activityId: number) {
  const res = await server.api("GET", `/v3/activities/${activityId}`, {
    token: athlete.token,
    query: { include_all_efforts: true },
  });
  expect(res.status).toBe(200);
  return res.body.segment_efforts as any[];
}

beforeAll(async () => {
  server = await startTestServer();
  slow = await server.athlete({ firstname: "Slow" });
  fast = await server.athlete({ firstname: "Fast" });
  for (const [from, to] of STRETCHES) {
    const points: [number, number][] = [];
    for (let m = from; m <= to; m += 50) points.push([latAt(m), LNG]);
    segmentIds.push(
      await createSegment(server.platform, {
        name: `Line ${from}-${to}`,
        activityType: "Ride",
        points,
        altitudes: null,
        athleteId: null,
        activityId: null,
      }, systemActor("test")),
    );
  }
  slowRide = ride(5, 220, "2026-03-02T09:00:00Z");
  fastRide = ride(8, 140, "2026-03-04T09:00:00Z");
  slowActivity = await upload(slow, slowRide, "slow");
}, 120_000);
afterAll(() => server.close());

describe("is_kom on segment efforts", () => {
  it("is true for the only effort on a segment, and follows the leaderboard when a faster athlete comes", async () => {
    const before = await effortsOf(slow, slowActivity);
    expect(before.map((e) => e.segment.id).sort()).toEqual([...segmentIds].sort());
    for (const e of before) expect(e.is_kom, e.name).toBe(true);

    fastActivity = await upload(fast, fastRide, "fast");
    const fastEfforts = await effortsOf(fast, fastActivity);
    expect(fastEfforts).toHaveLength(STRETCHES.length);
    for (const e of fastEfforts) expect(e.is_kom, e.name).toBe(true);
    // The slow efforts keep the kom_rank they earned at upload, but no longer hold the record.
    const after = await effortsOf(slow, slowActivity);
    for (const e of after) {
      expect(e.kom_rank, e.name).toBe(1);
      expect(e.is_kom, e.name).toBe(false);
    }
    // The same on every read of an effort: one effort, the list endpoints, the leaderboard's first entry.
    const one = await server.api("GET", `/v3/segment_efforts/${after[0].id}`, { token: slow.token });
    expect(one.body.is_kom).toBe(false);
    const all = await server.api("GET", `/v3/segments/${segmentIds[0]}/all_efforts`, { token: slow.token });
    expect(all.body.map((e: any) => [e.athlete.id, e.is_kom])).toEqual([[slow.id, false], [fast.id, true]]);
    const board = await server.api("GET", `/v3/segments/${segmentIds[0]}/leaderboard`, { token: slow.token });
    expect(board.body.entries[0].athlete_name).toMatch(/^Fast/);
  }, 120_000);

  it("goes back to the next athlete when the record holder's activity becomes private", async () => {
    const res = await server.api("PUT", `/v3/activities/${fastActivity}`, {
      token: fast.token,
      form: { private: true },
    });
    expect(res.status).toBe(200);
    for (const e of await effortsOf(slow, slowActivity)) expect(e.is_kom, e.name).toBe(true);
    for (const e of await effortsOf(fast, fastActivity)) expect(e.is_kom, e.name).toBe(false);
    await server.api("PUT", `/v3/activities/${fastActivity}`, { token: fast.token, form: { private: false } });
  });
});

describe("GET /v3/segment_efforts/:id/streams", () => {
  it("answers the activity's streams over the effort's index range, as written in the file", async () => {
    const effort = (await effortsOf(slow, slowActivity))[0];
    const res = await server.api("GET", `/v3/segment_efforts/${effort.id}/streams`, {
      token: slow.token,
      query: { keys: "time,latlng,altitude", key_by_type: true },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["altitude", "distance", "latlng", "time"]);
    const size = effort.end_index - effort.start_index + 1;
    const written = slowRide.points.slice(effort.start_index, effort.end_index + 1);
    for (const stream of Object.values(res.body) as any[]) {
      expect(stream).toMatchObject({ series_type: "distance", original_size: size, resolution: "high" });
      expect(stream.data).toHaveLength(size);
    }
    expect(res.body.time.data).toEqual(written.map((p) => p.t - slowRide.points[0].t));
    res.body.latlng.data.forEach(([lat, lng]: [number, number], k: number) => {
      expect(lat).toBeCloseTo(written[k].lat, 6);
      expect(lng).toBeCloseTo(LNG, 6);
    });
    expect(res.body.altitude.data).toEqual(written.map((p) => p.ele));
    // Distances are the activity's (from its start), 5 m a second along a straight line.
    expect(res.body.distance.data[0]).toBeCloseTo(effort.start_index * 5, -1);
    // The effort rides the segment: it starts and ends within a point of the segment's ends.
    const [from, to] = STRETCHES[segmentIds.indexOf(effort.segment.id)];
    expect(Math.abs(effort.start_index * 5 - from)).toBeLessThanOrEqual(10);
    expect(Math.abs(effort.end_index * 5 - to)).toBeLessThanOrEqual(10);
  });

  it("answers an array with type without key_by_type, and distance alone without keys", async () => {
    const effort = (await effortsOf(slow, slowActivity))[0];
    const res = await server.api("GET", `/v3/segment_efforts/${effort.id}/streams`, {
      token: slow.token,
      query: { keys: "heartrate,time" },
    });
    expect(res.body.map((s: any) => s.type)).toEqual(["time", "distance"]);
    const bare = await server.api("GET", `/v3/segment_efforts/${effort.id}/streams`, { token: slow.token });
    expect(bare.body.map((s: any) => s.type)).toEqual(["distance"]);
  });

  it("keeps the activity's privacy: another athlete sees a public effort's streams, not a private one's; read_all is required (401 without)", async () => {
    const effort = (await effortsOf(slow, slowActivity))[0];
    expect((await server.api("GET", `/v3/segment_efforts/${effort.id}/streams`, { token: fast.token })).status).toBe(
      200,
    );
    await server.api("PUT", `/v3/activities/${slowActivity}`, { token: slow.token, form: { private: true } });
    const hidden = await server.api("GET", `/v3/segment_efforts/${effort.id}/streams`, { token: fast.token });
    expect(hidden.status).toBe(404);
    expect(hidden.text).not.toMatch(/latlng|\d{2}\.\d{5}/);
    expect((await server.api("GET", `/v3/segment_efforts/${effort.id}/streams`, { token: slow.token })).status).toBe(
      200,
    );
    await server.api("PUT", `/v3/activities/${slowActivity}`, { token: slow.token, form: { private: false } });
    const readOnly = await issueToken(server.platform, {
      athleteId: slow.id,
      applicationId: slow.applicationId,
      permissions: ["read"],
    });
    const refused = await server.api("GET", `/v3/segment_efforts/${effort.id}/streams`, { token: readOnly });
    // A missing scope is the documented 401 naming the permission.
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].field).toMatch(/_permission$/);
    expect((await server.api("GET", "/v3/segment_efforts/9007199254740993/streams", { token: slow.token })).status)
      .toBe(404);
  });
});

describe("GET /v3/segment_efforts", () => {
  it("lists the caller's own efforts on a segment, filtered by local dates like all_efforts", async () => {
    const mine = await server.api("GET", "/v3/segment_efforts", {
      token: slow.token,
      query: { segment_id: segmentIds[2] },
    });
    expect(mine.status).toBe(200);
    expect(mine.body).toHaveLength(1);
    expect(mine.body[0]).toMatchObject({
      athlete: { id: slow.id },
      activity: { id: slowActivity },
      segment: { id: segmentIds[2] },
    });
    const theirs = await server.api("GET", "/v3/segment_efforts", {
      token: fast.token,
      query: { segment_id: segmentIds[2] },
    });
    expect(theirs.body.map((e: any) => e.athlete.id)).toEqual([fast.id]);
    // The slow ride was on 2 March (local), the fast one on 4 March.
    const inRange = await server.api("GET", "/v3/segment_efforts", {
      token: slow.token,
      query: { segment_id: segmentIds[2], start_date_local: "2026-03-01T00:00:00Z", end_date_local: "2026-03-02" },
    });
    expect(inRange.body).toHaveLength(1);
    const outOfRange = await server.api("GET", "/v3/segment_efforts", {
      token: slow.token,
      query: { segment_id: segmentIds[2], start_date_local: "2026-03-03", end_date_local: "2026-03-31" },
    });
    expect(outOfRange.body).toEqual([]);
  });

  it("refuses bad input with the documented 4xx: no segment_id, a lone date, an unknown segment", async () => {
    const none = await server.api("GET", "/v3/segment_efforts", { token: slow.token });
    expect(none.status).toBe(400);
    expect(none.body.errors[0]).toMatchObject({ field: "segment_id" });
    const lone = await server.api("GET", "/v3/segment_efforts", {
      token: slow.token,
      query: { segment_id: segmentIds[0], start_date_local: "2026-03-01" },
    });
    expect(lone.status).toBe(400);
    expect(lone.body.errors[0]).toMatchObject({ field: "end_date_local", code: "missing" });
    const unknown = await server.api("GET", "/v3/segment_efforts", {
      token: slow.token,
      query: { segment_id: 999_999 },
    });
    expect(unknown.status).toBe(404);
  });
});

describe("64-bit effort ids read as doubles", () => {
  it("parse (JSON.parse, IEEE-754) to distinct numbers that print back as the id and fetch the same effort", async () => {
    const texts: string[] = [];
    for (const [athlete, activity] of [[slow, slowActivity], [fast, fastActivity]] as const) {
      const res = await server.api("GET", `/v3/activities/${activity}`, {
        token: athlete.token,
        query: { include_all_efforts: true },
      });
      texts.push(res.text);
    }
    for (const id of segmentIds) {
      texts.push((await server.api("GET", `/v3/segments/${id}/all_efforts`, { token: slow.token })).text);
    }
    const exact = new Set<string>();
    const asDoubles = new Map<number, string>();
    for (const text of texts) {
      // The exact digits as sent (each effort's own id, followed by its resource_state; the viewer's PR
      // effort inside each effort's segment has an id of its own), and what a plain JSON.parse makes of them.
      const digits = [...text.matchAll(/"id":(\d{16,19}),"resource_state"/g)].map((m) => m[1]);
      const parsed = JSON.parse(text);
      const efforts: { id: number }[] = Array.isArray(parsed) ? parsed : parsed.segment_efforts;
      expect(efforts.map((e) => e.id)).toHaveLength(digits.length);
      efforts.forEach((e, k) => {
        expect(BigInt(digits[k])).toBeGreaterThan(2n ** 53n);
        exact.add(digits[k]);
        const seen = asDoubles.get(e.id);
        expect(seen === undefined || seen === digits[k], `${digits[k]} and ${seen} parse to the same double`).toBe(
          true,
        );
        asDoubles.set(e.id, digits[k]);
        expect(String(e.id)).toBe(digits[k]);
      });
    }
    expect(exact.size).toBe(2 * STRETCHES.length);
    expect(asDoubles.size).toBe(exact.size);
    // A client that uses the parsed number in a URL reaches the effort it parsed.
    for (const [double, digits] of asDoubles) {
      const res = await server.api("GET", `/v3/segment_efforts/${double}`, { token: slow.token });
      expect(res.status).toBe(200);
      expect(String(res.body.id)).toBe(digits);
    }
  });
});
