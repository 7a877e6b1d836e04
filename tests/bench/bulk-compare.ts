/**
 * `deno run -A tests/bench/bulk-compare.ts <N>`: on a copy of the cached API-driven log of N events
 * (tests/bench/api-log.ts), rebuilds every read model event by event and with the bulk loaders
 * (projections/bulk.ts) into two scratch schemas, prints both times and every table that differs.
 */
import { ProjectionRunner } from "../../projections/runner.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { apiLogCopy } from "./api-log.ts";

const copy = await apiLogCopy(Number(Deno.args[0] ?? 10000), (s) => console.error(s));
const platform = await openPlatform(
  configFromEnv({ dataDir: copy.dataDir, databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
);
try {
  const bulk = platform.projections;
  const byEvent = new ProjectionRunner(platform.db, platform.store, bulk.projections, { bulk: false });
  const one = await byEvent.rebuild("cmp_by_event");
  console.log(`event by event: ${one.events} events in ${one.seconds.toFixed(2)} s`);
  const two = await bulk.rebuild("cmp_bulk");
  console.log(`bulk: ${two.events} events in ${two.seconds.toFixed(2)} s; bulk: ${two.bulk.join(", ")}`);
  console.log(`event by event: ${JSON.stringify(two.eventByEvent)}`);
  const { differences, tables } = await bulk.compare("cmp_by_event", "cmp_bulk");
  console.log(`${tables} tables, ${differences.length} differ`);
  for (const d of differences) console.log(JSON.stringify(d).slice(0, 1500));
} finally {
  await platform.close();
  copy.remove();
}
