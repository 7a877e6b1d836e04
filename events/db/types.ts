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
  /** Embedded PGlite on disk: WAL syncs run by the host and the calls that waited for them. */
  readonly walSyncs?: { syncs: number; waits: number };
  /** Embedded PGlite on disk: the directory where large blobs are kept as files (server/blobs.ts). */
  readonly blobDir?: string;
  close(): Promise<void>;
  /**
   * Embedded databases only: a gzipped tar of the whole data directory, taken while no transaction
   * is open (so it holds exactly the committed state at one moment) and no statement runs.
   */
  dumpDataDir?(): Promise<Uint8Array>;
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
