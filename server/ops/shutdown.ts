import process from "node:process";
import type { RunningServer } from "../start.ts";

/**
 * Runs the server until SIGTERM or SIGINT, then shuts it down gracefully: stop accepting
 * connections, let in-flight requests finish, let jobs finish their current run and release their
 * leases, close the database cleanly, exit 0. A second signal exits at once (code 1).
 */
export function runUntilSignalled(server: RunningServer): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      console.error(`${signal} again: exiting without finishing the shutdown`);
      process.exit(1);
    }
    stopping = true;
    if (!server.platform.config.quiet) {
      console.error(`${signal}: shutting down (finishing requests in flight and the current job step)…`);
    }
    try {
      await server.close();
    } catch (error) {
      console.error(`shutdown: ${(error as Error).message}`);
      process.exit(1);
    }
    if (!server.platform.config.quiet) console.error("stopped cleanly");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}
