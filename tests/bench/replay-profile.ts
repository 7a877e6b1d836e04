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
/** `EXPLAIN=1`: print each bulk statement's measured plan (run in a savepoint, undone, then run). */
const EXPLAIN = process.env.EXPLAIN === "1";
const copy = await apiLogCopy(target, (s) => console.error(s));
const platform = await openPlatform(
  configFromEnv({ dataDir: copy.dataDir, databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
);
const spent = new Map<string, { ms: number; cpu: number; calls: number; events: number }>();
/** CPU time of the process (ms) since `since` (PGlite runs on this thread: its work counts here). */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const add = (key: string, ms: number, events: number, cpu = 0) => {
  const s = spent.get(key) ?? { ms: 0, cpu: 0, calls: 0, events: 0 };
  s.cpu += cpu;
  s.ms += ms;
  s.calls++;
  s.events += events;
  spent.set(key, s);
};
for (const p of platform.projections.projections) {
  const apply = p.apply.bind(p);
  (p as { apply: typeof p.apply }).apply = async (tx, event, rebuilding) => {
    const t = performance.now();
    const c = cpuMs();
    try {
      return await apply(tx, event, rebuilding);
    } finally {
      add(`${p.name}.apply ${event.type}`, performance.now() - t, 1, cpuMs() - c);
    }
  };
  if (p.finishRebuild) {
    const finish = p.finishRebuild.bind(p);
    (p as { finishRebuild: typeof finish }).finishRebuild = async (tx) => {
      const t = performance.now();
      const c = cpuMs();
      try {
        return await finish(tx);
      } finally {
        add(`${p.name}.finishRebuild`, performance.now() - t, 0, cpuMs() - c);
      }
    };
  }
  if (p.bulk) {
    const bulk = p.bulk;
    (p as { bulk: typeof bulk }).bulk = {
      writtenFor: bulk.writtenFor,
      fits: bulk.fits && (async (tx, log) => {
        const t = performance.now();
        const c = cpuMs();
        try {
          return await bulk.fits!(tx, log);
        } finally {
          add(`${p.name}.bulk.fits`, performance.now() - t, 0, cpuMs() - c);
        }
      }),
      load: async (tx, log) => {
        const t = performance.now();
        const c = cpuMs();
        try {
          return await bulk.load(tx, log);
        } finally {
          add(`${p.name}.bulk.load`, performance.now() - t, 0, cpuMs() - c);
        }
      },
    };
  }
  if (p.applyBatch) {
    const batch = p.applyBatch.bind(p);
    (p as { applyBatch: typeof batch }).applyBatch = async (tx, events, rebuilding) => {
      const t = performance.now();
      const c = cpuMs();
      try {
        return await batch(tx, events, rebuilding);
      } finally {
        add(`${p.name}.applyBatch`, performance.now() - t, events.length, cpuMs() - c);
      }
    };
  }
}
const store = platform.store;
const readAll = store.readAll.bind(store);
(store as { readAll: typeof readAll }).readAll = async (...args: Parameters<typeof readAll>) => {
  const t = performance.now();
  const c = cpuMs();
  const events = await readAll(...args);
  add("store.readAll", performance.now() - t, events.length, cpuMs() - c);
  return events;
};
const db = platform.db;
// Statements outside transactions (the rebuild's log reads, counts, ANALYZE) by their first words.
for (const method of ["query", "exec"] as const) {
  const run = db[method].bind(db) as (sql: string, params?: unknown[]) => Promise<unknown>;
  (db as unknown as Record<string, unknown>)[method] = async (sql: string, params?: unknown[]) => {
    const t = performance.now();
    const c = cpuMs();
    try {
      return await run(sql, params);
    } finally {
      add(`  ${method}: ${sql.replace(/\s+/g, " ").trim().slice(0, 68)}`, performance.now() - t, 1, cpuMs() - c);
    }
  };
}
const transaction = db.transaction.bind(db);
(db as { transaction: typeof transaction }).transaction = async (fn, options) => {
  let inside = 0;
  let first = "";
  const t = performance.now();
  const c = cpuMs();
  // The caller's options pass through (a rebuild's batches defer their WAL sync).
  const result = await transaction(async (tx) => {
    // Every statement timed too, keyed by its first words (the statement-level profile).
    const timed = Object.create(tx) as typeof tx;
    timed.query = (async (sql: string, params?: unknown[]) => {
      if (EXPLAIN && /replay_log/.test(sql)) {
        // The plan, measured, then undone (EXPLAIN ANALYZE runs the statement).
        await tx.exec("savepoint explained");
        const plan = await tx.query<{ "QUERY PLAN": string }>(`explain (analyze, costs off) ${sql}`, params);
        await tx.exec("rollback to savepoint explained");
        console.log(
          `\n${sql.replace(/\s+/g, " ").trim().slice(0, 100)}\n${plan.map((r) => r["QUERY PLAN"]).join("\n")}`,
        );
      }
      const t = performance.now();
      const c = cpuMs();
      try {
        return await tx.query(sql, params);
      } finally {
        // Keyed by the statement's first words and the tables it writes (bulk statements share openings).
        const writes = [...sql.matchAll(/\b(?:insert into|update|delete from)\s+(\w+)/g)].map((m) => m[1]);
        const key = `${sql.replace(/\s+/g, " ").trim().slice(0, 40)}… → ${[...new Set(writes)].join(",")}`;
        add(`  sql: ${key.slice(0, 74)}`, performance.now() - t, 1, cpuMs() - c);
      }
    }) as typeof tx.query;
    // DDL and settings too (creating the schema, the swap), keyed by their first words.
    timed.exec = (async (sql: string) => {
      if (!first && !/^\s*set\b/i.test(sql)) first = sql.replace(/\s+/g, " ").trim().slice(0, 40);
      const t = performance.now();
      const c = cpuMs();
      try {
        return await tx.exec(sql);
      } finally {
        const key = /^\s*(create|drop|alter)/i.test(sql) ? sql.replace(/\s+/g, " ").trim().slice(0, 30) : "set …";
        add(
          `  tx exec: ${/create table/i.test(key) ? "create table … (a projection's schema)" : key}`,
          performance.now() - t,
          1,
          cpuMs() - c,
        );
      }
    }) as typeof tx.exec;
    const r = await fn(timed);
    inside = performance.now();
    return r;
  }, options);
  // Keyed by the transaction's first statement other than a setting (commits differ: a deferred
  // one does not wait for the WAL sync).
  add(
    `commit (+ WAL sync${options?.deferSync ? " deferred" : ""}) ${first}`.slice(0, 80),
    performance.now() - inside,
    0,
  );
  add("transaction total", performance.now() - t, 0, cpuMs() - c);
  return result;
};
const lsn = async () => (await db.query<{ lsn: string }>("select pg_current_wal_insert_lsn()::text as lsn"))[0].lsn;
const lsn0 = await lsn();
const cpu0 = process.cpuUsage();
const report = await platform.projections.replay();
const cpu = process.cpuUsage(cpu0);
const [wal] = await db.query<{ mb: number }>("select (pg_wal_lsn_diff($1, $2) / 1048576)::float8 as mb", [
  await lsn(),
  lsn0,
]);
console.log(`WAL written by the replay: ${wal.mb.toFixed(1)} MB`);
console.log(`bulk: ${report.bulk.join(", ")}; event by event: ${JSON.stringify(report.eventByEvent)}`);
console.log(
  `replay: ${report.events} events in ${report.seconds.toFixed(2)} s = ${
    Math.round(report.eventsPerSecond)
  } events/s; process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s; WAL syncs ${JSON.stringify(db.walSyncs)}`,
);
const rows = [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(process.env.ROWS ?? 45));
for (const [key, s] of rows) {
  const per = key.startsWith("  ")
    ? `${(s.ms / s.calls).toFixed(3)} ms/statement`
    : `${(s.ms / Math.max(1, s.events)).toFixed(3)} ms/event`;
  console.log(
    `${key.padEnd(80)} ${s.ms.toFixed(0).padStart(8)} ms ${s.cpu.toFixed(0).padStart(7)} ms CPU ${
      String(s.calls).padStart(6)
    } calls ${String(s.events).padStart(7)} events  ${per}`,
  );
}
await platform.close();
copy.remove();
