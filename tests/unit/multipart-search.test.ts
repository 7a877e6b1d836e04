import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { indexOfBytes, readMultipart, removeSpooled, SpooledFile } from "../../server/http/multipart.ts";
import { IngestError } from "../../server/ingest/types.ts";
import { inspectFile } from "../../server/uploads/inspect.ts";

/** The plain definition: the first i ≥ from where every byte of the needle matches. */
function naiveIndexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** A small deterministic generator (xorshift), so a failure can be replayed. */
function random(seed: number) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe("multipart boundary search (the event loop's scan of every upload byte)", () => {
  it("finds exactly what a byte-by-byte search finds, on haystacks full of near misses", () => {
    const rand = random(42);
    const needle = new TextEncoder().encode("\r\n--abc\r-");
    const alphabet = [0x0d, 0x0a, 0x2d, 0x61, 0x62, 0x63, 0x78];
    for (let round = 0; round < 3000; round++) {
      const hay = new Uint8Array(Math.floor(rand() * 120));
      for (let i = 0; i < hay.length; i++) hay[i] = alphabet[Math.floor(rand() * alphabet.length)];
      if (rand() < 0.5 && hay.length >= needle.length) {
        hay.set(needle, Math.floor(rand() * (hay.length - needle.length + 1)));
      }
      const from = Math.floor(rand() * 10);
      expect(indexOfBytes(hay, needle, from), `round ${round}`).toBe(naiveIndexOf(hay, needle, from));
    }
  });

  it("reads a form whose file holds boundary look-alikes, whatever the chunk sizes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "multipart-search-"));
    try {
      const boundary = "----x9";
      const file = new Uint8Array(1.2 * 1024 * 1024);
      const rand = random(7);
      for (let i = 0; i < file.length; i++) file[i] = rand() < 0.01 ? 0x0d : Math.floor(rand() * 256);
      // Near misses of the delimiter inside the file.
      file.set(new TextEncoder().encode("\r\n----x8\r\n--x9\r\n----"), 1000);
      const enc = new TextEncoder();
      const body = new Uint8Array([
        ...enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="data_type"\r\n\r\nfit\r\n`),
        ...enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.fit"\r\n\r\n`),
        ...file,
        ...enc.encode(`\r\n--${boundary}--\r\n`),
      ]);
      // A byte stream is read into one reused buffer (as Deno's request bodies are); another
      // stream chunk by chunk as it comes.
      for (
        const [chunk, bytes] of [[5, false], [97, false], [4096, false], [65_536, false], [5, true], [97, true], [
          4096,
          true,
        ], [300_000, true]] as const
      ) {
        let at = 0;
        const source = {
          pull(controller: ReadableStreamDefaultController<Uint8Array> | ReadableByteStreamController) {
            if (at >= body.length) return controller.close();
            controller.enqueue(body.slice(at, at + chunk * (1 + (at % 3))));
            at += chunk * (1 + (at % 3));
          },
        };
        const stream = bytes
          ? new ReadableStream({ type: "bytes", pull: source.pull }) as ReadableStream<Uint8Array>
          : new ReadableStream<Uint8Array>({ pull: source.pull });
        const created: string[] = [];
        const form = await readMultipart(stream, boundary, { dir, maxBytes: 10 * 1024 * 1024, created });
        expect(form.data_type).toBe("fit");
        const part = form.file as SpooledFile;
        expect(part).toBeInstanceOf(SpooledFile);
        expect(part.size).toBe(file.length);
        expect(Buffer.compare(readFileSync(part.path), file)).toBe(0);
        // The hash taken batch by batch while spooling is the file's: as coreutils' sha256sum
        // reads it from disk, and as a one-shot hash of the bytes sent.
        expect(part.sha256).toBe(execFileSync("sha256sum", [part.path], { encoding: "utf8" }).split(" ")[0]);
        expect(part.sha256).toBe(createHash("sha256").update(file).digest("hex"));
        await removeSpooled(created);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a spooled file's known hash spares the re-read, not the content checks", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inspect-known-"));
    try {
      const gpx = new TextEncoder().encode(
        `<?xml version="1.0"?>\n<gpx version="1.1" creator="t">${" ".repeat(2 * 1024 * 1024)}</gpx>`,
      );
      const path = join(dir, "a.gpx");
      writeFileSync(path, gpx);
      const sha = createHash("sha256").update(gpx).digest("hex");
      expect(await inspectFile(path, gpx.length, "gpx", 10 * 1024 * 1024, sha)).toEqual({
        originalSha256: sha,
        contentSha256: sha,
      });
      // Without the known hash the file is read and hashed: the same answer.
      expect(await inspectFile(path, gpx.length, "gpx", 10 * 1024 * 1024)).toEqual({
        originalSha256: sha,
        contentSha256: sha,
      });
      // Not a GPX (a FIT header) under data_type gpx: refused as before, hash or not.
      const fit = new Uint8Array(2 * 1024 * 1024);
      fit.set([14, 0x10, 0, 0, 0, 0, 0, 0, 0x2e, 0x46, 0x49, 0x54]);
      writeFileSync(path, fit);
      await expect(inspectFile(path, fit.length, "gpx", 10 * 1024 * 1024, "0".repeat(64))).rejects.toThrow(IngestError);
      writeFileSync(path, new Uint8Array(0));
      await expect(inspectFile(path, 0, "gpx", 10 * 1024 * 1024, "0".repeat(64))).rejects.toThrow(/empty/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
