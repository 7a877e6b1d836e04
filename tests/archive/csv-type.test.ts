import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { api } from "../helpers/http.ts";
import { readTcxLaps } from "../numbers/device-totals.ts";
import { activitiesCsv, type CsvActivity, writeZip } from "./archives.ts";

/**
 * Issue #32: the type in an archive's activities.csv is what the athlete set on the platform it came
 * from, so it wins over the sport the file names. A real TCX recorded as a run (Forerunner 410,
 * `<Activity Sport="Running">`) listed as "Hike" is imported by the CLI and stays a Hike — over the
 * API, after `reprocess --all` and in a replay (`verify`): the upload's event keeps the choice.
 */
const FILE = "tcx/garmin-fr410-running-hr.tcx";
const dir = mkdtempSync(join(tmpdir(), "archive-csv-type-"));
const env = { DATA_DIR: join(dir, "data") };
let athleteId: number;
let token: string;
let server: DenoServer | undefined;

afterAll(async () => {
  await server?.stop();
});

beforeAll(async () => {
  const athlete = await runCli([
    "athlete",
    "create",
    "--firstname",
    "Reinhold",
    "--lastname",
    "Messner",
    "--email",
    "messner@example.com",
    "--password",
    "eightthousanders",
    "--json",
  ], env);
  expect(athlete.code, athlete.stderr).toBe(0);
  athleteId = JSON.parse(athlete.stdout).id;
  const app = await runCli([
    "app",
    "create",
    "--name",
    "Checker",
    "--callback-domain",
    "example.com",
    "--owner",
    String(athleteId),
    "--json",
  ], env);
  const issued = await runCli([
    "token",
    "issue",
    "--athlete",
    String(athleteId),
    "--client-id",
    String(JSON.parse(app.stdout).client_id),
    "--scope",
    "read_all,activity:read_all,view_private",
    "--json",
  ], env);
  expect(issued.code, issued.stderr).toBe(0);
  token = JSON.parse(issued.stdout).access_token;
}, 240_000);

describe("activities.csv's type wins over the file's sport", () => {
  it("a TCX recorded as a run, listed as Hike, is a Hike, and stays one through reprocess and replay", async () => {
    const tcx = readFileSync(deviceFile(FILE));
    // The file itself says Running.
    expect(tcx.toString("utf8")).toMatch(/<Activity Sport="Running">/);
    const rows: CsvActivity[] = [{
      id: "201",
      date: "Jan 3, 2019, 9:00:00 AM",
      name: "Up the hill",
      type: "Hike",
      elapsed: 2000,
      km: 4,
      file: "activities/201.tcx",
    }];
    const zip = join(dir, "hike.zip");
    await writeZip(zip, [{ name: "activities.csv", bytes: Buffer.from(activitiesCsv(rows)) }, {
      name: "activities/201.tcx",
      bytes: tcx,
    }]);
    const imported = await runCli(["import-archive", zip, "--athlete", String(athleteId), "--json"], env);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ imported: 1, failed: [] });

    // The upload's event says the type is the athlete's (what reprocess and replay derive from).
    const out = join(dir, "events.ndjson");
    const exported = await runCli(["export", "--format", "ndjson", "--types", "UploadReceived", "--out", out], env);
    expect(exported.code, exported.stderr).toBe(0);
    const received = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(received).toHaveLength(1);
    expect(received[0].data).toMatchObject({ activityType: "Hike", activityTypeWins: true });

    server = await startDenoServer({ dataDir: env.DATA_DIR, env: { SEED_DEMO: "0" } });
    const call = api(server.url);
    const list = await call("GET", "/v3/athlete/activities", { token });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    const id = list.body[0].id;
    const first = await call("GET", `/v3/activities/${id}`, { token });
    expect(first.body).toMatchObject({ name: "Up the hill", type: "Hike", sport_type: "Hike", manual: false });
    // Still the file's own recording: its laps' DistanceMeters add up to our distance (1 %).
    const laps = readTcxLaps(tcx.toString("utf8"));
    const lapMetres = laps.reduce((a, l) => a + l.distanceMeters, 0);
    expect(Math.abs(first.body.distance - lapMetres) / lapMetres).toBeLessThan(0.01);
    // Runs don't get best efforts for a hike.
    expect(first.body.best_efforts ?? []).toEqual([]);

    // Reprocessing derives from the same event: the type, and everything derived as a hike, is unchanged.
    const reprocess = await runCli(["reprocess", "--all", "--json"], env);
    expect(reprocess.code, reprocess.stderr).toBe(0);
    expect(JSON.parse(reprocess.stdout)).toMatchObject({ activities: 1, reprocessed: 0, unchanged: 1 });
    const after = await call("GET", `/v3/activities/${id}`, { token });
    expect(after.body).toMatchObject({ type: "Hike", sport_type: "Hike", moving_time: first.body.moving_time });
    const verify = await runCli(["verify", "--json"], env);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, differences: [] });
  }, 400_000);
});
