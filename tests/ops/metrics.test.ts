import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { parsePrometheus, valueOf } from "./prometheus.ts";

let server: TestServer;
let idle: TestServer;

beforeAll(async () => {
  server = await startTestServer({ rateLimitShort: 5 });
  // No background jobs: uploads stay queued, so the queue metrics have something to count.
  idle = await startTestServer({ runJobs: false, metricsToken: "s3cret-metrics-token" });
});
afterAll(async () => {
  await server?.close();
  await idle?.close();
});

async function scrape(s: TestServer, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
}

function uploadForm(path: string): FormData {
  const data = new FormData();
  data.set("file", new Blob([readFileSync(deviceFile(path))]), path.split("/").pop()!);
  data.set("data_type", path.split(".").pop()!);
  return data;
}

describe("GET /health and GET /ready", () => {
  it("/health answers 200 without touching the database; /ready checks database, migrations and jobs", async () => {
    const health = await server.api("GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok" });
    // Until what an upload needs is warm (server/uploads/warm-up.ts), /ready says so and nothing else.
    let ready = await server.api("GET", "/ready");
    for (let i = 0; i < 600 && ready.status !== 200; i++) {
      expect(ready.body.checks).toEqual({
        database: "ok",
        migrations: "ok",
        jobs: "ok",
        server: "ok",
        warm: "warming",
      });
      await new Promise((r) => setTimeout(r, 100));
      ready = await server.api("GET", "/ready");
    }
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: "ready",
      checks: { database: "ok", migrations: "ok", jobs: "ok", server: "ok", warm: "ok" },
    });
    const noJobs = await idle.api("GET", "/ready");
    expect(noJobs.status).toBe(200);
    expect(noJobs.body.checks.jobs).toBe("ok (disabled by RUN_JOBS=0)");
  });

  it("/ready says 503 and names the check once the database is gone; /health still says 200", async () => {
    const doomed = await startTestServer();
    try {
      await doomed.platform.db.close();
      const ready = await doomed.api("GET", "/ready");
      expect(ready.status).toBe(503);
      expect(ready.body.status).toBe("not ready");
      expect(ready.body.checks.database).toMatch(/^error: /);
      expect((await doomed.api("GET", "/health")).status).toBe(200);
    } finally {
      await doomed.close().catch(() => {});
    }
  });
});

