import { createHash } from "node:crypto";
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { join } from "node:path";
import type { Queryable } from "../../events/db/types.ts";
import {
  blobFile,
  FILE_THRESHOLD,
  getBlob,
  insertBlobRow,
  putBlobFromFile,
  storedBlobs,
  tempPath,
  writeFileBlob,
} from "../blobs.ts";
import type { BlobProblem, NamedBlobs } from "./blob-check.ts";
import { syncFolder, writeSynced } from "./durable-file.ts";

/**
 * Blobs carried beside an export file: `FILE.blobs/<sha256>`, one file per blob the exported
 * events name, so that `import FILE` brings the events and their blobs (streams, original files,
 * photos, pictures, heatmap tracks) into any store.
 */
export function blobDirBeside(file: string): string {
  return `${file}.blobs`;
}

/** A blob named by the events is not in the store it should be read from. */
export class MissingBlobsError extends Error {
  constructor(readonly problems: BlobProblem[], lead: string) {
    super(`${lead}\n${describe(problems)}`);
  }
}

function describe(problems: BlobProblem[]): string {
  const lines: string[] = [];
  for (const p of problems.slice(0, 20)) {
    const events = p.events.map((e) => `${e.type} at position ${e.position}`).join(", ");
    lines.push(
      `  ${p.sha256} (${p.detail}), named by ${p.eventCount} event${p.eventCount === 1 ? "" : "s"}: ${events}${
        p.eventCount > p.events.length ? ", …" : ""
      }`,
    );
  }
  if (problems.length > 20) lines.push(`  … and ${problems.length - 20} more blobs`);
  return lines.join("\n");
}

function problem(named: NamedBlobs, sha256: string, kind: BlobProblem["problem"], detail: string): BlobProblem {
  const entry = named.get(sha256)!;
  return { sha256, problem: kind, detail, eventCount: entry.count, events: entry.events };
}

const sha256Of = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The sha-256 of a file, read as a stream (a blob file can be tens of MB; memory stays a buffer). */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Uint8Array);
  return hash.digest("hex");
}

/** Copies a file to `target` through a stream, synced; the copy's sha-256. */
async function copyHashed(source: string, target: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(
    createReadStream(source, { highWaterMark: 1024 * 1024 }),
    new Transform({
      transform(chunk: Uint8Array, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    }),
    createWriteStream(target, { mode: 0o600 }),
  );
  const fd = openSync(target, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/**
 * Writes every named blob from the store `db` into `dir` (created when absent; a file already
 * there with the right bytes is kept). Refuses, naming them, when the store lacks some: an export
 * never leaves out a blob silently.
 */
export async function writeBlobsTo(
  db: Queryable,
  dir: string,
  named: NamedBlobs,
): Promise<{ blobs: number; bytes: number }> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const missing: BlobProblem[] = [];
  let bytes = 0;
  for (const sha of [...named.keys()].sort()) {
    const path = join(dir, sha);
    if (existsSync(path) && await hashFile(path) === sha) {
      bytes += statSync(path).size;
      continue;
    }
    // A blob kept as a file (the embedded store's large ones) is copied as a stream, never read whole.
    const file = await blobFile(db, sha);
    if (file) {
      const partial = `${path}.partial`;
      if (await copyHashed(file, partial) !== sha) {
        rmSync(partial, { force: true });
        missing.push(problem(named, sha, "corrupt", "its stored bytes do not match its sha-256"));
        continue;
      }
      renameSync(partial, path);
      bytes += statSync(path).size;
      continue;
    }
    const content = await getBlob(db, sha);
    if (!content) {
      missing.push(problem(named, sha, "missing", "not in this store"));
      continue;
    }
    if (sha256Of(content) !== sha) {
      missing.push(problem(named, sha, "corrupt", "its stored bytes do not match its sha-256"));
      continue;
    }
    writeSynced(path, content);
    bytes += content.byteLength;
  }
  if (missing.length) {
    throw new MissingBlobsError(
      missing,
      `${missing.length} blobs named by the exported events cannot be read from this store (see cli verify):`,
    );
  }
  syncFolder(dir);
  return { blobs: named.size, bytes };
}

/**
 * Stores one blob whose bytes are known to hash to `sha256`, inside the caller's transaction:
 * a file beside the embedded database for a large one when `fileDir` is given (server/blobs.ts),
 * else a row.
 */
export async function storeBlob(
  tx: Queryable,
  fileDir: string | undefined,
  sha256: string,
  content: Uint8Array,
): Promise<void> {
  const asFile = fileDir !== undefined && content.byteLength >= FILE_THRESHOLD;
  if (asFile) await writeFileBlob(fileDir, sha256, content);
  await insertBlobRow(tx, sha256, asFile ? new Uint8Array(0) : content, content.byteLength);
}

/**
 * For an import: every named blob must be in the store already or in `dir` with the right bytes;
 * otherwise MissingBlobsError names them (and the events that need them) before anything is
 * stored. Then the ones from `dir` are stored in the caller's transaction. Answers how many came
 * from `dir` and their bytes.
 */
export async function bringBlobs(
  tx: Queryable,
  fileDir: string | undefined,
  dir: string,
  named: NamedBlobs,
  source: string,
): Promise<{ blobs: number; bytes: number }> {
  const shas = [...named.keys()].sort();
  const present = new Set<string>();
  for (let i = 0; i < shas.length; i += 500) {
    for (const sha of await storedBlobs(tx, shas.slice(i, i + 500))) present.add(sha);
  }
  const wanted = shas.filter((sha) => !present.has(sha));
  const problems: BlobProblem[] = [];
  for (const sha of wanted) {
    const path = join(dir, sha);
    if (!existsSync(path)) {
      problems.push(problem(named, sha, "missing", existsSync(dir) ? `not in ${dir}` : `no ${dir} beside ${source}`));
      continue;
    }
    if (await hashFile(path) !== sha) {
      problems.push(problem(named, sha, "corrupt", `${path} does not hash to its name`));
    }
  }
  if (problems.length) {
    throw new MissingBlobsError(
      problems,
      `${source}: ${problems.length} blobs named by its events cannot be brought (export to a file with --out: the blobs go to FILE.blobs/); nothing was imported:`,
    );
  }
  let bytes = 0;
  const changed = (sha: string) =>
    new MissingBlobsError(
      [problem(named, sha, "corrupt", "changed while importing")],
      `${source}: nothing was imported:`,
    );
  for (const sha of wanted) {
    const path = join(dir, sha);
    const size = statSync(path).size;
    if (fileDir !== undefined && size >= FILE_THRESHOLD) {
      // A large blob becomes a file of the embedded store: copied as a stream into its blob
      // directory, checked again as copied (the directory may change meanwhile), then moved into place.
      const temp = await tempPath(fileDir);
      if (await copyHashed(path, temp) !== sha) {
        rmSync(temp, { force: true });
        throw changed(sha);
      }
      // The transaction does not carry the blob directory: named, so the file is moved into place
      // (without it, each blob was read whole and stored as a row at ~6 MB/s).
      await putBlobFromFile(tx, temp, sha, size, fileDir);
    } else {
      const content = new Uint8Array(readFileSync(path));
      // Checked above; checked again as read (the directory may change meanwhile).
      if (sha256Of(content) !== sha) throw changed(sha);
      await storeBlob(tx, fileDir, sha, content);
    }
    bytes += size;
  }
  return { blobs: wanted.length, bytes };
}
