import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { type Api, api } from "../helpers/http.ts";
import { generateRide } from "../bench/uploads.bench.ts";
import { activitiesCsv, type CsvActivity, writeZip } from "./archives.ts";

/**
 * Archives over HTTP past MAX_BODY_BYTES (their own limit, MAX_IMPORT_BYTES), and an import that
 * survives a server killed half-way: the real server (Deno, PGlite on disk), restarted on its data.
 */
const MAX_BODY_BYTES = 64 * 1024;
const MAX_IMPORT_BYTES = 4 * 1024 * 1024;
/** Enough short rides that the run lasts far longer than the wait for a checkpoint, however fast the machine. */
const RIDES = 240;
/** Checkpoints this often here (IMPORT_CHECKPOINT_MS), so the kill can follow one closely. */
const CHECKPOINT_MS = 100;
const dir = mkdtempSync(join(tmpdir(), "archive-restart-"));
const dataDir = join(dir, "data");
const env = {
  SEED_DEMO: "0",
  MAX_BODY_BYTES: String(MAX_BODY_BYTES),
  MAX_IMPORT_BYTES: String(MAX_IMPORT_BYTES),
  IMPORT_CHECKPOINT_MS: String(CHECKPOINT_MS),
};
let server: DenoServer;
let call: Api;
let token: string;
const archive = join(dir, "export_777.zip");

beforeAll(async () => {
  const athlete = await runCli([
    "athlete",
    "create",
    "--firstname",
    "Wout",
    "--lastname",
    "Vanaert",
    "--email",
    "wout@example.com",
    "--password",
    "cyclocross-1",
    "--json",
  ], { DATA_DIR: dataDir });
  const athleteId = JSON.parse(athlete.stdout).id;
  const app = JSON.parse(
    (await runCli([
      "app",
      "create",
      "--name",
      "Importer",
      "--callback-domain",
      "example.com",
      "--owner",
      String(athleteId),
      "--json",
    ], { DATA_DIR: dataDir })).stdout,
  );
  token = JSON.parse(
    (await runCli([
      "token",
      "issue",
      "--athlete",
      String(athleteId),
      "--client-id",
      String(app.client_id),
      "--scope",
      "read_all,activity:read_all,write",
      "--json",
    ], { DATA_DIR: dataDir })).stdout,
  ).access_token;
  // A Strava export of RIDES 5-minute rides (gzipped FIT files, as Strava stores them).
  const rows: CsvActivity[] = [];
  const entries = [];
  for (let i = 0; i < RIDES; i++) {
    const start = new Date(Date.UTC(2021, 2, 1) + i * 24 * 3600 * 1000).toISOString();
    const file = `activities/${50_000 + i}.fit.gz`;
    rows.push({
      id: String(50_000 + i),
      date: start,
      name: `Training ${i}`,
      type: "Ride",
      elapsed: 300,
      km: 2.5,
      file,
    });
    entries.push({ name: file, bytes: gzipSync(generateRide(300, start)), store: true });
  }
  await writeZip(archive, [{ name: "activities.csv", bytes: Buffer.from(activitiesCsv(rows)) }, ...entries]);
  server = await startDenoServer({ dataDir, env });
  call = api(server.url);
}, 480_000);

afterAll(async () => {
  await server?.stop();
});

async function status(id: string) {
  const res = await call("GET", `/v3/athlete/imports/${id}`, { token });
  expect(res.status).toBe(200);
  return res.body;
}

/** POSTs a body as it is generated (chunked, no Content-Length); resolves with the answer, or the error that cut it. */
function postChunked(url: string, chunks: number, chunk: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/zip", "transfer-encoding": "chunked" },
    }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    let sent = 0;
    const more = () => {
      while (sent < chunks) {
        sent++;
        if (!req.write(chunk)) return req.once("drain", more);
      }
      req.end();
    };
    more();
  });
}

