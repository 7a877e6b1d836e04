/**
 * `deno run -A tests/bench/replay-verify.ts <N> [--postgres]`: `cli verify` (replay == live) on a
 * log of N events made by driving the API, before and after a replay (swap). On PGlite, a copy of
 * the cached log (tests/bench/api-log.ts); with --postgres, a log generated afresh into a new
 * database on TEST_DATABASE_URL (dropped at the end). Prints which projections the rebuild loaded in
 * bulk and every difference.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { apiLogCopy, buildApiLog } from "./api-log.ts";
import pg from "pg";

const events = Number(Deno.args[0]);
const postgres = Deno.args.includes("--postgres");
const log = (s: string) => console.error(s);
let databaseUrl: string | undefined;
let dataDir: string;
let cleanup: () => Promise<void> | void;
/** A new database on TEST_DATABASE_URL's server (tests/helpers/postgres.ts runs under vitest only). */
async function createDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = Deno.env.get("TEST_DATABASE_URL");
  if (!server) throw new Error("--postgres needs TEST_DATABASE_URL");
  const name = `verify_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

if (postgres) {
  const database = await createDatabase();
  const scratch = mkdtempSync(join(tmpdir(), "fitness-verify-"));
  databaseUrl = database.url;
  dataDir = join(scratch, "data");
  const started = performance.now();
  await buildApiLog(dataDir, events, log, databaseUrl);
  log(`generated on PostgreSQL in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  cleanup = async () => {
    await database.drop();
    rmSync(scratch, { recursive: true, force: true });
  };
} else {
  const copy = await apiLogCopy(events, log);
  dataDir = copy.dataDir;
  cleanup = copy.remove;
}
const platform = await openPlatform(
  configFromEnv({ dataDir, databaseUrl, quiet: true, runJobs: false, seedDemo: false }),
);
try {
  const { report, differences, tables } = await platform.projections.verify();
  console.log(
    `verify: ${report.events} events in ${
      report.seconds.toFixed(1)
    } s, ${tables} tables compared, ${differences.length} differences`,
    JSON.stringify(differences).slice(0, 3000),
  );
  console.log(`  loaded in bulk: ${report.bulk.join(", ")}; event by event: ${JSON.stringify(report.eventByEvent)}`);
  // And after a full replay (swap), verify again: live == rebuilt.
  await platform.projections.replay();
  const again = await platform.projections.verify();
  console.log(`after replay: ${again.tables} tables, ${again.differences.length} differences`);
} finally {
  await platform.close();
  await cleanup();
}
