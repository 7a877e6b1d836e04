import pg from "pg";
import { parseJsonExact } from "../../shared/json.ts";
import { type Db, isDatabaseUnavailable, parseInt8, type Queryable, type Row } from "./types.ts";

const INT8 = 20;
const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const JSON_OID = 114;
const JSONB_OID = 3802;

const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8) return parseInt8;
    if (oid === JSON_OID || oid === JSONB_OID) return parseJsonExact;
    if (oid === TIMESTAMPTZ || oid === TIMESTAMP) {
      return (text: string) => new Date(oid === TIMESTAMP ? `${text}Z` : text).toISOString();
    }
    // deno-lint-ignore no-explicit-any
    return (pg.types.getTypeParser as any)(oid, format);
  },
};

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T = Row>(sql: string, params: unknown[] = []) {
      const result = await client.query({ text: sql, values: params, types });
      return result.rows as T[];
    },
    async exec(sql: string) {
      await client.query({ text: sql, types });
    },
  };
}

/** A PostgreSQL server reached through DATABASE_URL, with a connection pool. */
export async function openPostgres(
  url: string,
  options: { max?: number; searchPath?: string } = {},
): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    options: options.searchPath ? `-c search_path=${options.searchPath.replace(/\s+/g, "")}` : undefined,
    // A database that does not answer: the request fails (503) after 5 s instead of waiting for ever.
    connectionTimeoutMillis: 5000,
    // Dead peers (a database host gone without closing the socket) are found by TCP keepalives.
    keepAlive: true,
  });
  // No socket to the database may take the process down when the database goes away (issue #41:
  // "Uncaught Error: read ECONNRESET"). An idle client's error reaches the pool's listener…
  pool.on("error", () => {});
  // …and every client, whatever its state (idle, checked out, being removed after an error),
  // keeps a listener for its whole life: a socket error that arrives while no one listens would be
  // thrown. Queries running on the client still fail with the error.
  pool.on("connect", (client) => client.on("error", () => {}));
  await pool.query("select 1");
  const base = wrap(pool);
  return {
    kind: "postgres",
    query: base.query,
    exec: base.exec,
    async transaction(fn, options) {
      const client = await pool.connect();
      // The connection may break while the transaction is between statements (the database
      // stopped): the error is remembered, the next statement fails with it, and the client is
      // destroyed on release instead of going back to the pool.
      let broken: Error | undefined;
      const onError = (error: Error) => (broken = error);
      client.on("error", onError);
      try {
        await client.query("begin");
        // The commit returns before its WAL is flushed; the next synchronous commit flushes it.
        if (options?.deferSync) await client.query("set local synchronous_commit to off");
        const result = await fn(wrap(client));
        await client.query("commit");
        return result;
      } catch (error) {
        if (isDatabaseUnavailable(error)) broken ??= error as Error;
        if (!broken) await client.query("rollback").catch(() => {});
        throw error;
      } finally {
        client.off("error", onError);
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
