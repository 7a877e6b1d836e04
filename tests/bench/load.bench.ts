import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { activityCreated, activityStream } from "../../events/activity/events.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { nextId } from "../../server/ids.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { processUpload } from "../../server/uploads/job.ts";
import { submitUpload } from "../../server/uploads/submit.ts";
import { systemActor } from "../../server/actor.ts";
import { cpuSeconds } from "../helpers/proc.ts";
import { startCpuProfile, summarise } from "./cpu-profile.ts";
import type { BenchFigure, BenchSuite } from "./harness.ts";

const ROOT = resolve(import.meta.dirname ?? ".", "../..");
const DEVICE_FILE = join(ROOT, "tests/fixtures/devices/fit/garmin-edge1000-cycling-short-3formats.fit");
const ATHLETES = 40;
const MANUAL_PER_ATHLETE = 5;
/** The issue's row: GET /v3/activities/:id under 32 connections. */
const CONNECTIONS = 32;
/** The issue's durable write row: POST /v3/activities/:id/kudos under 8 connections. */
const KUDOS_CONNECTIONS = 8;
/**
 * Activities per athlete only for the kudos row (each takes a kudos from each other athlete once):
 * 1,600 × 39 new kudos, enough for 0.5× of a bare handler at 2,800 req/s over the run and warm-up.
 */
const KUDOS_TARGETS_PER_ATHLETE = 40;
/** BENCH_PROFILE=<dir>: a CPU profile of each server (inspector on these ports) during its measured run. */
const PROFILE_DIR = Deno.env.get("BENCH_PROFILE");
const INSPECT = { ours: 9341, bare: 9342 };

interface Owned {
  id: number;
  token: string;
}

/** Starts a Deno process and waits for its "listening on <url>" line. */
function spawnListening(args: string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(Deno.execPath(), args, {
    cwd: ROOT,
    env: { ...Deno.env.toObject(), NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolveStart, reject) => {
    // Generous: on a loaded machine PGlite's start alone can take a minute. A child that did not
    // start is stopped (the caller only tracks started ones).
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error(`did not start:\n${out}`));
    }, 240_000);
    let listening = false;
    // Once listening, the output (the request log: a line per request) is drained as a log
    // collector would, and not kept: appending it to `out` and scanning all of it again for every
    // chunk cost this process (which also runs autocannon) seconds of CPU, and a slow reader
    // leaves the server blocked writing to a full pipe.
    const check = (d: unknown) => {
      if (listening) return;
      out += String(d);
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        listening = true;
        clearTimeout(timer);
        resolveStart({ url: m[1].replace("0.0.0.0", "127.0.0.1"), child });
      }
    };
    child.stdout!.on("data", check);
    child.stderr!.on("data", (d) => {
      if (!listening) out += String(d);
    });
    child.on("exit", () => reject(new Error(`exited:\n${out}`)));
  });
}

interface Run {
  requests: number;
  /** CPU seconds of the server during the run (main thread, whole process), when measured. */
  cpu?: { main: number; all: number };
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
}

async function load(
  url: string,
  seconds: number,
  setupRequest?: (req: Record<string, unknown>) => Record<string, unknown>,
  connections = CONNECTIONS,
): Promise<Run> {
  const options: Record<string, unknown> = { url, connections, duration: seconds };
  if (setupRequest) options.requests = [{ setupRequest }];
  const result = await autocannon(options);
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    statuses[code] = (stat as { count: number }).count;
  }
  // Connection errors and timeouts have no status code: counted under "error" and "timeout".
  if (result.errors) statuses.error = result.errors;
  if (result.timeouts) statuses.timeout = result.timeouts;
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses,
  };
}

/** A run with the CPU its server used meanwhile. */
async function withCpu(pid: number, run: () => Promise<Run>): Promise<Run> {
  const before = cpuSeconds(pid);
  const result = await run();
  const after = cpuSeconds(pid);
  return { ...result, cpu: { main: after.main - before.main, all: after.all - before.all } };
}

