import { createHash } from "node:crypto";
import { mkdir, open, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import type { Queryable } from "../events/db/types.ts";

/**
 * Content-addressed storage of large immutable data (uploaded files, streams, photos, tiles).
 *
 * Every blob has a row in `public.blobs`. On PostgreSQL and in-memory PGlite its bytes are the
 * row's `content`. With embedded PGlite on disk, a blob written with `{ file: true }` (uploaded
 * originals, streams documents) is a file `DATA_DIR/blobs/<aa>/<sha256>` instead and its row holds
 * an empty `content` with the real `size`: PGlite runs in the server's thread and stores bytea at
 * about 6 MB/s (a 56 MB GPX held the event loop 7.6 s), where a file is written by the runtime's
 * I/O threads. The file is synced (and its directory) before the row is inserted, and the row before
 * any event names the blob, so an event never points at bytes that a power loss could take.
 */
export interface BlobHome {
  /** Where file blobs live (embedded PGlite on disk only). */
  readonly blobDir?: string;
}

/**
 * Blobs smaller than this stay in the database even when a file is allowed: at ~6 MB/s such an
 * insert holds the event loop at most ~40 ms, and costs no file syncs.
 */
export const FILE_THRESHOLD = 256 * 1024;

/** Where file blobs of this database live (embedded PGlite on disk only), or undefined. */
export function blobDirOf(db: Queryable): string | undefined {
  return (db as Queryable & BlobHome).blobDir;
}

function blobPath(dir: string, sha256: string): string {
  return join(dir, sha256.slice(0, 2), sha256);
}

export function sha256Hex(content: Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

async function syncPath(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes `content` as the file blob `sha256` in `dir`: a temporary file written and synced, then
 * moved into place (settleFile); its path. No row: putBlob, or a derive worker's caller with
 * putSettledBlob, records it after, so a row never names a missing file.
 */
export async function writeFileBlob(dir: string, sha256: string, content: Uint8Array): Promise<string> {
  const temp = await tempPath(dir);
  const handle = await open(temp, "w", 0o600);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await settleFile(dir, sha256, temp);
  return blobPath(dir, sha256);
}

/** Moves a synced temporary file to its blob path and syncs the directory (idempotent). */
async function settleFile(dir: string, sha256: string, temp: string): Promise<void> {
  const folder = join(dir, sha256.slice(0, 2));
  const created = await mkdir(folder, { recursive: true, mode: 0o700 });
  await rename(temp, blobPath(dir, sha256));
  await syncPath(folder);
  // The blob directory itself changed only when the folder is new.
  if (created !== undefined) await syncPath(dir);
}

/** Records a blob's row (its bytes, or empty for a file blob, and its size); an existing row stays. */
export async function insertBlobRow(db: Queryable, sha256: string, content: Uint8Array, size: number): Promise<void> {
  await db.query(
    `insert into public.blobs (sha256, content, size) values ($1, $2, $3)
     on conflict (sha256) do nothing`,
    [sha256, content, size],
  );
}

/**
 * Stores `content`; its sha256. `file`: may be kept as a file (see above). `sha256`: the content's
 * hash when already known (computed off the event loop, e.g. in a derive worker).
 */
export async function putBlob(
  db: Queryable,
  content: Uint8Array,
  options: { file?: boolean; sha256?: string } = {},
): Promise<string> {
  const sha256 = options.sha256 ?? sha256Hex(content);
  const dir = blobDirOf(db);
  if (options.file && dir && content.byteLength >= FILE_THRESHOLD) {
    await writeFileBlob(dir, sha256, content);
    await insertBlobRow(db, sha256, new Uint8Array(0), content.byteLength);
    return sha256;
  }
  await insertBlobRow(db, sha256, content, content.byteLength);
  return sha256;
}

/**
 * Records a blob whose file a derive worker already wrote with `writeFileBlob` (in the blob
 * directory, blobDirOf): only its row is written here.
 */
export async function putSettledBlob(db: Queryable, sha256: string, size: number): Promise<string> {
  await insertBlobRow(db, sha256, new Uint8Array(0), size);
  return sha256;
}

/**
 * Stores a file already written (and synced) at `temp` whose bytes hash to `sha256`, moving it
 * rather than reading it when blobs may be files; otherwise its bytes go into the database and
 * `temp` is removed. `dir`: the blob directory, for a `db` that does not carry it (a transaction).
 */
export async function putBlobFromFile(
  db: Queryable,
  temp: string,
  sha256: string,
  size: number,
  dir = blobDirOf(db),
): Promise<string> {
  if (dir && size >= FILE_THRESHOLD) {
    await settleFile(dir, sha256, temp);
    await insertBlobRow(db, sha256, new Uint8Array(0), size);
    return sha256;
  }
  const content = new Uint8Array(await readFile(temp));
  await rm(temp, { force: true });
  await insertBlobRow(db, sha256, content, size);
  return sha256;
}

let counter = 0;

/** A fresh temporary path in the blob directory's `tmp` folder (same file system: renames are atomic). */
export async function tempPath(dir: string): Promise<string> {
  const folder = join(dir, "tmp");
  await mkdir(folder, { recursive: true, mode: 0o700 });
  return join(folder, `${Date.now().toString(36)}-${process.pid}-${++counter}-${Math.random().toString(36).slice(2)}`);
}

/** Where temporary files for a database's blobs go (its blob directory), or undefined (use the OS's). */
export function blobTempDir(db: Queryable): string | undefined {
  const dir = blobDirOf(db);
  return dir ? join(dir, "tmp") : undefined;
}

/** The path of a blob kept as a file, or undefined when it is in the database (or unknown). */
export async function blobFile(db: Queryable, sha256: string): Promise<string | undefined> {
  const dir = blobDirOf(db);
  if (!dir) return undefined;
  const [row] = await db.query<{ stored: number; size: number }>(
    "select octet_length(content) as stored, size from public.blobs where sha256 = $1",
    [sha256],
  );
  if (!row || !(Number(row.stored) === 0 && Number(row.size) > 0)) return undefined;
  const path = blobPath(dir, sha256);
  try {
    await stat(path);
    return path;
  } catch {
    return undefined;
  }
}

export async function getBlob(db: Queryable, sha256: string): Promise<Uint8Array | undefined> {
  const [row] = await db.query<{ content: Uint8Array; size: number }>(
    "select content, size from public.blobs where sha256 = $1",
    [sha256],
  );
  if (!row) return undefined;
  const dir = blobDirOf(db);
  if (row.content.byteLength === 0 && Number(row.size) > 0 && dir) {
    try {
      return new Uint8Array(await readFile(blobPath(dir, sha256)));
    } catch {
      return undefined;
    }
  }
  return new Uint8Array(row.content);
}

/**
 * The texts of the blobs among `shas` that are kept as files (see above), by sha256: for readers
 * that read blobs with SQL (only the rows' empty content reaches them for these).
 */
export async function fileBlobTexts(db: Queryable, shas: string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  const dir = blobDirOf(db);
  if (!dir || shas.length === 0) return texts;
  const rows = await db.query<{ sha256: string }>(
    "select sha256 from public.blobs where sha256 = any($1::text[]) and size > 0 and octet_length(content) = 0",
    [shas],
  );
  for (const { sha256 } of rows) {
    try {
      texts.set(sha256, await readFile(blobPath(dir, sha256), "utf8"));
    } catch {
      // missing: read as an absent blob
    }
  }
  return texts;
}

/** A blob's content as UTF-8 text (e.g. a long track's polyline), or undefined when it is not stored. */
export async function getBlobText(db: Queryable, sha256: string): Promise<string | undefined> {
  const bytes = await getBlob(db, sha256);
  return bytes ? new TextDecoder().decode(bytes) : undefined;
}

/**
 * The full polyline of an activity's facts, read from its blob when kept as one (server/uploads/
 * polyline-blob.ts); null if missing.
 */
export async function fullPolyline(
  db: Queryable,
  facts: { polyline: string | null; polylineSha256?: string | null },
): Promise<string | null> {
  if (!facts.polylineSha256) return facts.polyline;
  return (await getBlobText(db, facts.polylineSha256)) ?? null;
}

/**
 * Deletes blobs (rows, and the files of file blobs) that nothing names any more: used only by an
 * athlete's erasure (server/accounts/commands.ts), after the log's rewrite. Answers how many went.
 */
export async function deleteBlobs(db: Queryable, shas: string[]): Promise<number> {
  let deleted = 0;
  for (const sha of shas) {
    const file = await blobFile(db, sha);
    const rows = await db.query<{ sha256: string }>("delete from public.blobs where sha256 = $1 returning sha256", [
      sha,
    ]);
    if (file) await rm(file, { force: true });
    deleted += rows.length;
  }
  return deleted;
}

/*
 * The statements below are the blob store's for its readers elsewhere (the heatmap build, the
 * operator's check and copy, an import's blob transfer): `public.blobs` is named in SQL only here
 * and under events/ (its schema, the erasure's rewrite).
 */

/** Which of `shas` have a row. */
export async function storedBlobs(db: Queryable, shas: string[]): Promise<string[]> {
  const rows = await db.query<{ sha256: string }>(
    "select sha256 from public.blobs where sha256 = any($1::text[])",
    [shas],
  );
  return rows.map((r) => r.sha256);
}

/** The next 500 blob names after `after`, in order (a whole store read page by page). */
export async function blobNamesAfter(db: Queryable, after: string): Promise<string[]> {
  const names = await db.query<{ sha256: string }>(
    "select sha256 from public.blobs where sha256 > $1 order by sha256 limit 500",
    [after],
  );
  return names.map((r) => r.sha256);
}

/** A blob's row as the check sees it: its recorded size, the bytes the row holds and their hash. */
export interface BlobDigest {
  sha256: string;
  size: number;
  stored: number;
  /** Hex sha-256 of the row's bytes; null for an empty row of a non-empty blob (a file blob). */
  actual: string | null;
}

/** The rows of `shas`, their bytes hashed by the database (sha256()): no bytes are moved. */
export async function blobDigests(db: Queryable, shas: string[]): Promise<BlobDigest[]> {
  return await db.query<BlobDigest>(
    `select sha256, size, octet_length(content) as stored,
              case when octet_length(content) > 0 or size = 0 then encode(sha256(content), 'hex') end as actual
         from public.blobs where sha256 = any($1::text[])`,
    [shas],
  );
}

/**
 * The rows' contents of `shas` as UTF-8 text, converted in the database (convert_from); fails
 * when one is not UTF-8. The rows of file blobs are empty (fileBlobTexts reads those).
 */
export async function blobRowTexts(db: Queryable, shas: string[]): Promise<{ sha256: string; text: string }[]> {
  return await db.query<{ sha256: string; text: string }>(
    "select sha256, convert_from(content, 'UTF8') as text from public.blobs where sha256 = any($1::text[])",
    [shas],
  );
}

/** The rows' contents of `shas` as bytes. The rows of file blobs are empty (fileBlobTexts reads those). */
export async function blobRowBytes(db: Queryable, shas: string[]): Promise<{ sha256: string; content: Uint8Array }[]> {
  return await db.query<{ sha256: string; content: Uint8Array }>(
    "select sha256, content from public.blobs where sha256 = any($1::text[])",
    [shas],
  );
}

/**
 * For JSON documents (activity streams): the text from the value of the `"latlng":` key on, or null
 * when the document has no such key. The key is found in the bytes (a text search would count
 * characters) and only what follows it is converted and moved; fails when that is not UTF-8.
 */
export async function blobRowLatlngTexts(
  db: Queryable,
  shas: string[],
): Promise<{ sha256: string; latlng: string | null }[]> {
  return await db.query<{ sha256: string; latlng: string | null }>(
    `select sha256, case when p > 0 then convert_from(substring(content from p + 9), 'UTF8') end as latlng
         from (select sha256, content, position('"latlng":'::bytea in content) as p
                 from public.blobs where sha256 = any($1::text[])) b`,
    [shas],
  );
}

/** Deletes a blob's row (for a blob never kept as a file, such as a heatmap's tracks). */
export async function deleteBlobRow(db: Queryable, sha256: string): Promise<void> {
  await db.query("delete from public.blobs where sha256 = $1", [sha256]);
}
