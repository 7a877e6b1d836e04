/**
 * `npm run bench -- backup [--backup-gb=N] [--backup-dir=PATH]` (issue #43 item 5): `cli backup`,
 * `restore`, `export` and `import` of a data directory of N GB (default 1; the issue's figure is
 * 10) made of realistic recordings (tests/helpers/big-store.ts: ~1.6 MB of blobs per activity, kept
 * as files), each as `npm run cli` runs it (Deno, its own process). For each: wall time next to the
 * bare tools on the same bytes (GNU tar with gzip -1 for the backup and the restore, cp -r for the
 * export's blobs), and peak resident memory (the kernel's VmHWM) next to the same command on a
 * store of 50 activities in the same run — memory that does not grow with the data. Then the
 * restored store must answer the same: `cli verify` (every read model equal to a replay, every
 * blob there and hashing to its name), the same log (its export byte for byte), and the same API
 * answers for a sample of activities (detail, streams, the original file) from both stores.
 * --backup-dir keeps the generated store there (built when absent) for another run.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../server/app.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type BigStore, buildBigStore } from "../helpers/big-store.ts";
import { type MeasuredRun, runCliMeasured } from "../helpers/cli-measured.ts";
import type { BenchFigure, BenchSuite } from "./harness.ts";

const PER_ACTIVITY = 1.63e6;

function option(args: string[], name: string): string | undefined {
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

function bytesUnder(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((sum, e) => sum + statSync(join(e.parentPath, e.name)).size, 0);
}

async function sha(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Uint8Array);
  return hash.digest("hex");
}

function seconds(fn: () => void): number {
  const started = performance.now();
  fn();
  return (performance.now() - started) / 1000;
}

function check(run: MeasuredRun, what: string): MeasuredRun {
  if (run.code !== 0) throw new Error(`${what} failed (${run.code}): ${run.stderr}${run.stdout}`);
  return run;
}

/** The same requests to two stores, in process: the bodies that differ. */
async function sameAnswers(a: string, b: string, store: BigStore, sample: number): Promise<string[]> {
  const open = (dataDir: string) =>
    openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true, runJobs: false }));
  const [pa, pb] = [await open(a), await open(b)];
  try {
    const [appA, appB] = [createApp(pa).app, createApp(pb).app];
    const step = Math.max(1, Math.floor(store.activityIds.length / sample));
    const paths = ["/v3/athlete", "/v3/athlete/activities?per_page=200", `/v3/athletes/${store.athleteId}/stats`];
    for (let i = 0; i < store.activityIds.length; i += step) {
      const id = store.activityIds[i];
      paths.push(
        `/v3/activities/${id}`,
        `/v3/activities/${id}/streams?keys=time,latlng,altitude,heartrate,watts&key_by_type=true`,
        `/v3/activities/${id}/export_original`,
      );
    }
    const differ: string[] = [];
    for (const path of paths) {
      const init = { headers: { authorization: `Bearer ${store.token}` } };
      const [ra, rb] = [await appA.request(path, init), await appB.request(path, init)];
      const [ba, bb] = [new Uint8Array(await ra.arrayBuffer()), new Uint8Array(await rb.arrayBuffer())];
      if (ra.status !== 200 || ra.status !== rb.status || Buffer.compare(ba, bb) !== 0) {
        differ.push(`${path}: ${ra.status}/${rb.status}`);
      }
    }
    return differ.length ? differ : paths.length ? [] : ["no requests"];
  } finally {
    await pa.close();
    await pb.close();
  }
}

