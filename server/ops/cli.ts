import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lastPosition } from "../../events/log-queries.ts";
import { configFromEnv } from "../config.ts";
import { type Platform } from "../platform.ts";
import { openPlatform } from "../open-platform.ts";
import { copyPlatform, CopyTargetError } from "./store-copy.ts";
import { type BackupWritten, unpackBackup, writeBackupOf, writeBackupOfClosed } from "./backup-file.ts";
import { type CliCommand, CliUsageError, requireString } from "../cli/command.ts";

const backup: CliCommand = {
  name: "backup",
  summary:
    "Copy the platform (events, blobs, read models) into one file, also while the server runs; from PostgreSQL too (the file restores into either store).",
  options: {
    out: {
      type: "string",
      description: "the backup file to write (a .tar.gz; must not exist)",
      required: true,
      path: true,
    },
  },
  async run(platform, o) {
    const out = requireString(o, "out");
    if (existsSync(out)) throw new CliUsageError(`${out} already exists: choose a new file name`);
    const started = performance.now();
    const written = platform.db.whileQuiescent
      ? await writeBackupOf(platform.db.whileQuiescent, out)
      : await embeddedCopyOf(platform, out);
    return {
      ok: true,
      out,
      bytes: written.bytes,
      sha256: written.sha256,
      seconds: Math.round(performance.now() - started) / 1000,
      paused_ms: written.pauseMs,
    };
  },
  format: (r) => {
    const x = r as { out: string; bytes: number; sha256: string; seconds: number };
    return `backup written to ${x.out} (${x.bytes} bytes, sha256 ${x.sha256}) in ${x.seconds} s\nrestore it with: DATA_DIR=<empty directory> npm run cli -- restore ${x.out}`;
  },
};

/**
 * PostgreSQL → a backup file: the platform is copied (one snapshot) into an embedded store in a
 * temporary directory, which is then closed and packed like an embedded backup.
 */
async function embeddedCopyOf(platform: Platform, out: string): Promise<BackupWritten> {
  const dir = mkdtempSync(join(tmpdir(), "fitness-backup-"));
  try {
    const copy = await openPlatform(
      configFromEnv({ quiet: true, runJobs: false, seedDemo: false, databaseUrl: undefined, dataDir: dir }),
    );
    try {
      await copyPlatform(platform, copy);
    } finally {
      await copy.close();
    }
    return await writeBackupOfClosed(dir, out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The warning a restore of a backup without events carries (in --json too). */
function emptyWarning(position: number): { warning?: string } {
  return position === 0 ? { warning: "the backup holds no events (an empty platform)" } : {};
}

/** Unpacks a backup file into an empty directory (dropping the copied admin handle). */
async function unpack(file: string, dataDir: string): Promise<void> {
  try {
    await unpackBackup(file, dataDir);
  } catch (error) {
    throw new CliUsageError(`${file} is not a backup this server can restore (${(error as Error).message})`);
  }
}

const restore: CliCommand = {
  name: "restore",
  summary:
    "Restore a backup file into DATA_DIR (empty or absent), or with DATABASE_URL into an empty PostgreSQL database (events, every blob, read models).",
  options: {},
  positional: { name: "file", description: "the backup file written by `backup`", path: true },
  run() {
    throw new Error("restore runs standalone");
  },
  async standalone(o) {
    const file = requireString(o, "file");
    const config = configFromEnv({ quiet: true, runJobs: false, seedDemo: false });
    if (!existsSync(file)) throw new CliUsageError(`${file} does not exist`);
    if (config.databaseUrl) return await restoreIntoPostgres(file, config);
    if (existsSync(config.dataDir) && readdirSync(config.dataDir).length > 0) {
      throw new CliUsageError(`DATA_DIR ${config.dataDir} is not empty: restore only into an empty or new directory`);
    }
    await unpack(file, config.dataDir);
    const platform = await openPlatform(config);
    try {
      const position = await lastPosition(platform.db);
      return { ok: true, data_dir: config.dataDir, event_log_position: position, ...emptyWarning(position) };
    } finally {
      await platform.close();
    }
  },
  format: (r) => {
    const x = r as {
      data_dir?: string;
      database?: string;
      event_log_position: number;
      blobs?: number;
      blob_bytes?: number;
      seconds?: number;
    };
    // A backup of a platform without events is most likely one of the wrong directory (issue #41).
    const empty = x.event_log_position === 0
      ? "\nwarning: the backup holds no events (an empty platform): was it taken of the right DATA_DIR or database?"
      : "";
    if (x.database) {
      return `restored into ${x.database}: the event log ends at position ${x.event_log_position}, ${x.blobs} blobs (${x.blob_bytes} bytes), read models replayed, in ${x.seconds} s${empty}\ncheck it with: DATABASE_URL=… npm run cli -- verify`;
    }
    return `restored into ${x.data_dir}: the event log ends at position ${x.event_log_position}${empty}\ncheck it with: npm run cli -- verify`;
  },
};

/**
 * A backup file → an empty PostgreSQL database: the file is unpacked into a temporary directory,
 * opened as an embedded store and copied (events, blobs, ids, sessions, webhook state) in one
 * transaction; the read models are replayed there.
 */
async function restoreIntoPostgres(file: string, config: ReturnType<typeof configFromEnv>) {
  const dir = mkdtempSync(join(tmpdir(), "fitness-restore-"));
  try {
    await unpack(file, dir);
    const source = await openPlatform({ ...config, databaseUrl: undefined, dataDir: dir });
    try {
      const target = await openPlatform(config);
      try {
        const report = await copyPlatform(source, target);
        return {
          ok: true,
          database: new URL(config.databaseUrl!).pathname.slice(1) || "postgres",
          event_log_position: report.lastPosition,
          ...emptyWarning(report.lastPosition),
          events: report.events,
          blobs: report.blobs,
          blob_bytes: report.blobBytes,
          seconds: report.seconds,
        };
      } catch (error) {
        if (error instanceof CopyTargetError) {
          throw new CliUsageError(`DATABASE_URL: ${error.message} (restore only into an empty database)`);
        }
        throw error;
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Operating the server: backup and restore of the embedded database. */
export const operationsCommands: CliCommand[] = [backup, restore];