describe("archives over HTTP are bounded by MAX_IMPORT_BYTES, not MAX_BODY_BYTES", () => {
  it(
    "refuses an archive over MAX_IMPORT_BYTES with 413 and the documented body, declared or not, keeping nothing",
    async () => {
      const tooBig = randomBytes(MAX_IMPORT_BYTES + 1024);
      const res = await fetch(`${server.url}/v3/athlete/imports`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/zip" },
        body: tooBig,
      });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({
        message: "Payload Too Large",
        errors: [{ resource: "Import", field: "file", code: "too large" }],
      });
      const streamed = await postChunked(`${server.url}/v3/athlete/imports`, 80, randomBytes(64 * 1024));
      expect(streamed.status).toBe(413);
      expect(JSON.parse(streamed.body).errors).toEqual([{ resource: "Import", field: "file", code: "too large" }]);
      // Nothing half-written is left in the inbox.
      expect(readdirSync(join(dataDir, "imports"))).toEqual([]);
      // Other routes keep MAX_BODY_BYTES.
      const form = new FormData();
      form.set("file", new Blob([randomBytes(MAX_BODY_BYTES * 2)]), "big.fit");
      form.set("data_type", "fit");
      const upload = await call("POST", "/v3/uploads", { token, multipart: form });
      expect(upload.status).toBe(413);
    },
    120_000,
  );

  it(
    "imports an archive larger than MAX_BODY_BYTES; killed half-way, the restarted server shows where it stopped and finishes the rest",
    async () => {
      const size = statSync(archive).size;
      expect(size).toBeGreaterThan(MAX_BODY_BYTES * 4);
      const form = new FormData();
      form.set("file", new Blob([readFileSync(archive)], { type: "application/zip" }), "export_777.zip");
      const started = await call("POST", "/v3/athlete/imports", { token, multipart: form });
      expect(started.status).toBe(202);
      const id = started.body.id;
      expect(started.body).toMatchObject({ status: "running", file_name: "export_777.zip", resumed: 0 });

      // Let a few activities in and a checkpoint (every CHECKPOINT_MS) be written, then kill the server outright.
      let before;
      for (;;) {
        before = await status(id);
        expect(before.status).toBe("running");
        if (before.done >= 6) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      await new Promise((r) => setTimeout(r, CHECKPOINT_MS * 4));
      const killed = await status(id);
      expect(killed.status).toBe("running");
      await server.stop("SIGKILL");

      server = await startDenoServer({ dataDir, env });
      call = api(server.url);
      const after = await status(id);
      // The checkpointed counts survived; the run is being resumed (or already was).
      expect(["interrupted", "running"]).toContain(after.status);
      expect(after.done).toBeGreaterThanOrEqual(6);
      expect(after.done).toBeLessThan(RIDES);
      expect(after.total).toBe(RIDES);
      expect(after.imported).toBeGreaterThanOrEqual(6);

      let final;
      for (;;) {
        final = await status(id);
        if (final.status !== "running" && final.status !== "interrupted") break;
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(final).toMatchObject({
        status: "done",
        layout: "strava",
        total: RIDES,
        done: RIDES,
        failed: [],
        error: null,
        resumed: 1,
      });
      // Every ride once: those finished but not yet checkpointed when the server died count as already
      // here (duplicates); how many that is depends on the machine's speed in the last checkpoint window.
      expect(final.imported + final.duplicates).toBe(RIDES);
      expect(final.imported).toBeGreaterThanOrEqual(after.imported);
      const names: string[] = [];
      for (let page = 1;; page++) {
        const list = await call("GET", "/v3/athlete/activities", { token, query: { per_page: 50, page } });
        expect(list.status).toBe(200);
        names.push(...list.body.map((a: { name: string }) => a.name));
        if (list.body.length < 50) break;
      }
      expect(names.sort()).toEqual(Array.from({ length: RIDES }, (_, i) => `Training ${i}`).sort());
      // The archive is removed from the inbox once the import is done.
      expect(readdirSync(join(dataDir, "imports"))).toEqual([]);
    },
    600_000,
  );
});
