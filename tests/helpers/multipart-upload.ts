import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const POSTER = join(resolve(import.meta.dirname ?? ".", "."), "post-upload.mjs");

/** A multipart/form-data body for POST /v3/uploads, built by hand as one block of bytes. */
export function multipartUpload(
  bytes: Uint8Array,
  fileName: string,
  dataType: string,
): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const boundary = `----upload${Math.random().toString(36).slice(2)}`;
  const head = new TextEncoder().encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="data_type"\r\n\r\n${dataType}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n\r\n`,
  );
  const tail = new TextEncoder().encode(`\r\n--${boundary}--\r\n`);
  const body = new Uint8Array(head.byteLength + bytes.byteLength + tail.byteLength);
  body.set(head, 0);
  body.set(bytes, head.byteLength);
  body.set(tail, head.byteLength + bytes.byteLength);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/**
 * Posts an upload from a separate Node process (tests/helpers/post-upload.mjs): the caller's event
 * loop stays free to time other requests. `path` is where the body is written first. `nice`: the
 * process's niceness (Linux `nice -n`), for a client that should only take what CPU the server leaves.
 */
export function postUploadFromChild(
  url: string,
  token: string,
  upload: { body: Uint8Array; contentType: string },
  path: string,
  options: { nice?: number } = {},
): Promise<{ status: number; body: { id: number } & Record<string, unknown> }> {
  return postUploadFile(url, token, writeUploadBody(upload, path), options);
}

/** An upload's body written to `path` ahead of time (writing 56 MB holds the writer's event loop). */
export interface UploadBodyFile {
  path: string;
  contentType: string;
}

export function writeUploadBody(upload: { body: Uint8Array; contentType: string }, path: string): UploadBodyFile {
  writeFileSync(path, upload.body);
  return { path, contentType: upload.contentType };
}

/** Posts a body written by `writeUploadBody` from a separate Node process (see postUploadFromChild). */
export function postUploadFile(
  url: string,
  token: string,
  file: UploadBodyFile,
  options: { nice?: number } = {},
): Promise<{ status: number; body: { id: number } & Record<string, unknown> }> {
  return new Promise((resolvePost, reject) => {
    const command = ["node", POSTER, url, token, file.contentType, file.path];
    if (options.nice !== undefined) command.unshift("nice", "-n", String(options.nice));
    const child = spawn(command[0], command.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => {
      try {
        resolvePost(JSON.parse(out));
      } catch {
        reject(new Error(`posting the upload failed (exit ${code}): ${err || out}`));
      }
    });
  });
}
