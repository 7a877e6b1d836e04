import type { Queryable } from "./types.ts";

/**
 * The transaction with the event loop let go before each statement. Embedded PGlite runs a
 * statement on this thread and resolves it as a microtask, so a transaction's statements would all
 * run in one turn of the loop (≈ 100–200 ms for the warm-up's, cold): requests arriving meanwhile
 * (/health, a first upload) wait for its end. Each statement in its own turn, they wait at most one.
 */
export function turnByStatement(tx: Queryable): Queryable {
  const turn = () => new Promise((resolve) => setTimeout(resolve, 0));
  return {
    query: async (sql, params) => (await turn(), await tx.query(sql, params)),
    exec: async (sql) => (await turn(), await tx.exec(sql)),
  };
}
