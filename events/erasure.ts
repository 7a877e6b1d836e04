import type { Db, Queryable } from "./db/types.ts";

/**
 * The one sanctioned rewrite of the append-only log: an athlete's erasure (docs/accounts.md).
 *
 * After AthleteErased is appended (the athlete's decider, once), this removes from the log
 * - every event of a stream the athlete started: a stream whose first event names the athlete in
 *   its data (`athleteId` or `ownerId`): their account, activities (with everything others added
 *   to them: kudos, comments), uploads, gear, zones, follows, heatmaps, routes, segments, clubs
 *   they created, their authorizations and tokens, archive imports, pictures — except internal
 *   applications (the web app's own, whichever athlete happened to create it);
 * - every event of another stream naming the athlete in its data (`athleteId`, `ownerId`,
 *   `targetId`): kudos and comments they gave, club and challenge memberships, follows of them;
 * and their idempotency records. AthleteErased and AthleteErasureCompleted (the id and counts) stay. Events in which the
 * athlete merely acted on someone else (an admin's approval of another member) stay, with the bare
 * id in their metadata and nothing of the athlete's in their data.
 *
 * The deletes run in one transaction that names itself with `events.erasure`, the only thing the
 * log's trigger lets through. Answers what was removed and the blobs those events named that no
 * remaining event names (the caller deletes them with their files).
 */
export interface ErasedFromLog {
  events: number;
  streams: number;
  /** sha256 of blobs named only by the removed events. */
  orphanBlobs: string[];
}

const NAMES = (alias: string) =>
  `(${alias}.data->>'athleteId' = $1 or ${alias}.data->>'ownerId' = $1 or ${alias}.data->>'targetId' = $1)`;

export async function eraseAthleteFromLog(db: Db, athleteId: number): Promise<ErasedFromLog> {
  const id = String(athleteId);
  return await db.transaction(async (tx) => {
    await tx.query("select set_config('events.erasure', $1, true)", [`athlete-${id}`]);
    const positions = await erasablePositions(tx, id);
    const streams = await tx.query<{ stream_id: string }>(
      "select distinct stream_id from events where global_position = any($1::bigint[])",
      [positions],
    );
    // Blobs the doomed events name (any sha-256 in their data that is a stored blob).
    const named = await tx.query<{ sha256: string }>(
      `select distinct b.sha256 from blobs b
        where b.sha256 in (
          select m[1] from events e, regexp_matches(e.data::text, '([0-9a-f]{64})', 'g') as m
           where e.global_position = any($1::bigint[]))`,
      [positions],
    );
    await tx.query(
      "delete from event_idempotency where first_position = any($1::bigint[]) or last_position = any($1::bigint[])",
      [positions],
    );
    const deleted = await tx.query<{ global_position: number }>(
      "delete from events where global_position = any($1::bigint[]) returning global_position",
      [positions],
    );
    let orphanBlobs: string[] = [];
    if (named.length > 0) {
      const candidates = named.map((r) => r.sha256);
      const still = await tx.query<{ sha256: string }>(
        `select distinct m[1] as sha256 from events e, regexp_matches(e.data::text, '([0-9a-f]{64})', 'g') as m
          where m[1] = any($1::text[])`,
        [candidates],
      );
      const kept = new Set(still.map((r) => r.sha256));
      orphanBlobs = candidates.filter((sha) => !kept.has(sha));
    }
    return { events: deleted.length, streams: streams.length, orphanBlobs };
  });
}

/** The positions the erasure removes (see above), in log order. */
export async function erasablePositions(tx: Queryable, id: string): Promise<number[]> {
  const rows = await tx.query<{ global_position: number }>(
    `with touching as (
       select distinct stream_id from events e where ${NAMES("e")}
     ),
     firsts as (
       select distinct on (e.stream_id) e.stream_id, e.data
         from events e join touching t on t.stream_id = e.stream_id
        order by e.stream_id, e.stream_version
     ),
     started as (
       select stream_id from firsts f
        where (f.data->>'athleteId' = $1 or f.data->>'ownerId' = $1)
          and not coalesce((f.data->>'internal')::boolean, false)
     )
     select e.global_position from events e
      where e.type not in ('AthleteErased', 'AthleteErasureCompleted')
        and (e.stream_id in (select stream_id from started)
             or (${NAMES("e")} and not coalesce((e.data->>'internal')::boolean, false)))
      order by e.global_position`,
    [id],
  );
  return rows.map((r) => Number(r.global_position));
}

/** What scrubbing the database files after an erasure did (docs/accounts.md, "Erasure on disk"). */
export interface Scrubbed {
  /** Tables rewritten (VACUUM FULL). */
  tables: number;
  /** Statements the database refused (e.g. CHECKPOINT for a PostgreSQL user without pg_checkpoint), with why. */
  refused: string[];
  seconds: number;
}

/**
 * Leaves no old version of a deleted row in the database's files. A DELETE only marks rows dead:
 * their bytes stay in the table's pages (PGlite never vacuums; a plain VACUUM frees the space
 * without clearing it), in the write-ahead log, and in the planner's samples (pg_statistic). So,
 * after an erasure's rewrite of the log and rebuild of the read models:
 * - every table is rewritten (VACUUM FULL: a new file with the live rows only; the old file is
 *   emptied at commit) — the blob store only when `blobs` (it is the large one on PostgreSQL);
 * - the statistics are sampled again from the live rows, and pg_statistic is rewritten too;
 * - the WAL moves to a new segment and a checkpoint lets every older one go: deleted when the
 *   database does not recycle them (PGlite here starts with wal_recycle=off; on PostgreSQL that is
 *   the operator's setting, docs/operators.md).
 * Each statement the database refuses (a PostgreSQL user that does not own a table, or may not
 * checkpoint) is reported, not fatal: the erasure as users see it is complete either way.
 */
export async function scrubDeletedRows(db: Db, options: { blobs: boolean }): Promise<Scrubbed> {
  const started = performance.now();
  const refused: string[] = [];
  const run = async (sql: string) => {
    try {
      await db.exec(sql);
      return true;
    } catch (error) {
      refused.push(`${sql}: ${(error as Error).message}`);
      return false;
    }
  };
  const tables = await db.query<{ schema: string; name: string }>(
    `select schemaname as schema, tablename as name from pg_catalog.pg_tables
      where schemaname not in ('pg_catalog', 'information_schema') order by 1, 2`,
  );
  let rewritten = 0;
  for (const t of tables) {
    if (!options.blobs && t.schema === "public" && t.name === "blobs") continue;
    if (await run(`vacuum full ${quoteIdent(t.schema)}.${quoteIdent(t.name)}`)) rewritten++;
  }
  await run("analyze");
  await run("vacuum full pg_catalog.pg_statistic");
  try {
    await db.query("select pg_switch_wal()");
  } catch (error) {
    refused.push(`select pg_switch_wal(): ${(error as Error).message}`);
  }
  await run("checkpoint");
  return { tables: rewritten, refused, seconds: Math.round(performance.now() - started) / 1000 };
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
