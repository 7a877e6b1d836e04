import process from "node:process";
import { adminAlive, type AdminHandle, readAdminHandle, startAdmin } from "./admin.ts";
import { createApp } from "./app.ts";
import { drained } from "./ops/health.ts";
import { stallLine, watchLoopStalls } from "./ops/loop-stalls.ts";
import { prepareDataDir } from "./data-dir.ts";
import type { Config } from "./config.ts";
import { jobKinds } from "./job-kinds.ts";
import { type Platform } from "./platform.ts";
import { openPlatform } from "./open-platform.ts";
import { demoBanner, seedDemo } from "./seed/index.ts";
import { listen } from "./serve.ts";
import { withApiHost } from "./http/api-host.ts";
import { warmUploads } from "./uploads/warm-up.ts";

export interface RunningServer {
  platform: Platform;
  port: number;
  url: string;
  admin: AdminHandle;
  close(): Promise<void>;
}

/** Starts the platform: database, jobs, API on a port, admin endpoint on loopback. */
export async function startServer(config: Config): Promise<RunningServer> {
  if (!config.databaseUrl) {
    prepareDataDir(config.dataDir);
    const other = readAdminHandle(config.dataDir);
    if (other && other.pid !== process.pid && await adminAlive(other)) {
      throw new Error(`another server (pid ${other.pid}, port ${other.apiPort}) holds ${config.dataDir}`);
    }
  }
  const platform = await openPlatform(config);
  try {
    for (const make of jobKinds) platform.jobs.register(make(platform));
    const demo = config.seedDemo ? await seedDemo(platform) : undefined;
    const { app, lifecycle } = createApp(platform);
    const api = await listen(withApiHost(app.fetch, config.publicApiUrl), { port: config.port });
    const url = `http://localhost:${api.port}`;
    if (config.port === 0) platform.config.publicUrl = url;
    const admin = await startAdmin(platform, api.port);
    if (config.runJobs) {
      platform.jobs.start();
      // The first upload finds the segment index, a derive worker and the recording's statements
      // warm: /ready answers 503 ("warm": "warming") until then.
      lifecycle.warm = "warming";
      warmUploads(platform).then(
        () => (lifecycle.warm = "ok"),
        (error) => {
          lifecycle.warm = "ok (warm-up failed: the first upload warms up)";
          if (!lifecycle.draining) console.error(`warm-up: ${error instanceof Error ? error.message : String(error)}`);
        },
      );
    }
    const stopWatching = config.loopStallMs
      ? watchLoopStalls(config.loopStallMs, (stall) => console.error(stallLine(config.logFormat ?? "text", stall)))
      : () => {};
    if (!config.quiet) {
      console.log(
        `Fitness platform API listening on ${url} (${
          config.databaseUrl ? "PostgreSQL" : `PGlite in ${config.dataDir}`
        })`,
      );
      if (demo) console.log(demoBanner(demo, url));
    }
    let closed = false;
    return {
      platform,
      port: api.port,
      url,
      admin: admin.handle,
      async close() {
        if (closed) return;
        closed = true;
        // Graceful: new requests get 503 (and /ready says so), requests in flight finish (up to
        // 30 s), then the listener closes, jobs finish their current run and release their leases,
        // and the database closes.
        lifecycle.draining = true;
        stopWatching();
        if (!(await drained(lifecycle, 30_000))) {
          console.error("shutdown: requests still in flight after 30 s; closing anyway");
        }
        await api.close().catch(() => {});
        await admin.listening.close().catch(() => {});
        admin.remove();
        await platform.close();
      },
    };
  } catch (error) {
    await platform.close().catch(() => {});
    throw error;
  }
}
