import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { DEVICES } from "../helpers/fixtures.ts";
import { type Api, api, uploadUntilReady } from "../helpers/http.ts";

/**
 * Goals (issue #47 item 3) over HTTP on the server as `npm start` runs it. Gia sets weekly, monthly
 * and yearly goals of distance, moving time and elevation for her runs and rides; her activities —
 * manual runs spread over the last year and a real ride (a Strava GPX export, its times moved to
 * three days ago) — are summed here, independently, over the periods computed here: weeks from Monday in
 * her time zone (+13:00, that of her latest activity), months, years. Each goal's `progress` equals
 * that sum, and follows edits (type), visibility (an only_me run counts for her token with read_all,
 * not for her read-only one) and deletions; bad input is a 400, a duplicate a 409, another's goal a
 * 404; the operations are in the OpenAPI document; `cli verify` finds replay equal to live.
 */
const RIDE_FILE = "gpx/strava-export-cycling-power-hr-cad-atemp.gpx";
const OFFSET_HOURS = 13;
const HOUR = 3_600_000, DAY = 24 * HOUR;

let server: DenoServer;
let call: Api;
const tokens = { gia: "", giaRead: "", other: "" };

interface Seen {
  id: number;
  type: string;
  start_date_local: string;
  distance: number;
  moving_time: number;
  total_elevation_gain: number;
  visibility: string;
}

