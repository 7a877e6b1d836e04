import { ADMIN_FILE } from "./data-dir.ts";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { Hono } from "hono";
import { dispatch } from "./cli/dispatch.ts";
import type { Platform } from "./platform.ts";
import { constantTimeEqual, randomSecret } from "./security.ts";
import { listen, type Listening } from "./serve.ts";
import { securityHeaders } from "./http/security-headers.ts";

/** What a running server writes into DATA_DIR so the CLI can reach it (file mode 0600). */
export interface AdminHandle {
  pid: number;
  port: number;
  apiPort: number;
  secret: string;
}

export function readAdminHandle(dataDir: string): AdminHandle | undefined {
  const file = join(dataDir, ADMIN_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as AdminHandle;
  } catch {
    return undefined;
  }
}

/** Is a server answering on the admin endpoint of this handle? */
export async function adminAlive(handle: AdminHandle): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${handle.port}/ping`, {
      headers: { authorization: `Bearer ${handle.secret}` },
      signal: AbortSignal.timeout(2000),
    });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * The admin endpoint: bound to 127.0.0.1 only, authenticated by a random secret written into
 * DATA_DIR, it runs CLI commands inside the server (PGlite allows one process per directory).
 */
export async function startAdmin(
  platform: Platform,
  apiPort: number,
): Promise<{ listening: Listening; handle: AdminHandle; remove(): void }> {
  const secret = randomSecret(32);
  const app = new Hono();
  // The same security headers as the API's (server/http/security-headers.ts), on every answer.
  app.use("*", securityHeaders());
  app.use("*", async (c, next) => {
    const header = c.req.header("authorization") ?? "";
    if (!constantTimeEqual(header, `Bearer ${secret}`)) return c.json({ message: "Authorization Error" }, 401);
    await next();
  });
  app.get("/ping", (c) => c.json({ ok: true }));
  app.post("/cli", async (c) => {
    const { argv } = await c.req.json<{ argv: string[] }>();
    let progress = "";
    const outcome = await dispatch(argv, (fn) => fn(platform), {
      interactive: false,
      progress: (text) => {
        progress += text;
      },
    });
    return c.json({ ...outcome, stderr: progress + outcome.stderr });
  });
  const listening = await listen(app.fetch, { port: 0, hostname: "127.0.0.1" });
  const handle: AdminHandle = { pid: process.pid, port: listening.port, apiPort, secret };
  const file = join(platform.config.dataDir, ADMIN_FILE);
  if (!platform.config.databaseUrl) writeFileSync(file, JSON.stringify(handle), { mode: 0o600 });
  return {
    listening,
    handle,
    remove() {
      try {
        const current = readAdminHandle(platform.config.dataDir);
        if (current?.secret === secret) rmSync(file);
      } catch { /* already gone */ }
    },
  };
}
