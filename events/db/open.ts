import type { Db } from "./types.ts";

/** Opens PostgreSQL when a URL is given, else embedded PGlite in dataDir (memory when undefined). */
export async function openDb(target: {
  databaseUrl?: string;
  dataDir?: string;
  /** Connection-level search_path, e.g. "rm, public". */
  searchPath?: string;
  /** PGlite on disk: sync the WAL before a write resolves (default true). */
  durable?: boolean;
  /** PGlite: its buffer cache (shared_buffers, e.g. "32MB"; default PGlite's 128MB). */
  sharedBuffers?: string;
}): Promise<Db> {
  if (target.databaseUrl) {
    const { openPostgres } = await import("./postgres.ts");
    return openPostgres(target.databaseUrl, { searchPath: target.searchPath });
  }
  const { openPglite } = await import("./pglite.ts");
  return openPglite(target.dataDir, {
    searchPath: target.searchPath,
    durable: target.durable,
    sharedBuffers: target.sharedBuffers,
  });
}
