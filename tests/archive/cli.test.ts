// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Decoder, Stream } from "@garmin/fitsdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DENO, type DenoServer, ROOT, runCli, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { api } from "../helpers/http.ts";
import { activitiesCsv, type CsvActivity, garminArchiveEntries, stravaArchiveEntries, writeZip } from "./archives.ts";

/**
 * `npm run cli -- import-archive`: a Strava and a Garmin export built in their exact layouts from
 * device files, imported by the CLI (its own process, then through the running server), checked
 * over the API of the real server; a second import adds nothing, a SIGKILLed one resumes, hostile
 * archives are refused with nothing written.
 */
const dir = mkdtempSync(join(tmpdir(), "archive-cli-"));
const dataDir = join(dir, "data");
const env = { DATA_DIR: dataDir };
let athleteId: number;
let token: string;
let server: DenoServer | undefined;

afterAll(async () => {
  await server?.stop();
});

async function importJson(file: string, extra: Record<string, string> = {}) {
  const run = await runCli(["import-archive", file, "--athlete", String(athleteId), "--json"], { ...env, ...extra });
  return { ...run, summary: run.code === 0 ? JSON.parse(run.stdout) : undefined };
}

beforeAll(async () => {
  const athlete = await runCli([
    "athlete",
    "create",
    "--firstname",
    "Marianne",
    "--lastname",
    "Vos",
    "--email",
    "vos@example.com",
    "--password",
    "oranjeboven",
    "--json",
  ], env);
  expect(athlete.code).toBe(0);
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
  const token0 = await runCli([
    "token",
    "issue",
    "--athlete",
    String(athleteId),
    "--client-id",
    String(JSON.parse(app.stdout).client_id),
    "--scope",
    "read_all,activity:read_all,profile:read_all,view_private,write",
    "--json",
  ], env);
  expect(token0.code).toBe(0);
  token = JSON.parse(token0.stdout).access_token;
}, 240_000);

