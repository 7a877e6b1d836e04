/**
 * `deno run -A tests/bench/get-by-id-loop.ts [rounds] [per-round] > /dev/null`: CPU per
 * GET /v3/activities/:id in process — the app as `npm start` builds it (request log on, written to
 * stdout: send it to /dev/null; the figures go to stderr), PGlite on disk, the load bench's data (one
 * uploaded FIT ride and five manual activities per athlete, each read by its owner), requests sent
 * one after another through `app.fetch`. Prints the main thread's CPU µs per GET of each round and their
 * median. BENCH_LOOP_PROFILE=<file>: a CPU profile of the measured rounds (.cpuprofile).
 * No HTTP, so what it measures is the server's own work per request (middleware, handler, the
 * database); the load bench measures it under connections.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { activityCreated, activityStream } from "../../events/activity/events.ts";
import { systemActor } from "../../server/actor.ts";
import { createApp } from "../../server/app.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { nextId } from "../../server/ids.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { processUpload } from "../../server/uploads/job.ts";
import { submitUpload } from "../../server/uploads/submit.ts";
import { cpuSeconds } from "../helpers/proc.ts";

const ROOT = resolve(import.meta.dirname ?? ".", "../..");
const DEVICE_FILE = join(ROOT, "tests/fixtures/devices/fit/garmin-edge1000-cycling-short-3formats.fit");
const ROUNDS = Number(Deno.args[0] ?? 8);
const PER_ROUND = Number(Deno.args[1] ?? 2000);
const ATHLETES = 20;
const PROFILE = Deno.env.get("BENCH_LOOP_PROFILE");

const dir = mkdtempSync(join(tmpdir(), "fitness-get-loop-"));
const platform = await openPlatform(
  configFromEnv({
    dataDir: join(dir, "data"),
    databaseUrl: undefined,
    quiet: false,
    runJobs: false,
    seedDemo: false,
    rateLimitShort: 1e9,
    rateLimitLong: 1e9,
  }),
);
try {
  const ownerId = await createAthlete(platform, {
    firstname: "Loop",
    lastname: "Owner",
    email: "loop-owner@example.com",
    password: "password123",
  });
  const application = await createApplication(platform, {
    name: "Loop",
    ownerId,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  const file = new Uint8Array(readFileSync(DEVICE_FILE));
  const reads: { id: number; token: string }[] = [];
  for (let i = 0; i < ATHLETES; i++) {
    const athleteId = await createAthlete(platform, {
      firstname: `Loop${i}`,
      lastname: "Rider",
      email: `loop${i}@example.com`,
      password: "password123",
    });
    const token = await issueToken(platform, {
      athleteId,
      applicationId: application.client_id,
      permissions: ["read", "write", "view_private"],
    });
    const upload = await submitUpload(platform, {
      athleteId,
      fileName: "ride.fit",
      bytes: file,
      dataType: "fit",
      activityType: null,
      name: null,
      description: null,
      visibility: "everyone",
      trainer: false,
      commute: false,
      externalId: null,
    }, systemActor("bench", athleteId));
    await processUpload(platform, upload.id);
    const [row] = await platform.db.query<{ activity_id: number }>(
      "select activity_id from uploads where id = $1",
      [upload.id],
    );
    reads.push({ id: Number(row.activity_id), token });
    for (let k = 0; k < 5; k++) {
      const activityId = await nextId(platform.db, "activity");
      await platform.store.append(activityStream(activityId), 0, [activityCreated.create({
        activityId,
        athleteId,
        name: `Manual ${k}`,
        type: "Run",
        startDate: `2026-0${k + 1}-01T07:00:00Z`,
        startDateLocal: `2026-0${k + 1}-01T08:00:00Z`,
        timezone: "(GMT+01:00) Europe/Amsterdam",
        elapsedTime: 1800,
        distance: 5000,
        description: null,
        visibility: "everyone",
        trainer: false,
        commute: false,
      })], { metadata: { athleteId } });
      reads.push({ id: activityId, token });
    }
  }
  const { app } = createApp(platform);
  const get = async (i: number) => {
    const r = reads[i % reads.length];
    const res = await app.fetch(
      new Request(`http://localhost/v3/activities/${r.id}`, { headers: { authorization: `Bearer ${r.token}` } }),
    );
    if (res.status !== 200) throw new Error(`GET ${r.id}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  for (let i = 0; i < 1000; i++) await get(i);
  const session = PROFILE ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
  }
  const perGet: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = cpuSeconds(Deno.pid).main;
    for (let i = 0; i < PER_ROUND; i++) await get(i * 7 + round);
    perGet.push(Math.round(((cpuSeconds(Deno.pid).main - before) * 1e6) / PER_ROUND));
  }
  if (session && PROFILE) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(PROFILE, JSON.stringify(profile));
    session.disconnect();
  }
  const sorted = [...perGet].sort((a, b) => a - b);
  console.error(`CPU µs per GET by round: ${perGet.join(" ")}; median ${sorted[Math.floor(sorted.length / 2)]}`);
} finally {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
}
