import { Buffer } from "node:buffer";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { parseJsonExact } from "../../shared/json.ts";
import { DurableNodeFS, durableStartParams } from "./durable-fs.ts";
import { makeTreePrivate } from "./private-files.ts";
import { type Db, parseInt8, type Queryable, type Row } from "./types.ts";

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

/**
 * Embedded PGlite in a directory (or in memory when dataDir is undefined). On disk it is durable
 * by default: a statement or transaction that wrote to the WAL resolves only once that WAL is
 * synced to disk (group commit, see durable-fs.ts); `durable: false` keeps PGlite's own no-sync
 * behaviour (benchmark baselines).
 */
export async function openPglite(
  dataDir?: string,
  options: { searchPath?: string; durable?: boolean } = {},
): Promise<Db> {
  const fs = dataDir && options.durable !== false ? new DurableNodeFS(dataDir) : undefined;
  const pg = fs
    ? new PGlite({ dataDir, fs, parsers, serializers, startParams: durableStartParams(PGlite.defaultStartParams) })
    : new PGlite(dataDir, { parsers, serializers });
  await pg.waitReady;
  // Its initial files are created 0666: nobody but us may read the log or the token hashes.
  if (dataDir) makeTreePrivate(dataDir);
  if (options.searchPath) await pg.exec(`set search_path to ${options.searchPath}`);
  const base = wrap(pg);
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
    query: (sql, params) => durably(() => base.query(sql, params)),
    exec: (sql) => durably(() => base.exec(sql)),
    transaction: (fn) => durably(() => pg.transaction((tx) => fn(wrap(tx)))),
    walSyncs: wal?.stats,
    blobDir: dataDir ? join(dataDir, "blobs") : undefined,
    close: () => pg.close(),
    async dumpDataDir() {
      // A checkpoint first (little WAL to replay on restore), then the files are read holding
      // PGlite's transaction lock, which every statement and transaction takes: the copy is taken
      // between transactions, so it holds exactly the committed state of one moment.
      await pg.exec("checkpoint");
      const internal = pg as unknown as { _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T> };
      const tarball = await internal._runExclusiveTransaction(() => pg.dumpDataDir("gzip"));
      return new Uint8Array(await tarball.arrayBuffer());
    },
  };
}

/** Unpacks a dumpDataDir tarball into dataDir (which must be empty) and checks it opens. */
export async function loadPgliteDataDir(dataDir: string, tarball: Uint8Array): Promise<void> {
  const pg = new PGlite(dataDir, { loadDataDir: new Blob([tarball as BlobPart]) });
  await pg.waitReady;
  await pg.query("select 1");
  await pg.close();
}
