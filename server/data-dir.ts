import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import process from "node:process";
import { makeTreePrivate } from "../events/db/private-files.ts";

/** The data directory cannot be used safely: the server refuses to start (exit code 2). */
export class DataDirError extends Error {}

/** Group and other may not even read what the platform writes (token hashes, the event log). */
export const PRIVATE_UMASK = 0o077;

/**
 * Every file and directory this process creates from now on is private to its user: the files
 * PGlite adds (WAL segments, relations), the admin handle, time-travel directories, CLI exports.
 * (PGlite's initial cluster files ignore the umask; openPglite tightens those.)
 */
export function usePrivateUmask(): void {
  process.umask(PRIVATE_UMASK);
}

/**
 * Prepares DATA_DIR for embedded PGlite: created 0700 when new. An existing directory writable by
 * group or others is refused (someone else could rewrite the event log); one merely readable by
 * them (made by an older version) is tightened to 0700 with its files.
 */
export function prepareDataDir(dir: string): void {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    return;
  }
  const st = statSync(dir);
  if (!st.isDirectory()) throw new DataDirError(`DATA_DIR ${dir} is not a directory`);
  if (st.mode & 0o022) {
    const mode = (st.mode & 0o777).toString(8).padStart(3, "0");
    throw new DataDirError(
      `DATA_DIR ${dir} is writable by group or others (mode ${mode}); make it private with: chmod 700 ${dir}`,
    );
  }
  if (st.uid !== undefined && typeof process.getuid === "function" && st.uid !== process.getuid()) {
    throw new DataDirError(`DATA_DIR ${dir} belongs to another user (uid ${st.uid}); run the server as its owner`);
  }
  if (st.mode & 0o077) chmodSync(dir, 0o700);
  makeTreePrivate(dir);
}

/** The file in the data directory where a running server tells the CLI how to reach its admin endpoint. */
export const ADMIN_FILE = "admin.json";
