/** The production entry point: `npm start` runs this on Deno. */
import process from "node:process";
import { ConfigError, configFromEnv, settingsHelp } from "./config.ts";
import { DataDirError, usePrivateUmask } from "./data-dir.ts";
import { runUntilSignalled } from "./ops/shutdown.ts";
import { startServer } from "./start.ts";

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  console.log(settingsHelp());
  process.exit(0);
}

usePrivateUmask();
try {
  const server = await startServer(configFromEnv());
  runUntilSignalled(server);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message} (npm start -- --help lists every setting)`);
    process.exit(2);
  }
  console.error(`could not start: ${(error as Error).message}`);
  process.exit(error instanceof DataDirError ? 2 : 1);
}
