import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomSecret } from "../security.ts";
import type { Platform } from "../platform.ts";

/** Where posted archives wait while they are imported: DATA_DIR/imports (kept across restarts, to resume). */
export function inboxDir(platform: Platform): string {
  const dir = platform.config.dataDir ? join(platform.config.dataDir, "imports") : join(tmpdir(), "fitness-imports");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A new file in the inbox for a posted archive (beside the data, not in memory). */
export function inboxPath(platform: Platform): string {
  return join(inboxDir(platform), `${randomSecret(12)}.zip`);
}
