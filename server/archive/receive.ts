/**
 * Receives an archive posted as multipart/form-data (the browser form, API clients) or as a raw
 * application/zip body, streaming the file part to disk: an export of several GB never sits in
 * memory. Text fields before the file (the form's CSRF token) are handed to `beforeFile`, which may
 * refuse before a byte of the file is written. The body is bounded by its own limit
 * (MAX_IMPORT_BYTES, 32 GiB by default), not MAX_BODY_BYTES: a declared Content-Length above it, or
 * above the free space of the inbox's disk, is refused before anything is written; a body that
 * grows past it while arriving is cut there.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { statfs } from "node:fs/promises";
import { dirname } from "node:path";
import { TurnBudget } from "../event-loop-turn.ts";
import { indexOfBytes } from "../http/multipart.ts";
import { concatBytes } from "../../shared/bytes.ts";

export class ReceiveError extends Error {}

/** The archive is larger than the import limit, or than the disk space left (a 413). */
export class ArchiveTooLarge extends Error {
  constructor(readonly code: "too large" | "insufficient disk space", message: string) {
    super(message);
    this.name = "ArchiveTooLarge";
  }
}

/** The default of MAX_IMPORT_BYTES. */
export const DEFAULT_MAX_IMPORT_BYTES = 32 * 1024 ** 3;
/** Disk space kept free beside a received archive (for the database's growth while it is imported). */
export const DISK_RESERVE_BYTES = 256 * 1024 * 1024;

/** POST routes that receive an export archive: exempt from MAX_BODY_BYTES (bounded by MAX_IMPORT_BYTES here). */
export const ARCHIVE_UPLOAD_PATHS: readonly string[] = [
  "/v3/athlete/imports",
  "/api/v3/athlete/imports",
  "/settings/import",
];

export function isArchiveUpload(method: string, path: string): boolean {
  return method === "POST" && ARCHIVE_UPLOAD_PATHS.includes(path.replace(/\/+$/, ""));
}

/**
 * Refuses before reading the body when its declared length is over the limit or over the free
 * space of the inbox's file system (less a reserve). A body without a length is checked as it arrives.
 */
export async function checkDeclaredSize(
  contentLength: string | undefined,
  maxBytes: number,
  path: string,
): Promise<void> {
  const declared = contentLength && /^\d+$/.test(contentLength) ? Number(contentLength) : null;
  if (declared !== null && declared > maxBytes) {
    throw new ArchiveTooLarge(
      "too large",
      `the archive is larger than this server's import limit (${maxBytes} bytes, MAX_IMPORT_BYTES)`,
    );
  }
  let free: number | null = null;
  try {
    const fs = await statfs(dirname(path));
    free = Number(fs.bavail) * Number(fs.bsize);
  } catch {
    // No statfs on this platform: the write itself will fail on a full disk.
  }
  if (free !== null && free - DISK_RESERVE_BYTES < (declared ?? 0)) {
    throw new ArchiveTooLarge(
      "insufficient disk space",
      `not enough disk space for the archive (${Math.max(0, free - DISK_RESERVE_BYTES)} bytes available)`,
    );
  }
}

const MAX_FIELD_BYTES = 64 * 1024;
/** All text fields together (a form of ours sends one, the CSRF token). */
const MAX_FIELDS_BYTES = 256 * 1024;
/** Parts of a form (a form of ours sends two). */
const MAX_PARTS = 64;
const MAX_HEADER_BYTES = 16 * 1024;
/** A boundary line: the boundary, optional transport padding, CRLF. */
const MAX_BOUNDARY_LINE_BYTES = 1024;
/** Bytes before the first boundary (browsers and HTTP clients send none). */
const MAX_PREAMBLE_BYTES = 64 * 1024;
const CRLF = new TextEncoder().encode("\r\n");
const CRLFCRLF = new TextEncoder().encode("\r\n\r\n");

export interface Received {
  fields: Record<string, string>;
  /** The file part's name as sent, and its size; null when no file part came. */
  file: { name: string; bytes: number } | null;
}

function boundaryOf(contentType: string): string | null {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : null;
}

