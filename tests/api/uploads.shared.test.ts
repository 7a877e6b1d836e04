import { SHARED_DEVICES } from "../helpers/fixtures.ts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { api } from "../helpers/http.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

const DEVICES = SHARED_DEVICES; // the whole corpus, copyleft files included (this suite runs where it is present)
const fixture = (path: string) => readFileSync(join(DEVICES, path));
const STATUS_KEYS = ["activity_id", "error", "external_id", "id", "id_str", "status"];
const MAX_UPLOAD = 4_000_000;

let server: TestServer;
let rider: TestAthlete;
let other: TestAthlete;

function form(bytes: Uint8Array<ArrayBuffer>, fileName: string, fields: Record<string, string>): FormData {
  const data = new FormData();
  data.set("file", new Blob([bytes]), fileName);
  for (const [k, v] of Object.entries(fields)) data.set(k, v);
  return data;
}

async function upload(
  token: string,
  path: string,
  fields: Record<string, string> = {},
  bytes?: Uint8Array<ArrayBuffer>,
  fileName?: string,
) {
  const ext = path.split(".").slice(1).join(".");
  return server.api("POST", "/v3/uploads", {
    token,
    multipart: form(bytes ?? fixture(path), fileName ?? basename(path), { data_type: ext, ...fields }),
  });
}

/** Polls (like a client would) until processing finished; returns the final status body. */
async function settle(token: string, id: number, s: TestServer = server) {
  for (let i = 0; i < 600; i++) {
    const res = await s.api("GET", `/v3/uploads/${id}`, { token });
    expect(res.status).toBe(200);
    if (res.body.status !== UPLOAD_STATUS.processing) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`upload ${id} still processing`);
}

beforeAll(async () => {
  server = await startTestServer({ maxUploadBytes: MAX_UPLOAD });
  rider = await server.athlete({ premium: true });
  other = await server.athlete();
});

afterAll(async () => {
  await server?.close();
});

