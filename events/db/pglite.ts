import { Buffer } from "node:buffer";
import { join } from "node:path";
import { parse as pgParse, PGlite, protocol } from "@electric-sql/pglite";
import { parseJsonExact } from "../../shared/json.ts";
import { DurableNodeFS, durableStartParams } from "./durable-fs.ts";
import { makeTreePrivate } from "./private-files.ts";
import { type Db, parseInt8, type Queryable, type Row } from "./types.ts";
import { concatBytes } from "../../shared/bytes.ts";

const INT8 = 20;
const TIMESTAMPTZ = 1184;
const TIMESTAMP = 1114;
const JSON_OID = 114;
const JSONB_OID = 3802;
const BYTEA = 17;

/** Keeps timestamps as ISO strings so both engines return the same values. */
function isoTimestamp(text: string): string {
  return new Date(text.includes("+") || text.endsWith("Z") ? text : `${text}Z`).toISOString();
}

/**
 * bytea in PGlite's text protocol is "\\x" + hex. Its built-in codec converts byte by byte in JS
 * (about 50 ms for a 100 kB blob); node:buffer's native hex codec does the same in well under 1 ms.
 */
function parseBytea(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text.slice(2), "hex"));
}

function serializeBytea(value: unknown): string {
  if (!(value instanceof Uint8Array)) throw new Error("Invalid input for bytea type");
  return "\\x" + Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex");
}

const serializers = { [BYTEA]: serializeBytea };

const parsers = {
  [BYTEA]: parseBytea,
  [INT8]: parseInt8,
  [TIMESTAMPTZ]: isoTimestamp,
  [TIMESTAMP]: isoTimestamp,
  [JSON_OID]: parseJsonExact,
  [JSONB_OID]: parseJsonExact,
};

function wrap(q: { query: PGlite["query"]; exec: PGlite["exec"] }): Queryable {
  return {
    async query<T = Row>(sql: string, params: unknown[] = []) {
      const result = await q.query<T>(sql, params);
      return result.rows;
    },
    async exec(sql: string) {
      await q.exec(sql);
    },
  };
}

/** PGlite's internals this adapter uses for prepared statements (public in its class, not in its types). */
interface PgliteInternals {
  serializers: Record<number, (value: unknown) => string>;
  parsers: Record<number, (text: string, typeId: number) => unknown>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

/** How many prepared statements one database keeps (least recently used ones are closed). */
const PREPARED_LIMIT = 400;

/**
 * Every parameterised statement as a named prepared statement of the PGlite session: PGlite's own
 * `query` parses, plans and describes each statement anew in six protocol round trips through
 * WebAssembly (planning alone costs 0.4–3 ms for our larger statements). Here a statement is
 * parsed and described once (its parameter types kept), and each run is one call of bind,
 * describe, execute and sync, so PostgreSQL's plan cache applies (a generic plan once it is no
 * worse than the custom ones). Values are serialised and rows parsed exactly as PGlite does.
 * Plans follow schema changes and search_path (PostgreSQL revalidates them).
 */
class PreparedStatements {
  readonly #byText = new Map<string, { name: string; types: number[]; columns: unknown }>();
  #count = 0;
  constructor(private readonly pg: PGlite) {}

  /**
   * Runs a statement; `inTransaction`: the caller holds PGlite's transaction lock. `around`: simple
   * queries sent with it in the same call, before (e.g. `begin; set local …`) and after (`commit`).
   */
  async query<T>(
    sql: string,
    params: unknown[],
    inTransaction: boolean,
    around?: { before: string; after: string },
  ): Promise<T[]> {
    const pg = this.pg as unknown as PgliteInternals & PGlite;
    const run = () => pg._runExclusiveQuery(() => this.#run<T>(sql, params, inTransaction, around));
    return inTransaction ? run() : pg._runExclusiveTransaction(run);
  }

  async #run<T>(
    sql: string,
    params: unknown[],
    inTransaction: boolean,
    around?: { before: string; after: string },
  ): Promise<T[]> {
    const pg = this.pg as unknown as PgliteInternals & PGlite;
    const ser = protocol.serialize;
    let statement = this.#byText.get(sql);
    if (statement) {
      // Most recently used last.
      this.#byText.delete(sql);
      this.#byText.set(sql, statement);
    } else {
      if (this.#byText.size >= PREPARED_LIMIT) {
        const [oldText, old] = this.#byText.entries().next().value!;
        this.#byText.delete(oldText);
        await pg.execProtocolStream(concatBytes([ser.close({ type: "S", name: old.name }), ser.sync()]), {});
      }
      const name = `q${++this.#count}`;
      const described = await pg.execProtocolStream(
        concatBytes([ser.parse({ name, text: sql }), ser.describe({ type: "S", name }), ser.sync()]),
        {},
      );
      // The statement's result columns, described once here: each run then binds and executes
      // without describing its portal again (PostgreSQL refuses a run whose result columns changed:
      // 0A000, handled below).
      const columns = (described as { name: string }[]).find((m) => m.name === "rowDescription");
      statement = { name, types: pgParse.parseDescribeStatementResults(described), columns };
      this.#byText.set(sql, statement);
    }
    const types = statement.types;
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = pg.serializers[types[i]];
      return serializer ? serializer(value) : String(value);
    });
    let messages;
    try {
      const run = [ser.bind({ statement: statement.name, values }), ser.execute({}), ser.sync()];
      messages = await pg.execProtocolStream(
        concatBytes(around ? [ser.query(around.before), ...run, ser.query(around.after)] : run),
        {},
      );
      if (around) {
        // The statement's messages: those between the `before` queries' ReadyForQuery and its own.
        const ready = messages.flatMap((m, k) => (m as { name: string }).name === "readyForQuery" ? [k] : []);
        messages = messages.slice(ready[0] + 1, ready[1]);
      }
    } catch (error) {
      // "cached plan must not change result type" (a table changed under a `select *`): prepare anew.
      if ((error as { code?: string }).code === "0A000") this.#byText.delete(sql);
      throw error;
    }
    if (!inTransaction) await pg.syncToFs();
    const described = statement.columns ? [statement.columns, ...messages] : messages;
    return pgParse.parseResults(described as typeof messages, pg.parsers)[0]?.rows as T[] ?? [];
  }
}