describe("GET /metrics (Prometheus text format)", () => {
  it("counts requests by route pattern and status, with a latency histogram", async () => {
    const rider = await server.athlete();
    const before = (await scrape(server)).samples;
    const route = { method: "GET", route: "/v3/activities/:id" };
    const statuses: number[] = [];
    for (const id of ["1", "2", "3"]) {
      statuses.push((await server.api("GET", `/v3/activities/${id}`, { token: rider.token })).status);
    }
    const after = (await scrape(server)).samples;
    for (const status of new Set(statuses)) {
      const n = statuses.filter((s) => s === status).length;
      const labels = { ...route, status: String(status) };
      expect(
        valueOf(after, "fitness_http_requests_total", labels) - valueOf(before, "fitness_http_requests_total", labels),
      ).toBe(n);
      expect(
        valueOf(after, "fitness_http_request_duration_seconds_count", labels) -
          valueOf(before, "fitness_http_request_duration_seconds_count", labels),
      ).toBe(n);
      expect(valueOf(after, "fitness_http_request_duration_seconds_bucket", { ...labels, le: "+Inf" })).toBe(
        valueOf(after, "fitness_http_request_duration_seconds_count", labels),
      );
    }
    // Route patterns, never raw paths: no label holds an id.
    expect(after.some((s) => s.labels.route?.includes("/v3/activities/1"))).toBe(false);
  });

  it("counts requests refused by the rate limit (403 Rate Limit Exceeded, as the spec says)", async () => {
    const rider = await server.athlete({ applicationId: (await server.application()).client_id });
    const before = valueOf((await scrape(server)).samples, "fitness_rate_limit_refusals_total", {
      route: "/v3/athlete",
    });
    let refused = 0;
    for (let i = 0; i < 8; i++) {
      const res = await server.api("GET", "/v3/athlete", { token: rider.token });
      if (res.status === 403 && res.body.message === "Rate Limit Exceeded") refused++;
    }
    expect(refused).toBe(3); // limit 5 per 15 minutes, 8 requests (a fresh application)
    const after = valueOf((await scrape(server)).samples, "fitness_rate_limit_refusals_total", {
      route: "/v3/athlete",
    });
    expect(after - before).toBe(refused);
  });

  it("reports the event log position and a projection lag of 0 (read models are updated in the append's transaction)", async () => {
    await server.athlete();
    const { samples, types } = await scrape(server);
    const [row] = await server.platform.db.query<{ p: number }>(
      "select max(global_position)::int as p from public.events",
    );
    expect(valueOf(samples, "fitness_event_log_position")).toBe(row.p);
    expect(types.get("fitness_event_log_position")).toBe("gauge");
    expect(valueOf(samples, "fitness_projection_lag_events")).toBe(0);
  });

  it("reports uploads by state, job queue depth and the age of the oldest queued job", async () => {
    const rider = await idle.athlete();
    const auth = { authorization: "Bearer s3cret-metrics-token" };
    const before = (await scrape(idle, auth)).samples;
    const files = ["fit/garmin-edge1000-cycling-short-3formats.fit", "tcx/fitbit-versa-cycling-hr.tcx"];
    for (const f of files) {
      const res = await idle.api("POST", "/v3/uploads", { token: rider.token, multipart: uploadForm(f) });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe(UPLOAD_STATUS.processing);
    }
    await idle.api("GET", "/metrics", { headers: auth }); // first sighting of the queued jobs
    await new Promise((r) => setTimeout(r, 1100));
    const after = (await scrape(idle, auth)).samples;
    expect(
      valueOf(after, "fitness_uploads", { state: "processing" }) -
        valueOf(before, "fitness_uploads", { state: "processing" }),
    ).toBe(files.length);
    expect(valueOf(after, "fitness_uploads", { state: "ready" })).toBe(0);
    expect(
      valueOf(after, "fitness_job_queue_depth", { kind: "upload" }) -
        valueOf(before, "fitness_job_queue_depth", { kind: "upload" }),
    ).toBe(files.length);
    expect(valueOf(after, "fitness_job_queue_oldest_seconds", { kind: "upload" })).toBeGreaterThanOrEqual(1);
  });

  it("answers only loopback clients when no token is configured, and only the token when one is", async () => {
    const proxied = await fetch(`${server.url}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9" } });
    expect(proxied.status).toBe(403);
    expect(await proxied.json()).toEqual({
      message: "Forbidden",
      errors: [{ resource: "Metrics", field: "client", code: "not loopback" }],
    });
    expect((await fetch(`${idle.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${idle.url}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    expect((await fetch(`${idle.url}/metrics`, { headers: { authorization: "Bearer s3cret-metrics-token" } })).status)
      .toBe(200);
  });
});

describe("request ids", () => {
  it("returns X-Request-Id on every response and records it in the metadata of the events the request appends", async () => {
    const rider = await server.athlete({ applicationId: (await server.application()).client_id });
    const own = `trace-${Date.now()}`;
    const res = await server.api("PUT", "/v3/athlete", {
      token: rider.token,
      form: { weight: 71.5 },
      headers: { "x-request-id": own },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe(own);
    const events = await server.platform.db.query<{ type: string }>(
      "select type from public.events where metadata->>'requestId' = $1",
      [own],
    );
    expect(events.length).toBeGreaterThan(0);

    const generated = await server.api("GET", "/v3/athlete", {
      token: rider.token,
      headers: { "x-request-id": "not plain; <script>" },
    });
    const id = generated.headers.get("x-request-id")!;
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    const missing = await server.api("GET", "/no/such/page");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toMatch(/^[0-9a-f]{24}$/);
    expect(missing.headers.get("x-request-id")).not.toBe(id);
  });
});
