// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../helpers/deno.ts";
import { createTestDatabase } from "../helpers/postgres.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { upload } from "../dropin/deno-server.ts";

/**
 * Crop, split and undo (issue #47 item 5) on PostgreSQL, the same code as on the embedded store: a
 * ride cropped and split, each undone, answering exactly what it answered before; the read models
 * (the activity-edits table, the re-derivations in activities, stats, training load, challenges,
 * club feed, heatmap sources) equal a replay of the log (`cli verify` with DATABASE_URL).
 */
let database: { url: string; drop(): Promise<void> };
let server: TestServer;
let ada: TestAthlete;

beforeAll(async () => {
  database = await createTestDatabase();
  server = await startTestServer({ databaseUrl: database.url });
  ada = await server.athlete();
}, 120_000);
afterAll(async () => {
  await server?.close();
  await database?.drop();
});

it("crops, splits and undoes on PostgreSQL; replay equals the live read models", async () => {
  const call = (method: string, path: string, json?: unknown) => server.api(method, path, { token: ada.token, json });
  const id = await upload(server.api, ada.token, "fit/garmin-edge500-cycling-hr-cad-pauses.fit");
  const before = (await call("GET", `/v3/activities/${id}?include_all_efforts=true`)).body;
  const crop = await call("POST", `/v3/activities/${id}/crop`, { start_time: 600, end_time: 6000 });
  expect(crop.status, crop.text).toBe(200);
  expect(crop.body.elapsed_time).toBe(5400);
  const split = await call("POST", `/v3/activities/${id}/split`, { time: 2000 });
  expect(split.status, split.text).toBe(201);
  expect(split.body.activity.elapsed_time + split.body.split_activity.elapsed_time).toBe(5400);
  expect((await call("GET", `/v3/activities/${id}/edits`)).body.edits.map((e: any) => e.kind)).toEqual([
    "crop",
    "split",
  ]);
  const stats = (await call("GET", `/v3/athletes/${ada.id}/stats`)).body;
  expect(stats.all_ride_totals.count).toBe(2);
  await server.close();
  const verify = await runCli(["verify", "--json"], { DATABASE_URL: database.url });
  expect(verify.code, verify.stderr).toBe(0);
  expect(JSON.parse(verify.stdout).differences).toEqual([]);
  server = await startTestServer({ databaseUrl: database.url });
  expect((await call("DELETE", `/v3/activities/${id}/edits/2`)).status).toBe(200);
  expect((await call("GET", `/v3/activities/${split.body.split_activity.id}`)).status).toBe(404);
  expect((await call("DELETE", `/v3/activities/${id}/edits/1`)).status).toBe(200);
  expect((await call("GET", `/v3/activities/${id}?include_all_efforts=true`)).body).toEqual(before);
}, 300_000);
