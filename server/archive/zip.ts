/**
 * Reading a zip archive without loading it: the central directory is read once (names and sizes),
 * then single entries are streamed on demand (yauzl reads the file with random access). Hostile
 * archives are refused before anything is imported: entry names that climb out (`..`, absolute
 * paths), entries or totals too large once inflated, and compression ratios only a zip bomb has.
 */
import { createWriteStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { Transform } from "node:stream";
import yauzl from "yauzl";

/** The archive cannot be imported; the message says why (shown to the user as is). */
export class ArchiveRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArchiveRefused";
  }
}

export interface ZipLimits {
  /** Sum of every entry's inflated size (nested archives included by the caller). */
  maxTotalBytes: number;
  /** One entry's inflated size. */
  maxEntryBytes: number;
  /** Inflated / compressed above this (for entries over 1 MiB inflated) is a zip bomb. */
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxTotalBytes: 64 * 1024 ** 3,
  maxEntryBytes: 8 * 1024 ** 3,
  maxRatio: 200,
};

export interface ZipEntryInfo {
  name: string;
  size: number;
  compressedSize: number;
}

export interface ZipArchive {
  /** Files (not folders) by name, in archive order. */
  entries: Map<string, ZipEntryInfo>;
  totalBytes: number;
  /** One entry's bytes (refused above `limit` bytes). */
  read(name: string, limit: number): Promise<Uint8Array>;
  /** One entry's bytes as they inflate (refused above `limit` bytes). */
  chunks(name: string, limit: number): AsyncIterable<Uint8Array>;
  /** One entry streamed into a file. */
  copyTo(name: string, path: string): Promise<void>;
  close(): void;
}

/** A name that stays inside the archive: relative, no `..` part, no drive letter or NUL. */
export function safeEntryName(name: string): boolean {
  if (name === "" || name.includes("\0")) return false;
  const normal = name.replace(/\\/g, "/");
  if (normal.startsWith("/") || /^[a-zA-Z]:/.test(normal)) return false;
  return !normal.split("/").some((part) => part === "..");
}

function openFile(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    // strictFileNames off: we check names ourselves, to say which entry was refused.
    yauzl.open(
      path,
      { lazyEntries: true, autoClose: false, validateEntrySizes: true, decodeStrings: false },
      (error, zip) => {
        if (error || !zip) reject(new ArchiveRefused(`not a zip archive (${error?.message ?? "unreadable"})`));
        else resolve(zip);
      },
    );
  });
}

/** Opens a zip file and checks every entry of its directory against the limits. */
export async function openZip(path: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipArchive> {
  const zip = await openFile(path);
  const raw = new Map<string, yauzl.Entry>();
  const entries = new Map<string, ZipEntryInfo>();
  let totalBytes = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on(
        "error",
        (error: Error) =>
          reject(
            error instanceof ArchiveRefused ? error : new ArchiveRefused(`damaged zip archive (${error.message})`),
          ),
      );
      zip.on("end", () => resolve());
      zip.on("entry", (entry: yauzl.Entry) => {
        const name = Buffer.isBuffer(entry.fileName)
          ? new TextDecoder((entry.generalPurposeBitFlag & 0x800) ? "utf-8" : "latin1").decode(
            entry.fileName as unknown as Uint8Array,
          )
          : String(entry.fileName);
        if (!safeEntryName(name)) {
          return reject(new ArchiveRefused(`unsafe entry name ${JSON.stringify(name)}: it points outside the archive`));
        }
        if (!name.endsWith("/")) {
          const size = entry.uncompressedSize;
          const compressed = Math.max(1, entry.compressedSize);
          if (size > limits.maxEntryBytes) {
            return reject(
              new ArchiveRefused(
                `entry ${name} inflates to ${size} bytes (limit ${limits.maxEntryBytes}): refused as a zip bomb`,
              ),
            );
          }
          if (size > 1024 * 1024 && size / compressed > limits.maxRatio) {
            return reject(
              new ArchiveRefused(
                `entry ${name} has a compression ratio of ${
                  Math.round(size / compressed)
                }:1 (limit ${limits.maxRatio}:1): refused as a zip bomb`,
              ),
            );
          }
          totalBytes += size;
          if (totalBytes > limits.maxTotalBytes) {
            return reject(
              new ArchiveRefused(
                `the archive inflates to more than ${limits.maxTotalBytes} bytes: refused as a zip bomb`,
              ),
            );
          }
          const normal = name.replace(/\\/g, "/");
          raw.set(normal, entry);
          entries.set(normal, { name: normal, size, compressedSize: entry.compressedSize });
        }
        zip.readEntry();
      });
      zip.readEntry();
    });
  } catch (error) {
    zip.close();
    throw error;
  }

  function stream(name: string): Promise<NodeJS.ReadableStream> {
    const entry = raw.get(name);
    if (!entry) return Promise.reject(new Error(`${name} is not in the archive`));
    return new Promise((resolve, reject) => {
      zip.openReadStream(
        entry,
        (error, readable) => (error || !readable ? reject(error ?? new Error("unreadable entry")) : resolve(readable)),
      );
    });
  }

  return {
    entries,
    totalBytes,
    async read(name, limit) {
      const info = entries.get(name);
      if (info && info.size > limit) throw new Error(`${name} is larger than ${limit} bytes`);
      const readable = await stream(name);
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const chunk of readable as AsyncIterable<Buffer>) {
        length += chunk.length;
        // validateEntrySizes stops a lying header too; this bounds memory whatever it says.
        if (length > limit) {
          (readable as unknown as { destroy(): void }).destroy();
          throw new Error(`${name} is larger than ${limit} bytes`);
        }
        chunks.push(chunk);
      }
      return new Uint8Array(Buffer.concat(chunks, length));
    },
    async *chunks(name, limit) {
      const info = entries.get(name);
      if (info && info.size > limit) throw new Error(`${name} is larger than ${limit} bytes`);
      const readable = await stream(name);
      let length = 0;
      try {
        for await (const chunk of readable as AsyncIterable<Buffer>) {
          length += chunk.length;
          if (length > limit) throw new Error(`${name} is larger than ${limit} bytes`);
          yield chunk;
        }
      } finally {
        (readable as unknown as { destroy(): void }).destroy();
      }
    },
    async copyTo(name, path) {
      const readable = await stream(name);
      let length = 0;
      const limit = entries.get(name)?.size ?? 0;
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          length += chunk.length;
          if (length > limit) {
            done(new ArchiveRefused(`${name} inflates past its declared size: refused as a zip bomb`));
          } else done(null, chunk);
        },
      });
      await pipeline(readable, counter, createWriteStream(path));
    },
    close: () => zip.close(),
  };
}
