import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode as encodePng } from "fast-png";
import jpeg from "jpeg-js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/deno.ts";
import { createTestDatabase, TEST_DATABASE_URL } from "../helpers/postgres.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { upload } from "../dropin/deno-server.ts";

/**
 * Issue 34: a platform built on the embedded store moves to PostgreSQL by the documented path
 * (`cli backup`, then `cli restore` with DATABASE_URL) and back (`cli backup` on PostgreSQL, `cli
 * restore` into an empty DATA_DIR), and every answer of the API is the same bytes (hosts aside);
 * `cli verify` checks the blobs and fails, naming the blob and its events, when one is removed.
 * `export --out FILE` carries the blobs (FILE.blobs/) and `import` refuses an export without them.
 */
const limits = {
  rateLimitShort: 100_000_000,
  rateLimitLong: 100_000_000,
  athleteRateLimitShort: 100_000_000,
  athleteRateLimitLong: 100_000_000,
};
const work = mkdtempSync(join(tmpdir(), "fitness-move-"));
const databases: { url: string; drop(): Promise<void> }[] = [];
const servers: TestServer[] = [];
let source: TestServer;
let ann: TestAthlete;
let bob: TestAthlete;
let requests: { path: string; token?: string }[] = [];
let answers: string[] = [];
let namedBlobs = 0;

/** A GET answer as compared: status, content type and the body's bytes (hex for binary), the server's own address replaced. */
async function answer(server: TestServer, request: { path: string; token?: string }): Promise<string> {
  const res = await fetch(`${server.url}${request.path}`, {
    headers: request.token ? { authorization: `Bearer ${request.token}` } : {},
  });
  const type = res.headers.get("content-type") ?? "";
  const bytes = new Uint8Array(await res.arrayBuffer());
  const body = /json|text|xml|gpx|tcx/.test(type)
    ? new TextDecoder().decode(bytes).replaceAll(server.url, "HOST")
    : Buffer.from(bytes).toString("hex");
  return `${request.path} ${res.status} ${type}\n${body}`;
}

const answersOf = async (server: TestServer) => {
  const out: string[] = [];
  for (const r of requests) out.push(await answer(server, r));
  return out;
};

function tileOf(lat: number, lng: number, z: number): string {
  const n = 2 ** z;
  const x = Math.floor(((lng + 180) / 360) * n);
  const rad = (lat * Math.PI) / 180;
  const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n);
  return `${z}/${x}/${y}.png`;
}

