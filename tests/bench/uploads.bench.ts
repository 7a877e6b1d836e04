import { Encoder, Profile } from "@garmin/fitsdk";
import FitParser from "fit-file-parser";
import { mkdtempSync, rmSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { segmentEffortsMatched } from "../../events/segment/events.ts";
import { uploadStream } from "../../events/upload/events.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { createApplication, issueToken } from "../../server/actions/applications.ts";
import { createAthlete } from "../../server/actions/athletes.ts";
import { configFromEnv } from "../../server/config.ts";
import { createSegments, type NewSegment } from "../../server/segments/create.ts";
import { startServer } from "../../server/start.ts";
import { followerBehind } from "../../server/webhooks/outbox.ts";
import { readFileSync, writeFileSync } from "node:fs";
import { longGpx } from "../helpers/long-gpx.ts";
import type { BenchFigure, BenchSuite } from "./harness.ts";
import { deriveCostFigures } from "./derive-cost.ts";

const SEMI = 2 ** 31 / 180;
const CENTER: [number, number] = [45.5, 6.5];

/** A position on a 20 km loop around CENTER at a distance along it. */
function along(distance: number): [number, number] {
  const r = 20_000 / (2 * Math.PI);
  const a = distance / r;
  return [CENTER[0] + (r * Math.sin(a)) / 111_320, CENTER[1] + (r * Math.cos(a)) / (111_320 * Math.cos(CENTER[0] * Math.PI / 180))];
}

/** A 1 Hz ride of `seconds` records, encoded with the Garmin FIT SDK. */
export function generateRide(seconds: number, startIso: string): Uint8Array {
  const encoder = new Encoder();
  const put = (num: number, mesg: Record<string, unknown>) =>
    (encoder.onMesg as unknown as (n: number, m: Record<string, unknown>) => void).call(encoder, num, mesg);
  const start = new Date(startIso);
  put(Profile.MesgNum.FILE_ID, {
    type: "activity", manufacturer: "development", product: 0, timeCreated: start, serialNumber: 1234,
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
    timestamp: end, startTime: start, totalElapsedTime: seconds, totalTimerTime: seconds, totalDistance: distance,
  });
  put(Profile.MesgNum.SESSION, {
    timestamp: end, startTime: start, totalElapsedTime: seconds, totalTimerTime: seconds, totalDistance: distance,
    sport: "cycling", subSport: "road", numLaps: 1, firstLapIndex: 0,
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
  const server = await startServer(configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined }));
  const figures: BenchFigure[] = [];
  figures.push(...deriveCost);
  try {
    const { platform } = server;
    const ownerId = await createAthlete(platform, { firstname: "B", lastname: "O", email: "bench-owner@example.com", password: "password123" });
    const app = await createApplication(platform, { name: "Bench", ownerId, callbackDomain: "localhost", internal: true, kudosEnabled: true, challengesEnabled: true });
    const athleteId = await createAthlete(platform, { firstname: "B", lastname: "R", email: "bench-rider@example.com", password: "password123", weight: 72 });
    const token = await issueToken(platform, { athleteId, applicationId: app.client_id, permissions: ["read", "write"] });

    // 10,000 segments: 200 along the generated loop, the rest scattered over the region. Loaded in
    // bulk (the same SegmentCreated events, 500 streams per transaction) so setup takes seconds.
    const segments = Number(process.env.BENCH_SEGMENTS ?? 10_000);
    const t0 = performance.now();
    let batch: NewSegment[] = [];
    for (let i = 0; i < segments; i++) {
      const onRoute = i % 50 === 0;
      const from = onRoute ? (i / 50) * 97 % 19_000 : 0;
      const points: [number, number][] = onRoute
        ? [along(from), along(from + 300), along(from + 600)]
        : (() => {
          const lat = CENTER[0] - 1 + 2 * ((i * 7919) % 10_000) / 10_000;
          const lng = CENTER[1] - 1 + 2 * ((i * 104_729) % 10_000) / 10_000;
          return [[lat, lng], [lat + 0.003, lng + 0.002], [lat + 0.006, lng + 0.003]] as [number, number][];
        })();
      batch.push({ name: `Bench ${i}`, activityType: "Ride", points, altitudes: null, athleteId: ownerId, activityId: null });
      if (batch.length === 500 || i === segments - 1) {
        await createSegments(platform, batch, "bench");
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

    // The first two uploads run on a freshly started server (cold JIT); the third, another 1 h ride,
    // shows the steady state of a server that has processed uploads before.
    const runs = [["1 h", 3600, "2024-05-04T07:00:00Z"], ["6 h", 21_600, "2024-05-05T07:00:00Z"], ["1 h (warm server)", 3600, "2024-05-06T07:00:00Z"]] as const;
    for (const [label, seconds, startIso] of runs) {
      const bytes = generateRide(seconds, startIso);
      const decode = await bareDecode(bytes);
      const form = new FormData();
      form.set("file", new Blob([bytes.slice().buffer as ArrayBuffer]), `bench-${startIso.slice(0, 10)}-${seconds}.fit`);
      form.set("data_type", "fit");
      const posted = performance.now();
      const res = await fetch(`${server.url}/v3/uploads`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
      const body = await res.json() as { id: number };
      if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`);
      let latency = 0;
      for (;;) {
        await new Promise((r) => setTimeout(r, 1000)); // a client polling once a second
        const poll = await fetch(`${server.url}/v3/uploads/${body.id}`, { headers: { authorization: `Bearer ${token}` } });
        const status = await poll.json() as { status: string; error: string | null };
        if (status.status === UPLOAD_STATUS.ready) {
          latency = performance.now() - posted;
          break;
        }
        if (status.status !== UPLOAD_STATUS.processing) throw new Error(`upload error: ${status.error}`);
      }
      // Server-side processing: from UploadReceived to UploadSucceeded as recorded.
      const events = await platform.store.readStream(uploadStream(body.id));
      const at = (e: { recordedAt: string }) => new Date(e.recordedAt).getTime();
      const processing = at(events[events.length - 1]) - at(events[0]);
      figures.push({
        suite: "uploads", name: `${label} ride (${seconds} records) processing, ${segments} segments`, ours: processing,
        baseline: decode, baselineName: "bare fit-file-parser decode", unit: "ms", higherIsBetter: false, target: "≤ 3× the bare decode",
      });
      // Where the time went (each event's recordedAt is its transaction's start): pickup, decode,
      // derivation and blobs until ActivityRecorded; matching until SegmentEffortsMatched; then that
      // append with its inline projections (segment boards, challenges) until UploadSucceeded.
      const uploadReceivedEvent = events[0] as { data: { activityId: number } };
      const activityEvents = await platform.store.readStream(activityStream(uploadReceivedEvent.data.activityId));
      const recorded = activityEvents.find((e) => e.type === activityRecorded.type);
      const matched = activityEvents.find((e) => e.type === segmentEffortsMatched.type);
      if (recorded && matched) {
        const parts: [string, number][] = [
          ["received → ActivityRecorded (pickup, decode, derive, blobs)", at(recorded) - at(events[0])],
          ["ActivityRecorded → SegmentEffortsMatched (segment matching)", at(matched) - at(recorded)],
          ["SegmentEffortsMatched append with its inline projections → UploadSucceeded", at(events[events.length - 1]) - at(matched)],
        ];
        for (const [part, ms] of parts) {
          figures.push({ suite: "uploads", name: `${label}: ${part}`, ours: ms, baseline: decode, baselineName: "bare decode", unit: "ms", higherIsBetter: false });
        }
      }
      figures.push({
        suite: "uploads", name: `${label} ride upload → ready, polling once a second`, ours: latency, unit: "ms",
        higherIsBetter: false, target: "spec: mean about 8 s",
      });
    }
    figures.push(...await eventLoopFigures(server.url, token));
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;
};

const p99 = (values: number[]) => {
  const sorted = values.slice().sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
};

/** Peak resident set size of this process since the last reset (Linux VmHWM), in MiB. */
const peakRssMiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
const resetPeakRss = () => writeFileSync("/proc/self/clear_refs", "5");

/** GET /v3/athlete one after another (20 ms apart) until `done()`; the latencies in ms. */
async function athleteLatencies(url: string, token: string, done: () => boolean | Promise<boolean>): Promise<number[]> {
  const latencies: number[] = [];
  while (!(await done())) {
    const t0 = performance.now();
    const res = await fetch(`${url}/v3/athlete`, { headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    latencies.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  return latencies;
}

/**
 * Issue #15 item 11: the p99 of GET /v3/athlete while ten large GPX uploads (56 MB each, a real
 * ride's points repeated with advancing times) are processed, next to the same p99 with no upload;
 * and the server's peak RSS while it processes one 56 MB GPX.
 */
async function eventLoopFigures(url: string, token: string): Promise<BenchFigure[]> {
  const uploads = Number(process.env.BENCH_LARGE_UPLOADS ?? 10);
  const idleUntil = performance.now() + 5000;
  const idle = await athleteLatencies(url, token, () => performance.now() > idleUntil);
  const post = async (bytes: Uint8Array, name: string) => {
    const form = new FormData();
    form.set("file", new Blob([bytes.slice().buffer as ArrayBuffer]), name);
    form.set("data_type", "gpx");
    const res = await fetch(`${url}/v3/uploads`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
    const body = await res.json() as { id: number };
    if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`);
    return body.id;
  };
  const statusOf = async (id: number) => {
    const res = await fetch(`${url}/v3/uploads/${id}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.json() as { status: string; error: string | null };
    if (body.status === UPLOAD_STATUS.error) throw new Error(`upload error: ${body.error}`);
    return body.status;
  };
  const allReady = (ids: number[]) => {
    let last = 0;
    let ready = false;
    return async () => {
      if (performance.now() - last < 1000) return ready;
      last = performance.now();
      ready = (await Promise.all(ids.map(statusOf))).every((s) => s === UPLOAD_STATUS.ready);
      return ready;
    };
  };

  // One 56 MB GPX alone: the peak RSS of the whole process (bench client included) while it is processed.
  const single = longGpx(163_000, { startIso: "2023-01-01T06:00:00Z" });
  const mb = (single.bytes.byteLength / 1024 / 1024).toFixed(0);
  resetPeakRss();
  const singleId = await post(single.bytes, "large-single.gpx");
  const singleStarted = performance.now();
  await athleteLatencies(url, token, allReady([singleId]));
  const singleMs = performance.now() - singleStarted;
  const singlePeak = peakRssMiB();

  // Ten at once: submitted first (the submissions are not measured), then measured while processed.
  const ids: number[] = [];
  for (let i = 0; i < uploads; i++) {
    ids.push(await post(longGpx(163_000, { startIso: `2023-02-${String(i + 1).padStart(2, "0")}T06:00:00Z` }).bytes, `large-${i}.gpx`));
  }
  const busyStarted = performance.now();
  const busy = await athleteLatencies(url, token, allReady(ids));
  const busyMs = performance.now() - busyStarted;
  console.error(`uploads: one ${mb} MB GPX processed in ${(singleMs / 1000).toFixed(1)} s; ${uploads} in ${(busyMs / 1000).toFixed(1)} s`);
  return [
    {
      suite: "uploads", name: `GET /v3/athlete p99 while ${uploads} × ${mb} MB GPX uploads are processed (${busy.length} requests)`,
      ours: p99(busy), baseline: p99(idle), baselineName: `same p99 with no upload (${idle.length} requests)`, unit: "ms",
      higherIsBetter: false, target: "≤ 2× the idle p99",
    },
    {
      suite: "uploads", name: `peak RSS of the bench process (server in-process) while one ${mb} MB GPX is processed`,
      ours: singlePeak, unit: "MiB", higherIsBetter: false, target: "≤ 1 GB (was 2.6 GB)",
    },
  ];
}
