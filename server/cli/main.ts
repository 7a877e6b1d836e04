/** The admin CLI: `npm run cli -- <command>` (deno task cli). */
import process from "node:process";
import { adminAlive, readAdminHandle } from "../admin.ts";
import { ConfigError, configFromEnv } from "../config.ts";
import { prepareDataDir, usePrivateUmask } from "../data-dir.ts";
import { type Platform } from "../platform.ts";
import { openPlatform } from "../open-platform.ts";
import { dispatch, findCommand, withAbsolutePaths } from "./dispatch.ts";
import { requireStore } from "./store.ts";

usePrivateUmask();
const argv = process.argv.slice(2);
let config: ReturnType<typeof configFromEnv>;
try {
  config = configFromEnv({ quiet: true, runJobs: false, seedDemo: false });
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`configuration error: ${error.message}`);
  process.exit(2);
}

async function main(): Promise<number> {
  const { command } = findCommand(argv);
  if (command?.smallDatabaseCache) config.pgliteSharedBuffers ??= "32MB";
  const wantsHelp = !command || argv.includes("--help");
  const local = wantsHelp || !!command?.standalone;
  const handle = config.databaseUrl || local ? undefined : readAdminHandle(config.dataDir);
  if (handle && await adminAlive(handle)) {
    // The server holds the embedded database: run the command inside it.
    const res = await fetch(`http://127.0.0.1:${handle.port}/cli`, {
      method: "POST",
      headers: { authorization: `Bearer ${handle.secret}`, "content-type": "application/json" },
      body: JSON.stringify({ argv: withAbsolutePaths(argv, process.cwd()) }),
    });
    const outcome = await res.json() as { exitCode: number; stdout: string; stderr: string };
    if (outcome.stderr) process.stderr.write(outcome.stderr.endsWith("\n") ? outcome.stderr : `${outcome.stderr}\n`);
    if (outcome.stdout) process.stdout.write(`${outcome.stdout}\n`);
    return outcome.exitCode;
  }
  let platform: Platform | undefined;
  try {
    const outcome = await dispatch(
      argv,
      async (fn) => {
        // A command that reads a store never creates one where there is none (a mistyped DATA_DIR).
        if (!command?.createsStore) await requireStore(config);
        if (!config.databaseUrl) prepareDataDir(config.dataDir);
        platform = await openPlatform(config);
        return fn(platform);
      },
      {
        interactive: !!process.stderr.isTTY,
        progressFd: 2,
        progress: (t) => process.stderr.write(t),
        write: (chunk) =>
          new Promise<void>((done) =>
            process.stdout.write(chunk) ? done() : process.stdout.once("drain", () => done())
          ),
      },
    );
    if (outcome.stderr) process.stderr.write(`${outcome.stderr}\n`);
    if (outcome.stdout) process.stdout.write(`${outcome.stdout}\n`);
    return outcome.exitCode;
  } finally {
    await (platform as Platform | undefined)?.close();
  }
}

process.exitCode = await main();