async function build() {
  source = await startTestServer(limits);
  servers.push(source);
  const app = await source.application({ internal: true, kudos: true });
  ann = await source.athlete({ firstname: "Ann", premium: true, applicationId: app.client_id });
  bob = await source.athlete({ firstname: "Bob", applicationId: app.client_id });
  const call = source.api;
  // Uploads with streams (a 700 kB FIT: its original and streams are files beside the database).
  const ride = await upload(call, ann.token, "fit/wahoo-elemnt-cycling-power-hr-pauses.fit");
  const run = await upload(call, ann.token, "gpx/strava-export-running-hr.gpx");
  // A segment cut from one ride, ridden again by Ann and by Bob: efforts.
  const short = await upload(call, ann.token, "fit/garmin-edge1000-cycling-short-3formats.fit");
  const points = (await call("GET", `/v3/activities/${short}/streams`, {
    token: ann.token,
    query: { keys: "time", key_by_type: true },
  })).body.time.original_size;
  const segment = await call("POST", "/v3/segments", {
    token: ann.token,
    form: {
      name: "Move climb",
      activity_id: short,
      start_index: Math.floor(points * 0.2),
      end_index: Math.floor(points * 0.8),
    },
  });
  expect(segment.status, segment.text).toBe(201);
  await upload(call, ann.token, "gpx/garmin-connect-edge1000-cycling-short-3formats.gpx");
  await upload(call, bob.token, "fit/garmin-edge1000-cycling-short-3formats.fit");
  // A photo (JPEG) and a profile picture (PNG).
  const width = 64, height = 48;
  const photoForm = new FormData();
  photoForm.set(
    "file",
    new Blob([
      new Uint8Array(
        jpeg.encode({
          data: new Uint8Array(width * height * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 7) % 256)),
          width,
          height,
        }, 85).data,
      ),
    ], { type: "image/jpeg" }),
    "finish.jpg",
  );
  photoForm.set("caption", "Finish line");
  const photo = await call("POST", `/v3/activities/${run}/photos`, { token: ann.token, multipart: photoForm });
  expect(photo.status, photo.text).toBe(201);
  const pictureForm = new FormData();
  pictureForm.set(
    "file",
    new Blob([
      encodePng({ width: 8, height: 8, data: new Uint8Array(8 * 8 * 3).fill(90), channels: 3, depth: 8 }) as BlobPart,
    ]),
    "me.png",
  );
  const picture = await call("PUT", "/v3/athlete/picture", { token: ann.token, multipart: pictureForm });
  expect(picture.status, picture.text).toBe(200);
  // Kudos, comments, a route, a heatmap.
  expect((await call("POST", `/v3/activities/${run}/kudos`, { token: bob.token })).status).toBe(201);
  expect(
    (await call("POST", `/v3/activities/${run}/comments`, { token: bob.token, form: { text: "Strong finish" } }))
      .status,
  ).toBe(201);
  const route = await call("POST", "/v3/routes", { token: ann.token, json: { activity_id: ride, name: "Move route" } });
  expect(route.status, route.text).toBe(201);
  const map = await call("POST", "/v3/athlete/heatmaps", { token: ann.token, form: { activity_type_ids: "1,2" } });
  expect(map.status, map.text).toBe(201);
  let status = "";
  let tilePath = "";
  for (let i = 0; i < 600 && status !== "done"; i++) {
    source.platform.jobs.kick();
    const progress =
      (await call("GET", `/v3/athletes/${ann.id}/heatmaps/${map.body.id}/progress`, { token: ann.token })).body;
    status = progress.status;
    tilePath = progress.tile_path;
    if (status === "error") throw new Error("the heatmap failed");
    if (status !== "done") await new Promise((r) => setTimeout(r, 100));
  }
  expect(status).toBe("done");
  const detail = (await call("GET", `/v3/activities/${ride}`, { token: ann.token })).body;
  const efforts = await call("GET", `/v3/segments/${segment.body.id}/all_efforts`, { token: ann.token });
  expect(efforts.body.length).toBeGreaterThan(0);
  const photoPaths = Object.values(photo.body.urls as Record<string, string>).map((u) => new URL(u).pathname);
  const [lat, lng] = detail.start_latlng as [number, number];
  const tiles = new URL(tilePath).pathname;
  requests = [
    { path: "/v3/athlete", token: ann.token },
    { path: "/v3/athlete/activities?per_page=50", token: ann.token },
    ...[ride, run, short].flatMap((id) => [
      { path: `/v3/activities/${id}?include_all_efforts=true`, token: ann.token },
      {
        path:
          `/v3/activities/${id}/streams?keys=time,latlng,distance,altitude,heartrate,watts,cadence&key_by_type=true`,
        token: ann.token,
      },
      { path: `/v3/activities/${id}/laps`, token: ann.token },
      { path: `/v3/activities/${id}/zones`, token: ann.token },
    ]),
    { path: `/v3/activities/${run}/photos?size=2048`, token: ann.token },
    ...photoPaths.map((path) => ({ path })),
    { path: `/v3/activities/${run}/kudos`, token: ann.token },
    { path: `/v3/activities/${run}/comments`, token: ann.token },
    { path: `/v3/segments/${segment.body.id}`, token: ann.token },
    { path: `/v3/segments/${segment.body.id}/all_efforts`, token: ann.token },
    { path: `/v3/segments/${segment.body.id}/leaderboard`, token: bob.token },
    { path: `/v3/segment_efforts/${efforts.body[0].id}`, token: ann.token },
    {
      path: `/v3/segments/${segment.body.id}/streams?keys=latlng,distance,altitude&key_by_type=true`,
      token: ann.token,
    },
    { path: `/v3/routes/${route.body.id}`, token: ann.token },
    { path: `/v3/routes/${route.body.id}/streams`, token: ann.token },
    { path: `/v3/routes/${route.body.id}/export_gpx`, token: ann.token },
    { path: `/v3/athletes/${ann.id}/routes`, token: ann.token },
    { path: `/v3/athletes/${ann.id}/heatmaps/${map.body.id}/progress`, token: ann.token },
    { path: `${tiles}/${tileOf(lat, lng, 12)}` },
    { path: `/avatars/athletes/${ann.id}/large.png` },
    { path: `/avatars/athletes/${ann.id}/medium.png` },
    { path: `/v3/athletes/${bob.id}`, token: ann.token },
    { path: `/v3/athletes/${ann.id}/stats`, token: ann.token },
    { path: `/v3/uploads/1`, token: ann.token },
  ];
  answers = await answersOf(source);
  // The answers are real: streams, tiles, photos and pictures came back with content.
  expect(answers.filter((a) => !a.split("\n")[0].includes(" 200 ")).map((a) => a.slice(0, 300))).toEqual([]);
  expect(answers.find((a) => a.includes("/streams?keys=time,latlng") && a.includes('"latlng"'))).toBeDefined();
}