describe("POST /v3/uploads and GET /v3/uploads/:id", () => {
  it("accepts a FIT file with 201 and a processing status, then becomes ready with an activity", async () => {
    const res = await upload(rider.token, "fit/garmin-edge810-cycling-power-vector.fit");
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(STATUS_KEYS);
    expect(res.body).toMatchObject({
      external_id: "garmin-edge810-cycling-power-vector.fit",
      error: null,
      status: "Your activity is still being processed.",
      activity_id: null,
    });
    expect(res.body.id_str).toBe(String(res.body.id));

    const done = await settle(rider.token, res.body.id);
    expect(Object.keys(done).sort()).toEqual(STATUS_KEYS);
    expect(done.status).toBe("Your activity is ready.");
    expect(done.error).toBeNull();
    expect(typeof done.activity_id).toBe("number");

    const activity = await server.api("GET", `/v3/activities/${done.activity_id}`, { token: rider.token });
    expect(activity.status).toBe(200);
    expect(activity.body.resource_state).toBe(3);
    expect(activity.body.type).toBe("Ride");
    expect(activity.body.upload_id).toBe(res.body.id);
    expect(activity.body.external_id).toBe("garmin-edge810-cycling-power-vector.fit");
    // The session says 41,339.38 m; 8 laps; power meter; HR max 176.
    expect(activity.body.distance).toBeCloseTo(41339.4, 0);
    expect(activity.body.laps).toHaveLength(8);
    expect(activity.body.device_watts).toBe(true);
    expect(activity.body.max_heartrate).toBe(176);
    expect(activity.body.device_name).toBe("Garmin Edge 810");
    expect(activity.body.name).toBe("Afternoon Ride"); // 15:35 local in St. John's
    expect(activity.body.suffer_score).toEqual(expect.any(Number)); // premium athlete
  });

  it("refuses the same file again at submission with 400 and a duplicate upload status", async () => {
    const first = await upload(rider.token, "fit/garmin-edge1000-cycling-short-3formats.fit");
    const done = await settle(rider.token, first.body.id);
    expect(done.status).toBe(UPLOAD_STATUS.ready);
    // The same content gzipped is the same file.
    const gz = gzipSync(fixture("fit/garmin-edge1000-cycling-short-3formats.fit"));
    const again = await upload(rider.token, "x.fit.gz", { data_type: "FIT.GZ" }, gz, "again.fit.gz");
    expect(again.status).toBe(400);
    expect(Object.keys(again.body).sort()).toEqual(STATUS_KEYS);
    expect(again.body.status).toBe("There was an error processing your activity.");
    expect(again.body.error).toBe(`again.fit.gz duplicate of activity ${done.activity_id}`);
    expect(again.body.activity_id).toBeNull();
  });

  it("finds an overlapping recording (same start, same device) while processing", async () => {
    const fit = await upload(rider.token, "fit/sigma-rox11-cycling-power-laps.fit");
    const ready = await settle(rider.token, fit.body.id);
    expect(ready.status).toBe(UPLOAD_STATUS.ready);
    // A hand-made TCX of the same recording: same start, same device name, other bytes.
    const tcx =
      `<?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
      <Activities><Activity Sport="Biking"><Id>x</Id><Lap StartTime="2024-09-19T15:30:32Z"><Track>
      <Trackpoint><Time>2024-09-19T15:30:33Z</Time></Trackpoint><Trackpoint><Time>2024-09-19T15:30:40Z</Time></Trackpoint>
      </Track></Lap><Creator><Name>SIGMA ROX 11.1 EVO</Name></Creator></Activity></Activities></TrainingCenterDatabase>`;
    const res = await upload(rider.token, "copy.tcx", {}, new TextEncoder().encode(tcx), "copy.tcx");
    expect(res.status).toBe(201);
    const done = await settle(rider.token, res.body.id);
    expect(done.status).toBe(UPLOAD_STATUS.error);
    expect(done.error).toBe(`copy.tcx duplicate of activity ${ready.activity_id}`);
    expect(done.activity_id).toBeNull();
  });

  it("lets a type detected from the file win over activity_type, which applies otherwise", async () => {
    const detected = await upload(rider.token, "tcx/fitbit-versa-cycling-hr.tcx", { activity_type: "run" });
    const a = await settle(rider.token, detected.body.id);
    const ride = await server.api("GET", `/v3/activities/${a.activity_id}`, { token: rider.token });
    expect(ride.body.type).toBe("Ride");

    const named = await upload(rider.token, "gpx/strava-export-running-hr.gpx", {
      activity_type: "RUN",
      name: "Track session",
      description: "4x100",
      commute: "1",
      private: "1",
      external_id: "ext-42",
    });
    expect(named.body.external_id).toBe("ext-42");
    const b = await settle(rider.token, named.body.id);
    expect(b.external_id).toBe("ext-42");
    const run = await server.api("GET", `/v3/activities/${b.activity_id}`, { token: rider.token });
    expect(run.body).toMatchObject({
      type: "Run",
      name: "Track session",
      description: "4x100",
      commute: true,
      private: true,
      trainer: false,
    });
    expect(run.body.splits_metric.length).toBeGreaterThanOrEqual(1);
    expect(run.body.laps.map((l: { name: string }) => l.name)).toEqual(["Lap 1"]);
  });

  it("marks files without coordinates as trainer", async () => {
    const res = await upload(rider.token, "fit/garmin-vivoactivehr-indoor-rowing-nogps.fit");
    const done = await settle(rider.token, res.body.id);
    const activity = await server.api("GET", `/v3/activities/${done.activity_id}`, { token: rider.token });
    expect(activity.body.trainer).toBe(true);
    expect(activity.body.type).toBe("Rowing");
    expect(activity.body.has_heartrate).toBe(true);
  });
});

