import { Encoder, Profile } from "@garmin/fitsdk";
import FitParser from "fit-file-parser";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { segmentEffortsMatched } from "../../events/segment/events.ts";
import { uploadStream } from "../../events/upload/events.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import type { NewSegment } from "../../server/segments/create.ts";
import { createSegment } from "../../server/segments/commands.ts";
import { systemActor } from "../../server/actor.ts";
import { startServer } from "../../server/start.ts";
import { followerBehind } from "../../server/webhooks/outbox.ts";
import { startCpuProfile, summarise } from "./cpu-profile.ts";
import type { BenchFigure, BenchSuite } from "./harness.ts";
import { deriveCostFigures } from "./derive-cost.ts";
import { uploadsEventLoopFigures } from "./uploads-loop.ts";
import { traceSql } from "./sql-trace.ts";

const SEMI = 2 ** 31 / 180;
const CENTER: [number, number] = [45.5, 6.5];

/** A position on a 20 km loop around CENTER at a distance along it. */
function along(distance: number): [number, number] {
  const r = 20_000 / (2 * Math.PI);
  const a = distance / r;
  return [
    CENTER[0] + (r * Math.sin(a)) / 111_320,
    CENTER[1] + (r * Math.cos(a)) / (111_320 * Math.cos(CENTER[0] * Math.PI / 180)),
  ];
}

/** A 1 Hz ride of `seconds` records, encoded with the Garmin FIT SDK. */
export function generateRide(seconds: number, startIso: string): Uint8Array {
  const encoder = new Encoder();
  const put = (num: number, mesg: Record<string, unknown>) =>
    (encoder.onMesg as unknown as (n: number, m: Record<string, unknown>) => void).call(encoder, num, mesg);
  const start = new Date(startIso);
  put(Profile.MesgNum.FILE_ID, {
    type: "activity",
    manufacturer: "development",
    product: 0,
    timeCreated: start,
    serialNumber: 1234,
  });
  let distance = 0;
  for (let i = 0; i < seconds; i++) {
    const speed = 8 + 2 * Math.sin(i / 300);
    distance += speed;
    const [lat, lng] = along(distance);
    put(Profile.MesgNum.RECORD, {
      timestamp: new Date(start.getTime() + i * 1000),
      positionLat: Math.round(lat * SEMI),
      positionLong: Math.round(lng * SEMI),
      altitude: 500 + 50 * Math.sin(distance / 2000),
      heartRate: 130 + Math.round(20 * Math.sin(i / 200)),
      cadence: 85,
      power: 180 + Math.round(60 * Math.sin(i / 90)),
      speed,
      distance,
    });
  }
  const end = new Date(start.getTime() + seconds * 1000);
  put(Profile.MesgNum.LAP, {
    timestamp: end,
    startTime: start,
    totalElapsedTime: seconds,
    totalTimerTime: seconds,
    totalDistance: distance,
  });
  put(Profile.MesgNum.SESSION, {
    timestamp: end,
    startTime: start,
    totalElapsedTime: seconds,
    totalTimerTime: seconds,
    totalDistance: distance,
    sport: "cycling",
    subSport: "road",
    numLaps: 1,
    firstLapIndex: 0,
  });
  put(Profile.MesgNum.ACTIVITY, { timestamp: end, numSessions: 1, totalTimerTime: seconds });
  return encoder.close() as Uint8Array;
}

async function bareDecode(bytes: Uint8Array): Promise<number> {
  const t0 = performance.now();
  await new FitParser({ mode: "list", force: false }).parseAsync(bytes.slice().buffer as ArrayBuffer);
  return performance.now() - t0;
}

