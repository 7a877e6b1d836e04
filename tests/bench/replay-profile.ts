/**
 * Where a replay of the cached API-driven log spends its time: wall time per projection (apply and
 * applyBatch), in reading the log, and in commits (WAL syncs), over one `ProjectionRunner.replay`.
 * `deno run -A tests/bench/replay-profile.ts [--events=N]` (the cache of `npm run bench -- replay`),
 * or under Node for a CPU profile:
 * `node --cpu-prof --cpu-prof-dir=/tmp/prof node_modules/.bin/vite-node tests/bench/replay-profile.ts -- --events=N`.
 */
import process from "node:process";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { apiLogCopy } from "./api-log.ts";
import { eventCount } from "./event-log.ts";

const target = eventCount(process.argv.slice(2), 100_000);
const copy = await apiLogCopy(target, (s) => console.error(s));
const platform = await openPlatform(
  configFromEnv({ dataDir: copy.dataDir, databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
);
const spent = new Map<string, { ms: number; calls: number; events: number }>();
const add = (key: string, ms: number, events: number) => {
  const s = spent.get(key) ?? { ms: 0, calls: 0, events: 0 };
  s.ms += ms;
  s.calls++;
  s.events += events;
  spent.set(key, s);
};
for (const p of platform.projections.projections) {
  const apply = p.apply.bind(p);
  (p as { apply: typeof p.apply }).apply = async (tx, event, rebuilding) => {
    const t = performance.now();
    try {
      return await apply(tx, event, rebuilding);
    } finally {
      add(`${p.name}.apply ${event.type}`, performance.now() - t, 1);
    }
  };
  if (p.applyBatch) {
    const batch = p.applyBatch.bind(p);
    (p as { applyBatch: typeof batch }).applyBatch = async (tx, events, rebuilding) => {
      const t = performance.now();
      try {
        return await batch(tx, events, rebuilding);
      } finally {
        add(`${p.name}.applyBatch`, performance.now() - t, events.length);
      }
    };
  }
}
const store = platform.store;
const readAll = store.readAll.bind(store);
(store as { readAll: typeof readAll }).readAll = async (...args: Parameters<typeof readAll>) => {
  const t = performance.now();
  const events = await readAll(...args);
  add("store.readAll", performance.now() - t, events.length);
  return events;
};
const db = platform.db;
const transaction = db.transaction.bind(db);
(db as { transaction: typeof transaction }).transaction = async (fn, options) => {
  let inside = 0;
  const t = performance.now();
  // The caller's options pass through (a rebuild's batches defer their WAL sync).
  const result = await transaction(async (tx) => {
    // Every statement timed too, keyed by its first words (the statement-level profile).
    const timed = Object.create(tx) as typeof tx;
    timed.query = (async (sql: string, params?: unknown[]) => {
      const t = performance.now();
      try {
        return await tx.query(sql, params);
      } finally {
        add(`  sql: ${sql.replace(/\s+/g, " ").trim().slice(0, 70)}`, performance.now() - t, 1);
      }
    }) as typeof tx.query;
    const r = await fn(timed);
    inside = performance.now();
    return r;
  }, options);
  add("commit (+ WAL sync)", performance.now() - inside, 0);
  add("transaction total", performance.now() - t, 0);
  return result;
};
const cpu0 = process.cpuUsage();
const report = await platform.projections.replay();
const cpu = process.cpuUsage(cpu0);
console.log(
  `replay: ${report.events} events in ${report.seconds.toFixed(2)} s = ${
    Math.round(report.eventsPerSecond)
  } events/s; process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s; WAL syncs ${JSON.stringify(db.walSyncs)}`,
);
const rows = [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, 45);
for (const [key, s] of rows) {
  const per = key.startsWith("  sql:")
    ? `${(s.ms / s.calls).toFixed(3)} ms/statement`
    : `${(s.ms / Math.max(1, s.events)).toFixed(3)} ms/event`;
  console.log(
    `${key.padEnd(80)} ${s.ms.toFixed(0).padStart(8)} ms ${String(s.calls).padStart(7)} calls ${
      String(s.events).padStart(7)
    } events  ${per}`,
  );
}
await platform.close();
copy.remove();
