import type { Hono } from "hono";
import { jsonResponse } from "../http/conventions.ts";
import type { Platform } from "../platform.ts";
import { readModelsCurrent } from "../open-platform.ts";

/** State the health endpoints report that is not in the database: set while shutting down. */
export interface Lifecycle {
  draining: boolean;
  /** Requests being handled now (the shutdown waits for them). */
  inFlight: number;
  /** What warming up at start (server/uploads/warm-up.ts) reports: "ok" once done (absent: nothing to warm). */
  warm?: string;
}

/** Resolves when no request is in flight, or after timeoutMs (then returns false). */
export async function drained(lifecycle: Lifecycle, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (lifecycle.inFlight > 0) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

async function check(fn: () => Promise<string>): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      fn(),
      new Promise<string>((_, reject) => {
        timer = setTimeout(() => reject(new Error("timed out after 5 s")), 5000);
      }),
    ]);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /health: the process answers (liveness; no database access).
 * GET /ready: it can serve traffic (readiness): the database answers, its schema is this version's
 * (migrations done), background jobs run (or are switched off with RUN_JOBS=0), what an upload needs
 * is warm (the segment index, a derive worker, the recording's statements), not shutting down.
 * 200 when every check is "ok", else 503 naming the failing checks.
 */
export function mountHealth(app: Hono, platform: Platform, lifecycle: Lifecycle): void {
  app.get("/health", (c) => jsonResponse(c, { status: "ok" }));
  app.get("/ready", async (c) => {
    const database = await check(async () => {
      await platform.db.query("select 1");
      return "ok";
    });
    const migrations = database !== "ok"
      ? "unknown"
      : await check(async () => (await readModelsCurrent(platform.db)) ? "ok" : "pending");
    const jobs = !platform.config.runJobs ? "ok (disabled by RUN_JOBS=0)" : platform.jobs.running ? "ok" : "stopped";
    const server = lifecycle.draining ? "shutting down" : "ok";
    const warm = lifecycle.warm ?? "ok";
    const checks = { database, migrations, jobs, server, warm };
    const ready = Object.values(checks).every((v) => v.startsWith("ok"));
    return jsonResponse(c, { status: ready ? "ready" : "not ready", checks }, ready ? 200 : 503);
  });
}
