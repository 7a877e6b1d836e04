import { createHash } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadPgliteDataDir } from "../../../events/db/pglite.ts";
import { ADMIN_FILE } from "../../admin.ts";
import { configFromEnv } from "../../config.ts";
import { openPlatform } from "../../platform.ts";
import { type CliCommand, CliUsageError, requireString } from "../command.ts";

/** Writes bytes to path through a temporary file, synced, renamed into place: never a half file. */
function writeDurably(path: string, bytes: Uint8Array): void {
  const partial = `${path}.partial`;
  const fd = openSync(partial, "w", 0o600);
  try {
    for (let offset = 0; offset < bytes.byteLength;) offset += writeSync(fd, bytes, offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, path);
  try {
    const dir = openSync(dirname(path), "r");
    fsyncSync(dir);
    closeSync(dir);
  } catch { /* some filesystems cannot sync a directory */ }
}

const backup: CliCommand = {
  name: "backup",
  summary: "Copy the embedded database (events, blobs, read models) into one file, also while the server runs.",
  options: {
    out: { type: "string", description: "the backup file to write (a .tar.gz; must not exist)", required: true, path: true },
  },
  async run(platform, o) {
    const out = requireString(o, "out");
    if (!platform.db.dumpDataDir) {
      throw new CliUsageError("backup copies the embedded database; with DATABASE_URL back up PostgreSQL with pg_dump (docs/operators.md)");
    }
    if (existsSync(out)) throw new CliUsageError(`${out} already exists: choose a new file name`);
    const started = performance.now();
    const bytes = await platform.db.dumpDataDir();
    writeDurably(out, bytes);
    return {
      ok: true,
      out,
      bytes: bytes.byteLength,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      seconds: Math.round(performance.now() - started) / 1000,
    };
  },
  format: (r) => {
    const x = r as { out: string; bytes: number; sha256: string; seconds: number };
    return `backup written to ${x.out} (${x.bytes} bytes, sha256 ${x.sha256}) in ${x.seconds} s\nrestore it with: DATA_DIR=<empty directory> npm run cli -- restore ${x.out}`;
  },
};

const restore: CliCommand = {
  name: "restore",
  summary: "Restore a backup file into DATA_DIR, which must be empty or absent (the server must not run on it).",
  options: {},
  positional: { name: "file", description: "the backup file written by `backup`", path: true },
  run() {
    throw new Error("restore runs standalone");
  },
  async standalone(o) {
    const file = requireString(o, "file");
    const config = configFromEnv({ quiet: true, runJobs: false, seedDemo: false });
    if (config.databaseUrl) throw new CliUsageError("restore fills an embedded data directory; unset DATABASE_URL (restore PostgreSQL with pg_restore)");
    if (!existsSync(file)) throw new CliUsageError(`${file} does not exist`);
    if (existsSync(config.dataDir) && readdirSync(config.dataDir).length > 0) {
      throw new CliUsageError(`DATA_DIR ${config.dataDir} is not empty: restore only into an empty or new directory`);
    }
    try {
      await loadPgliteDataDir(config.dataDir, new Uint8Array(readFileSync(file)));
    } catch (error) {
      rmSync(config.dataDir, { recursive: true, force: true });
      throw new Error(`${file} is not a backup this server can restore (${(error as Error).message})`);
    }
    // The copied handle names the server the backup was taken from: never talk to it from here.
    rmSync(join(config.dataDir, ADMIN_FILE), { force: true });
    const platform = await openPlatform(config);
    try {
      const [row] = await platform.db.query<{ n: number | bigint }>("select coalesce(max(global_position), 0) as n from public.events");
      return { ok: true, data_dir: config.dataDir, event_log_position: Number(row.n) };
    } finally {
      await platform.close();
    }
  },
  format: (r) => {
    const x = r as { data_dir: string; event_log_position: number };
    return `restored into ${x.data_dir}: the event log ends at position ${x.event_log_position}\ncheck it with: npm run cli -- verify`;
  },
};

/** Operating the server: backup and restore of the embedded database. */
export const operationsCommands: CliCommand[] = [backup, restore];
