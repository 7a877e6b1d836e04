/** `deno run -A tests/bench/replay-verify.ts <N>`: cli verify (replay == live) on a copy of the cached API-driven log of N events, before and after a replay. */
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { apiLogCopy } from "./api-log.ts";
const copy = await apiLogCopy(Number(Deno.args[0]), (s) => console.error(s));
const platform = await openPlatform(
  configFromEnv({ dataDir: copy.dataDir, databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
);
const { report, differences, tables } = await platform.projections.verify();
console.log(
  `verify: ${report.events} events, ${tables} tables compared, ${differences.length} differences`,
  JSON.stringify(differences).slice(0, 2000),
);
// And after a full replay (swap), verify again: live == rebuilt.
await platform.projections.replay();
const again = await platform.projections.verify();
console.log(`after replay: ${again.tables} tables, ${again.differences.length} differences`);
await platform.close();
copy.remove();
