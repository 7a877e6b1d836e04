import type { Db, Queryable } from "../../events/db/types.ts";
import { toJson } from "../../shared/json.ts";
import { blobDirOf, getBlob, sha256Hex } from "../blobs.ts";
import { ID_KINDS } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { ensureOutbox } from "../webhooks/outbox.ts";
import { storeBlob } from "./blob-transfer.ts";

/**
 * Copies a whole platform from one store to another (embedded PGlite ↔ PostgreSQL): the event log
 * exactly (positions, stream versions, schema versions, data, metadata, recorded times), every blob
 * (rows and the files of the embedded store, each checked against its sha-256), the idempotency
 * records, the id sequences, and the operational state that is not an event: web sessions, the
 * CSRF key, the webhook follower's state and deliveries. The read models are then replayed from
 * the log on the target. Job leases, rate-limit counters and analysts' time-travel schemas are not
 * copied (they are rebuilt or start afresh).
 *
 * The target must be empty (no events, no blobs). Everything is written in one transaction on the
 * target, so a failure leaves it empty (on an embedded target, a large blob's file may remain in
 * its blob directory without a row: never seen).
 */
export interface CopyReport {
  events: number;
  lastPosition: number;
  blobs: number;
  blobBytes: number;
  idempotencyKeys: number;
  seconds: number;
}

/** Operational tables copied row for row (created by openPlatform / ensureOutbox on both sides). */
const ROW_TABLES = [
  "public.web_sessions",
  "public.web_session_tokens",
  "public.web_secrets",
  "public.webhook_subscriptions",
  "public.webhook_grants",
  "public.webhook_activities",
  "public.webhook_deliveries",
] as const;

export class CopyTargetError extends Error {}

async function exists(db: Queryable, table: string): Promise<boolean> {
  const [row] = await db.query<{ found: string | null }>("select to_regclass($1)::text as found", [table]);
  return row.found !== null;
}

export async function copyPlatform(
  source: Platform,
  target: Platform,
  onProgress?: (what: string, done: number) => void,
): Promise<CopyReport> {
  const started = performance.now();
  const [{ found }] = await target.db.query<{ found: boolean }>(
    "select exists(select 1 from public.events) or exists(select 1 from public.blobs) as found",
  );
  if (found) throw new CopyTargetError("the target store is not empty: a platform is copied only into an empty store");
  await ensureOutbox(target.db);
  const fileDir = blobDirOf(target.db);
  const sourceDir = blobDirOf(source.db);
  // The source is read in one snapshot (REPEATABLE READ on PostgreSQL; embedded PGlite runs one
  // transaction at a time): a server may go on writing there, the copy holds one moment of it.
  const report = await source.db.transaction((stx) =>
    target.db.transaction(async (tx) => {
      const src: Queryable & { blobDir?: string } = { query: stx.query.bind(stx), exec: stx.exec.bind(stx), blobDir: sourceDir };
      if (source.db.kind === "postgres") await src.exec("set transaction isolation level repeatable read, read only");
      return await copyIn(src, tx, fileDir, onProgress);
    })
  );
  // 4. The read models, from the copied log.
  await target.projections.replay();
  return { ...report, seconds: Math.round(performance.now() - started) / 1000 };
}

