import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withAbsolutePaths } from "../../server/cli/dispatch.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { parsePrometheus, valueOf } from "./prometheus.ts";

const servers: DenoServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

async function logPosition(server: DenoServer): Promise<number> {
  const res = await fetch(`${server.url}/metrics`);
  return valueOf(parsePrometheus(await res.text()).samples, "fitness_event_log_position");
}

describe("cli backup / cli restore", () => {
  it(
    "backs up the running server under write load; the backup restores into an empty directory and verifies",
    async () => {
      const server = await startDenoServer({ env: { RATE_LIMIT_SHORT: "1000000", RATE_LIMIT_LONG: "10000000" } });
      servers.push(server);
      const token = /Access token \(athlete \d+[^)]*\):\n\s+([0-9a-f]+)/.exec(server.output())![1];
      const work = mkdtempSync(join(tmpdir(), "fitness-backup-"));
      const file = join(work, "platform.tar.gz");

      // A real 700 kB recording: its original and its streams are large enough to be kept as files
      // beside the database (DATA_DIR/.../blobs), which the backup must carry too.
      const form = new FormData();
      form.set(
        "file",
        new Blob([readFileSync(deviceFile("fit/wahoo-elemnt-cycling-power-hr-pauses.fit"))]),
        "wahoo.fit",
      );
      form.set("data_type", "fit");
      const posted = await fetch(`${server.url}/v3/uploads`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      expect(posted.status).toBe(201);
      const uploadId = (await posted.json()).id;
      let activityId: number | null = null;
      for (let i = 0; i < 600 && activityId === null; i++) {
        const status =
          await (await fetch(`${server.url}/v3/uploads/${uploadId}`, { headers: { authorization: `Bearer ${token}` } }))
            .json();
        expect(status.error).toBeNull();
        activityId = status.activity_id;
        if (activityId === null) await new Promise((r) => setTimeout(r, 200));
      }
      expect(activityId).not.toBeNull();
      const streamsPath = `/v3/activities/${activityId}/streams?keys=latlng,altitude,heartrate,watts&key_by_type=true`;
      const liveStreams =
        await (await fetch(`${server.url}${streamsPath}`, { headers: { authorization: `Bearer ${token}` } })).json();
      expect(liveStreams.latlng.data.length).toBeGreaterThan(1000);
      const blobFiles = (dir: string): string[] =>
        readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) =>
          e.isFile() && /[0-9a-f]{64}$/.test(e.name)
        ).map((e) => e.name);
      expect(blobFiles(server.dataDir).length).toBeGreaterThan(0);

      // Writers keep creating activities (each one: events, read models) during the backup.
      let writing = true;
      let written = 0;
      const writer = async (n: number) => {
        for (let i = 0; writing; i++) {
          const res = await fetch(`${server.url}/v3/activities`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}` },
            body: new URLSearchParams({
              name: `Load ${n}.${i}`,
              type: "Ride",
              start_date_local: "2026-05-01T07:00:00Z",
              elapsed_time: "3600",
              distance: "30000",
            }),
          });
          expect(res.status).toBe(201);
          await res.body?.cancel();
          written++;
        }
      };
      const writers = [writer(1), writer(2), writer(3)];
      while (written < 10) await new Promise((r) => setTimeout(r, 50));
      const before = await logPosition(server);
      const backup = await runCli(["backup", "--out", file, "--json"], { DATA_DIR: server.dataDir });
      const after = await logPosition(server);
      const writtenDuringBackup = written;
      await new Promise((r) => setTimeout(r, 300));
      writing = false;
      await Promise.all(writers);
      expect(backup.code, backup.stderr).toBe(0);
      expect(JSON.parse(backup.stdout)).toMatchObject({ ok: true, out: file });
      expect(existsSync(file)).toBe(true);
      expect(after).toBeGreaterThan(before); // the load really ran during the backup
      expect(writtenDuringBackup).toBeGreaterThan(10);

      // Refusals: an existing backup file is not overwritten; restore needs an empty directory.
      const again = await runCli(["backup", "--out", file], { DATA_DIR: server.dataDir });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain("already exists");
      const full = join(work, "full");
      mkdirSync(full);
      writeFileSync(join(full, "something"), "x");
      const refused = await runCli(["restore", file], { DATA_DIR: full });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("is not empty");

      const target = join(work, "restored");
      const restored = await runCli(["restore", file, "--json"], { DATA_DIR: target });
      expect(restored.code, restored.stderr).toBe(0);
      const position = JSON.parse(restored.stdout).event_log_position;
      // The backup holds the log as of one moment during the command: between the two readings.
      expect(position).toBeGreaterThanOrEqual(before);
      expect(position).toBeLessThanOrEqual(after);
      // It does not carry the live server's admin handle (the CLI there must not reach that server).
      expect(existsSync(join(target, "admin.json"))).toBe(false);

      // The restored read models equal a replay of the restored log.
      const verify = await runCli(["verify", "--json"], { DATA_DIR: target });
      expect(verify.code, verify.stderr).toBe(0);
      const report = JSON.parse(verify.stdout);
      expect(report.ok).toBe(true);
      expect(report.differences).toEqual([]);

      // And a server starts on it and serves the activities of the backup.
      const copy = await startDenoServer({ dataDir: target, env: { SEED_DEMO: "0" } });
      servers.push(copy);
      expect(await logPosition(copy)).toBe(position);
      const list = await fetch(`${copy.url}/v3/athlete/activities?per_page=200`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(list.status).toBe(200);
      expect((await list.json()).some((a: { name: string }) => a.name.startsWith("Load "))).toBe(true);
      // The recording's streams, kept as files beside the database, came back with the backup.
      expect(blobFiles(target).sort()).toEqual(expect.arrayContaining(blobFiles(server.dataDir).sort()));
      const restoredStreams = await fetch(`${copy.url}${streamsPath}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(restoredStreams.status).toBe(200);
      expect(await restoredStreams.json()).toEqual(liveStreams);
    },
    300_000,
  );

  it(
    "refuses a missing or empty data directory (exit 2, one line naming it) without creating a store; restore warns on a backup without events",
    async () => {
      // Issue #41 item 6: `DATA_DIR=./no-such-dir cli backup` created an empty store and "backed it up".
      const work = mkdtempSync(join(tmpdir(), "fitness-no-store-"));
      const missing = join(work, "no-such-dir");
      const empty = join(work, "empty");
      mkdirSync(empty);
      const commands = [
        ["backup", "--out", join(work, "x.tar.gz")],
        ["export", "--format", "ndjson", "--out", join(work, "x.ndjson")],
        ["verify"],
        ["replay"],
        ["reprocess", "--all"],
        ["webhooks", "status"],
        ["route", "list", "--athlete", "1"],
      ];
      const answers: string[] = [];
      for (const dir of [missing, empty]) {
        for (const args of commands) {
          const run = await runCli(args, { DATA_DIR: dir });
          const lines = run.stderr.trim().split("\n");
          answers.push(`${args[0]} ${dir === missing ? "missing" : "empty"}: ${run.code}`);
          expect(run.code, `${args.join(" ")} in ${dir}: ${run.stdout} ${run.stderr}`).toBe(2);
          expect(lines, run.stderr).toHaveLength(1);
          expect(lines[0]).toContain(`DATA_DIR ${dir}`);
          expect(lines[0]).toMatch(dir === missing ? /does not exist/ : /holds no platform/);
        }
      }
      // Nothing was created: no directory, no database files, no backup, no export.
      expect(existsSync(missing)).toBe(false);
      expect(readdirSync(empty)).toEqual([]);
      expect(readdirSync(work).sort()).toEqual(["empty"]);

      // A platform without events (a server started with SEED_DEMO=0): its backup restores, with a warning.
      const bare = await startDenoServer({ env: { SEED_DEMO: "0" } });
      servers.push(bare);
      const file = join(work, "bare.tar.gz");
      const backup = await runCli(["backup", "--out", file], { DATA_DIR: bare.dataDir });
      expect(backup.code, backup.stderr).toBe(0);
      const restored = await runCli(["restore", file], { DATA_DIR: join(work, "restored") });
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toMatch(/event log ends at position 0\nwarning: the backup holds no events/);
      const json = await runCli(["restore", file, "--json"], { DATA_DIR: join(work, "restored-json") });
      expect(JSON.parse(json.stdout)).toMatchObject({
        event_log_position: 0,
        warning: expect.stringContaining("no events"),
      });
      console.log(`no store: ${answers.length} commands refused (exit 2, one line): ${answers.join(", ")}`);
    },
    300_000,
  );

  it("makes file paths absolute in the CLI's directory before a command runs inside the server", () => {
    expect(withAbsolutePaths(["backup", "--out", "b.tar.gz"], "/home/me")).toEqual([
      "backup",
      "--out",
      "/home/me/b.tar.gz",
    ]);
    expect(withAbsolutePaths(["backup", "--out=x/b.tar.gz", "--json"], "/srv")).toEqual([
      "backup",
      "--out=/srv/x/b.tar.gz",
      "--json",
    ]);
    expect(withAbsolutePaths(["import", "events.ndjson"], "/data")).toEqual(["import", "/data/events.ndjson"]);
    expect(withAbsolutePaths(["export", "--format", "csv", "--out", "/abs/e.csv"], "/x")).toEqual([
      "export",
      "--format",
      "csv",
      "--out",
      "/abs/e.csv",
    ]);
    expect(withAbsolutePaths(["athlete", "create", "--firstname", "a/b"], "/x")).toEqual([
      "athlete",
      "create",
      "--firstname",
      "a/b",
    ]);
  });
});
