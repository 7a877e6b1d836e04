import { createHash } from "node:crypto";
import { openDb } from "../events/db/open.ts";
import type { Db } from "../events/db/types.ts";
import { logHoldsEvents } from "../events/log-queries.ts";
import { EVENT_STORE_SCHEMA } from "../events/schema.ts";
import { EventStore } from "../events/store.ts";
import { LIVE_SCHEMA, ProjectionRunner } from "../projections/runner.ts";
import type { Config } from "./config.ts";
import { ID_SCHEMA } from "./ids.ts";
import { JOB_SCHEMA, JobRunner } from "./jobs/runner.ts";
import { requestMetadata } from "./ops/context.ts";
import { releaseIdleDeriveWorkers } from "./uploads/derive-pool.ts";
import { WEB_SESSION_SCHEMA } from "./sessions/session-table.ts";
import { activityExtensions, allProjections, athleteExtensions, catalogue } from "./wiring.ts";
import type { Platform } from "./platform.ts";

const READ_MODEL_SCHEMA = `
create table if not exists public.read_model_schema (
  id integer primary key,
  hash text not null
);`;

/** A fingerprint of every read model's tables; when it changes, the read models are rebuilt. */
function readModelSchemaHash(): string {
  return createHash("sha256")
    .update(allProjections.map((p) => `${p.name}\n${p.schema}`).join("\n\n"))
    .digest("hex");
}

/** Whether the database holds this version's schema: migrations are done (GET /ready). */
export async function readModelsCurrent(db: Db): Promise<boolean> {
  const [row] = await db.query<{ hash: string }>("select hash from public.read_model_schema where id = 1");
  return row?.hash === readModelSchemaHash();
}

/**
 * Records that the live read models are this version's, complete: after a rebuild of them. Until
 * then the row says `pending:` and the hash, so a start after a rebuild that did not finish (the
 * process killed halfway) rebuilds again instead of serving half-built read models.
 */
export async function markReadModelsCurrent(db: Db): Promise<void> {
  await db.query(
    `insert into public.read_model_schema (id, hash) values (1, $1)
     on conflict (id) do update set hash = excluded.hash`,
    [readModelSchemaHash()],
  );
}

/** Opens the database, the event log and the read models (migrating them). */
export async function openPlatform(config: Config): Promise<Platform> {
  if (catalogue.definitions.length === 0) throw new Error("the event catalogue is empty");
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    searchPath: `${LIVE_SCHEMA}, public`,
    sharedBuffers: config.pgliteSharedBuffers,
  });
  try {
    // The store knows the event types of the catalogue it is given (server/wiring.ts lists it).
    const store = new EventStore(db, catalogue);
    const projections = new ProjectionRunner(db, store, allProjections);
    // One migration at a time, even when several servers start together on one PostgreSQL.
    const schemaHash = readModelSchemaHash();
    const needsReplay = await db.transaction(async (tx) => {
      await tx.query("select pg_advisory_xact_lock(724311)");
      // The log, ids and jobs live in public: unqualified DDL must not land in rm once it exists.
      await tx.exec("set local search_path to public");
      await tx.exec(EVENT_STORE_SCHEMA);
      await tx.exec(ID_SCHEMA);
      await tx.exec(JOB_SCHEMA);
      await tx.exec(WEB_SESSION_SCHEMA);
      await tx.exec(READ_MODEL_SCHEMA);
      const [known] = await tx.query<{ hash: string }>("select hash from public.read_model_schema where id = 1");
      const pending = `pending:${schemaHash}`;
      const replay = known ? known.hash !== schemaHash : await logHoldsEvents(tx);
      // Another server on this PostgreSQL is rebuilding them for this version (or one died doing it:
      // `cli replay` finishes the job): this one serves, and /ready says "pending" until it is done.
      const othersRebuild = replay && known?.hash === pending && db.kind === "postgres";
      // An earlier version's tables: `create table if not exists` would keep their old columns and
      // the new indexes over them would fail. They are rebuilt from the log below in any case.
      if (replay && !othersRebuild) await projections.dropLiveIn(tx);
      await tx.query(
        `insert into public.read_model_schema (id, hash) values (1, $1)
         on conflict (id) do update set hash = excluded.hash`,
        [replay ? pending : schemaHash],
      );
      await projections.migrateIn(tx);
      if (othersRebuild && !config.quiet) {
        console.error(
          "Another server is rebuilding the read models for this version (/ready says pending until it is done); " +
            "if none is, a rebuild stopped halfway: run `npm run cli -- replay`.",
        );
      }
      return replay && !othersRebuild;
    });
    if (needsReplay) {
      // This version's read models differ from those on disk: rebuild them from the log once.
      if (!config.quiet) {
        console.error("The read models changed since the last start: rebuilding them from the event log…");
      }
      await projections.replay();
      await markReadModelsCurrent(db);
    }
    store.onAppend(projections.inline, projections.fused);
    store.ambientMetadata(requestMetadata);
    const jobs = new JobRunner(db);
    return {
      config,
      db,
      store,
      projections,
      jobs,
      activityExtensions,
      athleteExtensions,
      async close() {
        await jobs.stop();
        // Its uploads are done: idle derive workers would keep a finished process alive.
        releaseIdleDeriveWorkers();
        await db.close();
      },
    };
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}
