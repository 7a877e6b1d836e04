import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomSecret } from "../security.ts";
import type { Platform } from "../platform.ts";

/** Where a posted archive is written while it is imported (beside the data, not in memory). */
export function inboxPath(platform: Platform): string {
  const dir = platform.config.dataDir ? join(platform.config.dataDir, "imports") : join(tmpdir(), "fitness-imports");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, `${randomSecret(12)}.zip`);
}
