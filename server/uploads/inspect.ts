import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { TurnBudget } from "../event-loop-turn.ts";
import { createGunzip } from "node:zlib";
import { type DataType, inflate, sniff, TooLargeError } from "../ingest/decode.ts";
import { IngestError } from "../ingest/types.ts";

/** What submission learns of a file: both hashes (as received, and decompressed). */
export interface Inspected {
  originalSha256: string;
  contentSha256: string;
}

const HEAD = 8192;

/**
 * The checks of submission on bytes in memory (small files): inflate, sniff, both hashes.
 * Throws TooLargeError / IngestError as `inflate` and `sniff` do.
 */
export function inspectBytes(bytes: Uint8Array, dataType: DataType, limit: number): Inspected {
  const content = inflate(bytes, dataType, limit);
  sniff(content, dataType);
  const originalSha256 = createHash("sha256").update(bytes).digest("hex");
  const contentSha256 = content === bytes ? originalSha256 : createHash("sha256").update(content).digest("hex");
  return { originalSha256, contentSha256 };
}

/** The first `HEAD` bytes of a file (fewer when it is shorter). */
async function readHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, "r");
  try {
    const head = new Uint8Array(HEAD);
    const { bytesRead } = await handle.read(head, 0, HEAD, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * The same checks on a file on disk, streamed: read 256 kB at a time (by the runtime's I/O
 * threads), hashed and, for .gz, inflated chunk by chunk, yielding to other requests once a turn
 * has run 4 ms (TurnBudget), so the event loop is never held for long and the file is never in memory
 * whole. Only the first 8 kB of content are kept (the sniff). `knownSha256`: the file's hash,
 * computed as it was received (multipart spooling); a plain file is then only sniffed, not read again.
 */
export async function inspectFile(
  path: string,
  size: number,
  dataType: DataType,
  limit: number,
  knownSha256?: string,
): Promise<Inspected> {
  const gz = dataType.endsWith(".gz");
  if (!gz && size > limit) throw new TooLargeError(limit);
  if (!gz && knownSha256) {
    if (size === 0) throw new IngestError("The file is empty.");
    sniff(await readHead(path), dataType);
    return { originalSha256: knownSha256, contentSha256: knownSha256 };
  }
  const original = createHash("sha256");
  // Reads from the page cache resolve back to back: other requests get turns in between.
  const turn = new TurnBudget();
  const content = gz ? createHash("sha256") : original;
  const head: Uint8Array[] = [];
  let headSize = 0;
  let inflated = 0;
  let first: Uint8Array | null = null;
  const keepHead = (chunk: Uint8Array) => {
    if (headSize >= HEAD) return;
    head.push(chunk.subarray(0, HEAD - headSize));
    headSize += Math.min(chunk.byteLength, HEAD - headSize);
  };

  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  if (!gz) {
    for await (const chunk of file as AsyncIterable<Uint8Array>) {
      original.update(chunk);
      keepHead(chunk);
      await turn.spent();
    }
  } else {
    const gunzip = createGunzip();
    gunzip.on("error", () => {}); // surfaced by the iteration below
    let stopped = false;
    const inflating = (async () => {
      for await (const chunk of gunzip as AsyncIterable<Uint8Array>) {
        inflated += chunk.byteLength;
        if (inflated > limit) throw new TooLargeError(limit);
        content.update(chunk);
        keepHead(chunk);
      }
    })();
    inflating.catch(() => {
      stopped = true;
    });
    try {
      for await (const chunk of file as AsyncIterable<Uint8Array>) {
        if (!first) {
          first = chunk;
          if (chunk.byteLength < 2 || chunk[0] !== 0x1f || chunk[1] !== 0x8b) {
            throw new IngestError(`The file is not gzip-compressed, but data_type is ${dataType}.`);
          }
        }
        if (!knownSha256) original.update(chunk);
        if (stopped) break;
        if (!gunzip.write(chunk)) {
          await new Promise<void>((resolve, reject) => {
            const done = () => {
              gunzip.off("error", fail);
              gunzip.off("drain", done);
              gunzip.off("close", done);
              resolve();
            };
            const fail = (e: Error) => {
              gunzip.off("drain", done);
              reject(e);
            };
            gunzip.once("drain", done);
            gunzip.once("close", done);
            gunzip.once("error", fail);
          });
        }
        await turn.spent();
      }
      if (!first) throw new IngestError(`The file is not gzip-compressed, but data_type is ${dataType}.`);
      gunzip.end();
      await inflating;
    } catch (error) {
      gunzip.destroy();
      file.destroy();
      if (error instanceof TooLargeError || error instanceof IngestError) throw error;
      // The inflating side may have failed first (too large): report that.
      const inner = await inflating.then(() => null, (e) => e);
      if (inner instanceof TooLargeError) throw inner;
      throw new IngestError(`The gzip data is corrupt: ${(error as Error).message}.`);
    }
  }
  const headBytes = new Uint8Array(headSize);
  let at = 0;
  for (const h of head) {
    headBytes.set(h, at);
    at += h.byteLength;
  }
  // sniff needs the start of the content and whether it is empty.
  if ((gz ? inflated : size) === 0) throw new IngestError("The file is empty.");
  sniff(headBytes, dataType);
  const originalSha256 = knownSha256 ?? original.digest("hex");
  return { originalSha256, contentSha256: gz ? content.digest("hex") : originalSha256 };
}
