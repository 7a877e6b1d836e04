import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * Removes group and other permission bits from everything under dir (not following links);
 * returns how many entries changed. PGlite creates its initial cluster files 0666 whatever the
 * umask, so the embedded database tightens its directory after opening it.
 */
export function makeTreePrivate(dir: string): number {
  let changed = 0;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = lstatSync(path);
    if (st.isSymbolicLink()) continue;
    if (st.mode & 0o077) {
      chmodSync(path, st.mode & 0o700);
      changed++;
    }
    if (st.isDirectory()) changed += makeTreePrivate(path);
  }
  return changed;
}
