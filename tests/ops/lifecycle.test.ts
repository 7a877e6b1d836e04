import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DENO, type DenoServer, ROOT, startDenoServer } from "../helpers/deno.ts";

const servers: DenoServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

/** Runs `npm start`'s command (Deno, server/main.ts) with this environment until it exits. */
function runServer(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(DENO, ["run", "-A", "server/main.ts", ...args], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", DATA_DIR: join(ROOT, "tests/artifacts/never-created"), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("configuration", () => {
  it("a value the server cannot use is one clear line naming the setting, exit code 2, no stack trace", async () => {
    for (
      const [name, value] of [
        ["PORT", "undefined"],
        ["PORT", "70000"],
        ["LOG_FORMAT", "xml"],
        ["DATABASE_URL", "mysql://x"],
        ["SEED_DEMO", "maybe"],
        ["WEBHOOKS_ALLOW_PRIVATE", "yes"],
        ["WEBHOOKS_ALLOW_PRIVATE", "10.0.0.0/33"],
      ]
    ) {
      const run = await runServer([], { [name]: value });
      expect(run.code, `${name}=${value}`).toBe(2);
      const lines = run.stderr.trim().split("\n");
      expect(lines, run.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^configuration error: ${name}`));
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("npm start -- --help lists every setting the server reads from its environment", async () => {
    const run = await runServer(["--help"], {});
    expect(run.code).toBe(0);
    // Every variable server/config.ts reads, found in its source text.
    const source = readFileSync(join(ROOT, "server/config.ts"), "utf8");
    const read = new Set([...source.matchAll(/(?:env|intEnv|flagEnv|urlEnv)\("([A-Z_]+)"/g)].map((m) => m[1]));
    expect(read.size).toBeGreaterThan(10);
    for (const name of read) expect(run.stdout, name).toMatch(new RegExp(`^  ${name} `, "m"));
  });
});

describe("request log", () => {
  it("LOG_FORMAT=json writes one JSON object per request with its request id, route, status and duration", async () => {
    const server = await startDenoServer({ env: { LOG_FORMAT: "json", SEED_DEMO: "0" } });
    servers.push(server);
    const res = await fetch(`${server.url}/v3/athletes/12345`, { headers: { "x-request-id": "json-log-check-1" } });
    await res.body?.cancel();
    expect(res.headers.get("x-request-id")).toBe("json-log-check-1");
    await sleep(200);
    const lines = server.output().split("\n").filter((l) => l.includes("json-log-check-1"));
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({
      msg: "request",
      request_id: "json-log-check-1",
      method: "GET",
      path: "/v3/athletes/12345",
      route: "/v3/athletes/:id",
      status: res.status,
    });
    expect(typeof entry.duration_ms).toBe("number");
    expect(new Date(entry.time).toISOString()).toBe(entry.time);
  });
});

describe("graceful shutdown", () => {
  it("on SIGTERM it turns new requests away, finishes the request in flight, closes the database and exits 0", async () => {
    const server = await startDenoServer();
    servers.push(server);
    const token = /Access token \(athlete \d+[^)]*\):\n\s+([0-9a-f]+)/.exec(server.output())?.[1];
    expect(token).toBeDefined();
    const exited = new Promise<number | null>((r) => server.child.on("exit", (code) => r(code)));

    // A slow request: its body arrives in two parts, with the SIGTERM in between.
    const body = new URLSearchParams({
      name: "Finished during shutdown",
      type: "Run",
      start_date_local: "2026-03-01T07:00:00Z",
      elapsed_time: "600",
    }).toString();
    const req = request({
      host: "127.0.0.1",
      port: server.port,
      method: "POST",
      path: "/v3/activities",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/x-www-form-urlencoded",
        "content-length": Buffer.byteLength(body),
      },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      req.on("response", (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on("error", reject);
    });
    req.write(body.slice(0, 10));
    await sleep(500);
    server.child.kill("SIGTERM");
    await sleep(1000);
    expect(server.child.exitCode).toBeNull(); // still finishing the request
    // No new work meanwhile: a new request is turned away with 503, /ready says why.
    const turnedAway = await fetch(`${server.url}/ready`);
    expect(turnedAway.status).toBe(503);
    expect(await turnedAway.json()).toEqual({
      message: "Service Unavailable",
      errors: [{ resource: "Server", field: "state", code: "shutting down" }],
    });
    req.end(body.slice(10));
    const res = await response;
    expect(res.status, res.body).toBe(201);
    const id = /"id":(\d+)/.exec(res.body)![1];
    expect(await exited).toBe(0);
    expect(server.output()).toContain("stopped cleanly");

    // The database was closed cleanly with the activity in it.
    const again = await startDenoServer({ dataDir: server.dataDir });
    servers.push(again);
    const read = await fetch(`${again.url}/v3/activities/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(read.status).toBe(200);
    expect((await read.json()).name).toBe("Finished during shutdown");
    expect(await again.stop("SIGINT")).toBe(0);
  });
});