export const uploadsBench: BenchSuite = async () => {
  // Issue #17: decode + derive next to the bare decode, measured before the server starts.
  const deriveCost = await deriveCostFigures("6 h ride (21,600 records)", generateRide(21_600, "2024-05-05T07:00:00Z"));
  const dataDir = mkdtempSync(join(tmpdir(), "bench-uploads-"));
  const server = await startServer(
    configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined }),
  );
  const figures: BenchFigure[] = [];
  figures.push(...deriveCost);
  try {
    const { platform } = server;
    const ownerId = await createAthlete(platform, {
      firstname: "B",
      lastname: "O",
      email: "bench-owner@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Bench",
      ownerId,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
      challengesEnabled: true,
    });
    const athleteId = await createAthlete(platform, {
      firstname: "B",
      lastname: "R",
      email: "bench-rider@example.com",
      password: "password123",
      weight: 72,
    });
    const token = await issueToken(platform, {
      athleteId,
      applicationId: app.client_id,
      permissions: ["read", "write"],
    });

    // 10,000 segments: 200 along the generated loop, the rest scattered over the region. Loaded in
    // bulk (the same SegmentCreated events, 500 streams per transaction) so setup takes seconds.
    const segments = Number(process.env.BENCH_SEGMENTS ?? 10_000);
    const t0 = performance.now();
    let batch: NewSegment[] = [];
    for (let i = 0; i < segments; i++) {
      const onRoute = i % 50 === 0;
      const from = onRoute ? (i / 50) * 97 % 19_000 : 0;
      const points: [number, number][] = onRoute ? [along(from), along(from + 300), along(from + 600)] : (() => {
        const lat = CENTER[0] - 1 + 2 * ((i * 7919) % 10_000) / 10_000;
        const lng = CENTER[1] - 1 + 2 * ((i * 104_729) % 10_000) / 10_000;
        return [[lat, lng], [lat + 0.003, lng + 0.002], [lat + 0.006, lng + 0.003]] as [number, number][];
      })();
      batch.push({
        name: `Bench ${i}`,
        activityType: "Ride",
        points,
        altitudes: null,
        athleteId: ownerId,
        activityId: null,
      });
      if (batch.length === 500 || i === segments - 1) {
        // Through the segment creation decider, as every segment is made (batches of 500 at once).
        await Promise.all(batch.map((s) => createSegment(platform, s, systemActor("bench"))));
        batch = [];
      }
    }
    console.error(`uploads: ${segments} segments loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // Let the server settle before measuring: its background work after a bulk load of 10,000
    // events (the webhook outbox follower reading them, the idle refresh of the segment index)
    // shares the one PGlite connection and would otherwise be measured as upload time.
    const settled = performance.now();
    while (await followerBehind(platform.db, platform.store) && performance.now() - settled < 60_000) {
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1500));
    console.error(`uploads: server settled in ${((performance.now() - settled) / 1000).toFixed(1)} s`);

    // The first two uploads run on a freshly started server (cold JIT); the third and fourth, another
    // 1 h and 6 h ride, show the steady state of a server that has processed uploads before.
    // BENCH_UPLOAD_RUNS=1h,6h,1h-warm,6h-warm (any subset, in this order) picks the rows.
    const runs = [
      ["1h", "1 h", 3600, "2024-05-04T07:00:00Z"],
      ["6h", "6 h", 21_600, "2024-05-05T07:00:00Z"],
      ["1h-warm", "1 h (warm server)", 3600, "2024-05-06T07:00:00Z"],
      ["6h-warm", "6 h (warm server)", 21_600, "2024-05-07T07:00:00Z"],
    ] as const;
    const picked = (process.env.BENCH_UPLOAD_RUNS ?? "1h,6h,1h-warm,6h-warm").split(",");
    // BENCH_SQL_TRACE=1: the statements each upload ran, slowest first (where its database time went).
    const trace = process.env.BENCH_SQL_TRACE ? traceSql(platform.db) : null;
    for (const [, label, seconds, startIso] of runs.filter(([key]) => picked.includes(key))) {
      const bytes = generateRide(seconds, startIso);
      const decode = await bareDecode(bytes);
      const form = new FormData();
      form.set(
        "file",
        new Blob([bytes.slice().buffer as ArrayBuffer]),
        `bench-${startIso.slice(0, 10)}-${seconds}.fit`,
      );
      form.set("data_type", "fit");
      // BENCH_PROFILE=<dir> with the bench started under `deno run --inspect=127.0.0.1:<BENCH_INSPECT_PORT>`:
      // a CPU profile of this process (the server runs in it) from the POST until the upload is ready.
      const profile = process.env.BENCH_PROFILE
        ? await startCpuProfile(Number(process.env.BENCH_INSPECT_PORT ?? 9229))
        : null;
      trace?.start();
      const posted = performance.now();
      const res = await fetch(`${server.url}/v3/uploads`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      const body = await res.json() as { id: number };
      if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`);
      let latency = 0;
      for (;;) {
        await new Promise((r) => setTimeout(r, 1000)); // a client polling once a second
        const poll = await fetch(`${server.url}/v3/uploads/${body.id}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const status = await poll.json() as { status: string; error: string | null };
        if (status.status === UPLOAD_STATUS.ready) {
          latency = performance.now() - posted;
          break;
        }
        if (status.status !== UPLOAD_STATUS.processing) throw new Error(`upload error: ${status.error}`);
      }
      if (trace) console.error(`uploads: ${label}: statements by time\n${trace.slowest(15).join("\n")}`);
      if (profile) {
        const file = join(process.env.BENCH_PROFILE!, `upload-${label.replace(/\W+/g, "-")}.cpuprofile`);
        await profile.stop(file);
        console.error(
          `uploads: CPU profile of ${label} in ${file}; self time, top 20:\n` +
            summarise(JSON.parse(readFileSync(file, "utf8")), 20).join("\n"),
        );
      }
      // Server-side processing: from UploadReceived to UploadSucceeded as recorded.
      const events = await platform.store.readStream(uploadStream(body.id));
      const at = (e: { recordedAt: string }) => new Date(e.recordedAt).getTime();
      const processing = at(events[events.length - 1]) - at(events[0]);
      figures.push({
        suite: "uploads",
        name: `${label} ride (${seconds} records) processing, ${segments} segments`,
        ours: processing,
        baseline: decode,
        baselineName: "bare fit-file-parser decode",
        unit: "ms",
        higherIsBetter: false,
        target: "≤ 3× the bare decode",
      });
      // Where the time went (each event's recordedAt is its transaction's start): pickup, decode,
      // derivation, the blob rows and segment matching until the recording's append; that append
      // (ActivityRecorded with its SegmentEffortsMatched, one transaction) with its inline projections
      // (segment boards, challenges, stats) and the later processors until UploadSucceeded.
      const uploadReceivedEvent = events[0] as { data: { activityId: number } };
      const activityEvents = await platform.store.readStream(activityStream(uploadReceivedEvent.data.activityId));
      const recorded = activityEvents.find((e) => e.type === activityRecorded.type);
      const matched = activityEvents.find((e) => e.type === segmentEffortsMatched.type);
      if (recorded && matched) {
        const parts: [string, number][] = [
          [
            "received → the recording's append (pickup, decode, derive, blob rows, matching)",
            at(recorded) - at(events[0]),
          ],
          [
            "the recording's append (ActivityRecorded + SegmentEffortsMatched, inline projections) → UploadSucceeded",
            at(events[events.length - 1]) - at(recorded),
          ],
        ];
        for (const [part, ms] of parts) {
          figures.push({
            suite: "uploads",
            name: `${label}: ${part}`,
            ours: ms,
            baseline: decode,
            baselineName: "bare decode",
            unit: "ms",
            higherIsBetter: false,
          });
        }
      }
      figures.push({
        suite: "uploads",
        name: `${label} ride upload → ready, polling once a second`,
        ours: latency,
        unit: "ms",
        higherIsBetter: false,
        target: "spec: mean about 8 s",
      });
    }
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  // Issue #15 item 11 on the Deno server in its own process (uploads-loop.ts).
  if (process.env.BENCH_LARGE_UPLOADS !== "0") figures.push(...await uploadsEventLoopFigures());
  return figures;
};