export const backupBench: BenchSuite = async (args) => {
  const gb = Number(option(args, "backup-gb") ?? 1);
  const kept = option(args, "backup-dir");
  const work = mkdtempSync(join(tmpdir(), "fitness-backup-bench-"));
  const figures: BenchFigure[] = [];
  const log = (line: string) => console.error(`backup: ${line}`);
  try {
    // The small store of the same run: the memory baseline.
    const small = join(work, "small");
    await buildBigStore(small, 50);
    const smallFile = join(work, "small.tar.gz");
    const smallRuns = {
      backup: check(await runCliMeasured(["backup", "--out", smallFile], { DATA_DIR: small }), "small backup"),
      restore: check(
        await runCliMeasured(["restore", smallFile], { DATA_DIR: join(work, "small-restored") }),
        "small restore",
      ),
      export: check(
        await runCliMeasured(["export", "--format", "ndjson", "--out", join(work, "small.ndjson")], {
          DATA_DIR: small,
        }),
        "small export",
      ),
      import: check(
        await runCliMeasured(["import", join(work, "small.ndjson")], { DATA_DIR: join(work, "small-in") }),
        "small import",
      ),
    };
    rmSync(small, { recursive: true, force: true });

    // The big one.
    const source = kept ?? join(work, "source");
    let store: BigStore;
    const meta = join(source, "..", `${source.split("/").pop()}.store.json`);
    if (kept && existsSync(join(source, "PG_VERSION")) && existsSync(meta)) {
      store = JSON.parse(readFileSync(meta, "utf8"));
      log(`using the store in ${source}`);
    } else {
      const activities = Math.ceil((gb * 1e9) / PER_ACTIVITY);
      const started = performance.now();
      store = await buildBigStore(source, activities, (n) => {
        if (n % 500 === 0) {
          log(`built ${n}/${activities} activities (${Math.round((performance.now() - started) / 1000)} s)`);
        }
      });
      writeFileSync(meta, JSON.stringify(store));
      log(`built ${activities} activities in ${Math.round((performance.now() - started) / 1000)} s`);
    }
    const size = bytesUnder(source);
    log(`data directory: ${(size / 1e9).toFixed(2)} GB, ${store.activityIds.length} activities`);
    const file = join(work, "big.tar.gz");
    const backup = check(await runCliMeasured(["backup", "--out", file, "--json"], { DATA_DIR: source }), "backup");
    const fileBytes = statSync(file).size;
    log(
      `backup: ${backup.seconds.toFixed(1)} s, peak ${Math.round(backup.peakMiB)} MiB, ${
        (fileBytes / 1e9).toFixed(2)
      } GB`,
    );
    // The bare tools on the same bytes, each output removed at once (a 10 GB run holds at most the
    // source, the backup file and one copy: ~25 GB of disk).
    const tarFile = join(work, "tar.tar.gz");
    const tarSeconds = seconds(() =>
      execFileSync("sh", ["-c", `tar -C '${source}' -cf - . | gzip -1 > '${tarFile}'`], { stdio: "ignore" })
    );
    rmSync(tarFile);
    const untarDir = join(work, "untar");
    mkdirSync(untarDir);
    const untarSeconds = seconds(() => execFileSync("tar", ["-C", untarDir, "-xzf", file], { stdio: "ignore" }));
    rmSync(untarDir, { recursive: true, force: true });
    const restored = join(work, "restored");
    const restore = check(await runCliMeasured(["restore", file, "--json"], { DATA_DIR: restored }), "restore");
    log(`restore: ${restore.seconds.toFixed(1)} s, peak ${Math.round(restore.peakMiB)} MiB`);
    rmSync(file);
    const verify = check(await runCliMeasured(["verify", "--json"], { DATA_DIR: restored }), "verify");
    const verified = JSON.parse(verify.stdout);
    const differ = await sameAnswers(source, restored, store, 50);
    // The restored store's log, to stdout (its blobs are checked by verify, not copied again).
    const logB = check(await runCliMeasured(["export", "--format", "ndjson"], { DATA_DIR: restored }), "export b");
    rmSync(restored, { recursive: true, force: true });
    const cpDir = join(work, "cp");
    const cpSeconds = seconds(() => execFileSync("cp", ["-r", join(source, "blobs"), cpDir], { stdio: "ignore" }));
    rmSync(cpDir, { recursive: true, force: true });
    const exportA = join(work, "a.ndjson");
    const exportRun = check(
      await runCliMeasured(["export", "--format", "ndjson", "--out", exportA], { DATA_DIR: source }),
      "export",
    );
    log(`export: ${exportRun.seconds.toFixed(1)} s, peak ${Math.round(exportRun.peakMiB)} MiB`);
    const sameLog = (await sha(exportA)) === createHash("sha256").update(logB.stdout).digest("hex");
    if (!kept) rmSync(source, { recursive: true, force: true });
    const imported = join(work, "imported");
    const importRun = check(await runCliMeasured(["import", exportA], { DATA_DIR: imported }), "import");
    log(`import: ${importRun.seconds.toFixed(1)} s, peak ${Math.round(importRun.peakMiB)} MiB`);
    rmSync(imported, { recursive: true, force: true });
    rmSync(`${exportA}.blobs`, { recursive: true, force: true });
    console.error(
      `backup: ${
        (size / 1e9).toFixed(2)
      } GB, ${store.activityIds.length} activities; restored store: verify ok=${verified.ok} (${verified.blobs.named} blobs, ${verified.tables} tables), same log ${sameLog}, API answers that differ: ${differ.length}${
        differ.length ? ` (${differ.slice(0, 5).join(", ")})` : ""
      }`,
    );
    if (!verified.ok || !sameLog || differ.length) throw new Error("the restored store does not answer the same");
    const label = `${(size / 1e9).toFixed(1)} GB`;
    const memory = (name: string, run: MeasuredRun, base: MeasuredRun) =>
      figures.push({
        suite: "backup",
        name: `${name} peak RSS, ${label}`,
        ours: Math.round(run.peakMiB),
        baseline: Math.round(base.peakMiB),
        baselineName: "the same command on 50 activities",
        unit: "MiB",
        higherIsBetter: false,
        target: "bounded: not growing with the data",
      });
    const time = (name: string, run: MeasuredRun, base: number, baseName: string) =>
      figures.push({
        suite: "backup",
        name: `${name} time, ${label}`,
        ours: Number(run.seconds.toFixed(1)),
        baseline: Number(base.toFixed(1)),
        baselineName: baseName,
        unit: "s",
        higherIsBetter: false,
      });
    memory("backup", backup, smallRuns.backup);
    time("backup", backup, tarSeconds, "tar | gzip -1");
    memory("restore", restore, smallRuns.restore);
    time("restore", restore, untarSeconds, "tar -xzf");
    memory("export", exportRun, smallRuns.export);
    time("export", exportRun, cpSeconds, "cp -r of the blobs");
    memory("import", importRun, smallRuns.import);
    figures.push({
      suite: "backup",
      name: `backup file, ${label}`,
      ours: Number((fileBytes / 1e9).toFixed(2)),
      unit: "GB",
      higherIsBetter: false,
    });
    return figures;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};
