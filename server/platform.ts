import "../events/index.ts";
import { openDb } from "../events/db/open.ts";
import type { Db } from "../events/db/types.ts";
import { EVENT_STORE_SCHEMA } from "../events/schema.ts";
import { EventStore } from "../events/store.ts";
import { allProjections } from "../projections/index.ts";
import { LIVE_SCHEMA, ProjectionRunner } from "../projections/runner.ts";
import type { Config } from "./config.ts";
import { idSchema } from "./ids.ts";
import { JOB_SCHEMA, JobRunner } from "./jobs/runner.ts";

/** Everything a handler, job or CLI command needs: the database, the log and the read models. */
export interface Platform {
  config: Config;
  db: Db;
  store: EventStore;
  projections: ProjectionRunner;
  jobs: JobRunner;
  close(): Promise<void>;
}

/** Opens the database, the event log and the read models (migrating them). */
export async function openPlatform(config: Config): Promise<Platform> {
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    searchPath: `${LIVE_SCHEMA}, public`,
  });
  try {
    const store = new EventStore(db);
    const projections = new ProjectionRunner(db, store, allProjections);
    // One migration at a time, even when several servers start together on one PostgreSQL.
    await db.transaction(async (tx) => {
      await tx.query("select pg_advisory_xact_lock(724311)");
      // The log, ids and jobs live in public: unqualified DDL must not land in rm once it exists.
      await tx.exec("set local search_path to public");
      await tx.exec(EVENT_STORE_SCHEMA);
      await tx.exec(idSchema());
      await tx.exec(JOB_SCHEMA);
      await projections.migrateIn(tx);
    });
    store.onAppend(projections.inline);
    const jobs = new JobRunner(db);
    return {
      config,
      db,
      store,
      projections,
      jobs,
      async close() {
        await jobs.stop();
        await db.close();
      },
    };
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}
