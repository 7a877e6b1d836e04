import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { startDenoServer } from "../helpers/deno.ts";
import { cpuSeconds } from "../helpers/proc.ts";
import { longGpx } from "../helpers/long-gpx.ts";
import { multipartUpload, postUploadFile, type UploadBodyFile, writeUploadBody } from "../helpers/multipart-upload.ts";
import type { BenchFigure } from "./harness.ts";
import { connectProfiler, type MainThreadProfiler, saveProfile, summarizeProfile } from "./main-thread-profile.ts";

/**
 * Issue #15 item 11, measured on what ships: the server started as `npm start` starts it (Deno, a
 * real port, PGlite on disk) in its own process. The p99 of GET /v3/athlete while ten large GPX
 * uploads (56 MB each: a real ride's points repeated with advancing times) are submitted and
 * processed, next to the same p99 of the same server with no upload; the slowest request of each;
 * and the server's peak RSS while one 56 MB GPX is processed (and while the ten are).
 *
 * The bodies are built before measuring, as bytes (multipart by hand), and posted by child
 * processes (see SENDER_NICE), so the bench's own event loop (which times the requests) does no
 * heavy work meanwhile. Besides the p99 of all, it prints the p99 of the requests sent while a body
 * was on the wire and of the others (only processing).
 *
 * BENCH_UPLOADS_PROFILE=<dir>: the server also runs with the V8 inspector, and a CPU profile of its
 * main thread (the event loop) is taken while the ten are processed: saved as <dir>/ten.cpuprofile,
 * with its busy ms per upload and the functions with the most self time printed.
 */
/**
 * The processes posting the bodies stand in for athletes' devices and apps, which run on other
 * machines: on this 2-core machine they run at nice 19 (BENCH_SENDER_NICE), so that pushing 560 MB
 * through loopback takes the CPU the server leaves rather than a core from its event loop. With
 * BENCH_SENDER_NICE=0 they compete as equals (docs/bench-profiles.md has both figures). They write
 * 64 KiB at a time, as curl does (tests/helpers/post-upload.mjs: one write of the whole body kept a
 * core from the server's event loop for up to 62 ms on this kernel without preemption).
 */
const SENDER_NICE = Number(process.env.BENCH_SENDER_NICE ?? 19);

/** Event-loop stalls longer than this are counted (LOG_LOOP_STALLS_MS of the bench's server). */
const STALL_MS = 12;

interface PhaseStalls {
  count: number;
  ms: number;
  cpuMs: number;
  waitMs: number;
}

interface Stall {
  at_ms: number;
  stall_ms: number;
  cpu_ms: number | null;
  wait_ms: number | null;
}

/** The server's stall lines (JSON, LOG_FORMAT=json). */
const stallsIn = (output: string): Stall[] =>
  output.split("\n").filter((line) => line.includes('"event loop stall"')).map((line) => JSON.parse(line) as Stall);

/** Those that began within [from, to] (epoch ms), summed. */
function stallsBetween(stalls: Stall[], from: number, to: number): PhaseStalls {
  const sum: PhaseStalls = { count: 0, ms: 0, cpuMs: 0, waitMs: 0 };
  for (const s of stalls) {
    if (s.at_ms < from || s.at_ms > to) continue;
    sum.count++;
    sum.ms += s.stall_ms;
    sum.cpuMs += s.cpu_ms ?? 0;
    sum.waitMs += s.wait_ms ?? 0;
  }
  return sum;
}

const waitingShare = (s: PhaseStalls) => `${(100 * s.waitMs / Math.max(1, s.ms)).toFixed(0)} %`;

const describeStalls = (s: PhaseStalls, seconds: number) =>
  `${s.count} over ${seconds.toFixed(0)} s, ${s.ms.toFixed(0)} ms in all: the main thread on a core ${
    s.cpuMs.toFixed(0)
  } ms, ` +
  `waiting for a core ${s.waitMs.toFixed(0)} ms, asleep in a system call ${(s.ms - s.cpuMs - s.waitMs).toFixed(0)} ms`;

