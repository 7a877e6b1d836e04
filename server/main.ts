/** The production entry point: `npm start` runs this on Deno. */
import process from "node:process";
import { configFromEnv } from "./config.ts";
import { DataDirError, usePrivateUmask } from "./data-dir.ts";
import { startServer } from "./start.ts";

usePrivateUmask();
try {
  const server = await startServer(configFromEnv());
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (error) {
  console.error(`could not start: ${(error as Error).message}`);
  process.exit(error instanceof DataDirError ? 2 : 1);
}