describe("broken files", () => {
  const cases: [string, RegExp][] = [
    ["broken/strava-android-app-truncated-datasize.fit", /could not be read: File data exceeds input length/],
    ["broken/garmin-edge500-activity-no-records.fit", /holds no timed records/],
    ["broken/gpsbabel-8tracks-without-times.gpx", /291 of 296 trackpoints .* have no time/],
    ["broken/osmand-empty-track.gpx", /holds no timed records or trackpoints/],
    ["broken/osmand-invalid-coordinates.gpx", /invalid position/],
  ];
  for (const [path, message] of cases) {
    it(`${basename(path)} ends in a clear error, no activity`, async () => {
      const res = await upload(rider.token, path);
      expect(res.status).toBe(201);
      const done = await settle(rider.token, res.body.id);
      expect(done.status).toBe("There was an error processing your activity.");
      expect(done.error).toMatch(message);
      expect(done.error.startsWith(`${basename(path)}: `)).toBe(true);
      expect(done.activity_id).toBeNull();
    });
  }

  it("processes the SIGMA file with a bad CRC from its readable records and notes it", async () => {
    const res = await upload(rider.token, "broken/sigma-cycling-bad-crc-unterminated.fit");
    const done = await settle(rider.token, res.body.id);
    expect(done.status).toBe(UPLOAD_STATUS.ready);
    const [row] = await server.platform.db.query<{ notes: string[] }>("select notes from uploads where id = $1", [
      res.body.id,
    ]);
    expect(row.notes.join(" ")).toMatch(/CRC check failed/);
    const activity = await server.api("GET", `/v3/activities/${done.activity_id}`, { token: rider.token });
    expect(activity.body.distance).toBeGreaterThan(100_000); // 4.6 h ride, 14,392 records
  });

  it("processes a GPX whose second segment is empty (partial result from the 9 points)", async () => {
    const res = await upload(rider.token, "broken/track-with-empty-segment.gpx");
    const done = await settle(rider.token, res.body.id);
    expect(done.status).toBe(UPLOAD_STATUS.ready);
  });
});