export async function uploadsEventLoopFigures(): Promise<BenchFigure[]> {
  const uploads = Number(process.env.BENCH_LARGE_UPLOADS ?? 10);
  const dataDir = mkdtempSync(join(tmpdir(), "bench-uploads-loop-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const athleteId = await createAthlete(setup, {
    firstname: "Loop",
    lastname: "Rider",
    email: "loop@example.com",
    password: "password123",
  });
  const app = await createApplication(setup, {
    name: "Loop",
    ownerId: athleteId,
    callbackDomain: "localhost",
    internal: true,
  });
  const token = await issueToken(setup, { athleteId, applicationId: app.client_id, permissions: ["read", "write"] });
  await setup.close();
  const profileDir = process.env.BENCH_UPLOADS_PROFILE;
  const inspect = `127.0.0.1:${9300 + (process.pid % 500)}`;
  const server = await startDenoServer({
    dataDir,
    // Every event-loop stall over STALL_MS is logged (JSON on stderr), split into the main thread's
    // time on a core and its time waiting for one: printed per phase below.
    env: {
      SEED_DEMO: "0",
      RATE_LIMIT_SHORT: "10000000",
      RATE_LIMIT_LONG: "10000000",
      LOG_LOOP_STALLS_MS: String(STALL_MS),
      LOG_FORMAT: "json",
    },
    // `sh -c '…' deno run -A server/main.ts`: the same command with --inspect added.
    wrapper: profileDir ? ["sh", "-c", `exec "$0" run --inspect=${inspect} -A "$3"`] : undefined,
  });
  const profiler: MainThreadProfiler | null = profileDir ? await connectProfiler(inspect) : null;
  const pid = server.child.pid!;
  const url = server.url;
  const auth = { authorization: `Bearer ${token}` };
  const peakRssMiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
  const resetPeakRss = () => writeFileSync(`/proc/${pid}/clear_refs`, "5");

  /** GET /v3/athlete one after another (20 ms apart) until `done()`; the latencies in ms. */
  /** Latencies of requests sent while an upload body was being posted (the rest: only processing). */
  const whileSending: number[] = [];
  const whileProcessing: number[] = [];
  let sending = 0;
  const latencies = async (done: () => boolean | Promise<boolean>): Promise<number[]> => {
    const out: number[] = [];
    while (!(await done())) {
      const t0 = performance.now();
      const posting = sending > 0;
      const res = await fetch(`${url}/v3/athlete`, { headers: auth });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET /v3/athlete answered ${res.status}`);
      out.push(performance.now() - t0);
      (posting || sending > 0 ? whileSending : whileProcessing).push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 20));
    }
    return out;
  };
  const bodyDir = mkdtempSync(join(tmpdir(), "bench-uploads-bodies-"));
  let written = 0;
  /** Written to a file before measuring, and posted by a separate process: this one only times requests. */
  const prepare = (form: { body: Uint8Array; contentType: string }) =>
    writeUploadBody(form, join(bodyDir, `body-${written++}`));
  const post = async (file: UploadBodyFile) => {
    sending++;
    const res = await postUploadFile(url, token, file, { nice: SENDER_NICE }).finally(() => sending--);
    if (res.status !== 201) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id;
  };
  const statusOf = async (id: number) => {
    const res = await fetch(`${url}/v3/uploads/${id}`, { headers: auth });
    const body = await res.json() as { status: string; error: string | null };
    if (body.status === UPLOAD_STATUS.error) throw new Error(`upload error: ${body.error}`);
    return body.status;
  };
  /** True once every upload is ready (asked at most once a second); false before the first is submitted. */
  const allReady = (ids: number[], expected: number) => {
    let last = 0;
    let ready = false;
    return async () => {
      if (ids.length < expected || performance.now() - last < 1000) return ready;
      last = performance.now();
      ready = (await Promise.all(ids.map(statusOf))).every((s) => s === UPLOAD_STATUS.ready);
      return ready;
    };
  };
  const p99 = (values: number[]) => {
    const sorted = values.slice().sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
  };
  const slowest = (values: number[]) => values.reduce((m, v) => Math.max(m, v), 0);

  try {
    const singleForm = multipartUpload(
      longGpx(163_000, { startIso: "2023-01-01T06:00:00Z" }).bytes,
      "large-single.gpx",
      "gpx",
    );
    const mb = (singleForm.body.byteLength / 1e6).toFixed(0);
    const single = prepare(singleForm);
    const ten = Array.from(
      { length: uploads },
      (_, i) =>
        prepare(
          multipartUpload(
            longGpx(163_000, { startIso: `2023-02-${String(i + 1).padStart(2, "0")}T06:00:00Z` }).bytes,
            `large-${i}.gpx`,
            "gpx",
          ),
        ),
    );
    await new Promise((r) => setTimeout(r, 2000)); // the server settles after start

    // The same server, no upload.
    const idleUntil = performance.now() + 30_000; // long enough for a steady p99 (≈ 1,300 requests)
    const idleCpu = cpuSeconds(pid);
    const idleStarted = performance.now();
    const idle = await latencies(() => performance.now() > idleUntil);
    const idleEnded = performance.now();
    const idleMainCpuPerS = (cpuSeconds(pid).main - idleCpu.main) * 1000 / ((performance.now() - idleStarted) / 1000);

    // One upload alone: submitted while measuring; the peak RSS of the server process.
    resetPeakRss();
    const singleIds: number[] = [];
    const singleStarted = performance.now();
    const [singleLatencies] = await Promise.all([
      latencies(allReady(singleIds, 1)),
      post(single).then((id) => singleIds.push(id)),
    ]);
    const singleMs = performance.now() - singleStarted;
    const singlePeak = peakRssMiB();

    whileSending.length = 0;
    whileProcessing.length = 0;
    // Ten: submitted one after another while measuring, then processed.
    resetPeakRss();
    await profiler?.start();
    const cpuBefore = cpuSeconds(pid);
    const ids: number[] = [];
    const busyStarted = performance.now();
    const [busy] = await Promise.all([
      latencies(allReady(ids, uploads)),
      (async () => {
        for (const form of ten) ids.push(await post(form));
      })(),
    ]);
    const busyMs = performance.now() - busyStarted;
    const epoch = (t: number) => performance.timeOrigin + t;
    const stalls = stallsIn(server.output());
    const idleStalls = stallsBetween(stalls, epoch(idleStarted), epoch(idleEnded));
    const busyStalls = stallsBetween(stalls, epoch(busyStarted), epoch(busyStarted + busyMs));
    console.error(
      `event-loop stalls over ${STALL_MS} ms (server): with no upload ${
        describeStalls(idleStalls, (idleEnded - idleStarted) / 1000)
      }; ` +
        `while the ${uploads} were submitted and processed ${describeStalls(busyStalls, busyMs / 1000)}`,
    );
    const sendingBusy = whileSending.splice(0);
    const processingBusy = whileProcessing.splice(0);
    console.error(
      `GET /v3/athlete while the ${uploads} were submitted and processed: p99 ${
        p99(sendingBusy).toFixed(1)
      } ms over the ${sendingBusy.length} requests ` +
        `sent while a body was being posted, ${
          p99(processingBusy).toFixed(1)
        } ms over the ${processingBusy.length} others (processing only)`,
    );
    const busyPeak = peakRssMiB();
    const cpuAfter = cpuSeconds(pid);
    const mainCpuMs = (cpuAfter.main - cpuBefore.main) * 1000 / uploads;
    console.error(
      `main thread CPU: ${(cpuAfter.main - cpuBefore.main).toFixed(1)} s over ${
        (busyMs / 1000).toFixed(1)
      } s with ${uploads} uploads ` +
        `(${((cpuAfter.main - cpuBefore.main) * 1000 / (busyMs / 1000)).toFixed(0)} ms per s); with no upload ${
          idleMainCpuPerS.toFixed(0)
        } ms per s (the GETs alone)`,
    );
    const allCpuMs = (cpuAfter.all - cpuBefore.all) * 1000 / uploads;
    if (profiler && profileDir) {
      const profile = await profiler.stop();
      saveProfile(join(profileDir, "ten.cpuprofile"), profile);
      const { busyMs, gcMs, wallMs, rows } = summarizeProfile(profile, 30);
      console.error(
        `main thread while ${uploads} uploads were processed: busy ${busyMs.toFixed(0)} ms of ${
          wallMs.toFixed(0)
        } ms ` +
          `(${(busyMs / uploads).toFixed(0)} ms per upload; GC ${gcMs.toFixed(0)} ms)\n` +
          rows.map((r) => `  ${r.ms.toFixed(1).padStart(8)} ms  ${r.name}`).join("\n"),
      );
    }
    console.error(
      `uploads (Deno server): one ${mb} MB GPX processed in ${(singleMs / 1000).toFixed(1)} s (slowest GET ${
        slowest(singleLatencies).toFixed(0)
      } ms); ` +
        `${uploads} in ${(busyMs / 1000).toFixed(1)} s (slowest GET ${slowest(busy).toFixed(0)} ms, idle slowest ${
          slowest(idle).toFixed(0)
        } ms)`,
    );
    return [
      {
        suite: "uploads",
        name:
          `GET /v3/athlete p99 while ${uploads} × ${mb} MB GPX uploads are submitted and processed (Deno server, ${busy.length} requests; senders at nice ${SENDER_NICE})`,
        ours: p99(busy),
        baseline: p99(idle),
        baselineName: `same p99 with no upload (${idle.length} requests)`,
        unit: "ms",
        higherIsBetter: false,
        target: "≤ 2× the idle p99",
      },
      {
        suite: "uploads",
        name: `… of those, requests sent while a body was on the wire (${sendingBusy.length})`,
        ours: p99(sendingBusy),
        baseline: p99(idle),
        baselineName: "same p99 with no upload",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "uploads",
        name: `… of those, requests sent while uploads were only being processed (${processingBusy.length})`,
        ours: p99(processingBusy),
        baseline: p99(idle),
        baselineName: "same p99 with no upload",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "uploads",
        name: `event-loop stalls over ${STALL_MS} ms while the ${uploads} are submitted and processed, ms per s ` +
          `(${waitingShare(busyStalls)} of it the main thread waiting for a core)`,
        ours: busyStalls.ms / (busyMs / 1000),
        baseline: idleStalls.ms / ((idleEnded - idleStarted) / 1000),
        baselineName: `same with no upload (${waitingShare(idleStalls)} waiting for a core)`,
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "uploads",
        name:
          `CPU time of the server's main thread (event loop) per ${mb} MB GPX, while ${uploads} are processed (GET /v3/athlete every 20 ms included)`,
        ours: mainCpuMs,
        baseline: allCpuMs,
        baselineName: "CPU time of the whole server process (derive workers included) per upload",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "uploads",
        name: `slowest GET /v3/athlete while ${uploads} × ${mb} MB GPX uploads are processed`,
        ours: slowest(busy),
        baseline: slowest(idle),
        baselineName: "slowest with no upload",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "uploads",
        name: `slowest GET /v3/athlete while one ${mb} MB GPX is submitted and processed (${
          (singleMs / 1000).toFixed(1)
        } s)`,
        ours: slowest(singleLatencies),
        baseline: slowest(idle),
        baselineName: "slowest with no upload",
        unit: "ms",
        higherIsBetter: false,
        target: "≤ 1 s",
      },
      {
        suite: "uploads",
        name: `peak RSS of the Deno server while one ${mb} MB GPX is submitted and processed`,
        ours: singlePeak,
        unit: "MiB",
        higherIsBetter: false,
        target: "≤ 1 GB (was 2.6 GB)",
      },
      {
        suite: "uploads",
        name: `peak RSS of the Deno server while ${uploads} × ${mb} MB GPX are submitted and processed`,
        ours: busyPeak,
        unit: "MiB",
        higherIsBetter: false,
      },
    ];
  } finally {
    profiler?.close();
    // BENCH_SERVER_LOG=<file>: the server's own output (e.g. with PGLITE_SLOW_MS / UPLOAD_STEP_MS set), saved.
    if (process.env.BENCH_SERVER_LOG) writeFileSync(process.env.BENCH_SERVER_LOG, server.output());
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(bodyDir, { recursive: true, force: true });
  }
}