describe("import-archive from the CLI (no server running)", () => {
  it(
    "imports a Strava export: recordings through the upload pipeline, a manual row, gear, a photo; the broken file is reported",
    async () => {
      const { entries } = stravaArchiveEntries();
      const file = join(dir, "strava.zip");
      await writeZip(file, entries);
      const first = await importJson(file);
      expect(first.code, first.stderr).toBe(0);
      expect(first.summary.imported).toBe(7);
      expect(first.summary.duplicates).toBe(0);
      expect(first.summary.failed).toHaveLength(1);
      expect(first.summary.failed[0].file).toBe("activities/108.gpx");
      expect(first.summary.failed[0].error).toMatch(/108\.gpx/);
      // Progress went to stderr with counts and an ETA.
      expect(first.stderr).toMatch(/8\/8 · 7 imported, 0 duplicates, 0 skipped, 1 failed/);

      const second = await importJson(file);
      expect(second.code).toBe(0);
      expect(second.summary).toMatchObject({ imported: 0, duplicates: 7 });
      expect(second.summary.failed.map((f: { file: string }) => f.file)).toEqual(["activities/108.gpx"]);
    },
    300_000,
  );

  it("imports a Garmin export of nested zips, skipping FIT files that are not workouts", async () => {
    const file = join(dir, "garmin.zip");
    await writeZip(file, await garminArchiveEntries());
    const run = await importJson(file);
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary).toMatchObject({ imported: 2, duplicates: 0, skipped: 1, failed: [] });
  }, 300_000);

  it("refuses hostile and unknown archives clearly, writing nothing", async () => {
    const notZip = join(dir, "not.zip");
    writeFileSync(notZip, "activities.csv\nthis is not a zip\n");
    const traversal = join(dir, "traversal.zip");
    await writeZip(traversal, [{ name: "activities.csv", bytes: Buffer.from("Activity ID\n") }, {
      name: "zz/evil.csv",
      bytes: Buffer.from("x"),
    }]);
    const bytes = readFileSync(traversal);
    writeFileSync(traversal, Buffer.from(bytes.toString("latin1").replaceAll("zz/evil.csv", "../evil.csv"), "latin1"));
    const bomb = join(dir, "bomb.zip");
    await writeZip(bomb, [{ name: "activities.csv", bytes: Buffer.from("Activity ID\n") }, {
      name: "activities/1.gpx",
      bytes: Buffer.alloc(40 * 1024 * 1024),
    }]);
    const unknown = join(dir, "unknown.zip");
    await writeZip(unknown, [{ name: "notes/hello.txt", bytes: Buffer.from("hello") }]);
    for (
      const [file, expected] of [
        [notZip, /not a zip archive/],
        [traversal, /unsafe entry name "\.\.\/evil\.csv"/],
        [bomb, /compression ratio of \d+:1 .*zip bomb/],
        [unknown, /unknown layout/],
      ] as const
    ) {
      const run = await runCli(["import-archive", file, "--athlete", String(athleteId)], env);
      expect(run.code, file).toBe(1);
      expect(run.stderr).toMatch(expected);
      expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    }
  }, 300_000);

  it("resumes an import killed half-way: the second run finishes the rest, nothing twice", async () => {
    const files = [
      "fit/garmin-edge810-cycling-power-vector.fit",
      "fit/stryd-running-power-devfields.fit",
      "fit/wahoo-elemnt-cycling-power-hr-pauses.fit",
      "fit/coros-pace2-cycling-misaligned-fields.fit",
      "tcx/polar-m400-running-hr-cadence.tcx",
      "tcx/garmin-edge520-cycling-power-cadence.tcx",
      "fit/garmin-edge530-indoor-cycling-power-hrv-laps.fit",
      "fit/onelap-indoor-cycling-power-devfields.fit",
    ];
    const rows: CsvActivity[] = files.map((f, i) => ({
      id: String(900 + i),
      date: "Jan 1, 2021, 8:00:00 AM",
      name: `Resumed ${i}`,
      type: f.includes("running") ? "Run" : "Ride",
      elapsed: 600,
      km: 1,
      file: `activities/${900 + i}.${f.endsWith(".tcx") ? "tcx" : "fit"}.gz`,
    }));
    const file = join(dir, "resume.zip");
    await writeZip(file, [
      { name: "activities.csv", bytes: Buffer.from(activitiesCsv(rows)) },
      ...files.map((f, i) => ({ name: rows[i].file!, bytes: gzipSync(readFileSync(deviceFile(f))), store: true })),
    ]);
    // Kill the CLI (SIGKILL: no cleanup at all) once it reports a first finished activity.
    const killedAt = await new Promise<number>((resolve) => {
      const child = spawn(DENO, [
        "run",
        "-A",
        "server/cli/main.ts",
        "import-archive",
        file,
        "--athlete",
        String(athleteId),
      ], {
        cwd: ROOT,
        env: { ...process.env, ...env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let err = "";
      let done = 0;
      child.stderr.on("data", (d) => {
        err += d;
        const m = [...err.matchAll(/\] (\d+)\/8 /g)].pop();
        done = m ? Number(m[1]) : 0;
        if (done >= 1 && done < 8) child.kill("SIGKILL");
      });
      child.on("exit", () => resolve(done));
    });
    expect(killedAt).toBeGreaterThanOrEqual(1);
    expect(killedAt).toBeLessThan(8);
    const resumed = await importJson(file);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.summary.failed).toEqual([]);
    expect(resumed.summary.imported + resumed.summary.duplicates).toBe(8);
    expect(resumed.summary.imported).toBeGreaterThan(0);
    expect(resumed.summary.duplicates).toBeGreaterThanOrEqual(killedAt);
  }, 400_000);
});

