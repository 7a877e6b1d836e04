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
 * Gear care (issue #47 item 2) over HTTP on the server as `npm start` runs it: shoes worn on a real
 * run (a Garmin Forerunner 410 TCX) and a manual one carry the sum of their distances — checked
 * against the file's own lap distances — as activities name them, move, change and go; a reminder
 * distance set with PUT /v3/gear/:id turns `reminder_reached` true once the distance reaches it (on
 * the gear, the athlete's gear and the activity's gear); retiring keeps the distance, takes the
 * primary flag away and is refused with primary; bad input is a 400 and another athlete's gear a
 * 404; `cli verify` finds the kept distances equal to a replay's.
 */
const RUN_FILE = "tcx/garmin-fr410-running-hr.tcx";

let server: DenoServer;
let call: Api;
const tokens = { gwen: "", gwenRead: "", otto: "" };
let shoes = "", bike = "", run = 0, manual = 0;

/** The TCX laps' own distances (each Lap's DistanceMeters), summed here from the file. */
function lapDistances(file: string): number {
  const text = readFileSync(join(DEVICES, file), "utf8");
  return [...text.matchAll(/<Lap [^>]*>\s*<TotalTimeSeconds>[^<]*<\/TotalTimeSeconds>\s*<DistanceMeters>([\d.]+)/g)]
    .reduce((sum, m) => sum + Number(m[1]), 0);
}

async function ok(method: string, path: string, token: string, body?: Record<string, unknown>) {
  const res = await call(method, path, { token, json: body });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

const gear = (id: string, token = tokens.gwen) => ok("GET", `/v3/gear/${id}`, token);

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-gear-care-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const gwen = await createAthlete(setup, {
    firstname: "Gwen",
    lastname: "Runner",
    email: "gwen@example.com",
    password: "password123",
  });
  const otto = await createAthlete(setup, {
    firstname: "Otto",
    lastname: "Other",
    email: "otto@example.com",
    password: "password123",
  });
  const app = await createApplication(setup, { name: "Gear", ownerId: gwen, callbackDomain: "localhost" });
  tokens.gwen = await issueToken(setup, {
    athleteId: gwen,
    applicationId: app.client_id,
    permissions: ["read", "write", "view_private"],
  });
  tokens.gwenRead = await issueToken(setup, { athleteId: gwen, applicationId: app.client_id, permissions: ["read"] });
  tokens.otto = await issueToken(setup, { athleteId: otto, applicationId: app.client_id, permissions: ["write"] });
  await setup.close();
  server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
  call = api(server.url);
  shoes = (await ok("POST", "/v3/gear", tokens.gwen, { kind: "shoe", name: "Trail shoes", primary: true })).id;
  bike = (await ok("POST", "/v3/gear", tokens.gwen, { kind: "bike", name: "Gravel bike" })).id;
  run = await uploadUntilReady(call, tokens.gwen, {
    bytes: readFileSync(join(DEVICES, RUN_FILE)),
    name: "run.tcx",
    dataType: "tcx",
  }, { activity_type: "run" });
  manual = (await ok("POST", "/v3/activities", tokens.gwen, {
    name: "Track session",
    type: "Run",
    start_date_local: "2026-02-03T18:00:00Z",
    elapsed_time: 1500,
    distance: 5000,
  })).id;
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

describe("gear care", () => {
  it("keeps the distance of the activities that name the gear, as they move, change and go", async () => {
    expect((await gear(shoes)).distance).toBe(0);
    await ok("PUT", `/v3/activities/${run}`, tokens.gwen, { gear_id: shoes });
    await ok("PUT", `/v3/activities/${manual}`, tokens.gwen, { gear_id: shoes });
    const runDistance = (await ok("GET", `/v3/activities/${run}`, tokens.gwen)).distance;
    // The derived distance against the file's own laps (the device's figures), within 1 %.
    expect(Math.abs(runDistance - lapDistances(RUN_FILE)) / lapDistances(RUN_FILE)).toBeLessThan(0.01);
    expect((await gear(shoes)).distance).toBeCloseTo(runDistance + 5000, 6);
    // Moved to the bike, back, and the manual run's distance edited away by deleting it.
    await ok("PUT", `/v3/activities/${manual}`, tokens.gwen, { gear_id: bike });
    expect((await gear(shoes)).distance).toBeCloseTo(runDistance, 6);
    expect((await gear(bike)).distance).toBe(5000);
    await ok("PUT", `/v3/activities/${manual}`, tokens.gwen, { gear_id: "none" });
    expect((await gear(bike)).distance).toBe(0);
    await ok("PUT", `/v3/activities/${manual}`, tokens.gwen, { gear_id: shoes });
    expect((await gear(shoes)).distance).toBeCloseTo(runDistance + 5000, 6);
    const extra = (await ok("POST", "/v3/activities", tokens.gwen, {
      name: "Gone",
      type: "Run",
      start_date_local: "2026-02-04T18:00:00Z",
      elapsed_time: 600,
      distance: 2000,
    })).id;
    await ok("PUT", `/v3/activities/${extra}`, tokens.gwen, { gear_id: shoes });
    expect((await gear(shoes)).distance).toBeCloseTo(runDistance + 7000, 6);
    await ok("DELETE", `/v3/activities/${extra}`, tokens.gwen);
    expect((await gear(shoes)).distance).toBeCloseTo(runDistance + 5000, 6);
  }, 120_000);

  it(
    "sets a reminder distance: reached once the distance gets there, on the gear and the activity's gear",
    async () => {
      const distance = (await gear(shoes)).distance as number;
      const later = await ok("PUT", `/v3/gear/${shoes}`, tokens.gwen, { reminder_distance: 700_000 });
      expect([later.reminder_distance, later.reminder_reached]).toEqual([700_000, false]);
      // As a form field too, in metres; just below the distance: reached.
      const form = await call("PUT", `/v3/gear/${shoes}`, {
        token: tokens.gwen,
        form: { reminder_distance: String(Math.floor(distance) - 100) },
      });
      expect(form.status, form.text).toBe(200);
      expect([form.body.reminder_distance, form.body.reminder_reached]).toEqual([Math.floor(distance) - 100, true]);
      const activity = await ok("GET", `/v3/activities/${run}`, tokens.gwen);
      expect(activity.gear).toMatchObject({ id: shoes, reminder_reached: true });
      const me = await ok("GET", "/v3/athlete", tokens.gwen);
      expect(me.shoes.find((g: { id: string }) => g.id === shoes)).toMatchObject({ reminder_reached: true });
      // Exactly at the distance is reached; 0 clears it.
      await ok("PUT", `/v3/gear/${shoes}`, tokens.gwen, { reminder_distance: 5000 });
      expect((await gear(shoes)).reminder_reached).toBe(true);
      const cleared = await ok("PUT", `/v3/gear/${shoes}`, tokens.gwen, { reminder_distance: 0 });
      expect([cleared.reminder_distance, cleared.reminder_reached]).toEqual([null, false]);
      await ok("PUT", `/v3/gear/${shoes}`, tokens.gwen, { reminder_distance: Math.floor(distance) - 100 });
    },
    60_000,
  );

  it("retires gear: kept with its distance, marked retired, never primary; put back in use", async () => {
    const before = await gear(shoes);
    expect(before.primary).toBe(true);
    const retired = await ok("PUT", `/v3/gear/${shoes}`, tokens.gwen, { retired: true });
    expect(retired).toMatchObject({ retired: true, primary: false, distance: before.distance });
    const refused = await call("PUT", `/v3/gear/${shoes}`, { token: tokens.gwen, json: { primary: true } });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ resource: "Gear", field: "primary", code: "retired" }]);
    // The activity keeps its gear; the athlete's list keeps the retired shoes, marked.
    expect((await ok("GET", `/v3/activities/${run}`, tokens.gwen)).gear).toMatchObject({ id: shoes, retired: true });
    const me = await ok("GET", "/v3/athlete", tokens.gwen);
    expect(me.shoes.map((g: { id: string; retired: boolean }) => [g.id, g.retired])).toEqual([[shoes, true]]);
    const back = await ok("PUT", `/v3/gear/${shoes}`, tokens.gwen, { retired: false, name: "Trail shoes (old)" });
    expect(back).toMatchObject({ retired: false, primary: false, name: "Trail shoes (old)" });
    await ok("PUT", `/v3/gear/${shoes}`, tokens.gwen, { retired: true });
  }, 60_000);

  it("refuses bad input with a 400, another athlete's gear with a 404, a read-only token with a 401", async () => {
    for (
      const [body, field] of [
        [{ reminder_distance: -5 }, "reminder_distance"],
        [{ reminder_distance: "far" }, "reminder_distance"],
        [{ reminder_distance: 200_000_000 }, "reminder_distance"],
        [{ retired: "maybe" }, "retired"],
        [{ name: "" }, "name"],
      ] as const
    ) {
      const res = await call("PUT", `/v3/gear/${bike}`, { token: tokens.gwen, json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual([field]);
    }
    expect((await call("PUT", `/v3/gear/${bike}`, { token: tokens.otto, json: { retired: true } })).status).toBe(404);
    expect((await call("PUT", "/v3/gear/b999999", { token: tokens.gwen, json: { retired: true } })).status).toBe(404);
    expect((await call("PUT", `/v3/gear/${bike}`, { token: tokens.gwenRead, json: { retired: true } })).status).toBe(
      401,
    );
    expect((await gear(bike)).retired).toBe(false);
    // Documented in the OpenAPI document.
    const doc = (await call("GET", "/v3/openapi.json")).body;
    expect(Object.keys(doc.paths["/v3/gear/{id}"])).toContain("put");
    expect(JSON.stringify(doc.components.schemas.DetailedGear)).toContain("reminder_reached");
  }, 60_000);

  it("replays to the same read models, the kept distances included (cli verify)", async () => {
    const dataDir = server.dataDir;
    await server.stop();
    const verify = await runCli(["verify"], { DATA_DIR: dataDir });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/read-model tables rebuilt from \d+ events are equal to the live ones/);
  }, 180_000);
});
