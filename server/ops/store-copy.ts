import type { Queryable } from "../../events/db/types.ts";
import {
  continueLogAfter,
  copyIdempotencyRecords,
  copyPage,
  holdsEventsOrBlobs,
  insertCopiedPage,
} from "../../events/log-queries.ts";
import { toJson } from "../../shared/json.ts";
import { blobDirOf, blobNamesAfter, getBlob, sha256Hex } from "../blobs.ts";
import { copyIdSequences } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { copyWebSessionTables } from "../sessions/session-table.ts";
import { copyOutbox, ensureOutbox } from "../webhooks/outbox.ts";
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

export class CopyTargetError extends Error {}

export async function copyPlatform(
  source: Platform,
  target: Platform,
  onProgress?: (what: string, done: number) => void,
): Promise<CopyReport> {
  const started = performance.now();
  if (await holdsEventsOrBlobs(target.db)) {
    throw new CopyTargetError("the target store is not empty: a platform is copied only into an empty store");
  }
  await ensureOutbox(target.db);
  const fileDir = blobDirOf(target.db);
  const sourceDir = blobDirOf(source.db);
  // The source is read in one snapshot (REPEATABLE READ on PostgreSQL; embedded PGlite runs one
  // transaction at a time): a server may go on writing there, the copy holds one moment of it.
  const report = await source.db.transaction((stx) =>
    target.db.transaction(async (tx) => {
      const src: Queryable & { blobDir?: string } = {
        query: stx.query.bind(stx),
        exec: stx.exec.bind(stx),
        blobDir: sourceDir,
      };
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
      const rows = await copyPage(src, after);
      if (rows.length === 0) break;
      await insertCopiedPage(tx, toJson(rows));
      events += rows.length;
      after = Number(rows[rows.length - 1].position);
      onProgress?.("events", events);
    }
    if (after > 0) {
      await continueLogAfter(tx, after);
    }
    // 2. Every blob, checked against its name.
    let blobs = 0;
    let blobBytes = 0;
    let lastSha = "";
    for (;;) {
      const names = await blobNamesAfter(src, lastSha);
      if (names.length === 0) break;
      for (const sha256 of names) {
        const content = await getBlob(src, sha256);
        if (!content) {
          throw new Error(`blob ${sha256} is missing from the source (its file is gone): run cli verify there`);
        }
        if (sha256Hex(content) !== sha256) {
          throw new Error(`blob ${sha256} is corrupt in the source: run cli verify there`);
        }
        await storeBlob(tx, fileDir, sha256, content);
        blobs++;
        blobBytes += content.byteLength;
      }
      lastSha = names[names.length - 1];
      onProgress?.("blobs", blobs);
    }
    // 3. Idempotency records, id sequences, operational tables.
    const keys = await copyIdempotencyRecords(src, tx);
    await copyIdSequences(src, tx);
    await copyWebSessionTables(src, tx);
    await copyOutbox(src, tx);
    return { events, lastPosition: after, blobs, blobBytes, idempotencyKeys: keys };
  }
}
