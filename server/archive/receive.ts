/**
 * Receives an archive posted as multipart/form-data (the browser form, API clients) or as a raw
 * application/zip body, streaming the file part to disk: an export of several GB never sits in
 * memory. Text fields before the file (the form's CSRF token) are handed to `beforeFile`, which may
 * refuse before a byte of the file is written.
 */
import { createWriteStream, type WriteStream } from "node:fs";

export class ReceiveError extends Error {}

const MAX_FIELD_BYTES = 64 * 1024;
const MAX_HEADER_BYTES = 16 * 1024;

export interface Received {
  fields: Record<string, string>;
  /** The file part's name as sent, and its size; null when no file part came. */
  file: { name: string; bytes: number } | null;
}

function boundaryOf(contentType: string): string | null {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : null;
}

function write(out: WriteStream, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.write(chunk)) resolve();
    else {
      out.once("drain", resolve);
      out.once("error", reject);
    }
  });
}

function close(out: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/** Streams the request body's file (field `fileField`, or the whole raw body) into `path`. */
export async function receiveArchive(
  body: ReadableStream<Uint8Array> | null,
  contentType: string,
  fileField: string,
  path: string,
  beforeFile: (fields: Record<string, string>) => Promise<void> | void = () => {},
): Promise<Received> {
  if (!body) throw new ReceiveError("no archive was sent");
  if (!/^multipart\/form-data/i.test(contentType)) {
    if (!/^application\/(zip|x-zip-compressed|octet-stream)\b/i.test(contentType)) {
      throw new ReceiveError("send the archive as multipart/form-data (field file) or as application/zip");
    }
    await beforeFile({});
    const out = createWriteStream(path);
    let bytes = 0;
    try {
      for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
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
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const fields: Record<string, string> = {};
  let file: Received["file"] = null;
  // The body starts with "--boundary": prefixed with CRLF, every boundary is the same delimiter.
  let buffer: Buffer = Buffer.from("\r\n");
  let state: "preamble" | "after-delimiter" | "headers" | "body" | "done" = "preamble";
  let part: { name: string; filename: string | null; out: WriteStream | null; text: Buffer[]; size: number } | null = null;

  const emit = async (data: Buffer) => {
    if (!part || data.length === 0) return;
    part.size += data.length;
    if (part.out) await write(part.out, data);
    else if (part.size <= MAX_FIELD_BYTES) part.text.push(data);
  };
  const endPart = async () => {
    if (!part) return;
    if (part.out) {
      await close(part.out);
      file = { name: part.filename ?? "archive.zip", bytes: part.size };
    } else if (part.size <= MAX_FIELD_BYTES) {
      fields[part.name] = Buffer.concat(part.text).toString("utf8");
    }
    part = null;
  };

  const reader = (body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      // Work through what is buffered; read more when a state needs it.
      let needMore = false;
      while (!needMore && state !== "done") {
        if (state === "preamble" || state === "body") {
          const at = buffer.indexOf(delimiter);
          if (at < 0) {
            const keep = delimiter.length - 1;
            if (state === "body" && buffer.length > keep) {
              await emit(buffer.subarray(0, buffer.length - keep));
              buffer = Buffer.from(buffer.subarray(buffer.length - keep));
            }
            needMore = true;
          } else {
            if (state === "body") await emit(buffer.subarray(0, at));
            await endPart();
            buffer = Buffer.from(buffer.subarray(at + delimiter.length));
            state = "after-delimiter";
          }
        } else if (state === "after-delimiter") {
          if (buffer.length < 2) needMore = true;
          else if (buffer[0] === 0x2d && buffer[1] === 0x2d) state = "done";
          else if (buffer.indexOf("\r\n") < 0) needMore = true;
          else {
            buffer = Buffer.from(buffer.subarray(buffer.indexOf("\r\n") + 2));
            state = "headers";
          }
        } else if (state === "headers") {
          const end = buffer.indexOf("\r\n\r\n");
          if (end < 0) {
            if (buffer.length > MAX_HEADER_BYTES) throw new ReceiveError("multipart part headers too long");
            needMore = true;
            continue;
          }
          const headers = buffer.subarray(0, end).toString("utf8");
          buffer = Buffer.from(buffer.subarray(end + 4));
          const disposition = /content-disposition:([^\r\n]*)/i.exec(headers)?.[1] ?? "";
          const name = /\bname="([^"]*)"/i.exec(disposition)?.[1] ?? "";
          const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
          let out: WriteStream | null = null;
          if (name === fileField && filename !== null) {
            if (file) throw new ReceiveError("more than one archive was sent");
            await beforeFile(fields);
            out = createWriteStream(path);
          }
          part = { name, filename, out, text: [], size: 0 };
          state = "body";
        }
      }
      if (state === "done") break;
      const next = await reader.next();
      if (next.done) throw new ReceiveError("the upload ended before the archive was complete");
      buffer = buffer.length ? Buffer.concat([buffer, Buffer.from(next.value)]) : Buffer.from(next.value);
    }
  } catch (error) {
    const open = part as { out: WriteStream | null } | null;
    if (open?.out) await close(open.out).catch(() => {});
    throw error;
  }
  return { fields, file };
}
