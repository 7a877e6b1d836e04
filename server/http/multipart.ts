import { createHash, type Hash } from "node:crypto";
import { mkdir, open, readFile, rm } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { TurnBudget } from "../event-loop-turn.ts";
import { concatBytes } from "../../shared/bytes.ts";

/**
 * A streaming multipart/form-data reader. The runtime's `formData()` parses the whole body in the
 * server's thread (about 1.1 s for a 56 MB upload, during which no other request is answered) and
 * keeps it in memory. Here the body is read chunk by chunk: the boundary is found with the typed
 * array search `indexOfBytes` (Deno's Buffer.indexOf is a JavaScript loop that took
 * 1.1 s of the event loop per 56 MB), bytes are copied only natively (no Buffer), text fields
 * are kept (decoded as UTF-8), and a file part larger than `SPOOL_ABOVE` is written to a
 * temporary file as it arrives (a `SpooledFile`: a File whose bytes are on disk). Temporary files
 * that nobody moved are removed when the request ends (`removeSpooled`).
 */
export const SPOOL_ABOVE = 1024 * 1024;
const WRITE_BATCH = 1024 * 1024;
const SYNC_EVERY = 8 * 1024 * 1024;

/**
 * A file part kept on disk. `arrayBuffer()` reads it; `path` can be moved (renamed) instead.
 * `sha256`: the hex SHA-256 of its bytes, hashed a batch at a time as they arrived, between network
 * reads (hashing the 56 MB file afterwards held the event loop 25–50 ms at a stretch).
 */
export class SpooledFile extends File {
  readonly path: string;
  readonly sha256: string;
  readonly #size: number;
  constructor(path: string, size: number, name: string, type: string, sha256: string) {
    super([], name, { type });
    this.path = path;
    this.#size = size;
    this.sha256 = sha256;
  }
  override get size(): number {
    return this.#size;
  }
  override async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await readFile(this.path);
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(await this.arrayBuffer());
  }
  override async text(): Promise<string> {
    return await readFile(this.path, "utf8");
  }
}

/** A malformed multipart body (the caller answers 400). */
export class MultipartError extends Error {}

/** The body exceeded the allowed size (the caller answers 413). */
export class MultipartTooLarge extends Error {
  readonly status = 413;
}

/** The boundary of a multipart/form-data content type, or undefined. */
export function boundaryOf(contentType: string): string | undefined {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  return boundary && boundary.length <= 200 ? boundary : undefined;
}

interface PartHeaders {
  name: string;
  filename: string | null;
  type: string;
}

function parseHeaders(text: string): PartHeaders {
  let name: string | null = null;
  let filename: string | null = null;
  let type = "";
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-disposition") {
      name = param(value, "name");
      filename = param(value, "filename");
    } else if (key === "content-type") {
      type = value;
    }
  }
  if (name === null) throw new MultipartError("a part without a name");
  return { name, filename, type };
}