async function copyIn(
  src: Queryable,
  tx: Queryable,
  fileDir: string | undefined,
  onProgress?: (what: string, done: number) => void,
): Promise<Omit<CopyReport, "seconds">> {
  {
    // 1. The event log, page by page, exactly.
    let after = 0;
    let events = 0;
    for (;;) {
      const rows = await src.query<{ position: number }>(
        `select global_position as position, stream_id, stream_version, type, schema_version,
                to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as recorded_at,
                data::text as data, metadata::text as metadata
           from public.events where global_position > $1 order by global_position limit 2000`,
        [after],
      );
      if (rows.length === 0) break;
      await tx.query(
        `insert into public.events (global_position, stream_id, stream_version, type, schema_version, data, metadata, recorded_at)
         overriding system value
         select t.position, t.stream_id, t.stream_version, t.type, t.schema_version, t.data::jsonb, t.metadata::jsonb, t.recorded_at
           from jsonb_to_recordset($1::jsonb) as t(position bigint, stream_id text, stream_version integer,
             type text, schema_version integer, data text, metadata text, recorded_at timestamptz)
          order by t.position`,
        [toJson(rows)],
      );
      events += rows.length;
      after = Number(rows[rows.length - 1].position);
      onProgress?.("events", events);
    }
    if (after > 0) {
      await tx.query("select setval(pg_get_serial_sequence('public.events', 'global_position'), $1::bigint)", [after]);
    }
    // 2. Every blob, checked against its name.
    let blobs = 0;
    let blobBytes = 0;
    let lastSha = "";
    for (;;) {
      const names = await src.query<{ sha256: string }>(
        "select sha256 from public.blobs where sha256 > $1 order by sha256 limit 500",
        [lastSha],
      );
      if (names.length === 0) break;
      for (const { sha256 } of names) {
        const content = await getBlob(src, sha256);
        if (!content) throw new Error(`blob ${sha256} is missing from the source (its file is gone): run cli verify there`);
        if (sha256Hex(content) !== sha256) throw new Error(`blob ${sha256} is corrupt in the source: run cli verify there`);
        await storeBlob(tx, fileDir, sha256, content);
        blobs++;
        blobBytes += content.byteLength;
      }
      lastSha = names[names.length - 1].sha256;
      onProgress?.("blobs", blobs);
    }
    // 3. Idempotency records, id sequences, operational tables.
    const keys = await copyRows(src, tx, "public.event_idempotency");
    for (const kind of ID_KINDS) {
      const [seq] = await src.query<{ last_value: number; is_called: boolean }>(
        `select last_value, is_called from public.ids_${kind}`,
      );
      await tx.query(`select setval('public.ids_${kind}', $1::bigint, $2)`, [seq.last_value, seq.is_called]);
    }
    for (const table of ROW_TABLES) {
      if (await exists(src, table)) await copyRows(src, tx, table);
    }
    if (await exists(src, "public.webhook_deliveries")) {
      const [{ max }] = await tx.query<{ max: number | null }>("select max(id) as max from public.webhook_deliveries");
      if (max !== null) await tx.query("select setval(pg_get_serial_sequence('public.webhook_deliveries', 'id'), $1::bigint)", [max]);
    }
    if (await exists(src, "public.webhook_cursor")) await copyWebhookCursor(src, tx);
    return { events, lastPosition: after, blobs, blobBytes, idempotencyKeys: keys };
  }
}

async function copyRows(source: Queryable, tx: Queryable, table: string): Promise<number> {
  const rows = await source.query<{ row: string }>(`select row_to_json(t)::text as row from ${table} t`);
  for (let i = 0; i < rows.length; i += 1000) {
    const batch = `[${rows.slice(i, i + 1000).map((r) => r.row).join(",")}]`;
    await tx.query(`insert into ${table} select * from json_populate_recordset(null::${table}, $1::json)`, [batch]);
  }
  return rows.length;
}

/**
 * The webhook follower's cursor is a (transaction id, position) of the source's log; the copied
 * log has the target's transaction ids. The follower resumes after the longest prefix of positions
 * it had read (an event it read past that point may be delivered once more; none is skipped).
 */
async function copyWebhookCursor(source: Queryable, tx: Queryable): Promise<void> {
  const [cursor] = await source.query<{ transaction_id: string; position: number }>(
    "select transaction_id, position from public.webhook_cursor where name = 'log'",
  );
  if (!cursor) return;
  const [unread] = await source.query<{ first: number | null }>(
    `select min(global_position) as first from public.events
      where (transaction_id, global_position) > ($1::text::xid8, $2::bigint)`,
    [cursor.transaction_id, cursor.position],
  );
  const position = unread.first === null
    ? Number((await source.query<{ max: number }>("select coalesce(max(global_position), 0) as max from public.events"))[0].max)
    : Number(unread.first) - 1;
  if (position === 0) return;
  const [at] = await tx.query<{ transaction_id: string }>(
    "select transaction_id::text as transaction_id from public.events where global_position <= $1 order by global_position desc limit 1",
    [position],
  );
  await tx.query(
    "insert into public.webhook_cursor (name, transaction_id, position) values ('log', $1, $2)",
    [at.transaction_id, position],
  );
}