/**
 * Embedded PGlite in a directory (or in memory when dataDir is undefined). On disk it is durable
 * by default: a statement or transaction that wrote to the WAL resolves only once that WAL is
 * synced to disk (group commit, see durable-fs.ts); `durable: false` keeps PGlite's own no-sync
 * behaviour (benchmark baselines).
 */
export async function openPglite(
  dataDir?: string,
  options: { searchPath?: string; durable?: boolean; sharedBuffers?: string } = {},
): Promise<Db> {
  const fs = dataDir && options.durable !== false ? new DurableNodeFS(dataDir) : undefined;
  // shared_buffers lives in PGlite's WebAssembly memory, which never shrinks: a process that writes
  // a lot (an archive import) touches all of it. A smaller cache bounds that memory.
  const buffers = options.sharedBuffers ? ["-c", `shared_buffers=${options.sharedBuffers}`] : [];
  // WAL segments a checkpoint no longer needs are deleted, never recycled under a new name with
  // their old bytes inside: an erasure's scrub (events/erasure.ts) leaves no old row in any file.
  const walParams = dataDir ? ["-c", "wal_recycle=off"] : [];
  const pg = fs
    ? new PGlite({
      dataDir,
      fs,
      parsers,
      serializers,
      startParams: [...durableStartParams(PGlite.defaultStartParams), ...buffers, ...walParams],
    })
    : new PGlite(dataDir, {
      parsers,
      serializers,
      ...(buffers.length || walParams.length
        ? { startParams: [...PGlite.defaultStartParams, ...buffers, ...walParams] }
        : {}),
    });
  await pg.waitReady;
  // Its initial files are created 0666: nobody but us may read the log or the token hashes.
  if (dataDir) makeTreePrivate(dataDir);
  if (options.searchPath) await pg.exec(`set search_path to ${options.searchPath}`);
  const base = wrap(pg);
  const prepared = new PreparedStatements(pg);
  /** Parameterised statements run prepared; others (DDL, SET, scripts) as PGlite runs them. */
  const query = <T>(q: Queryable, sql: string, params: unknown[] | undefined, inTransaction: boolean) =>
    params && params.length > 0 ? prepared.query<T>(sql, params, inTransaction) : q.query<T>(sql, params);
  const wal = fs?.wal;
  /** Runs a database call; when it wrote WAL, resolves only after that WAL is on disk. */
  const durably = wal
    ? async <T>(call: () => Promise<T>): Promise<T> => {
      const before = wal.writes;
      const result = await call();
      if (wal.writes !== before) await wal.flush();
      return result;
    }
    : <T>(call: () => Promise<T>) => call();
  return {
    kind: "pglite",
    query: (sql, params) => durably(() => query(base, sql, params, false)),
    exec: (sql) => durably(() => base.exec(sql)),
    queryWithSettings: <T>(settings: Record<string, string>, sql: string, params: unknown[]) => {
      const set = Object.entries(settings).map(([name, value]) => `set local ${name} = ${value}`);
      const around = { before: ["begin", ...set].join("; "), after: "commit" };
      return durably(() => prepared.query<T>(sql, params, false, around));
    },
    transaction: (fn, options) => {
      const run = () =>
        pg.transaction((tx) => {
          const inner = wrap(tx);
          return fn({ query: (sql, params) => query(inner, sql, params, true), exec: inner.exec });
        });
      // Deferred: the WAL files stay marked dirty, so the next durable call syncs them too.
      return options?.deferSync ? run() : durably(run);
    },
    walSyncs: wal?.stats,
    blobDir: dataDir ? join(dataDir, "blobs") : undefined,
    close: () => pg.close(),
    whileQuiescent: dataDir
      ? async <T>(fn: (dir: string) => Promise<T>): Promise<T> => {
        // A checkpoint first (little WAL to replay on restore), then fn runs holding PGlite's
        // transaction lock, which every statement and transaction takes: the files are those of
        // the committed state of one moment.
        await durably(() => pg.exec("checkpoint"));
        const internal = pg as unknown as { _runExclusiveTransaction<R>(fn: () => Promise<R>): Promise<R> };
        return await internal._runExclusiveTransaction(() => fn(dataDir));
      }
      : undefined,
  };
}
