import type { Db, Queryable } from "../../events/db/types.ts";

/**
 * Times every statement a database handle runs (directly and inside its transactions), keyed by
 * its first words: where a measured operation spends its database time. `start()` clears,
 * `slowest(n)` lists the statements by total time since then.
 */
export function traceSql(db: Db): { start(): void; slowest(n: number): string[] } {
  const spent = new Map<string, { ms: number; calls: number; max: number }>();
  const add = (sql: string, ms: number) => {
    const key = sql.replace(/\s+/g, " ").trim().slice(0, 90);
    const s = spent.get(key) ?? { ms: 0, calls: 0, max: 0 };
    s.ms += ms;
    s.calls++;
    s.max = Math.max(s.max, ms);
    spent.set(key, s);
  };
  const timed = <T extends Queryable>(q: T): T => {
    const wrapped = Object.create(q) as T;
    wrapped.query = (async (sql: string, params?: unknown[]) => {
      const t = performance.now();
      try {
        return await q.query(sql, params);
      } finally {
        add(sql, performance.now() - t);
      }
    }) as T["query"];
    return wrapped;
  };
  const query = db.query.bind(db);
  (db as { query: Db["query"] }).query = (async (sql: string, params?: unknown[]) => {
    const t = performance.now();
    try {
      return await query(sql, params);
    } finally {
      add(sql, performance.now() - t);
    }
  }) as Db["query"];
  const transaction = db.transaction.bind(db);
  (db as { transaction: Db["transaction"] }).transaction =
    ((fn, options) => transaction((tx) => fn(timed(tx)), options)) as Db["transaction"];
  return {
    start: () => spent.clear(),
    slowest: (n) =>
      [...spent].sort((a, b) => b[1].ms - a[1].ms).slice(0, n).map(([key, s]) =>
        `${s.ms.toFixed(1).padStart(8)} ms ${String(s.calls).padStart(5)}× (max ${s.max.toFixed(1)} ms)  ${key}`
      ),
  };
}
