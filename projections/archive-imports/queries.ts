import type { Queryable } from "../../events/db/types.ts";

/** The queries of the archive imports read model (projection.ts). */

export interface ArchiveImportRow {
  id: string;
  athlete_id: number;
  file_name: string;
  via: "web" | "api";
  archive_file: string;
  bytes: number;
  status: "running" | "done" | "refused" | "interrupted";
  layout: "strava" | "garmin" | null;
  total: number;
  done: number;
  imported: number;
  duplicates: number;
  skipped: number;
  /** The first failures (at most 100); `failed_count` counts them all. */
  failed: { file: string; error: string }[];
  failed_count: number;
  error: string | null;
  resumed: number;
  started_at: string;
  updated_at: string;
  finished_at: string | null;
}

const COLUMNS =
  `id, athlete_id::int as athlete_id, file_name, via, archive_file, bytes::float8 as bytes, status, layout, total, done,
  imported, duplicates, skipped, failed, failed_count, error, resumed, started_at, updated_at, finished_at`;

/** One import of the athlete, or undefined. */
export async function findArchiveImport(
  db: Queryable,
  id: string,
  athleteId: number,
): Promise<ArchiveImportRow | undefined> {
  const [row] = await db.query<ArchiveImportRow>(
    `select ${COLUMNS} from archive_imports where id = $1 and athlete_id = $2`,
    [id, athleteId],
  );
  return row;
}

/** The athlete's latest imports, newest first. */
export async function archiveImportsOf(db: Queryable, athleteId: number, limit: number): Promise<ArchiveImportRow[]> {
  return await db.query<ArchiveImportRow>(
    `select ${COLUMNS} from archive_imports where athlete_id = $1 order by started_at desc, id limit $2`,
    [athleteId, limit],
  );
}

/** Imports not finished (to resume), oldest first; `quietSeconds`: only those without a checkpoint for that long. */
export async function unfinishedArchiveImports(
  db: Queryable,
  quietSeconds: number,
  limit: number,
): Promise<ArchiveImportRow[]> {
  return await db.query<ArchiveImportRow>(
    `select ${COLUMNS} from archive_imports
      where status = 'running' and updated_at < now() - make_interval(secs => $1)
      order by started_at limit $2`,
    [quietSeconds, limit],
  );
}

/** One import by id if it is not finished (the resume job's run), or undefined. */
export async function unfinishedArchiveImport(db: Queryable, id: string): Promise<ArchiveImportRow | undefined> {
  const [row] = await db.query<ArchiveImportRow>(
    `select ${COLUMNS} from archive_imports where id = $1 and status = 'running'`,
    [id],
  );
  return row;
}
