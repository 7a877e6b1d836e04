/**
 * `npm run bench -- import`: a generated Strava export of 1,000 activities (FIT files of 10-minute
 * rides, gzipped as Strava stores them) imported by importArchive, next to the upload pipeline's own
 * rate on the same files (submitUpload, the POST /v3/uploads entry point, with the same number in
 * flight, each awaited until ready) on a fresh server; and the peak RSS of the process during each.
 * Options: --import-activities=N (default 1000); --import-sizes=N,M,… imports archives of those
 * sizes too (the CLI only, each on a fresh data directory) and prints each one's peak RSS next to
 * the first's: memory that does not grow with the archive. Peak RSS is the kernel's high-water mark
 * of the process (VmHWM), not a sample.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { spawn } from "node:child_process";
import { DENO, ROOT } from "../helpers/deno.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { findUpload } from "../../server/uploads/status.ts";
import { submitUpload } from "../../server/uploads/submit.ts";
import { systemActor } from "../../server/actor.ts";
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

async function withServer<T>(
  fn: (server: Awaited<ReturnType<typeof startServer>>, athleteId: number) => Promise<T>,
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-import-"));
  const server = await startServer(
    configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined, passwordCost: "test" }),
  );
  try {
    const athleteId = await createAthlete(server.platform, {
      firstname: "Bench",
      lastname: "Importer",
      email: "bench@example.com",
      password: "password123",
    });
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
    const server = await startServer(
      configFromEnv({
        port: 0,
        dataDir,
        seedDemo: false,
        quiet: true,
        databaseUrl: undefined,
        passwordCost: "test",
        runJobs: false,
      }),
    );
    const athleteId = await createAthlete(server.platform, {
      firstname: "Bench",
      lastname: "Cli",
      email: "cli@example.com",
      password: "password123",
    });
    await server.close();
    const t0 = performance.now();
    const child = spawn(DENO, [
      "run",
      "-A",
      "server/cli/main.ts",
      "import-archive",
      archive,
      "--athlete",
      String(athleteId),
      "--json",
    ], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
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
    // The kernel's high-water mark (VmHWM) of the process, read until it exits.
    let peak = 0;
    const timer = setInterval(() => {
      try {
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
        if (hwm) peak = Math.max(peak, Number(hwm[1]) / 1024);
      } catch { /* exited */ }
    }, 100);
    const code = await new Promise<number | null>((r) => child.on("exit", r));
    clearInterval(timer);
    const end = performance.now();
    const seconds = (end - (opened || t0)) / 1000;
    console.error(
      `import: the CLI took ${((end - t0) / 1000).toFixed(1)} s in all, ${
        ((opened - t0) / 1000).toFixed(1)
      } s of them to start and open the archive`,
    );
    if (code !== 0) throw new Error(`import-archive exited ${code}: ${stderr.slice(-2000)}`);
    const summary = JSON.parse(stdout);
    if (summary.imported !== count) {
      throw new Error(`imported ${summary.imported} of ${count}: ${JSON.stringify(summary.failed.slice(0, 3))}`);
    }
    return { rate: count / seconds, rss: peak };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A generated Strava export of `count` 10-minute rides (gzipped FIT, stored as Strava does). */
async function generateArchive(path: string, count: number): Promise<Uint8Array[]> {
  const files: Uint8Array[] = [];
  const rows: CsvActivity[] = [];
  for (let i = 0; i < count; i++) {
    const start = new Date(Date.UTC(2020, 0, 1) + i * 6 * 3600 * 1000).toISOString();
    files.push(gzipSync(generateRide(600, start)));
    rows.push({
      id: String(10_000 + i),
      date: start,
      name: `Ride ${i}`,
      type: "Ride",
      elapsed: 600,
      km: 5,
      file: `activities/${10_000 + i}.fit.gz`,
    });
  }
  await writeZip(path, [
    { name: "activities.csv", bytes: Buffer.from(activitiesCsv(rows)) },
    ...files.map((bytes, i) => ({ name: rows[i].file!, bytes, store: true })),
  ]);
  return files;
}

export const importBench: BenchSuite = async (args) => {
  const count = Number(args.find((a) => a.startsWith("--import-activities="))?.split("=")[1] ?? 1000);
  const more = (args.find((a) => a.startsWith("--import-sizes="))?.split("=")[1] ?? "").split(",").filter(Boolean).map(
    Number,
  ).filter((n) => n !== count);
  const dir = mkdtempSync(join(tmpdir(), "bench-archive-"));
  try {
    console.error(`import: generating ${count} rides…`);
    const archive = join(dir, "export.zip");
    const files = await generateArchive(archive, count);

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
            athleteId,
            fileName: `${10_000 + i}.fit.gz`,
            bytes: files[i],
            dataType: "fit.gz",
            activityType: "Ride",
            name: `Ride ${i}`,
            description: null,
            visibility: "everyone",
            trainer: false,
            commute: false,
            externalId: null,
          }, systemActor("bench", athleteId));
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

    console.error(`import: upload pipeline ${baseline.rate.toFixed(2)}/s, peak RSS ${baseline.rss.toFixed(0)} MB`);
    console.error("import: npm run cli -- import-archive (its own process, as shipped)…");
    const ours = await cliImport(archive, count);
    console.error(
      `import: ${count} activities: ${ours.rate.toFixed(2)}/s, peak RSS ${ours.rss.toFixed(0)} MB (goal ≤ 500 MB)`,
    );

    const figures: BenchFigure[] = [
      {
        suite: "import",
        name: `archive import, ${count} activities`,
        ours: ours.rate,
        baseline: baseline.rate,
        baselineName: "upload pipeline (submitUpload until ready), same files",
        unit: "activities/s",
        higherIsBetter: true,
        target: "≥ 0.8× the upload pipeline",
      },
      {
        suite: "import",
        name: `peak RSS of the import-archive CLI process, ${count} activities`,
        ours: ours.rss,
        baseline: baseline.rss,
        baselineName: "server process during the upload-pipeline run",
        unit: "MB",
        higherIsBetter: false,
        target: "≤ 500 MB",
      },
    ];
    rmSync(archive, { force: true });
    for (const size of more) {
      console.error(`import: generating ${size} rides…`);
      const bigger = join(dir, `export-${size}.zip`);
      await generateArchive(bigger, size);
      console.error(`import: import-archive of ${size} activities…`);
      const run = await cliImport(bigger, size);
      console.error(
        `import: ${size} activities: ${run.rate.toFixed(2)}/s, peak RSS ${run.rss.toFixed(0)} MB (goal ≤ 500 MB)`,
      );
      rmSync(bigger, { force: true });
      figures.push({
        suite: "import",
        name: `peak RSS of the import-archive CLI process, ${size} activities`,
        ours: run.rss,
        baseline: ours.rss,
        baselineName: `the same, ${count} activities`,
        unit: "MB",
        higherIsBetter: false,
        target: "≤ 500 MB, not growing with the archive",
      }, {
        suite: "import",
        name: `archive import, ${size} activities`,
        ours: run.rate,
        baseline: ours.rate,
        baselineName: `the same, ${count} activities`,
        unit: "activities/s",
        higherIsBetter: true,
      });
    }
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