describe("bad input", () => {
  it("401 without the write permission", async () => {
    const reader = await server.athlete({ permissions: ["read"] });
    const res = await upload(reader.token, "gpx/strava-export-running-hr.gpx");
    expect(res.status).toBe(401);
    expect(res.body.errors).toEqual([{ resource: "AccessToken", field: "write_permission", code: "missing" }]);
  });

  it("400 fault for a missing file, a missing or unknown data_type and an unknown activity_type", async () => {
    const noFile = new FormData();
    noFile.set("data_type", "fit");
    const a = await server.api("POST", "/v3/uploads", { token: rider.token, multipart: noFile });
    expect(a.status).toBe(400);
    expect(a.body.errors).toContainEqual({ resource: "Upload", field: "file", code: "missing" });

    const b = await server.api("POST", "/v3/uploads", {
      token: rider.token,
      multipart: form(fixture("gpx/strava-export-running-hr.gpx"), "r.gpx", {}),
    });
    expect(b.status).toBe(400);
    expect(b.body.errors).toContainEqual({ resource: "Upload", field: "data_type", code: "missing" });

    const c = await upload(rider.token, "gpx/strava-export-running-hr.gpx", { data_type: "kml" });
    expect(c.status).toBe(400);
    expect(c.body.errors).toContainEqual({ resource: "Upload", field: "data_type", code: "invalid" });

    const d = await upload(rider.token, "gpx/strava-export-running-hr.gpx", { activity_type: "Yoga" });
    expect(d.status).toBe(400);
    expect(d.body.errors).toContainEqual({ resource: "Upload", field: "activity_type", code: "invalid" });
  });

  it("400 with an upload status when the content does not match data_type or the gzip is corrupt", async () => {
    const mismatch = await upload(rider.token, "gpx/strava-export-running-hr.gpx", { data_type: "fit" });
    expect(mismatch.status).toBe(400);
    expect(Object.keys(mismatch.body).sort()).toEqual(STATUS_KEYS);
    expect(mismatch.body.status).toBe(UPLOAD_STATUS.error);
    expect(mismatch.body.error).toBe("The file is not a FIT file, but data_type is fit.");

    const notGzip = await upload(rider.token, "gpx/strava-export-running-hr.gpx", { data_type: "gpx.gz" });
    expect(notGzip.status).toBe(400);
    expect(notGzip.body.error).toMatch(/not gzip-compressed/);

    const gz = gzipSync(fixture("gpx/strava-export-running-hr.gpx"));
    const corrupt = await upload(rider.token, "x.gpx.gz", {}, gz.subarray(0, gz.length - 40), "x.gpx.gz");
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.error).toMatch(/gzip data is corrupt/);

    const empty = await upload(rider.token, "x.tcx", {}, new Uint8Array(0), "x.tcx");
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe("The file is empty.");
  });

  it("413 for a file over the limit and for a gzip bomb (inflated size capped)", async () => {
    const big = new Uint8Array(MAX_UPLOAD + 1);
    const res = await upload(rider.token, "big.gpx", {}, big, "big.gpx");
    expect(res.status).toBe(413);
    expect(res.body.message).toBe("Payload Too Large");

    const bomb = gzipSync(new Uint8Array(50_000_000)); // ~50 KB that inflates to 50 MB
    expect(bomb.byteLength).toBeLessThan(100_000);
    const exploded = await upload(rider.token, "bomb.fit.gz", {}, bomb, "bomb.fit.gz");
    expect(exploded.status).toBe(413);
  });

  it("refuses XML with entity declarations (no expansion) as an error, and the server keeps serving", async () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>
      <gpx version="1.1"><trk><trkseg><trkpt lat="1" lon="1"><time>2020-01-01T00:00:00Z</time><name>&lol2;</name></trkpt></trkseg></trk></gpx>`;
    const res = await upload(rider.token, "bomb.gpx", {}, new TextEncoder().encode(xml), "bomb.gpx");
    expect(res.status).toBe(201);
    const done = await settle(rider.token, res.body.id);
    expect(done.error).toMatch(/DOCTYPE or entities/);
    const alive = await server.api("GET", "/v3/athlete", { token: rider.token });
    expect(alive.status).toBe(200);
  });

  it("404 for an unknown upload and for another athlete's upload", async () => {
    const res = await upload(rider.token, "gpx/garmin-oregon600-partial-hr-3seg.gpx");
    expect((await server.api("GET", `/v3/uploads/${res.body.id}`, { token: other.token })).status).toBe(404);
    const missing = await server.api("GET", "/v3/uploads/987654321", { token: rider.token });
    expect(missing.status).toBe(404);
    expect(missing.body.errors).toEqual([{ resource: "Upload", field: "id", code: "invalid" }]);
    await settle(rider.token, res.body.id);
  });
});

describe("durable processing", () => {
  it("keeps a pending upload across a restart: resource_state -1 meanwhile, ready after", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "fitness-upload-restart-"));
    let second: TestServer | undefined;
    try {
      // A server that accepts uploads but runs no jobs, as if it stopped right after the 201.
      const first = await startServer(
        configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, runJobs: false, databaseUrl: undefined }),
      );
      const ownerId = await createAthlete(first.platform, {
        firstname: "O",
        lastname: "W",
        email: "o@example.com",
        password: "password123",
      });
      const app = await createApplication(first.platform, {
        name: "Restart",
        ownerId,
        callbackDomain: "localhost",
        internal: true,
        kudosEnabled: true,
        challengesEnabled: true,
      });
      const athleteId = await createAthlete(first.platform, {
        firstname: "R",
        lastname: "U",
        email: "r@example.com",
        password: "password123",
      });
      const token = await issueToken(first.platform, {
        athleteId,
        applicationId: app.client_id,
        permissions: ["read", "write"],
      });
      const call = api(first.url);
      const res = await call("POST", "/v3/uploads", {
        token,
        multipart: form(fixture("tcx/garmin-fr410-running-hr.tcx"), "fr410.tcx", { data_type: "tcx" }),
      });
      expect(res.status).toBe(201);
      const [row] = await first.platform.db.query<{ activity_id: number }>(
        "select activity_id from uploads where id = $1",
        [res.body.id],
      );
      const activityId = Number(row.activity_id);
      const pending = await call("GET", `/v3/activities/${activityId}`, { token });
      expect(pending.status).toBe(200);
      expect(pending.body).toEqual({ id: activityId, resource_state: -1 });
      expect((await call("GET", `/v3/uploads/${res.body.id}`, { token })).body.status).toBe(UPLOAD_STATUS.processing);
      await first.close();

      second = await startTestServer({ dataDir });
      const done = await settle(token, res.body.id, second);
      expect(done.status).toBe(UPLOAD_STATUS.ready);
      expect(done.activity_id).toBe(activityId);
      const activity = await second.api("GET", `/v3/activities/${activityId}`, { token });
      expect(activity.body.resource_state).toBe(3);
      expect(activity.body.type).toBe("Run");
      expect(activity.body.best_efforts.map((e: { name: string }) => e.name)).toEqual([
        "400m",
        "1/2 mile",
        "1K",
        "1 mile",
        "2 mile",
      ]);
    } finally {
      await second?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