/** The file being written; a write error (a full disk) is kept and thrown by the next write or the close. */
function openOut(path: string): WriteStream {
  const out = createWriteStream(path);
  out.on("error", (error) => ((out as WriteStream & { failure?: Error }).failure = error));
  return out;
}

const failureOf = (out: WriteStream) => (out as WriteStream & { failure?: Error }).failure;

function write(out: WriteStream, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = failureOf(out);
    if (failed) return reject(failed);
    if (out.write(chunk)) return resolve();
    const onDrain = () => {
      out.off("close", onClose);
      resolve();
    };
    const onClose = () => {
      out.off("drain", onDrain);
      reject(failureOf(out) ?? new Error("the archive file was closed"));
    };
    out.once("drain", onDrain);
    out.once("close", onClose);
  });
}

function close(out: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = failureOf(out);
    if (failed || out.destroyed) return failed ? reject(failed) : resolve();
    out.end((error?: Error | null) => (error ?? failureOf(out) ? reject(error ?? failureOf(out)) : resolve()));
  });
}

/** Streams the request body's file (field `fileField`, or the whole raw body) into `path`. */
export async function receiveArchive(
  body: ReadableStream<Uint8Array> | null,
  contentType: string,
  fileField: string,
  path: string,
  beforeFile: (fields: Record<string, string>) => Promise<void> | void = () => {},
  maxBytes = DEFAULT_MAX_IMPORT_BYTES,
): Promise<Received> {
  try {
    return await receiveInto(body, contentType, fileField, path, beforeFile, maxBytes);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOSPC") {
      throw new ArchiveTooLarge("insufficient disk space", "the disk filled up while the archive was received");
    }
    throw error;
  }
}

