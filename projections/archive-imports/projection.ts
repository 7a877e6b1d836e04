import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import {
  archiveImportFinished,
  archiveImportProgressed,
  archiveImportResumed,
  archiveImportStarted,
} from "../../events/archive-import/events.ts";
import type { Projection } from "../projection.ts";

/**
 * Failures kept in a row (the first ones, as the status shows them); `failed_count` counts them all,
 * and the import's events list every one.
 */
const KEPT_FAILURES = 100;

/**
 * Archive imports started over HTTP and how far each got: the status page and
 * GET /v3/athlete/imports/:id read it (with a running import's live counts on top), and a server
 * starting finds the imports still "running" here to resume them.
 */
export const archiveImportsProjection: Projection = {
  name: "archive-imports",
  tables: ["archive_imports"],
  schema: `
    create table if not exists archive_imports (
      id text primary key,
      athlete_id bigint not null,
      file_name text not null,
      via text not null,
      archive_file text not null,
      bytes bigint not null,
      status text not null,
      layout text,
      total integer not null default 0,
      done integer not null default 0,
      imported integer not null default 0,
      duplicates integer not null default 0,
      skipped integer not null default 0,
      failed jsonb not null default '[]',
      error text,
      resumed integer not null default 0,
      started_at timestamptz not null,
      updated_at timestamptz not null,
      finished_at timestamptz
    );
    alter table archive_imports add column if not exists failed_count integer not null default 0;
    create index if not exists archive_imports_athlete on archive_imports (athlete_id, started_at);
    create index if not exists archive_imports_status on archive_imports (status);
  `,
  isolated: true,
  handles: [
    archiveImportStarted.type,
    archiveImportProgressed.type,
    archiveImportResumed.type,
    archiveImportFinished.type,
  ],
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type === archiveImportStarted.type) {
      const d = event.data;
      await tx.query(
        `insert into archive_imports (id, athlete_id, file_name, via, archive_file, bytes, status, started_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, 'running', $7, $7) on conflict (id) do nothing`,
        [d.importId, d.athleteId, d.fileName, d.via, d.archiveFile, d.bytes, event.recordedAt],
      );
    } else if (event.type === archiveImportProgressed.type) {
      const d = event.data;
      const count = (outcome: string) => d.entries.filter((e) => e.outcome === outcome).length;
      await tx.query(
        `update archive_imports set layout = coalesce($2, layout), total = $3, done = done + $4, imported = imported + $5,
           duplicates = duplicates + $6, skipped = skipped + $7,
           failed = case when jsonb_array_length(failed) >= $10 then failed else (
             select coalesce(jsonb_agg(f order by n), '[]'::jsonb) from jsonb_array_elements(failed || $8::jsonb) with ordinality as t(f, n) where n <= $10
           ) end,
           failed_count = failed_count + jsonb_array_length($8::jsonb), updated_at = $9
         where id = $1`,
        [
          d.importId,
          d.layout,
          d.total,
          d.entries.length,
          count("imported"),
          count("duplicate"),
          count("skipped"),
          JSON.stringify(d.failed),
          event.recordedAt,
          KEPT_FAILURES,
        ],
      );
    } else if (event.type === archiveImportResumed.type) {
      await tx.query(
        "update archive_imports set status = 'running', resumed = resumed + 1, updated_at = $2 where id = $1",
        [event.data.importId, event.recordedAt],
      );
    } else if (event.type === archiveImportFinished.type) {
      const d = event.data;
      await tx.query(
        "update archive_imports set status = $2, error = $3, updated_at = $4, finished_at = $4 where id = $1",
        [d.importId, d.outcome, d.error, event.recordedAt],
      );
    }
  },
};