async function ok(method: string, path: string, token: string, body?: Record<string, unknown>) {
  const res = await call(method, path, { token, json: body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

/** A local time at +13:00, `ago` milliseconds before now, as POST /v3/activities takes it. */
function localAt(ago: number): string {
  return new Date(Date.now() - ago + OFFSET_HOURS * HOUR).toISOString().slice(0, 19) + "+13:00";
}

/** The periods holding today at +13:00, computed here: the week from Monday, the month, the year. */
function periodsNow() {
  const today = new Date(Date.now() + OFFSET_HOURS * HOUR).toISOString().slice(0, 10);
  const t = Date.parse(`${today}T00:00:00Z`);
  const monday = new Date(t - ((new Date(t).getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
  const sunday = new Date(Date.parse(`${monday}T00:00:00Z`) + 6 * DAY).toISOString().slice(0, 10);
  return {
    week: (day: string) => day >= monday && day <= sunday,
    month: (day: string) => day.slice(0, 7) === today.slice(0, 7),
    year: (day: string) => day.slice(0, 4) === today.slice(0, 4),
    monday,
    sunday,
  };
}

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-goals-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const gia = await createAthlete(setup, {
    firstname: "Gia",
    lastname: "Goals",
    email: "gia@example.com",
    password: "password123",
  });
  const other = await createAthlete(setup, {
    firstname: "Oli",
    lastname: "Other",
    email: "oli@example.com",
    password: "password123",
  });
  const app = await createApplication(setup, { name: "Goals", ownerId: gia, callbackDomain: "localhost" });
  tokens.gia = await issueToken(setup, {
    athleteId: gia,
    applicationId: app.client_id,
    permissions: ["read", "write", "view_private"],
  });
  tokens.giaRead = await issueToken(setup, { athleteId: gia, applicationId: app.client_id, permissions: ["read"] });
  tokens.other = await issueToken(setup, { athleteId: other, applicationId: app.client_id, permissions: ["write"] });
  await setup.close();
  server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
  call = api(server.url);

  // The ride, its times moved to three days ago (its distance and climbing unchanged).
  const gpx = readFileSync(join(DEVICES, RIDE_FILE), "utf8");
  const first = Date.parse(/<trkpt[^>]*>\s*(?:<ele>[^<]*<\/ele>\s*)?<time>([^<]+)<\/time>/.exec(gpx)![1]);
  // Older than the two latest runs: whichever is deleted, the latest activity (her time zone) is a run at +13:00.
  const shift = Date.now() - 3 * DAY - 3 * HOUR - first;
  const moved = gpx.replace(
    /<time>([^<]+)<\/time>/g,
    (_, t) => `<time>${new Date(Date.parse(t) + shift).toISOString()}</time>`,
  );
  await uploadUntilReady(call, tokens.gia, {
    bytes: new TextEncoder().encode(moved),
    name: "ride.gpx",
    dataType: "gpx",
  }, {
    activity_type: "ride",
  });
  // Runs over the last year (the latest sets her time zone to +13:00). The latest is within this
  // week at +13:00 whatever the hour: an hour ago, or half the time since Monday began there (an
  // hour ago fell in last week from 11:00 to 12:00 UTC on Sundays).
  const localNow = Date.now() + OFFSET_HOURS * HOUR;
  const sinceMonday = localNow % DAY + ((new Date(localNow).getUTCDay() + 6) % 7) * DAY;
  const runs: [number, number, number][] = [
    [Math.min(HOUR, Math.floor(sinceMonday / 2)), 6000, 1800],
    [2 * DAY + 5 * HOUR, 6345.6, 2100],
    [6 * DAY, 8000, 2500],
    [9 * DAY, 10_000, 3000],
    [25 * DAY, 12_000, 3600],
    [70 * DAY, 15_000, 4500],
    [200 * DAY, 21_097.5, 6300],
    [370 * DAY, 42_195, 12_600],
  ];
  for (const [ago, distance, time] of runs.reverse()) {
    await ok("POST", "/v3/activities", tokens.gia, {
      name: `Run ${ago / HOUR} h ago`,
      type: "Run",
      start_date_local: localAt(ago),
      elapsed_time: time,
      distance,
    });
  }
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

const GOALS = [
  { type: "Run", period: "week", dimension: "distance", goal: 20_000 },
  { type: "Run", period: "month", dimension: "time", goal: 36_000 },
  { type: "Run", period: "year", dimension: "distance", goal: 1_000_000 },
  { type: "Ride", period: "year", dimension: "elevation", goal: 10_000 },
  { type: "Ride", period: "week", dimension: "distance", goal: 50_000 },
] as const;

/** Each goal's progress summed here from the activities the token may see. */
async function expected(token: string) {
  const p = periodsNow();
  const res = await call("GET", "/v3/athlete/activities", { token, query: { per_page: 200 } });
  expect(res.status).toBe(200);
  const all: Seen[] = res.body;
  return GOALS.map((g) => {
    const counted = all.filter((a) => a.type === g.type && p[g.period](a.start_date_local.slice(0, 10)));
    const sum = counted.reduce(
      (s, a) =>
        s + (g.dimension === "distance" ? a.distance : g.dimension === "time" ? a.moving_time : a.total_elevation_gain),
      0,
    );
    return { ...g, progress: Math.round(sum * 10) / 10, activity_count: counted.length };
  });
}

async function answered(token: string) {
  const goals = await ok("GET", "/v3/athlete/goals", token);
  return goals.map((g: Record<string, unknown>) => ({
    type: g.type,
    period: g.period,
    dimension: g.dimension,
    goal: g.goal,
    progress: g.progress,
    activity_count: g.activity_count,
  }));
}

describe("goals", () => {
  it("sets goals and answers each one's progress in its unit over the current week, month and year", async () => {
    for (const g of GOALS) {
      const made = await call("POST", "/v3/athlete/goals", { token: tokens.gia, form: { ...g, goal: String(g.goal) } });
      expect(made.status, made.text).toBe(201);
      expect(made.body).toMatchObject({ ...g, resource_state: 2 });
    }
    const p = periodsNow();
    const goals = await ok("GET", "/v3/athlete/goals", tokens.gia);
    expect(goals.map((g: { period_start: string }) => g.period_start)).toEqual([
      p.monday,
      expect.stringMatching(/-01$/),
      expect.stringMatching(/-01-01$/),
      expect.stringMatching(/-01-01$/),
      p.monday,
    ]);
    expect(goals[0].period_end).toBe(p.sunday);
    const want = await expected(tokens.gia);
    expect(await answered(tokens.gia)).toEqual(want);
    // The probes count something: this week's runs and the ride's climbing.
    expect(want[0].activity_count).toBeGreaterThanOrEqual(1);
    expect(want[3].progress).toBeGreaterThan(100);
  }, 120_000);

  it("follows edits, visibility and deletions", async () => {
    const runs: Seen[] = (await ok("GET", "/v3/athlete/activities", tokens.gia)).filter((a: Seen) => a.type === "Run");
    const latest = runs[0];
    await ok("PUT", `/v3/activities/${latest.id}`, tokens.gia, { type: "Ride" });
    expect(await answered(tokens.gia)).toEqual(await expected(tokens.gia));
    await ok("PUT", `/v3/activities/${latest.id}`, tokens.gia, { type: "Run" });
    // Only me: Gia's token with read_all counts it, her read-only one does not (and lists it not).
    await ok("PUT", `/v3/activities/${latest.id}`, tokens.gia, { visibility: "only_me" });
    const full = await answered(tokens.gia), readOnly = await answered(tokens.giaRead);
    expect(full).toEqual(await expected(tokens.gia));
    expect(readOnly).toEqual(await expected(tokens.giaRead));
    expect(readOnly[0].progress).toBeLessThan(full[0].progress);
    await ok("PUT", `/v3/activities/${latest.id}`, tokens.gia, { visibility: "followers_only" });
    expect(await answered(tokens.giaRead)).toEqual(await expected(tokens.gia));
    await ok("DELETE", `/v3/activities/${latest.id}`, tokens.gia);
    expect(await answered(tokens.gia)).toEqual(await expected(tokens.gia));
  }, 120_000);

  it("refuses bad goals with a 400, a second of a kind with a 409, another's with a 404; deletes", async () => {
    for (
      const [body, field] of [
        [{ type: "Run", period: "fortnight", dimension: "distance", goal: 1 }, "period"],
        [{ type: "Flying", period: "week", dimension: "distance", goal: 1 }, "type"],
        [{ type: "Run", period: "week", dimension: "pace", goal: 1 }, "dimension"],
        [{ type: "Run", period: "week", dimension: "distance", goal: 0 }, "goal"],
        [{ type: "Run", period: "week", dimension: "time", goal: 40_000_000 }, "goal"],
      ] as const
    ) {
      const res = await call("POST", "/v3/athlete/goals", { token: tokens.gia, json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    const twice = await call("POST", "/v3/athlete/goals", { token: tokens.gia, json: GOALS[0] });
    expect(twice.status).toBe(409);
    expect(twice.body.errors).toEqual([{ resource: "Goal", field: "type", code: "already exists" }]);
    const mine = await ok("GET", "/v3/athlete/goals", tokens.gia);
    expect((await call("DELETE", `/v3/athlete/goals/${mine[0].id}`, { token: tokens.other })).status).toBe(404);
    expect((await call("POST", "/v3/athlete/goals", { token: tokens.giaRead, json: GOALS[0] })).status).toBe(401);
    expect((await call("GET", "/v3/athlete/goals", { token: tokens.other })).body).toEqual([]);
    expect((await call("DELETE", `/v3/athlete/goals/${mine[4].id}`, { token: tokens.gia })).status).toBe(204);
    expect((await ok("GET", "/v3/athlete/goals", tokens.gia)).length).toBe(4);
    expect((await call("DELETE", `/v3/athlete/goals/${mine[4].id}`, { token: tokens.gia })).status).toBe(404);
    const doc = (await call("GET", "/v3/openapi.json")).body;
    expect(Object.keys(doc.paths["/v3/athlete/goals"]).sort()).toEqual(["get", "post"]);
    expect(Object.keys(doc.paths["/v3/athlete/goals/{id}"])).toEqual(["delete"]);
    expect(Object.keys(doc.components.schemas.Goal.properties)).toContain("progress");
  }, 60_000);

  it("replays to the same read models (cli verify)", async () => {
    const dataDir = server.dataDir;
    await server.stop();
    const verify = await runCli(["verify"], { DATA_DIR: dataDir });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/read-model tables rebuilt from \d+ events are equal to the live ones/);
  }, 180_000);
});
