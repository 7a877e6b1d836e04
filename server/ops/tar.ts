import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, type Dirent, readdirSync, statSync } from "node:fs";
import { type FileHandle, mkdir, open } from "node:fs/promises";
import { join, posix, resolve, sep } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";

/**
 * Gzipped tar files of a directory, written and read as streams (issue #43 item 5): memory stays a
 * few buffers whatever the directory's size. The format is POSIX ustar (names up to 255 bytes with
 * the prefix field; sizes past 8 GiB in GNU's base-256 form), directories and regular files only.
 * Reading also takes what PGlite's own dumpDataDir wrote (names with a leading "/"), so backups
 * taken by earlier versions restore.
 */

const BLOCK = 512;
const ZEROS = new Uint8Array(BLOCK * 2);

/** A tar file that cannot be unpacked (corrupt, truncated, or an entry that is not ours to write). */
export class TarError extends Error {}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

/** A header block; `size` past 8^11 − 1 bytes goes in base-256 (GNU). */
function header(name: string, type: "0" | "5", size: number, mode: number, mtime: number): Uint8Array {
  const block = new Uint8Array(BLOCK);
  const enc = new TextEncoder();
  let prefix = "";
  let base = name;
  if (enc.encode(name).length > 100) {
    const cut = name.lastIndexOf("/", name.length - 2);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (cut <= 0 || enc.encode(base).length > 100 || enc.encode(prefix).length > 155) {
      throw new TarError(`${name}: a path this long does not fit a tar header`);
    }
  }
  const put = (text: string, offset: number) => block.set(enc.encode(text), offset);
  put(base, 0);
  put(octal(mode & 0o7777, 8), 100);
  put(octal(0, 8), 108);
  put(octal(0, 8), 116);
  if (size < 8 ** 11) put(octal(size, 12), 124);
  else {
    block[124] = 0x80;
    let n = BigInt(size);
    for (let i = 135; i > 124; i--, n >>= 8n) block[i] = Number(n & 0xffn);
  }
  put(octal(Math.floor(mtime / 1000), 12), 136);
  put("        ", 148);
  put(type, 156);
  put("ustar\x0000", 257);
  put(prefix, 345);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(octal(sum, 7) + " ", 148);
  return block;
}

/** Every directory and file under `root`, parents first, in name order; `relative` paths with "/". */
function* walk(
  root: string,
  skip: (relative: string) => boolean,
  at = "",
): Generator<{ relative: string; entry: Dirent }> {
  const entries = readdirSync(join(root, at), { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1);
  for (const entry of entries) {
    const relative = at ? `${at}/${entry.name}` : entry.name;
    if (skip(relative)) continue;
    if (entry.isDirectory()) {
      yield { relative, entry };
      yield* walk(root, skip, relative);
    } else if (entry.isFile()) yield { relative, entry };
  }
}

/** The tar stream of a directory: each file read in chunks as the consumer asks. */
async function* tarOf(root: string, skip: (relative: string) => boolean): AsyncGenerator<Uint8Array> {
  for (const { relative, entry } of walk(root, skip)) {
    const path = join(root, relative);
    const st = statSync(path);
    if (entry.isDirectory()) {
      yield header(`${relative}/`, "5", 0, st.mode, st.mtimeMs);
      continue;
    }
    yield header(relative, "0", st.size, st.mode, st.mtimeMs);
    let written = 0;
    if (st.size > 0) {
      for await (const chunk of createReadStream(path, { start: 0, end: st.size - 1, highWaterMark: 256 * 1024 })) {
        written += (chunk as Uint8Array).byteLength;
        yield chunk as Uint8Array;
      }
    }
    // A file that shrank meanwhile keeps its announced size (zeros): the archive stays readable.
    if (written < st.size) yield new Uint8Array(st.size - written);
    const pad = (BLOCK - (st.size % BLOCK)) % BLOCK;
    if (pad) yield new Uint8Array(pad);
  }
  yield ZEROS;
}

/**
 * Writes `root` (less what `skip` leaves out) as a gzipped tar to `out` through a stream; the
 * compressed bytes' count and sha-256.
 */
export async function packDirectory(
  root: string,
  out: string,
  skip: (relative: string) => boolean = () => false,
): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash("sha256");
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Uint8Array, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      done(null, chunk);
    },
  });
  await pipeline(
    Readable.from(tarOf(root, skip), { objectMode: false, highWaterMark: 1 }),
    // Level 1: twice the speed of the default for 2–5 % more bytes (recordings are mostly binary).
    createGzip({ level: 1 }),
    measure,
    createWriteStream(out, { mode: 0o600, flags: "wx" }),
  );
  return { bytes, sha256: hash.digest("hex") };
}

function text(block: Uint8Array, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return new TextDecoder().decode(end < 0 ? field : field.subarray(0, end));
}