describe("what the imports left, over the API of the real server", () => {
  it("holds every activity once with the archive's names, types, commute flag, gear and photo", async () => {
    server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
    const call = api(server.url);
    const list = await call("GET", "/v3/athlete/activities", { token, query: { per_page: 100 } });
    expect(list.status).toBe(200);
    const byName = new Map<string, any>(list.body.map((a: any) => [a.name, a]));
    expect(list.body).toHaveLength(7 + 2 + 8);
    expect(byName.size).toBe(list.body.length);
    for (let i = 0; i < 8; i++) expect(byName.has(`Resumed ${i}`)).toBe(true);

    const me = await call("GET", "/v3/athlete", { token });
    expect(me.body.bikes.map((b: any) => b.name)).toEqual(["Trek Domane"]);
    expect(me.body.shoes.map((s: any) => s.name)).toEqual(["Pegasus 38"]);

    const ride = await call("GET", `/v3/activities/${byName.get("Morning ride with photo").id}`, { token });
    expect(ride.body).toMatchObject({
      type: "Ride",
      commute: true,
      description: "Café stop",
      gear_id: me.body.bikes[0].id,
      manual: false,
    });
    // The distance comes from our pipeline; the device's own session total says the same.
    const fit = new Decoder(
      Stream.fromByteArray(readFileSync(deviceFile("fit/garmin-edge500-cycling-hr-cad-pauses.fit"))),
    ).read();
    const deviceMetres = fit.messages.sessionMesgs![0].totalDistance as number;
    expect(Math.abs(ride.body.distance - deviceMetres) / deviceMetres).toBeLessThan(0.02);
    const photos = await call("GET", `/v3/activities/${ride.body.id}/photos`, {
      token,
      query: { photo_sources: "true" },
    });
    expect(photos.body).toHaveLength(1);
    expect(photos.body[0].source).toBe(1);

    const run = await call("GET", `/v3/activities/${byName.get("Export run").id}`, { token });
    expect(run.body).toMatchObject({ type: "Run", gear_id: me.body.shoes[0].id, commute: false });
    expect(byName.get("Zwift session").type).toBe("VirtualRide");

    const gym = await call("GET", `/v3/activities/${byName.get("Gym").id}`, { token });
    expect(gym.body).toMatchObject({
      type: "WeightTraining",
      manual: true,
      elapsed_time: 3600,
      description: "Legs day",
      start_date: "2020-03-14T18:30:00Z",
    });
    // Garmin: named by our pipeline from the file; a pool swim and a ride.
    const types = list.body.map((a: any) => a.type);
    expect(types).toContain("Swim");
  }, 300_000);

  it("imports through the running server too (the CLI reaches it), adding nothing twice", async () => {
    const run = await importJson(join(dir, "garmin.zip"));
    expect(run.code, run.stderr).toBe(0);
    expect(run.summary).toMatchObject({ imported: 0, duplicates: 2, skipped: 1 });
  }, 300_000);

  it(
    "records the archive as the source of every imported activity's events (the log says where each came from)",
    async () => {
      const out = join(dir, "events.ndjson");
      const exported = await runCli([
        "export",
        "--format",
        "ndjson",
        "--types",
        "UploadReceived,ActivityCreated,GearAdded,PhotoAdded",
        "--out",
        out,
      ], env);
      expect(exported.code, exported.stderr).toBe(0);
      const events = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l));
      const sources = (type: string) => events.filter((e) => e.type === type).map((e) => e.metadata.source);
      // 6 Strava recordings + 8 resumed + 2 Garmin, each received once (the SIGKILLed run's are not received
      // again); the broken file on both Strava runs (a failed upload may be retried, as over the API).
      expect(sources("UploadReceived").sort()).toEqual([
        ...Array(6 + 2).fill("archive:strava:cli"),
        ...Array(8).fill("archive:strava:cli"),
        ...Array(2).fill("archive:garmin:cli"),
      ].sort());
      expect(sources("ActivityCreated")).toEqual(["archive:strava:cli"]);
      expect(sources("GearAdded")).toEqual(["archive:strava:cli", "archive:strava:cli"]);
      expect(sources("PhotoAdded")).toEqual(["archive:strava:cli"]);
    },
    120_000,
  );
});
