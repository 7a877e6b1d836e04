import { closeSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/** Writes bytes to path through a temporary file, synced, renamed into place: never a half file. */
export function writeDurably(path: string, bytes: Uint8Array): void {
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