function number(block: Uint8Array, offset: number, length: number): number {
  if (block[offset] & 0x80) {
    let n = 0n;
    for (let i = offset + 1; i < offset + length; i++) n = (n << 8n) | BigInt(block[i]);
    return Number(n);
  }
  const digits = text(block, offset, length).trim();
  return digits === "" ? 0 : parseInt(digits, 8);
}

/** A header's name as a path inside the target, or a TarError for one that would leave it. */
function entryPath(root: string, name: string): string {
  const clean = posix.normalize(name.replace(/^\/+/, "")).replace(/\/+$/, "");
  if (clean === "" || clean === "." || clean.startsWith("../") || clean === ".." || clean.includes("\0")) {
    throw new TarError(`entry ${JSON.stringify(name)} leaves the directory it is unpacked into`);
  }
  const path = resolve(root, ...clean.split("/"));
  if (!path.startsWith(resolve(root) + sep)) {
    throw new TarError(`entry ${JSON.stringify(name)} leaves the directory it is unpacked into`);
  }
  return path;
}

/**
 * Unpacks a gzipped tar into `root` (created when absent) through a stream: directories and
 * regular files only (links or devices are refused), every path kept inside `root`, each header's
 * checksum checked; a truncated file is refused. `skip` leaves entries out by their relative path.
 * Answers the files and bytes written.
 */
export async function unpackTarGz(
  file: string,
  root: string,
  skip: (relative: string) => boolean = () => false,
): Promise<{ files: number; bytes: number }> {
  await mkdir(root, { recursive: true, mode: 0o700 });
  let files = 0;
  let total = 0;
  let pending: Uint8Array = new Uint8Array(0);
  /** The file being written, if any (closed on a failure). */
  let current: FileHandle | null = null;
  let state: { kind: "header" } | { kind: "data"; left: number; pad: number } = { kind: "header" };
  let ended = false;
  const take = (n: number): Uint8Array | null => {
    if (pending.byteLength < n) return null;
    const head = pending.subarray(0, n);
    pending = pending.subarray(n);
    return head;
  };
  const gunzip = createGunzip();
  const input = createReadStream(file);
  input.on("error", (error) => gunzip.destroy(error));
  const source = input.pipe(gunzip);
  try {
    for await (const chunk of source as AsyncIterable<Uint8Array>) {
      if (ended) continue;
      pending = pending.byteLength ? concat(pending, chunk) : chunk;
      for (;;) {
        if (state.kind === "header") {
          const block = take(BLOCK);
          if (!block) break;
          if (block.every((b) => b === 0)) {
            ended = true;
            break;
          }
          let sum = 0;
          for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i];
          if (sum !== number(block, 148, 8)) throw new TarError("a header's checksum does not match (corrupt file)");
          const magic = text(block, 257, 6);
          const prefix = magic.startsWith("ustar") ? text(block, 345, 155) : "";
          const name = prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100);
          const type = String.fromCharCode(block[156] || 48);
          const size = number(block, 124, 12);
          if (skip(name.replace(/^\/+/, "").replace(/\/+$/, ""))) {
            current = null;
            state = {
              kind: "data",
              left: type === "5" ? 0 : size,
              pad: type === "5" ? 0 : (BLOCK - (size % BLOCK)) % BLOCK,
            };
            continue;
          }
          const path = entryPath(root, name);
          if (type === "5") {
            await mkdir(path, { recursive: true, mode: 0o700 });
            continue;
          }
          if (type !== "0") throw new TarError(`entry ${JSON.stringify(name)} is not a file or a directory`);
          await mkdir(resolve(path, ".."), { recursive: true, mode: 0o700 });
          current = await open(path, "wx", 0o600);
          files++;
          total += size;
          state = { kind: "data", left: size, pad: (BLOCK - (size % BLOCK)) % BLOCK };
          if (size === 0) {
            await current.close();
            current = null;
          }
        } else {
          if (state.left > 0) {
            const n = Math.min(state.left, pending.byteLength);
            if (n === 0) break;
            const part = take(n)!;
            if (current) await current.write(part);
            state.left -= n;
            if (state.left > 0) break;
            await current?.close();
            current = null;
          }
          if (state.pad > 0) {
            const n = Math.min(state.pad, pending.byteLength);
            take(n);
            state.pad -= n;
            if (state.pad > 0) break;
          }
          state = { kind: "header" };
        }
      }
    }
  } catch (error) {
    await current?.close().catch(() => {});
    if (error instanceof TarError) throw error;
    throw new TarError(`not a gzipped tar (${(error as Error).message})`);
  }
  if (!ended) {
    await current?.close().catch(() => {});
    throw new TarError("the file ends before its last entry (truncated)");
  }
  return { files, bytes: total };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a);
  out.set(b, a.byteLength);
  return out;
}