/** Slices of the GET comparison per server (alternating); see the run. */
const ROUNDS = 4;

/** Slices of equal length as one run: mean rate, median of the slices' p50 and p99, statuses summed. */
function combined(runs: Run[]): Run {
  const median = (xs: number[]) => {
    const s = xs.slice().sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const statuses: Record<string, number> = {};
  for (const run of runs) {
    for (const [code, n] of Object.entries(run.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  }
  return {
    requests: runs.reduce((sum, r) => sum + r.requests, 0),
    rps: runs.reduce((sum, r) => sum + r.rps, 0) / runs.length,
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    statuses,
  };
}

function gpxUpload(n: number): { body: string; boundary: string } {
  const start = Date.UTC(2021, 0, 1) + n * 3_600_000;
  const points = Array.from(
    { length: 60 },
    (_, i) =>
      `<trkpt lat="${(52.1 + i * 0.0002).toFixed(6)}" lon="${(4.49 + i * 0.0002).toFixed(6)}"><ele>5</ele><time>${
        new Date(start + i * 5000).toISOString()
      }</time></trkpt>`,
  );
  const gpx = `<?xml version="1.0"?><gpx version="1.1" creator="load"><trk><trkseg>${
    points.join("")
  }</trkseg></trk></gpx>`;
  const boundary = `----load${n}`;
  const body = `--${boundary}\r\nContent-Disposition: form-data; name="data_type"\r\n\r\ngpx\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="load-${n}.gpx"\r\nContent-Type: application/gpx+xml\r\n\r\n${gpx}\r\n--${boundary}--\r\n`;
  return { body, boundary };
}

/**
 * Load: the real server (Deno, PGlite on disk, spawned like `npm start`) on loopback under autocannon,
 * next to a bare Hono + PGlite handler on Deno serving a comparable `select` by id, in the same run.
 * Figures: GET /v3/activities/:id req/s, p50 and p99; then a realistic mix (70 % activity reads,
 * 10 % activity lists, 15 % kudos, 5 % uploads of new GPX files) with its status counts.
 * `npm run bench -- load [--seconds=N]` (default 20 s per server for the GET comparison, in 4 alternating slices; N s for the mix).
 */
export const loadBench: BenchSuite = async (args) => {
  const seconds = Number(args.find((a) => a.startsWith("--seconds="))?.split("=")[1] ?? 20);
  const dir = mkdtempSync(join(tmpdir(), "fitness-load-"));
  const dataDir = join(dir, "data");
  const children: ChildProcess[] = [];
  try {
    // Data: athletes with tokens, one uploaded activity each (a real FIT file) and manual ones.
    const platform = await openPlatform(
      configFromEnv({ dataDir, databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
    );
    const ownerId = await createAthlete(platform, {
      firstname: "Load",
      lastname: "Owner",
      email: "load-owner@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Load",
      ownerId,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
    });
    const athletes: { id: number; token: string }[] = [];
    const activities: (Owned & { owner: number })[] = [];
    /** Activities only the kudos row gives kudos to (not read by the GET row or the mix). */
    const kudosTargets: (Owned & { owner: number })[] = [];
    const file = new Uint8Array(readFileSync(DEVICE_FILE));
    let factsSample = "{}";
    const manualActivity = async (athleteId: number, name: string, month: number) => {
      const activityId = await nextId(platform.db, "activity");
      await platform.store.append(activityStream(activityId), 0, [activityCreated.create({
        activityId,
        athleteId,
        name,
        type: "Run",
        startDate: `2026-${String(month).padStart(2, "0")}-01T07:00:00Z`,
        startDateLocal: `2026-${String(month).padStart(2, "0")}-01T08:00:00Z`,
        timezone: "(GMT+01:00) Europe/Amsterdam",
        elapsedTime: 1800,
        distance: 5000,
        description: null,
        visibility: "everyone",
        trainer: false,
        commute: false,
      })], { metadata: { athleteId } });
      return activityId;
    };
    for (let i = 0; i < ATHLETES; i++) {
      const id = await createAthlete(platform, {
        firstname: `Load${i}`,
        lastname: "Rider",
        email: `load${i}@example.com`,
        password: "password123",
      });
      const token = await issueToken(platform, {
        athleteId: id,
        applicationId: app.client_id,
        permissions: ["read", "write", "view_private"],
      });
      athletes.push({ id, token });
      const upload = await submitUpload(platform, {
        athleteId: id,
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
      }, systemActor("bench", id));
      await processUpload(platform, upload.id);
      const [row] = await platform.db.query<{ activity_id: number; facts: unknown }>(
        "select u.activity_id, a.facts from uploads u join activities a on a.id = u.activity_id where u.id = $1",
        [upload.id],
      );
      activities.push({ id: Number(row.activity_id), token, owner: i });
      if (i === 0) factsSample = typeof row.facts === "string" ? row.facts : JSON.stringify(row.facts);
      for (let k = 0; k < MANUAL_PER_ATHLETE; k++) {
        activities.push({ id: await manualActivity(id, `Manual ${k}`, 1 + k), token, owner: i });
      }
      for (let k = 0; k < KUDOS_TARGETS_PER_ATHLETE; k++) {
        kudosTargets.push({ id: await manualActivity(id, `Kudos target ${k}`, 1 + (k % 12)), token, owner: i });
      }
    }
    await platform.close();
    const factsFile = join(dir, "facts.json");
    writeFileSync(factsFile, factsSample);

    const inspect = (port: number) => PROFILE_DIR ? [`--inspect=127.0.0.1:${port}`] : [];
    const ours = await spawnListening([
      "run",
      "-A",
      ...inspect(INSPECT.ours),
      "--unstable-sloppy-imports",
      "server/main.ts",
    ], {
      PORT: "0",
      DATA_DIR: dataDir,
      SEED_DEMO: "0",
      RATE_LIMIT_SHORT: "1000000000",
      RATE_LIMIT_LONG: "1000000000",
    });
    children.push(ours.child);
    const bare = await spawnListening(["run", "-A", ...inspect(INSPECT.bare), "tests/bench/load-bare.ts"], {
      BARE_FACTS: factsFile,
      BARE_ROWS: String(activities.length),
    });
    children.push(bare.child);

    const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
    const readActivity = (req: Record<string, unknown>) => {
      const a = pick(activities);
      return { ...req, method: "GET", path: `/v3/activities/${a.id}`, headers: { authorization: `Bearer ${a.token}` } };
    };
    const bareRead = (req: Record<string, unknown>) => ({
      ...req,
      method: "GET",
      path: `/activities/${1 + Math.floor(Math.random() * activities.length)}`,
    });

    // Warm both up, then measure each alone.
    await load(ours.url, 2, readActivity);
    await load(bare.url, 2, bareRead);
    const profiled = async (name: keyof typeof INSPECT, run: () => Promise<Run>, row = ""): Promise<Run> => {
      if (!PROFILE_DIR) return run();
      const profile = await startCpuProfile(INSPECT[name]);
      const result = await run();
      const file = join(PROFILE_DIR, `load-${row}${name}.cpuprofile`);
      await profile.stop(file);
      console.error(
        `load: CPU profile of the ${name} server in ${file}; self time, top 15:\n` +
          summarise(JSON.parse(readFileSync(file, "utf8")), 15).join("\n"),
      );
      return result;
    };
    // Ours and the bare server take turns, in ROUNDS slices each, so that a change in the machine's
    // other load during the run weighs on both alike (measured one after the other, 0.60–0.92× came
    // out for the same build). With profiling: one slice each, as before.
    const rounds = PROFILE_DIR ? 1 : ROUNDS;
    const oursSlices: Run[] = [];
    const bareSlices: Run[] = [];
    for (let round = 0; round < rounds; round++) {
      oursSlices.push(
        await withCpu(ours.child.pid!, () => profiled("ours", () => load(ours.url, seconds / rounds, readActivity))),
      );
      bareSlices.push(
        await withCpu(bare.child.pid!, () => profiled("bare", () => load(bare.url, seconds / rounds, bareRead))),
      );
    }
    const oursRead = combined(oursSlices);
    for (const [name, server, runs] of [["ours", ours, oursSlices], ["bare", bare, bareSlices]] as const) {
      const requests = runs.reduce((n, r) => n + r.requests, 0);
      const cpu = runs.reduce((c, r) => ({ main: c.main + r.cpu!.main, all: c.all + r.cpu!.all }), { main: 0, all: 0 });
      console.error(
        `load: ${name} (pid ${server.child.pid}) CPU per GET: main thread ${
          (cpu.main * 1000 / requests).toFixed(3)
        } ms, whole process ${(cpu.all * 1000 / requests).toFixed(3)} ms (${requests} requests)`,
      );
    }
    const bareRun = combined(bareSlices);
    console.error(
      `load: GET req/s per slice, ours ${oursSlices.map((r) => r.rps.toFixed(0)).join(" / ")}, bare ${
        bareSlices.map((r) => r.rps.toFixed(0)).join(" / ")
      }`,
    );

    // Durable writes: POST kudos under 8 connections, each a new kudos (a repeat is refused, 409,
    // and appends nothing), next to the bare handler's insert made durable the plain way (WAL
    // fdatasync after commit, group commit). The pairs (activity, giver) are laid out so that
    // requests in flight together name different activities and givers; both servers take the
    // same list in the same order. Slices alternate as for the GET row.
    const kudosPairs = Array.from({ length: kudosTargets.length * (ATHLETES - 1) }, (_, k) => {
      const target = kudosTargets[k % kudosTargets.length];
      return { target, giver: athletes[(target.owner + 1 + Math.floor(k / kudosTargets.length)) % ATHLETES] };
    });
    const kudosSent = { ours: 0, bare: 0 };
    const nextPair = (server: keyof typeof kudosSent) => kudosPairs[kudosSent[server]++ % kudosPairs.length];
    const oursKudos = (req: Record<string, unknown>) => {
      const { target, giver } = nextPair("ours");
      return {
        ...req,
        method: "POST",
        path: `/v3/activities/${target.id}/kudos`,
        headers: { authorization: `Bearer ${giver.token}` },
        body: undefined,
      };
    };
    // The bare table has no athletes to run out of: past the list's end it goes round again with
    // giver ids moved by a million per round, so its rows stay new too.
    const bareKudos = (req: Record<string, unknown>) => {
      const round = Math.floor(kudosSent.bare / kudosPairs.length);
      const { target, giver } = nextPair("bare");
      return {
        ...req,
        method: "POST",
        path: `/activities/${target.id}/kudos`,
        headers: { "x-athlete-id": String(giver.id + round * 1_000_000) },
        body: undefined,
      };
    };
    const kudosSlices = { ours: [] as Run[], bare: [] as Run[], warm: [] as Run[] };
    kudosSlices.warm.push(await load(ours.url, 2, oursKudos, KUDOS_CONNECTIONS));
    kudosSlices.warm.push(await load(bare.url, 2, bareKudos, KUDOS_CONNECTIONS));
    for (let round = 0; round < rounds; round++) {
      for (const [name, server, setup] of [["ours", ours, oursKudos], ["bare", bare, bareKudos]] as const) {
        kudosSlices[name].push(
          await withCpu(
            server.child.pid!,
            () => profiled(name, () => load(server.url, seconds / rounds, setup, KUDOS_CONNECTIONS), "kudos-"),
          ),
        );
      }
    }
    const oursKudosRun = combined(kudosSlices.ours);
    const bareKudosRun = combined(kudosSlices.bare);
    const created = (runs: Run[]) =>
      runs.reduce(
        (n, r) =>
          n + Object.entries(r.statuses).filter(([code]) => code.startsWith("2")).reduce((m, [, c]) => m + c, 0),
        0,
      );
    const allRuns = {
      ours: [...kudosSlices.ours, kudosSlices.warm[0]],
      bare: [...kudosSlices.bare, kudosSlices.warm[1]],
    };
    for (const name of ["ours", "bare"] as const) {
      const bad = allRuns[name].flatMap((r) => Object.entries(r.statuses).filter(([code]) => !code.startsWith("2")));
      if (bad.length) throw new Error(`load: kudos on ${name} answered other than 2xx: ${JSON.stringify(bad)}`);
    }
    if (kudosSent.ours > kudosPairs.length) {
      throw new Error(`load: kudos on ours ran out of new (activity, giver) pairs (${kudosPairs.length})`);
    }
    // Recorded? Ours: the kudos lists of the targets as their owners read them (the projection may
    // follow the append: read until it stops short); bare: its row count. Each has at least every
    // 2xx answer and at most every request sent (an answer still in flight when a slice ended).
    const kudosRecorded = async () => {
      let total = 0;
      for (let i = 0; i < kudosTargets.length; i += KUDOS_CONNECTIONS) {
        const counts = await Promise.all(
          kudosTargets.slice(i, i + KUDOS_CONNECTIONS).map(async (t) => {
            const res = await fetch(`${ours.url}/v3/activities/${t.id}/kudos?per_page=200`, {
              headers: { authorization: `Bearer ${t.token}` },
            });
            if (!res.ok) throw new Error(`load: GET kudos of ${t.id}: ${res.status} ${await res.text()}`);
            return ((await res.json()) as unknown[]).length;
          }),
        );
        total += counts.reduce((a, b) => a + b, 0);
      }
      return total;
    };
    const recorded = { ours: 0, bare: 0 };
    for (let attempt = 0; attempt < 20; attempt++) {
      recorded.ours = await kudosRecorded();
      if (recorded.ours >= created(allRuns.ours)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const bareStats = await (await fetch(`${bare.url}/kudos/stats`)).json() as {
      rows: number;
      walSyncs: { syncs: number; waits: number };
    };
    recorded.bare = bareStats.rows;
    for (const name of ["ours", "bare"] as const) {
      if (recorded[name] < created(allRuns[name]) || recorded[name] > kudosSent[name]) {
        throw new Error(
          `load: kudos on ${name}: ${recorded[name]} recorded, ${created(allRuns[name])} answered 2xx, ${
            kudosSent[name]
          } sent`,
        );
      }
    }
    for (const [name, server] of [["ours", ours], ["bare", bare]] as const) {
      const runs = kudosSlices[name];
      const requests = runs.reduce((n, r) => n + r.requests, 0);
      const cpu = runs.reduce((c, r) => ({ main: c.main + r.cpu!.main, all: c.all + r.cpu!.all }), { main: 0, all: 0 });
      console.error(
        `load: kudos ${name} (pid ${server.child.pid}) req/s per slice ${
          runs.map((r) => r.rps.toFixed(0)).join(" / ")
        }; p99 ${combined(runs).p99} ms; CPU per kudos: main thread ${
          (cpu.main * 1000 / requests).toFixed(3)
        } ms, whole process ${(cpu.all * 1000 / requests).toFixed(3)} ms (${requests} requests); ${
          recorded[name]
        } recorded of ${created(allRuns[name])} answered 2xx and ${kudosSent[name]} sent (warm-up included)`,
      );
    }
    console.error(
      `load: bare kudos WAL syncs ${bareStats.walSyncs.syncs} for ${bareStats.walSyncs.waits} waits (${
        (bareStats.walSyncs.waits / Math.max(1, bareStats.walSyncs.syncs)).toFixed(1)
      } per sync)`,
    );

    let uploads = 0;
    const mixed = (req: Record<string, unknown>) => {
      const r = Math.random();
      if (r < 0.7) return readActivity(req);
      const me = pick(athletes);
      const auth = { authorization: `Bearer ${me.token}` };
      if (r < 0.8) return { ...req, method: "GET", path: "/v3/athlete/activities?per_page=30", headers: auth };
      if (r < 0.95) {
        const target = pick(activities.filter((a) => a.token !== me.token));
        return { ...req, method: "POST", path: `/v3/activities/${target.id}/kudos`, headers: auth, body: undefined };
      }
      const { body, boundary } = gpxUpload(++uploads);
      return {
        ...req,
        method: "POST",
        path: "/v3/uploads",
        headers: { ...auth, "content-type": `multipart/form-data; boundary=${boundary}` },
        body,
      };
    };
    const mix = await load(ours.url, seconds, mixed);
    const fiveHundreds = Object.entries(mix.statuses).filter(([code]) =>
      code.startsWith("5")
    ).reduce((n, [, c]) => n + c, 0) +
      [oursRead, oursKudosRun].flatMap((r) => Object.entries(r.statuses)).filter(([code]) => code.startsWith("5"))
        .reduce((n, [, c]) => n + c, 0);
    console.error(
      `load: GET statuses ${JSON.stringify(oursRead.statuses)}; mix statuses ${
        JSON.stringify(mix.statuses)
      } (${uploads} uploads)`,
    );

    const base = { suite: "load", baseline: bareRun.rps, baselineName: "bare Hono + PGlite select by id" };
    return [
      {
        ...base,
        name: "GET /v3/activities/:id",
        ours: oursRead.rps,
        unit: "req/s",
        higherIsBetter: true,
        target: "≥ 0.8× the bare handler",
      },
      {
        suite: "load",
        name: "GET /v3/activities/:id p50",
        ours: oursRead.p50,
        baseline: bareRun.p50,
        baselineName: "bare p50",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "load",
        name: "GET /v3/activities/:id p99",
        ours: oursRead.p99,
        baseline: bareRun.p99,
        baselineName: "bare p99",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "load",
        name: "POST /v3/activities/:id/kudos, 8 connections, durable (each a new kudos)",
        ours: oursKudosRun.rps,
        baseline: bareKudosRun.rps,
        baselineName: "bare Hono + PGlite insert, WAL fdatasync after commit, group commit",
        unit: "req/s",
        higherIsBetter: true,
        target: "≥ 0.5× the bare handler",
      },
      {
        suite: "load",
        name: "POST /v3/activities/:id/kudos p50",
        ours: oursKudosRun.p50,
        baseline: bareKudosRun.p50,
        baselineName: "bare p50",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        ...base,
        name: "mix (70 % reads, 10 % lists, 15 % kudos, 5 % uploads)",
        ours: mix.rps,
        unit: "req/s",
        higherIsBetter: true,
      },
      {
        suite: "load",
        name: "mix p50",
        ours: mix.p50,
        baseline: bareRun.p50,
        baselineName: "bare p50",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "load",
        name: "mix p99",
        ours: mix.p99,
        baseline: bareRun.p99,
        baselineName: "bare p99",
        unit: "ms",
        higherIsBetter: false,
      },
      {
        suite: "load",
        name: "5xx answers during the runs",
        ours: fiveHundreds,
        baseline: [bareRun, bareKudosRun].flatMap((r) => Object.entries(r.statuses))
          .filter(([code]) => code.startsWith("5")).reduce((n, [, c]) => n + c, 0),
        baselineName: "the bare servers' 5xx answers",
        unit: "responses",
        higherIsBetter: false,
        target: "0",
      },
    ] satisfies BenchFigure[];
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    rmSync(dir, { recursive: true, force: true });
  }
};
