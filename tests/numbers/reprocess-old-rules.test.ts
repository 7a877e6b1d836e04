// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { activityRecorded, activityStream, privateToVisibility } from "../../events/activity/events.ts";
import { activityReprocessed } from "../../events/activity/reprocessed.ts";
import { uploadReceived, uploadStream, uploadSucceeded } from "../../events/upload/events.ts";
import { activityProcessors } from "../../server/activity-processors.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { putBlob } from "../../server/blobs.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { submitUpload } from "../../server/uploads/submit.ts";
import { systemActor } from "../../server/actor.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { DEVICES } from "../helpers/fixtures.ts";
import { expectNear, field, readFit, STREAM_KEYS } from "./device-totals.ts";

/**
 * Issue #17: `npm run cli -- reprocess --all` brings activities recorded under the old rules up to
 * the current derivations, through events. The activity is the Stryd run (cause 1) as the derivation
 * before the numbers work (commit 7499813, `deriveActivity` of server/ingest/derive.ts then) recorded
 * it: `fixtures/stryd-run-derived-by-7499813.json.gz` holds that code's facts and streams, produced by
 * running it on the file (moving time 3,160 s where the device's timer says 3,424 s). The log is
 * written the way the upload job wrote it then (UploadReceived, ActivityRecorded with those facts,
 * the processors' events, UploadSucceeded); then the real server runs on that data directory, the CLI
 * as shipped reprocesses, and everything is read over HTTP.
 */
const FILE = join(DEVICES, "fit/stryd-running-power-devfields.fit");
const OLD = JSON.parse(
  gunzipSync(readFileSync(join(import.meta.dirname!, "fixtures/stryd-run-derived-by-7499813.json.gz"))).toString(
    "utf8",
  ),
) as { facts: Record<string, unknown>; streams: ActivityStreams };

const dataDir = mkdtempSync(join(tmpdir(), "numbers-reprocess-"));
let server: DenoServer | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Writes, in process, the log an upload of the Stryd run left under the old rules. */
async function recordUnderOldRules(): Promise<{ token: string; activityId: number }> {
  const platform = await openPlatform(
    configFromEnv({ dataDir, runJobs: false, seedDemo: false, quiet: true, databaseUrl: undefined }),
  );
  try {
    const ownerId = await createAthlete(platform, {
      firstname: "App",
      lastname: "Owner",
      email: "owner@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Numbers",
      ownerId,
      callbackDomain: "localhost",
      internal: true,
    });
    const athleteId = await createAthlete(platform, {
      firstname: "Old",
      lastname: "Rules",
      email: "runner@example.com",
      password: "password123",
    });
    const token = await issueToken(platform, {
      athleteId,
      applicationId: app.client_id,
      permissions: ["read", "write", "view_private"],
    });
    const status = await submitUpload(platform, {
      athleteId,
      fileName: "stryd.fit",
      bytes: new Uint8Array(readFileSync(FILE)),
      dataType: "fit",
      activityType: null,
      name: null,
      description: null,
      private: false,
      trainer: false,
      commute: false,
      externalId: null,
    }, systemActor("test", athleteId));
    const [received] = await platform.store.readStream(uploadStream(status.id));
    const { uploadId, activityId, contentSha256 } = received.data as {
      uploadId: number;
      activityId: number;
      contentSha256: string;
    };
    const streamsSha256 = await putBlob(platform.db, new TextEncoder().encode(JSON.stringify(OLD.streams)));
    // The fixture's facts were recorded as ActivityRecorded v1 (`private`): upcast as the store reads them.
    const activity = activityRecorded.schema.parse({
      ...privateToVisibility(OLD.facts),
      uploadId,
      activityId,
      athleteId,
      streamsSha256,
    });
    const metadata = { athleteId, source: "job:upload" };
    await platform.store.append(activityStream(activityId), 0, [activityRecorded.create(activity)], { metadata });
    for (const processor of activityProcessors) {
      const events = await processor({ platform, activity, streams: OLD.streams });
      if (events.length) await platform.store.append(activityStream(activityId), "any", events, { metadata });
    }
    await platform.store.append(uploadStream(uploadId), 1, [
      uploadSucceeded.create({
        uploadId,
        athleteId,
        activityId,
        startDate: activity.startDate,
        deviceName: activity.deviceName,
        contentSha256,
        notes: [],
      }),
    ], { metadata });
    expect(received.type).toBe(uploadReceived.type);
    return { token, activityId };
  } finally {
    await platform.close();
  }
}

