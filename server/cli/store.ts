import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { openDb } from "../../events/db/open.ts";
import { logTableExists } from "../../events/log-queries.ts";
import type { Config } from "../config.ts";
import { NoStoreError } from "./command.ts";

/**
 * Refuses to go on when the store a command would read is not there (issue #41 item 6): a
 * DATA_DIR that does not exist, is not a directory or holds no database, or a PostgreSQL database
 * without the platform's event log. Opening the platform would create a new, empty store there, and
 * `backup`, `verify` or `export` of it would succeed with nothing. Only the commands that start a
 * platform (`createsStore`) may create one.
 */
export async function requireStore(config: Pick<Config, "databaseUrl" | "dataDir">): Promise<void> {
  if (config.databaseUrl) {
    const db = await openDb({ databaseUrl: config.databaseUrl });
    try {
      if (!(await logTableExists(db))) {
        const name = new URL(config.databaseUrl).pathname.slice(1) || "postgres";
        throw new NoStoreError(
          `DATABASE_URL: the database ${name} holds no platform (no event log): check the URL, or restore a backup into it`,
        );
      }
    } finally {
      await db.close();
    }
    return;
  }
  const dir = config.dataDir;
  if (!existsSync(dir)) {
    throw new NoStoreError(
      `DATA_DIR ${dir} does not exist: no platform there (check the path; npm start creates a new one, restore fills one from a backup)`,
    );
  }
  if (!statSync(dir).isDirectory()) throw new NoStoreError(`DATA_DIR ${dir} is not a directory`);
  // Embedded PGlite keeps its cluster's files in the directory itself (PG_VERSION first of all).
  if (!existsSync(join(dir, "PG_VERSION"))) {
    throw new NoStoreError(
      `DATA_DIR ${dir} holds no platform (no database in it): check the path; npm start creates a new one, restore fills one from a backup`,
    );
  }
}
