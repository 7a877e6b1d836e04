import { closeSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/** Writes bytes to path through a temporary file, synced and renamed into place: never a half file. */
export function writeSynced(path: string, bytes: Uint8Array): void {
  const partial = `${path}.partial`;
  const fd = openSync(partial, "w", 0o600);
  try {
    for (let offset = 0; offset < bytes.byteLength;) offset += writeSync(fd, bytes, offset);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, path);
}

/** Syncs a folder, so the names just renamed into it survive a crash. */
export function syncFolder(dir: string): void {
  const folder = openSync(dir, "r");
  try {
    fsyncSync(folder);
  } catch {
    /* some filesystems cannot sync a directory */
  } finally {
    closeSync(folder);
  }
}

/** writeSynced, then its folder synced too (one file of its own). */
export function writeDurably(path: string, bytes: Uint8Array): void {
  writeSynced(path, bytes);
  syncFolder(dirname(path));
}