function param(value: string, key: string): string | null {
  const re = new RegExp(`(?:^|;)\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, "i");
  const m = re.exec(value);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : m[2].trim();
}

/**
 * The first index at or after `from` where `needle` occurs in `hay`, or -1: Boyer-Moore-Horspool,
 * which steps a needle's length at a time past bytes the needle does not contain (a boundary is
 * 40-odd bytes: 56 MB are searched in tens of milliseconds, whatever the file holds).
 */
export function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const n = needle.byteLength;
  if (n === 0) return from <= hay.byteLength ? from : -1;
  const skip = skipTable(needle);
  const lastByte = needle[n - 1];
  for (let i = from + n - 1; i < hay.byteLength; i += skip[hay[i]]) {
    if (hay[i] !== lastByte) continue;
    let j = n - 2;
    let k = i - 1;
    while (j >= 0 && hay[k] === needle[j]) {
      j--;
      k--;
    }
    if (j < 0) return k + 1;
  }
  return -1;
}

const skipTables = new WeakMap<Uint8Array, Uint32Array>();
function skipTable(needle: Uint8Array): Uint32Array {
  let table = skipTables.get(needle);
  if (!table) {
    const n = needle.byteLength;
    table = new Uint32Array(256).fill(n);
    for (let i = 0; i < n - 1; i++) table[needle[i]] = n - 1 - i;
    skipTables.set(needle, table);
  }
  return table;
}

const CRLF = new TextEncoder().encode("\r\n");
const CRLFCRLF = new TextEncoder().encode("\r\n\r\n");

/** The file a large part is spooled to: written, synced and closed. */
interface SpoolFile {
  write(bytes: Uint8Array): Promise<void>;
  datasync(): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

interface DenoFile {
  write(p: Uint8Array): Promise<number>;
  syncData(): Promise<void>;
  sync(): Promise<void>;
  close(): void;
}
const deno =
  (globalThis as { Deno?: { open(path: string, options: Record<string, unknown>): Promise<DenoFile> } }).Deno;

/**
 * On Deno its own file API, whose writes run on the runtime's blocking-I/O threads: node:fs
 * writes there held the event loop while the disk was busy (1.4 s per 56 MB upload, loaded
 * machine). Elsewhere (Node, the in-process tests) node:fs.
 */
async function openSpool(path: string): Promise<SpoolFile> {
  if (deno) {
    const file = await deno.open(path, { write: true, createNew: true, mode: 0o600 });
    return {
      async write(bytes) {
        for (let at = 0; at < bytes.byteLength;) at += await file.write(bytes.subarray(at));
      },
      datasync: () => file.syncData(),
      sync: () => file.sync(),
      close: async () => file.close(),
    };
  }
  const handle: FileHandle = await open(path, "w", 0o600);
  return {
    write: async (bytes) => void await handle.writeFile(bytes),
    datasync: () => handle.datasync(),
    sync: () => handle.sync(),
    close: () => handle.close(),
  };
}

let counter = 0;
function tempName(dir: string): string {
  return join(
    dir,
    `upload-${process.pid}-${Date.now().toString(36)}-${++counter}-${Math.random().toString(36).slice(2)}`,
  );
}

/**
 * One file part being received: in memory until it passes SPOOL_ABOVE, then on disk. Its bytes are
 * copied once, into one batch buffer that is written (1 MiB at a time) and reused: a fresh buffer per
 * network chunk or per write made the event loop collect garbage for seconds per large upload.
 */
class FilePart {
  batch = new Uint8Array(WRITE_BATCH);
  fill = 0;
  unsynced = 0;
  size = 0;
  handle: SpoolFile | null = null;
  path: string | null = null;
  /** Every byte of the part passes through `flush` once the part spools: hashed there. */
  readonly hash: Hash = createHash("sha256");
  constructor(readonly headers: PartHeaders, readonly dir: string, readonly created: string[]) {}

  async write(chunk: Uint8Array): Promise<void> {
    if (chunk.byteLength === 0) return;
    this.size += chunk.byteLength;
    if (!this.handle && this.size > SPOOL_ABOVE) {
      this.path = tempName(this.dir);
      this.created.push(this.path);
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      this.handle = await openSpool(this.path);
    }
    // Written 1 MiB at a time: a write per network chunk (16-64 kB) would be thousands of file
    // system calls, each a round trip through the runtime's I/O threads. (Until the part passes
    // SPOOL_ABOVE, which is at most the batch, it stays in the batch.)
    while (chunk.byteLength > 0) {
      const n = Math.min(chunk.byteLength, this.batch.byteLength - this.fill);
      this.batch.set(n === chunk.byteLength ? chunk : chunk.subarray(0, n), this.fill);
      this.fill += n;
      chunk = chunk.subarray(n);
      if (this.fill === this.batch.byteLength) await this.flush();
    }
  }

  async flush(): Promise<void> {
    if (!this.handle || this.fill === 0) return;
    const length = this.fill;
    this.hash.update(this.batch.subarray(0, length));
    // Awaited before the batch is filled again.
    await this.handle.write(this.batch.subarray(0, length));
    this.fill = 0;
    // Synced as it grows: a 56 MB backlog of dirty pages synced at once made every other sync of
    // the process (the WAL's, some of them synchronous) wait behind it.
    this.unsynced += length;
    if (this.unsynced >= SYNC_EVERY) {
      this.unsynced = 0;
      await this.handle.datasync();
    }
  }

  async finish(): Promise<File> {
    const name = this.headers.filename ?? "";
    const type = this.headers.type || "application/octet-stream";
    if (this.handle) {
      await this.flush();
      await this.handle.sync();
      await this.handle.close();
      this.handle = null;
      return new SpooledFile(this.path!, this.size, name, type, this.hash.digest("hex"));
    }
    return new File([this.batch.slice(0, this.fill)], name, { type });
  }

  async abort(): Promise<void> {
    await this.handle?.close().catch(() => {});
    this.handle = null;
  }
}

/** Bytes before the first boundary, at most (browsers and HTTP clients send none). */
const MAX_PREAMBLE = 64 * 1024;

/** Bytes asked for per read of a byte stream. */
const READ_CHUNK = 256 * 1024;

interface ChunkReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  /** Whether `bytes` lie in the buffer the next read fills (copy them first to keep them). */
  owns(bytes: Uint8Array): boolean;
  cancel(): Promise<void>;
}

/**
 * The body's chunks, read into one reused buffer when the body is a byte stream (Deno's request
 * bodies are): a default reader gets a fresh 64 kB ArrayBuffer per chunk, and 56 MB of them made
 * V8 run a full mark-compact of the server's heap (20–50 ms, nothing else answered) about once
 * per upload. Other streams (tests building bodies by hand) are read as they come.
 */
function chunkReader(body: ReadableStream<Uint8Array>): ChunkReader {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = body.getReader({ mode: "byob" });
  } catch {
    const reader = body.getReader();
    return {
      read: async () => {
        const { done, value } = await reader.read();
        return done ? { done: true } : { done: false, value };
      },
      owns: () => false,
      cancel: () => reader.cancel(),
    };
  }
  let space = new ArrayBuffer(READ_CHUNK);
  return {
    async read() {
      const { done, value } = await byob.read(new Uint8Array(space));
      if (done || !value) return { done: true };
      space = value.buffer as ArrayBuffer;
      return { done: false, value };
    },
    owns: (bytes) => bytes.buffer === space,
    cancel: () => byob.cancel(),
  };
}

/**
 * Reads a multipart/form-data body into fields (the last value of a name wins) and files.
 * `created` receives every temporary file made, for removal when the request ends.
 */
export async function readMultipart(
  body: ReadableStream<Uint8Array> | null,
  boundary: string,
  options: { dir?: string; maxBytes: number; created: string[] },
): Promise<Record<string, string | File>> {
  const dir = options.dir ?? tmpdir();
  const result: Record<string, string | File> = {};
  if (!body) return result;
  const opening = new TextEncoder().encode(`--${boundary}`);
  const delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
  const reader = chunkReader(body);
  let buf: Uint8Array = new Uint8Array(0);
  let total = 0;
  let preamble = 0;
  let state: "preamble" | "after-boundary" | "headers" | "body" | "done" = "preamble";
  let text: Uint8Array[] = [];
  let textSize = 0;
  let headers: PartHeaders | null = null;
  let file: FilePart | null = null;
  const decoder = new TextDecoder();
  let ended = false;
  const turn = new TurnBudget();

  const endPart = async () => {
    if (!headers) return;
    if (file) result[headers.name] = await file.finish();
    else result[headers.name] = decoder.decode(concatBytes(text.length ? text : [new Uint8Array(0)]));
    headers = null;
    file = null;
    text = [];
    textSize = 0;
  };
  const emit = async (chunk: Uint8Array) => {
    if (file) await file.write(chunk);
    else {
      textSize += chunk.byteLength;
      if (textSize > SPOOL_ABOVE) throw new MultipartError("a text field is too large");
      text.push(chunk.slice());
    }
  };

  try {
    for (;;) {
      // Work on what is buffered; read more only when a state needs it.
      let progressed = true;
      while (progressed && state !== "done") {
        progressed = false;
        if (state === "preamble") {
          const at = indexOfBytes(buf, opening);
          if (at >= 0) {
            buf = buf.subarray(at + opening.length);
            state = "after-boundary";
            progressed = true;
          } else if (buf.byteLength > opening.length) {
            // A body that never sends its boundary is refused once past a preamble's size (clients
            // send none), not read to its end.
            preamble += buf.byteLength - opening.length;
            if (preamble > MAX_PREAMBLE) throw new MultipartError("no boundary at the start of the body");
            buf = buf.subarray(buf.byteLength - opening.length);
          }
        } else if (state === "after-boundary") {
          if (buf.byteLength >= 2) {
            if (buf[0] === 0x2d && buf[1] === 0x2d) {
              state = "done";
            } else {
              // Optional transport padding, then CRLF.
              const eol = indexOfBytes(buf, CRLF);
              if (eol < 0) {
                if (buf.byteLength > 256) throw new MultipartError("no line end after a boundary");
                break;
              }
              buf = buf.subarray(eol + 2);
              state = "headers";
              progressed = true;
            }
          }
        } else if (state === "headers") {
          const end = indexOfBytes(buf, CRLFCRLF);
          if (end >= 0) {
            headers = parseHeaders(decoder.decode(buf.subarray(0, end)));
            buf = buf.subarray(end + 4);
            file = headers.filename !== null ? new FilePart(headers, dir, options.created) : null;
            state = "body";
            progressed = true;
          } else if (buf.byteLength > 16 * 1024) {
            throw new MultipartError("part headers too long");
          }
        } else if (state === "body") {
          const at = indexOfBytes(buf, delimiter);
          if (at >= 0) {
            await emit(buf.subarray(0, at));
            await endPart();
            buf = buf.subarray(at + delimiter.length);
            state = "after-boundary";
            progressed = true;
          } else if (buf.byteLength > delimiter.length) {
            const keep = delimiter.length;
            await emit(buf.subarray(0, buf.byteLength - keep));
            buf = buf.subarray(buf.byteLength - keep);
          }
        }
      }
      if (state === "done") break;
      if (ended) throw new MultipartError("the body ended inside the form");
      await turn.spent();
      // What is left of the last chunk is copied before its buffer is read into again.
      if (reader.owns(buf)) buf = buf.slice();
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        continue;
      }
      total += value.byteLength;
      if (total > options.maxBytes) throw new MultipartTooLarge("the body is too large");
      if (
        state === "body" && buf.byteLength > 0 && buf.byteLength <= delimiter.length &&
        value.byteLength >= delimiter.length
      ) {
        // In a part's body, what is buffered is only the tail kept in case a delimiter starts in
        // it: when the tail and the chunk's first bytes hold none, the tail is the part's and the
        // chunk is searched as it is (no copy of every chunk into a new buffer).
        const joint = concatBytes([buf, value.subarray(0, delimiter.length)]);
        if (indexOfBytes(joint, delimiter) < 0) {
          await emit(buf);
          buf = value;
          continue;
        }
      }
      buf = buf.byteLength === 0 ? value : concatBytes([buf, value]);
    }
    await reader.cancel().catch(() => {});
    return result;
  } catch (error) {
    await (file as FilePart | null)?.abort();
    await reader.cancel().catch(() => {});
    throw error;
  }
}

/** Removes temporary files of a request (those moved elsewhere are already gone). */
export async function removeSpooled(paths: string[]): Promise<void> {
  for (const path of paths.splice(0)) await rm(path, { force: true }).catch(() => {});
}