async function get(path: string, token: string, query = ""): Promise<any> {
  const res = await fetch(`${server!.url}${path}${query}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, path).toBe(200);
  return res.json();
}

describe("cli reprocess --all on an activity recorded under the old rules", () => {
  it(
    "re-derives it with today's rules, as events: the device's own totals afterwards, and the log verifies",
    async () => {
      const [session] = readFit(FILE).sessions;
      const timer = field(session, "totalTimerTime");
      const distance = field(session, "totalDistance");
      const { token, activityId } = await recordUnderOldRules();

      server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
      const before = await get(`/v3/activities/${activityId}`, token);
      // As recorded then: moving time minutes short of the device's timer (cause 1).
      expect(before.moving_time).toBe(OLD.facts.movingTime);
      expect(Math.abs(before.moving_time - timer)).toBeGreaterThan(timer * 0.02);

      const run = await runCli(["reprocess", "--all", "--json"], { DATA_DIR: dataDir });
      expect(run.code, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result).toMatchObject({ activities: 1, reprocessed: 1, skipped: 0 });
      expect(result.outcomes[0].changed).toContain("movingTime");

      const after = await get(`/v3/activities/${activityId}`, token);
      expectNear(after.moving_time, timer, 0.02);
      expectNear(after.distance, distance, 0.01);
      expect(after.moving_time).toBeLessThanOrEqual(after.elapsed_time);
      // Splits add up to the distance and the times; best efforts monotone and within max_speed.
      const splitSum = (key: string) =>
        after.splits_metric.reduce((a: number, s: Record<string, number>) => a + s[key], 0);
      expectNear(splitSum("distance"), after.distance, 0.01);
      expect(Math.abs(splitSum("moving_time") - after.moving_time)).toBeLessThanOrEqual(1);
      expect(Math.abs(splitSum("elapsed_time") - after.elapsed_time)).toBeLessThanOrEqual(1);
      let previous = 0;
      for (const effort of after.best_efforts) {
        expect(effort.elapsed_time).toBeGreaterThanOrEqual(previous);
        previous = effort.elapsed_time;
        expect(effort.distance / effort.elapsed_time).toBeLessThanOrEqual(after.max_speed + 0.01);
      }
      // What the athlete chose stays.
      expect(after.name).toBe(before.name);
      // The new streams hold numbers only and end at the device's distance.
      const streams = await get(`/v3/activities/${activityId}/streams`, token, `?keys=${STREAM_KEYS}&key_by_type=true`);
      for (const [key, stream] of Object.entries(streams as Record<string, { data: unknown[] }>)) {
        if (key === "moving" || key === "latlng") continue;
        expect(stream.data.every((v) => typeof v === "number" && Number.isFinite(v)), key).toBe(true);
      }
      expectNear((streams.distance.data as number[]).at(-1)!, distance, 0.01);

      // A second run finds nothing to change; the log and the read models agree.
      const again = await runCli(["reprocess", "--all", "--json"], { DATA_DIR: dataDir });
      expect(JSON.parse(again.stdout)).toMatchObject({ reprocessed: 0, unchanged: 1 });
      const verify = await runCli(["verify", "--json"], { DATA_DIR: dataDir });
      expect(verify.code, verify.stdout + verify.stderr).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, differences: [] });
      await server.stop();
      server = undefined;

      // The change came as events: the original recording stays, one ActivityReprocessed from the CLI.
      const platform = await openPlatform(
        configFromEnv({ dataDir, runJobs: false, seedDemo: false, quiet: true, databaseUrl: undefined }),
      );
      try {
        const events = await platform.store.readStream(activityStream(activityId));
        const recorded = events.filter((e) => e.type === activityRecorded.type);
        const reprocessed = events.filter((e) => e.type === activityReprocessed.type);
        expect(recorded).toHaveLength(1);
        expect((recorded[0].data as { movingTime: number }).movingTime).toBe(OLD.facts.movingTime);
        expect(reprocessed).toHaveLength(1);
        expect((reprocessed[0].metadata as { source?: string }).source).toBe("cli:reprocess");
        expect((reprocessed[0].data as { facts: { movingTime: number } }).facts.movingTime).toBe(after.moving_time);
      } finally {
        await platform.close();
      }
    },
    240_000,
  );
});
