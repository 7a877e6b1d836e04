import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upload } from "../dropin/deno-server.ts";
import { createTestDatabase, TEST_DATABASE_URL } from "../helpers/postgres.ts";
import { SharedRateLimiter } from "../../server/http/shared-rate-limit.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * Issue 34: several servers on one PostgreSQL. An application's rate limit (and an internal
 * application's per-athlete limit) is one budget across all of them; uploads posted to an API-only
 * server (RUN_JOBS=0) are processed by a job server while the API server keeps answering.
 */
const QUARTER = 15 * 60 * 1000;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
const servers: TestServer[] = [];

/** The windows reset at :00, :15, :30, :45: a test counting in one window starts well inside it. */
async function awayFromWindowEdge(): Promise<void> {
  const left = QUARTER - (Date.now() % QUARTER);
  if (left < 60_000) await new Promise((r) => setTimeout(r, left + 1000));
}

describe.runIf(TEST_DATABASE_URL)("several servers on one PostgreSQL (issue 34)", () => {
  let one: TestServer;
  let two: TestServer;
  beforeAll(async () => {
    database = await createTestDatabase();
    const limits = {
      databaseUrl: database.url,
      rateLimitShort: 6,
      rateLimitLong: 1000,
      athleteRateLimitShort: 4,
      athleteRateLimitLong: 1000,
    };
    [one, two] = await Promise.all([
      startTestServer({ ...limits, runJobs: false }),
      startTestServer({ ...limits, runJobs: false }),
    ]);
    servers.push(one, two);
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => {});
    await database?.drop();
  });

  it("holds an application's limit across both servers (sequential and concurrent requests)", async () => {
    await awayFromWindowEdge();
    const app = await one.application({ internal: false });
    const ann = await one.athlete({ applicationId: app.client_id });
    const bob = await one.athlete({ applicationId: app.client_id });
    const statuses: number[] = [];
    const usages: string[] = [];
    for (let i = 0; i < 8; i++) {
      const server = i % 2 === 0 ? one : two;
      const res = await server.api("GET", "/v3/athlete", { token: i % 3 === 0 ? bob.token : ann.token });
      statuses.push(res.status);
      usages.push(res.headers.get("x-ratelimit-usage")!);
    }
    // Six requests in all, whichever server and athlete: the 7th and 8th are refused (403, Strava's answer).
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 403, 403]);
    expect(usages.map((u) => u.split(",")[0])).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
    console.log(`one application over two servers, limit 6: statuses ${statuses.join(" ")}; usage ${usages.join(" ")}`);

    // Concurrent: 20 requests at once over both servers for a fresh application of limit 6: exactly 6 pass.
    const other = await one.application({ internal: false });
    const cat = await one.athlete({ applicationId: other.client_id });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? one : two).api("GET", "/v3/athlete", { token: cat.token })),
    );
    const passed = answers.filter((a) => a.status === 200).length;
    expect(passed).toBe(6);
    expect(answers.filter((a) => a.status === 403).length).toBe(14);
    console.log(`20 concurrent requests over two servers, limit 6: ${passed} answered 200`);
  }, 120_000);

  it("counts with one upsert per request: what it costs, and windows that reset", async () => {
    const limiter = new SharedRateLimiter(one.platform.db, 3, 5);
    const at = (iso: string) => Date.parse(iso);
    expect(await limiter.hit("probe", at("2026-05-01T10:14:00Z"))).toEqual({ allowed: true, short: 1, long: 1 });
    expect(await limiter.hit("probe", at("2026-05-01T10:14:10Z"))).toEqual({ allowed: true, short: 2, long: 2 });
    expect(await limiter.hit("probe", at("2026-05-01T10:14:20Z"))).toEqual({ allowed: true, short: 3, long: 3 });
    expect(await limiter.hit("probe", at("2026-05-01T10:14:30Z"))).toEqual({ allowed: false, short: 4, long: 4 });
    // A new quarter resets the short window; the day goes on counting (refused requests included).
    expect(await limiter.hit("probe", at("2026-05-01T10:15:00Z"))).toEqual({ allowed: true, short: 1, long: 5 });
    expect(await limiter.hit("probe", at("2026-05-01T10:16:00Z"))).toEqual({ allowed: false, short: 2, long: 6 });
    expect(await limiter.hit("probe", at("2026-05-02T00:00:00Z"))).toEqual({ allowed: true, short: 1, long: 1 });
    const times: number[] = [];
    for (let i = 0; i < 300; i++) {
      const started = performance.now();
      await limiter.hit(`cost-${i % 10}`);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const median = times[150], p99 = times[297];
    console.log(
      `shared rate-limit upsert on PostgreSQL: median ${median.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (300 requests)`,
    );
    expect(median).toBeLessThan(20);
  }, 60_000);

  it("holds an internal application's per-athlete budget across both servers", async () => {
    await awayFromWindowEdge();
    const web = await one.application({ internal: true });
    const ann = await one.athlete({ applicationId: web.client_id });
    const bob = await one.athlete({ applicationId: web.client_id });
    const annStatuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      annStatuses.push((await (i % 2 ? two : one).api("GET", "/v3/athlete", { token: ann.token })).status);
    }
    expect(annStatuses).toEqual([200, 200, 200, 200, 403, 403]);
    // Bob has his own budget of 4, on either server.
    const bobStatuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      bobStatuses.push((await (i % 2 ? one : two).api("GET", "/v3/athlete", { token: bob.token })).status);
    }
    expect(bobStatuses).toEqual([200, 200, 200, 200, 403]);
  }, 120_000);

  it("processes uploads on a job-only server while the API servers (RUN_JOBS=0) answer", async () => {
    const api = { databaseUrl: database.url, runJobs: false, rateLimitShort: 100_000, rateLimitLong: 100_000 };
    const [one, two] = [await startTestServer(api), await startTestServer(api)];
    servers.push(one, two);
    const app = await one.application({ internal: false });
    const ann = await one.athlete({ applicationId: app.client_id });
    const form = new FormData();
    form.set(
      "file",
      new Blob([
        await import("node:fs").then((fs) =>
          fs.readFileSync(new URL("../fixtures/devices/gpx/strava-export-running-hr.gpx", import.meta.url))
        ),
      ]),
      "run.gpx",
    );
    form.set("data_type", "gpx");
    const posted = await one.api("POST", "/v3/uploads", { token: ann.token, multipart: form });
    expect(posted.status, posted.text).toBe(201);
    // No server runs jobs yet: the upload waits, and the API servers answer.
    await new Promise((r) => setTimeout(r, 1500));
    const waiting = await two.api("GET", `/v3/uploads/${posted.body.id}`, { token: ann.token });
    expect(waiting.status).toBe(200);
    expect(waiting.body.activity_id).toBeNull();
    expect(waiting.body.status).toBe("Your activity is still being processed.");
    // A job server (RUN_JOBS=1) on the same database takes it.
    const jobs = await startTestServer({ databaseUrl: database.url, runJobs: true });
    servers.push(jobs);
    let activityId: number | null = null;
    for (let i = 0; i < 600 && activityId === null; i++) {
      const status = await (i % 2 ? one : two).api("GET", `/v3/uploads/${posted.body.id}`, { token: ann.token });
      expect(status.body.error).toBeNull();
      activityId = status.body.activity_id;
      if (activityId === null) await new Promise((r) => setTimeout(r, 100));
    }
    expect(activityId).not.toBeNull();
    const streams = await one.api("GET", `/v3/activities/${activityId}/streams`, {
      token: ann.token,
      query: { keys: "latlng", key_by_type: true },
    });
    expect(streams.status).toBe(200);
    expect(streams.body.latlng.data.length).toBeGreaterThan(10);
    // And another upload through the other API server: the job server processes it too.
    const again = await upload(two.api, ann.token, "fit/garmin-edge1000-cycling-short-3formats.fit");
    expect(again).toBeGreaterThan(0);
  }, 180_000);
});
