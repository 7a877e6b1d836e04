import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { BlobLedger } from "../../events/blob-names.ts";
import type { Queryable } from "../../events/db/types.ts";
import { eventsNamingHashes } from "../../events/log-queries.ts";
import { blobDigests, blobDirOf, blobFile } from "../blobs.ts";

/** An event that names a blob. */
export interface NamingEvent {
  position: number;
  type: string;
  stream_id: string;
}

/**
 * Every blob the log needs: sha256 → how many events name it and the first few of them. A blob an
 * event released after its last naming (a heatmap's superseded tracks) is not needed.
 */
export type NamedBlobs = Map<string, { count: number; events: NamingEvent[] }>;

/** Events listed per blob in a report (the count says how many there are in all). */
const EVENTS_SHOWN = 5;

/**
 * Reads the log page by page and collects the blobs its events name and did not release since
 * (events/blob-names.ts).
 * Only events whose data holds something spelled like a sha-256 are read into memory.
 */
export async function blobsNamedByLog(db: Queryable, pageSize = 1000): Promise<NamedBlobs> {
  const ledger = namedBlobsLedger();
  let after = 0;
  for (;;) {
    const rows = await eventsNamingHashes(db, after, pageSize);
    for (const row of rows) {
      noteNaming(ledger, { position: Number(row.global_position), type: row.type, stream_id: row.stream_id }, row.data);
    }
    if (rows.length < pageSize) break;
    after = Number(rows[rows.length - 1].global_position);
  }
  return ledger.needed;
}

/** A ledger of the blobs a log needs (events/blob-names.ts), each with the events naming it. */
export function namedBlobsLedger(): BlobLedger<{ count: number; events: NamingEvent[] }> {
  return new BlobLedger(() => ({ count: 0, events: [] }));
}

/** Feeds one event (in log order) to a ledger of namedBlobsLedger, noting it on the blobs it names. */
export function noteNaming(
  ledger: BlobLedger<{ count: number; events: NamingEvent[] }>,
  event: NamingEvent,
  data: unknown,
): void {
  for (const entry of ledger.add(event.type, data)) {
    entry.count++;
    if (entry.events.length < EVENTS_SHOWN) entry.events.push(event);
  }
}

export interface BlobProblem {
  sha256: string;
  problem: "missing" | "corrupt";
  /** What is wrong, in words (e.g. "no such blob", "its bytes hash to …"). */
  detail: string;
  /** How many events name it, and the first few. */
  eventCount: number;
  events: NamingEvent[];
}

export interface BlobCheck {
  /** Distinct blobs the log names. */
  named: number;
  /** Their bytes, read and hashed. */
  bytes: number;
  problems: BlobProblem[];
}

async function hashFile(path: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).byteLength;
  }
  return { sha256: hash.digest("hex"), size };
}

/**
 * Checks that every blob an event names is stored and that its bytes hash to its name: rows are
 * hashed by the database (sha256()), blobs kept as files (embedded store, server/blobs.ts) are read
 * from disk. A missing or corrupt blob is reported with the events that need it.
 */
export async function checkBlobs(db: Queryable, named?: NamedBlobs): Promise<BlobCheck> {
  named ??= await blobsNamedByLog(db);
  const problems: BlobProblem[] = [];
  const shas = [...named.keys()].sort();
  let bytes = 0;
  const report = (sha256: string, problem: BlobProblem["problem"], detail: string) => {
    const entry = named!.get(sha256)!;
    problems.push({ sha256, problem, detail, eventCount: entry.count, events: entry.events });
  };
  const hasFiles = blobDirOf(db) !== undefined;
  for (let i = 0; i < shas.length; i += 100) {
    const batch = shas.slice(i, i + 100);
    const rows = await blobDigests(db, batch);
    const bySha = new Map(rows.map((r) => [r.sha256, r]));
    for (const sha of batch) {
      const row = bySha.get(sha);
      if (!row) {
        report(sha, "missing", "no such blob");
        continue;
      }
      const size = Number(row.size);
      if (row.actual !== null) {
        bytes += Number(row.stored);
        if (row.actual !== sha) report(sha, "corrupt", `its ${row.stored} bytes hash to ${row.actual}`);
        else if (Number(row.stored) !== size) report(sha, "corrupt", `${row.stored} bytes stored, ${size} recorded`);
        continue;
      }
      // An empty row with a size: the bytes are a file beside the embedded database.
      const path = hasFiles ? await blobFile(db, sha) : undefined;
      if (!path) {
        report(sha, "missing", hasFiles ? "its file is missing" : `its row holds no bytes (${size} recorded)`);
        continue;
      }
      const actual = await hashFile(path);
      bytes += actual.size;
      if (actual.sha256 !== sha) report(sha, "corrupt", `its file (${actual.size} bytes) hashes to ${actual.sha256}`);
      else if (actual.size !== size) report(sha, "corrupt", `its file holds ${actual.size} bytes, ${size} recorded`);
    }
  }
  return { named: shas.length, bytes, problems };
}

/** Lines describing blob problems (for the CLI). */
export function blobProblemLines(problems: BlobProblem[]): string[] {
  const lines: string[] = [];
  for (const p of problems) {
    lines.push(
      `  blob ${p.sha256} ${p.problem}: ${p.detail}; needed by ${p.eventCount} event${p.eventCount === 1 ? "" : "s"}:`,
    );
    for (const e of p.events) lines.push(`    position ${e.position} ${e.type} (stream ${e.stream_id})`);
    if (p.eventCount > p.events.length) lines.push(`    … and ${p.eventCount - p.events.length} more`);
  }
  return lines;
}
