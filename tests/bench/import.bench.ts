/**
 * `npm run bench -- import`: a generated Strava export of 1,000 activities (FIT files of 10-minute
 * rides, gzipped as Strava stores them) imported by importArchive, next to the upload pipeline's own
 * rate on the same files (submitUpload, the POST /v3/uploads entry point, with the same number in
 * flight, each awaited until ready) on a fresh server; and the peak RSS of the process during each.
 * Options: --import-activities=N (default 1000).
 */
import { mkdtempSync, rmSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { createAthlete } from "../../server/actions/athletes.ts";
import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { DENO, ROOT } from "../helpers/deno.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { findUpload } from "../../server/uploads/status.ts";
import { submitUpload } from "../../server/uploads/submit.ts";
import { activitiesCsv, type CsvActivity, writeZip } from "../archive/archives.ts";
import type { BenchFigure, BenchSuite } from "./harness.ts";
import { generateRide } from "./uploads.bench.ts";

const WINDOW = 8;

function peakRss(): { stop(): number } {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss) / 1024 / 1024;
    },
  };
}

async function withServer<T>(fn: (server: Awaited<ReturnType<typeof startServer>>, athleteId: number) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-import-"));
  const server = await startServer(configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined, passwordCost: "test" }));
  try {
    const athleteId = await createAthlete(server.platform, { firstname: "Bench", lastname: "Importer", email: "bench@example.com", password: "password123" });
    return await fn(server, athleteId);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The CLI in its own process on a fresh data directory: activities/s and its peak RSS (ps, every 200 ms). */
async function cliImport(archive: string, count: number): Promise<{ rate: number; rss: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-import-cli-"));
  try {
    const server = await startServer(configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined, passwordCost: "test", runJobs: false }));
    const athleteId = await createAthlete(server.platform, { firstname: "Bench", lastname: "Cli", email: "cli@example.com", password: "password123" });
    await server.close();
    const t0 = performance.now();
    const child = spawn(DENO, ["run", "-A", "server/cli/main.ts", "import-archive", archive, "--athlete", String(athleteId), "--json"], {
      cwd: ROOT, env: { ...process.env, DATA_DIR: dataDir, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    // The rate counts from the first progress line (the archive opened and its index read): the
    // process's start (Deno, opening PGlite) is a fixed cost, reported apart.
    let opened = 0;
    child.stderr.on("data", (d) => {
      stderr += d;
      if (!opened && /\] 0\/\d+ /.test(stderr)) opened = performance.now();
    });
    let peak = 0;
    const timer = setInterval(() => {
      try {
        peak = Math.max(peak, Number(execFileSync("ps", ["-o", "rss=", "-p", String(child.pid)]).toString().trim()) / 1024);
      } catch { /* exited */ }
    }, 200);
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    clearInterval(timer);
    const end = performance.now();
    const seconds = (end - (opened || t0)) / 1000;
    console.error(`import: the CLI took ${((end - t0) / 1000).toFixed(1)} s in all, ${((opened - t0) / 1000).toFixed(1)} s of them to start and open the archive`);
    if (code !== 0) throw new Error(`import-archive exited ${code}: ${stderr.slice(-2000)}`);
    const summary = JSON.parse(stdout);
    if (summary.imported !== count) throw new Error(`imported ${summary.imported} of ${count}: ${JSON.stringify(summary.failed.slice(0, 3))}`);
    return { rate: count / seconds, rss: peak };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const importBench: BenchSuite = async (args) => {
  const count = Number(args.find((a) => a.startsWith("--import-activities="))?.split("=")[1] ?? 1000);
  const dir = mkdtempSync(join(tmpdir(), "bench-archive-"));
  try {
    console.error(`import: generating ${count} rides…`);
    const files: Uint8Array[] = [];
    const rows: CsvActivity[] = [];
    for (let i = 0; i < count; i++) {
      const start = new Date(Date.UTC(2020, 0, 1) + i * 6 * 3600 * 1000).toISOString();
      files.push(gzipSync(generateRide(600, start)));
      rows.push({ id: String(10_000 + i), date: start, name: `Ride ${i}`, type: "Ride", elapsed: 600, km: 5, file: `activities/${10_000 + i}.fit.gz` });
    }
    const archive = join(dir, "export.zip");
    await writeZip(archive, [
      { name: "activities.csv", bytes: Buffer.from(activitiesCsv(rows)) },
      ...files.map((bytes, i) => ({ name: rows[i].file!, bytes, store: true })),
    ]);

    console.error("import: the upload pipeline on the same files…");
    const baseline = await withServer(async (server, athleteId) => {
      // The upload-pipeline run: the server process (this one) with PGlite, as `npm start` runs it.
      const rss = peakRss();
      const t0 = performance.now();
      let next = 0;
      const worker = async () => {
        while (next < files.length) {
          const i = next++;
          const status = await submitUpload(server.platform, {
            athleteId, fileName: `${10_000 + i}.fit.gz`, bytes: files[i], dataType: "fit.gz", activityType: "Ride", name: `Ride ${i}`,
            description: null, private: false, trainer: false, commute: false, externalId: null,
          });
          for (;;) {
            const row = await findUpload(server.platform.db, status.id);
            if (row && row.status !== UPLOAD_STATUS.processing) {
              if (row.status !== UPLOAD_STATUS.ready) throw new Error(`upload ${i}: ${row.error}`);
              break;
            }
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      };
      await Promise.all(Array.from({ length: WINDOW }, worker));
      return { rate: files.length / ((performance.now() - t0) / 1000), rss: rss.stop() };
    });

    console.error("import: npm run cli -- import-archive (its own process, as shipped)…");
    const ours = await cliImport(archive, count);

    const figures: BenchFigure[] = [
      {
        suite: "import", name: `archive import, ${count} activities`, ours: ours.rate, baseline: baseline.rate,
        baselineName: "upload pipeline (submitUpload until ready), same files", unit: "activities/s", higherIsBetter: true, target: "≥ 0.8× the upload pipeline",
      },
      {
        suite: "import", name: "peak RSS of the import-archive CLI process", ours: ours.rss, baseline: baseline.rss,
        baselineName: "server process during the upload-pipeline run", unit: "MB", higherIsBetter: false, target: "≤ 500 MB",
      },
    ];
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