async function receiveInto(
  body: ReadableStream<Uint8Array> | null,
  contentType: string,
  fileField: string,
  path: string,
  beforeFile: (fields: Record<string, string>) => Promise<void> | void = () => {},
  maxBytes = DEFAULT_MAX_IMPORT_BYTES,
): Promise<Received> {
  if (!body) throw new ReceiveError("no archive was sent");
  let total = 0;
  const count = (chunk: Uint8Array) => {
    total += chunk.length;
    if (total > maxBytes) {
      throw new ArchiveTooLarge(
        "too large",
        `the archive is larger than this server's import limit (${maxBytes} bytes, MAX_IMPORT_BYTES)`,
      );
    }
  };
  if (!/^multipart\/form-data/i.test(contentType)) {
    if (!/^application\/(zip|x-zip-compressed|octet-stream)\b/i.test(contentType)) {
      throw new ReceiveError("send the archive as multipart/form-data (field file) or as application/zip");
    }
    await beforeFile({});
    const out = openOut(path);
    let bytes = 0;
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
        count(chunk);
        bytes += chunk.length;
        await write(out, chunk);
      }
    } finally {
      await close(out);
    }
    return { fields: {}, file: bytes > 0 ? { name: "archive.zip", bytes } : null };
  }
  const boundary = boundaryOf(contentType);
  if (!boundary) throw new ReceiveError("multipart body without a boundary");
  const delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
  const fields: Record<string, string> = {};
  let fieldBytes = 0;
  let parts = 0;
  let file: Received["file"] = null;
  // The body starts with "--boundary": prefixed with CRLF, every boundary is the same delimiter.
  let buf: Uint8Array = CRLF;
  // Bytes at the start of `buf` already searched (in vain) by the current state: each search covers
  // only new bytes plus the overlap a match could straddle, so the work stays linear in the body.
  let searched = 0;
  // Bytes of the preamble (before the first boundary) seen so far.
  let preamble = 0;
  let state: "preamble" | "after-delimiter" | "headers" | "body" | "done" = "preamble";
  let part:
    | { name: string; filename: string | null; out: WriteStream | null; text: Uint8Array[]; size: number }
    | null = null;
  const decoder = new TextDecoder();
  const turn = new TurnBudget();

  const emit = async (data: Uint8Array) => {
    if (!part || data.byteLength === 0) return;
    part.size += data.byteLength;
    if (part.out) await write(part.out, data);
    else {
      // Text fields are small (the form's CSRF token): a large one, or many, is not a form of ours.
      fieldBytes += data.byteLength;
      if (part.size > MAX_FIELD_BYTES || fieldBytes > MAX_FIELDS_BYTES) {
        throw new ReceiveError("a form field is too large");
      }
      part.text.push(data.slice());
    }
  };
  const endPart = async () => {
    if (!part) return;
    if (part.out) {
      await close(part.out);
      file = { name: part.filename ?? "archive.zip", bytes: part.size };
    } else {
      fields[part.name] = decoder.decode(concatBytes(part.text));
    }
    part = null;
  };
  const advance = (n: number) => {
    buf = buf.subarray(n);
    searched = 0;
  };

  const reader = (body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      // Work through what is buffered; read more when a state needs it.
      let needMore = false;
      while (!needMore && state !== "done") {
        if (state === "preamble" || state === "body") {
          const at = indexOfBytes(buf, delimiter, Math.max(0, searched - delimiter.byteLength + 1));
          if (at < 0) {
            // Only the last bytes can still start a delimiter: the rest is the part's (or preamble).
            const keep = delimiter.byteLength - 1;
            if (buf.byteLength > keep) {
              const drop = buf.byteLength - keep;
              if (state === "body") await emit(buf.subarray(0, drop));
              else {
                preamble += drop;
                if (preamble > MAX_PREAMBLE_BYTES) {
                  throw new ReceiveError("no multipart boundary at the start of the body");
                }
              }
              buf = buf.subarray(drop);
            }
            searched = buf.byteLength;
            needMore = true;
          } else {
            if (state === "body") await emit(buf.subarray(0, at));
            await endPart();
            advance(at + delimiter.byteLength);
            state = "after-delimiter";
          }
        } else if (state === "after-delimiter") {
          if (buf.byteLength < 2) needMore = true;
          else if (buf[0] === 0x2d && buf[1] === 0x2d) state = "done";
          else {
            // Optional transport padding, then CRLF: a boundary line is short.
            const eol = indexOfBytes(buf.subarray(0, MAX_BOUNDARY_LINE_BYTES), CRLF);
            if (eol >= 0) {
              advance(eol + 2);
              state = "headers";
            } else if (buf.byteLength >= MAX_BOUNDARY_LINE_BYTES) {
              throw new ReceiveError("a multipart boundary line without a line end");
            } else needMore = true;
          }
        } else if (state === "headers") {
          const end = indexOfBytes(buf.subarray(0, MAX_HEADER_BYTES + 4), CRLFCRLF, Math.max(0, searched - 3));
          if (end < 0) {
            if (buf.byteLength > MAX_HEADER_BYTES) throw new ReceiveError("multipart part headers too long");
            searched = buf.byteLength;
            needMore = true;
            continue;
          }
          if (++parts > MAX_PARTS) throw new ReceiveError("too many parts in the form");
          const headers = decoder.decode(buf.subarray(0, end));
          advance(end + 4);
          const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? "";
          const name = /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? "";
          const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
          let out: WriteStream | null = null;
          if (name === fileField && filename !== null) {
            if (file) throw new ReceiveError("more than one archive was sent");
            await beforeFile(fields);
            out = openOut(path);
          }
          part = { name, filename, out, text: [], size: 0 };
          state = "body";
        }
      }
      if (state === "done") break;
      // A fast client's chunks resolve back to back: other requests get their turns in between.
      await turn.spent();
      const next = await reader.next();
      if (next.done) throw new ReceiveError("the upload ended before the archive was complete");
      const chunk = next.value as Uint8Array;
      count(chunk);
      if (chunk.byteLength === 0) continue;
      // What is buffered is short (a delimiter's length, or a header block): the copy is bounded.
      buf = buf.byteLength ? concatBytes([buf, chunk]) : chunk;
    }
  } catch (error) {
    const open = part as { out: WriteStream | null } | null;
    if (open?.out) await close(open.out).catch(() => {});
    await reader.return?.().catch(() => {});
    throw error;
  }
  return { fields, file };
}
