import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { copyFile, link, mkdir, readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import process from "node:process";
import { ADMIN_FILE } from "../data-dir.ts";
import { syncFolder } from "./durable-file.ts";
import { packDirectory, unpackTarGz } from "./tar.ts";

/**
 * A backup file of an embedded store, written and read as streams (issue #43 item 5): the data
 * directory as a gzipped tar, memory a few buffers whatever its size (the earlier backup built the
 * whole tar in memory: 1.8 GB for a 114 MB file).
 *
 * The copy is taken in two steps. While the database is quiescent (after a checkpoint, holding its
 * lock, so no write happens): the database's own files are copied into a staging directory inside
 * the data directory, and the blob files (immutable, content-addressed) and spooled imports are
 * hard-linked there — a pause of about the database's own size to copy, not the blobs'. Then the
 * staging directory is packed, while the server goes on; a blob deleted meanwhile (an erasure) is
 * still linked from the staging copy, so the backup is the state of that one moment.
 */

/** Staging directories of backups in progress (and of one a crash cut short) inside DATA_DIR. */
const STAGING = "backup-staging-";
/** A staging directory left this long ago is a crashed backup's: removed by the next backup. */
const STALE_MS = 24 * 3600_000;

/** What a backup leaves out: the running server's admin handle, other backups' staging, blob temp files. */
export function notBackedUp(relative: string): boolean {
  return relative === ADMIN_FILE || relative.startsWith(STAGING) || relative === "blobs/tmp" ||
    relative.startsWith("blobs/tmp/");
}

/** Files that never change once written: linked into the staging copy instead of copied. */
const linkable = (relative: string) => relative.startsWith("blobs/") || relative.startsWith("imports/");

async function snapshot(source: string, target: string, at = ""): Promise<{ copied: number; linked: number }> {
  let copied = 0, linked = 0;
  for (const entry of await readdir(join(source, at), { withFileTypes: true })) {
    const relative = at ? `${at}/${entry.name}` : entry.name;
    if (notBackedUp(relative)) continue;
    if (entry.isDirectory()) {
      await mkdir(join(target, relative), { mode: 0o700 });
      const inner = await snapshot(source, target, relative);
      copied += inner.copied;
      linked += inner.linked;
    } else if (entry.isFile()) {
      if (linkable(relative)) {
        try {
          await link(join(source, relative), join(target, relative));
          linked++;
          continue;
        } catch {
          // another file system or no link support: copied below
        }
      }
      await copyFile(join(source, relative), join(target, relative));
      copied++;
    }
  }
  return { copied, linked };
}

function removeStaleStaging(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (!name.startsWith(STAGING)) continue;
    const path = join(dataDir, name);
    if (Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
  }
}

export interface BackupWritten {
  bytes: number;
  sha256: string;
  /** How long the database was held (ms) while its files were copied. */
  pauseMs: number;
}

function syncFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `out` (which must not exist): through `out.partial`, synced and renamed, so there is never
 * half a backup under its name. `whileQuiescent` is the embedded database's (events/db/pglite.ts).
 */
export async function writeBackupOf(
  whileQuiescent: <T>(fn: (dataDir: string) => Promise<T>) => Promise<T>,
  out: string,
): Promise<BackupWritten> {
  const partial = `${out}.partial`;
  let staging = "";
  try {
    const pauseMs = await whileQuiescent(async (dataDir) => {
      removeStaleStaging(dataDir);
      staging = join(
        dataDir,
        `${STAGING}${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`,
      );
      const started = performance.now();
      mkdirSync(staging, { mode: 0o700 });
      await snapshot(dataDir, staging);
      return performance.now() - started;
    });
    rmSync(partial, { force: true });
    const written = await packDirectory(staging, partial);
    syncFile(partial);
    renameSync(partial, out);
    syncFolder(dirname(out));
    return { ...written, pauseMs: Math.round(pauseMs) };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    if (staging) rmSync(staging, { recursive: true, force: true });
  }
}

/** Packs a data directory no process uses (a closed temporary store) into `out`, as writeBackupOf does. */
export async function writeBackupOfClosed(dataDir: string, out: string): Promise<BackupWritten> {
  const partial = `${out}.partial`;
  try {
    rmSync(partial, { force: true });
    const written = await packDirectory(dataDir, partial, notBackedUp);
    syncFile(partial);
    renameSync(partial, out);
    syncFolder(dirname(out));
    return { ...written, pauseMs: 0 };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * Unpacks a backup file into `dataDir` (absent or empty), leaving out an admin handle it may carry
 * (it names the server the backup was taken from). Refuses, removing what it wrote, a file that is
 * not a whole backup.
 */
export async function unpackBackup(file: string, dataDir: string): Promise<{ files: number; bytes: number }> {
  const existed = existsSync(dataDir);
  try {
    return await unpackTarGz(file, dataDir, notBackedUp);
  } catch (error) {
    if (existed) {
      for (const name of readdirSync(dataDir)) rmSync(join(dataDir, name), { recursive: true, force: true });
    } else rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
