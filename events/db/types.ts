/** One SQL dialect, two engines: the part of a database both adapters offer. */
export type Row = Record<string, unknown>;

export interface Queryable {
  /** Runs one statement with $1… parameters and returns its rows. */
  query<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs one or more statements without parameters. */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly kind: "pglite" | "postgres";
  /**
   * Runs fn in one transaction; commits when it resolves, rolls back when it throws.
   * `deferSync`: embedded PGlite resolves without waiting for its WAL to reach the disk; the next
   * durable write (any other statement or transaction) syncs it. Only for work that a crash may
   * lose, such as a rebuild into a scratch schema that a later durable swap publishes.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: { deferSync?: boolean }): Promise<T>;
  /**
   * Embedded PGlite only: runs one parameterised statement in a transaction of its own after
   * `set local` of each planner setting (name → value), in one call into the database (begin, the
   * settings, the statement and commit sent together) — what `transaction` + `exec` + `query` do
   * in four calls. The settings hold for that statement only.
   */
  queryWithSettings?<T = Row>(settings: Record<string, string>, sql: string, params: unknown[]): Promise<T[]>;
  /** Embedded PGlite on disk: WAL syncs run by the host and the calls that waited for them. */
  readonly walSyncs?: { syncs: number; waits: number };
  /** Embedded PGlite on disk: the directory where large blobs are kept as files (server/blobs.ts). */
  readonly blobDir?: string;
  close(): Promise<void>;
  /**
   * Embedded databases on disk only: runs `fn` with the data directory after a checkpoint, while no
   * transaction is open and no statement runs (every caller waits meanwhile), so the directory's
   * files are exactly the committed state of one moment (a backup copies them then).
   */
  whileQuiescent?<T>(fn: (dataDir: string) => Promise<T>): Promise<T>;
}

/** int8 values: a number when exact, else a bigint (64-bit ids stay exact). */
export function parseInt8(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

/** PostgreSQL's SQLSTATE of a driver error, when it has one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Socket errors of a connection to a database that went away (or is not there yet). */
const CONNECTION_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * Whether an error means the database cannot be reached now rather than that a statement failed:
 * a refused or broken connection, PostgreSQL shutting down or starting (SQLSTATE 57P01–57P03), a
 * connection exception (class 08), or the driver giving up on a dead connection. Requests answer
 * these with 503 (the load balancer tries another server; the client retries), and jobs do not
 * count them as a failed attempt.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") {
      if (CONNECTION_CODES.has(code) || /^57P0[123]$/.test(code) || code.startsWith("08")) return true;
    }
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === "string" &&
      /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable|Connection ended unexpectedly/
        .test(message)
    ) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