async function pgQuery<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

describe.runIf(TEST_DATABASE_URL)("moving a platform between the embedded store and PostgreSQL (issue 34)", () => {
  beforeAll(build, 600_000);
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => {});
    for (const d of databases) await d.drop().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  });

  it(
    "backup → restore into PostgreSQL → backup → restore into an embedded store: the same answers; verify checks every blob",
    async () => {
      // 1. Embedded → PostgreSQL, the documented path, while the embedded server runs.
      const backup = join(work, "embedded.tar.gz");
      const made = await runCli(["backup", "--out", backup, "--json"], { DATA_DIR: source.dataDir, DATABASE_URL: "" });
      expect(made.code, made.stderr).toBe(0);
      const db = await createTestDatabase();
      databases.push(db);
      const restored = await runCli(["restore", backup, "--json"], { DATABASE_URL: db.url });
      expect(restored.code, restored.stderr).toBe(0);
      const report = JSON.parse(restored.stdout);
      expect(report.ok).toBe(true);
      expect(report.blobs).toBeGreaterThan(10);
      console.log(
        `restore into PostgreSQL: ${report.events} events, ${report.blobs} blobs (${report.blob_bytes} bytes) in ${report.seconds} s`,
      );

      // verify on PostgreSQL: read models equal a replay, every named blob there and intact.
      const verified = await runCli(["verify", "--json"], { DATABASE_URL: db.url });
      expect(verified.code, verified.stderr).toBe(0);
      const verifyReport = JSON.parse(verified.stdout);
      expect(verifyReport.ok).toBe(true);
      expect(verifyReport.blobs.problems).toEqual([]);
      namedBlobs = verifyReport.blobs.named;
      expect(namedBlobs).toBeGreaterThan(10);
      const plain = await runCli(["verify"], { DATABASE_URL: db.url });
      expect(plain.stdout).toContain(`verify: ${namedBlobs} blobs named by the events`);

      // A restore into a database that is not empty is refused.
      const again = await runCli(["restore", backup], { DATABASE_URL: db.url });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain("not empty");

      // Every answer of the API is the same on PostgreSQL.
      const onPostgres = await startTestServer({ ...limits, databaseUrl: db.url });
      servers.push(onPostgres);
      expect(await answersOf(onPostgres)).toEqual(answers);

      // 2. And back: a backup of PostgreSQL restores into an empty embedded directory.
      const pgBackup = join(work, "postgres.tar.gz");
      const fromPg = await runCli(["backup", "--out", pgBackup, "--json"], { DATABASE_URL: db.url });
      expect(fromPg.code, fromPg.stderr).toBe(0);
      await onPostgres.close();
      servers.splice(servers.indexOf(onPostgres), 1);
      const back = join(work, "back");
      const restoredBack = await runCli(["restore", pgBackup, "--json"], { DATA_DIR: back, DATABASE_URL: "" });
      expect(restoredBack.code, restoredBack.stderr).toBe(0);
      // Large blobs are files beside the embedded database again.
      expect(readdirSync(join(back, "blobs"), { recursive: true }).some((f) => /[0-9a-f]{64}$/.test(String(f)))).toBe(
        true,
      );
      const verifiedBack = await runCli(["verify", "--json"], { DATA_DIR: back, DATABASE_URL: "" });
      expect(verifiedBack.code, verifiedBack.stderr).toBe(0);
      expect(JSON.parse(verifiedBack.stdout).blobs.named).toBe(namedBlobs);
      const onEmbedded = await startTestServer({ ...limits, dataDir: back });
      servers.push(onEmbedded);
      expect(await answersOf(onEmbedded)).toEqual(answers);

      // 3. A blob removed from PostgreSQL: verify fails naming it and the events that need it.
      const [stream] = await pgQuery<{ sha: string; position: string }>(
        db.url,
        "select data->>'streamsSha256' as sha, global_position::text as position from events where type = 'ActivityRecorded' and data->>'streamsSha256' is not null order by global_position limit 1",
      );
      await pgQuery(db.url, "delete from blobs where sha256 = $1", [stream.sha]);
      const broken = await runCli(["verify"], { DATABASE_URL: db.url });
      expect(broken.code).toBe(1);
      expect(broken.stdout).toContain(`blob ${stream.sha} missing: no such blob`);
      expect(broken.stdout).toContain(`position ${stream.position} ActivityRecorded`);
      // A corrupt one too (bytes that do not hash to the name).
      const [photo] = await pgQuery<{ sha: string }>(
        db.url,
        "select data->'renditions'->0->>'sha256' as sha from events where type = 'PhotoAdded' limit 1",
      );
      await pgQuery(db.url, "update blobs set content = 'x'::bytea, size = 1 where sha256 = $1", [photo.sha]);
      const corrupt = await runCli(["verify", "--json"], { DATABASE_URL: db.url });
      expect(corrupt.code).toBe(1);
      const problems = JSON.parse(corrupt.stdout).blobs.problems as {
        sha256: string;
        problem: string;
        events: { type: string }[];
      }[];
      expect(problems.map((p) => [p.sha256, p.problem]).sort()).toEqual(
        [[photo.sha, "corrupt"], [stream.sha, "missing"]].sort(),
      );
      expect(problems.find((p) => p.sha256 === photo.sha)!.events[0].type).toBe("PhotoAdded");
    },
    900_000,
  );

  it(
    "export --out carries the blobs (FILE.blobs/); import brings them, and refuses an export without them",
    async () => {
      const file = join(work, "events.ndjson");
      const exported = await runCli(["export", "--format", "ndjson", "--out", file, "--json"], {
        DATA_DIR: source.dataDir,
        DATABASE_URL: "",
      });
      expect(exported.code, exported.stderr).toBe(0);
      const summary = JSON.parse(exported.stdout);
      expect(summary.blobs).toBeGreaterThan(10);
      expect(readdirSync(`${file}.blobs`).length).toBe(summary.blobs);

      // Without its blobs: refused, naming a blob and the event that needs it; nothing written.
      const bare = join(work, "bare.ndjson");
      rmSync(bare, { force: true });
      await import("node:fs").then((fs) => fs.copyFileSync(file, bare));
      const emptyDb = await createTestDatabase();
      databases.push(emptyDb);
      const refused = await runCli(["import", bare], { DATABASE_URL: emptyDb.url });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/blobs named by its events cannot be brought/);
      expect(refused.stderr).toMatch(
        /[0-9a-f]{64} \(no .*bare\.ndjson\.blobs beside .*\), named by \d+ events?: (UploadReceived|ActivityRecorded|PhotoAdded|AthletePictureChanged|HeatmapTracksGathered) at position \d+/,
      );
      expect(await pgQuery(emptyDb.url, "select 1 from events limit 1")).toEqual([]);
      expect(await pgQuery(emptyDb.url, "select 1 from blobs limit 1")).toEqual([]);

      // With them: every answer the same (those of the log; pictures and photos included).
      const imported = await runCli(["import", file, "--json"], { DATABASE_URL: emptyDb.url });
      expect(imported.code, imported.stderr).toBe(0);
      expect(JSON.parse(imported.stdout).blobs_brought).toBe(summary.blobs);
      const verified = await runCli(["verify", "--json"], { DATABASE_URL: emptyDb.url });
      expect(verified.code, verified.stdout).toBe(0);
      expect(JSON.parse(verified.stdout).blobs.named).toBe(summary.blobs);
      const server = await startTestServer({ ...limits, databaseUrl: emptyDb.url });
      servers.push(server);
      expect(await answersOf(server)).toEqual(answers);
      expect(existsSync(file)).toBe(true);
      expect(readFileSync(file, "utf8").split("\n").length).toBeGreaterThan(20);
    },
    900_000,
  );
});
