/**
 * `npm run bench -- companion`: the desktop companion's headless core.
 *  1. Time from a file's last write to its upload starting, with default settings (target ≤ 2 s),
 *     next to bare chokidar with the same awaitWriteFinish settings and next to a raw chokidar "add".
 *  2. RSS of the headless core (`deno run -A desktop/core/cli.ts watch`) watching 3 volumes
 *     (target ≤ 80 MB), next to a bare Deno process.
 */
import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { watch } from "chokidar";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { type BenchFigure, type BenchSuite, percentiles } from "./harness.ts";

const FIT = resolve(import.meta.dirname ?? ".", "../fixtures/devices/fit");
const ROOT = resolve(import.meta.dirname ?? ".", "../..");
const SAMPLES = 8;

export const companionBench: BenchSuite = async () => {
  const root = mkdtempSync(join(tmpdir(), "bench-companion-"));
  const server = await startServer(
    configFromEnv({ port: 0, dataDir: join(root, "server"), seedDemo: false, quiet: true, databaseUrl: undefined }),
  );
  const figures: BenchFigure[] = [];
  try {
    const { platform } = server;
    const ownerId = await createAthlete(platform, {
      firstname: "B",
      lastname: "O",
      email: "companion-owner@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Companion bench",
      ownerId,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
      challengesEnabled: true,
    });
    const athleteId = await createAthlete(platform, {
      firstname: "B",
      lastname: "R",
      email: "companion-rider@example.com",
      password: "password123",
    });
    const token = await issueToken(platform, {
      athleteId,
      applicationId: app.client_id,
      permissions: ["read", "write"],
    });
    const files = readdirSync(FIT).filter((f) => f.endsWith(".fit")).slice(0, SAMPLES).map((f) =>
      readFileSync(join(FIT, f))
    );

    // Baselines first, while the server is idle: bare chokidar with the same awaitWriteFinish, and a raw "add".
    const bare = await chokidarLatency(join(root, "bare"), files, { stabilityThreshold: 1000, pollInterval: 100 });
    const raw = await chokidarLatency(join(root, "raw"), files, false);

    // The headless core as it ships (a Deno child process) watching 3 volumes, each holding 2 files.
    const media = join(root, "media");
    for (let v = 0; v < 3; v++) {
      const dir = join(media, `DEV${v}`, "Garmin", "Activity");
      mkdirSync(dir, { recursive: true });
      for (let k = 0; k < 2; k++) writeFileSync(join(dir, `v${v}-${k}.fit`), files[(v * 2 + k) % files.length]);
    }
    const core = await startChild([
      "run",
      "-A",
      "desktop/core/cli.ts",
      "watch",
      "--server",
      server.url,
      "--token",
      token,
      "--volumes",
      media,
      "--state",
      join(root, "state"),
      "--json",
    ]);
    let coreRss = 0;
    try {
      await core.until((events) =>
        events.filter((e) => e.event === "device_connected").length >= 3 &&
        events.filter((e) => e.event === "ready" || e.event === "duplicate").length >= 6
      );
      coreRss = await core.rss();
      // Last write → "uploading" (its `at`), default settings, one new file at a time.
      const ours: number[] = [];
      const folder = join(media, "DEV0", "Garmin", "Activity");
      for (let i = 0; i < files.length; i++) {
        const name = `ride-${i}.fit`;
        const bytes = Uint8Array.from(files[i]);
        bytes[bytes.length - 3] ^= 0xff; // new content (the originals were uploaded above); a bad CRC is tolerated
        writeFileSync(join(folder, name), bytes);
        const lastWrite = Date.now();
        await core.until((events) => events.some((e) => e.event === "uploading" && e.file === name));
        const at = core.events.find((e) => e.event === "uploading" && e.file === name)!.at as string;
        ours.push(Date.parse(at) - lastWrite);
      }
      coreRss = Math.max(coreRss, await core.rss());
      figures.push({
        suite: "companion",
        name: "last write → upload starts (p50)",
        ours: percentiles(ours).p50,
        baseline: percentiles(bare).p50,
        baselineName: "chokidar awaitWriteFinish 1 s",
        unit: "ms",
        higherIsBetter: false,
        target: "≤ 2,000 ms",
      });
      figures.push({
        suite: "companion",
        name: "last write → upload starts (max)",
        ours: Math.max(...ours),
        baseline: Math.max(...raw),
        baselineName: "raw chokidar add",
        unit: "ms",
        higherIsBetter: false,
        target: "≤ 2,000 ms",
      });
    } finally {
      await core.stop();
    }
    const bareDeno = await startChild([
      "eval",
      "setInterval(() => {}, 1000); console.log(JSON.stringify({ event: 'up' }))",
    ]);
    let denoRss = 0;
    try {
      await bareDeno.until((events) => events.some((e) => e.event === "up"));
      denoRss = await bareDeno.rss();
    } finally {
      await bareDeno.stop();
    }
    figures.push({
      suite: "companion",
      name: "headless core RSS, 3 volumes",
      ours: coreRss,
      baseline: denoRss,
      baselineName: "bare deno process",
      unit: "MB",
      higherIsBetter: false,
      target: "≤ 80 MB",
    });
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
};

async function chokidarLatency(
  dir: string,
  files: Uint8Array[],
  awaitWriteFinish: false | { stabilityThreshold: number; pollInterval: number },
): Promise<number[]> {
  mkdirSync(dir, { recursive: true });
  const seen = new Map<string, number>();
  let notify: (() => void) | undefined;
  const watcher = watch(dir, { ignoreInitial: true, depth: 0, awaitWriteFinish });
  watcher.on("add", (p) => {
    seen.set(p, performance.now());
    notify?.();
  });
  await new Promise<void>((r) => watcher.once("ready", () => r()));
  const out: number[] = [];
  for (let i = 0; i < files.length; i++) {
    const path = join(dir, `ride-${i}.fit`);
    writeFileSync(path, files[i]);
    const lastWrite = performance.now();
    await new Promise<void>((r) => {
      notify = () => seen.has(path) && r();
      notify();
    });
    out.push(seen.get(path)! - lastWrite);
  }
  await watcher.close();
  return out;
}

/** A Deno child printing JSON lines: its events, its RSS (MB, max of a few samples), stop. */
async function startChild(args: string[]) {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1" },
  });
  const events: Record<string, unknown>[] = [];
  let buffer = "";
  let err = "";
  const waiters = new Set<() => void>();
  child.stdout!.on("data", (d) => {
    buffer += d;
    let i;
    while ((i = buffer.indexOf("\n")) >= 0) {
      try {
        events.push(JSON.parse(buffer.slice(0, i)));
      } catch { /* not an event */ }
      buffer = buffer.slice(i + 1);
    }
    for (const w of [...waiters]) w();
  });
  child.stderr!.on("data", (d) => (err += d));
  return {
    events,
    until(test: (events: Record<string, unknown>[]) => boolean): Promise<void> {
      return new Promise((resolveUntil, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out:\n${JSON.stringify(events)}\n${err}`)), 120_000);
        const check = () => {
          if (!test(events)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolveUntil();
        };
        waiters.add(check);
        check();
      });
    },
    async rss(): Promise<number> {
      let max = 0;
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 250));
        max = Math.max(
          max,
          Number(execFileSync("ps", ["-o", "rss=", "-p", String(child.pid)]).toString().trim()) / 1024,
        );
      }
      return max;
    },
    async stop(): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}
