import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { packDirectory, TarError, unpackTarGz } from "../../server/ops/tar.ts";

/** The backup file's format (server/ops/tar.ts, issue #43 item 5): streamed ustar in gzip, read back safely. */
const work = mkdtempSync(join(tmpdir(), "fitness-tar-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath, e.name);
    const key = path.slice(dir.length + 1);
    out[key] = e.isDirectory() ? "dir" : createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

/** A tar header block (ustar) with the given name, type and size, checksum right unless told. */
function header(name: string, type: string, size: number, badSum = false): Uint8Array {
  const block = new Uint8Array(512);
  const put = (text: string, at: number) => block.set(new TextEncoder().encode(text), at);
  put(name, 0);
  put("0000600\0", 100);
  put(size.toString(8).padStart(11, "0") + "\0", 124);
  put("        ", 148);
  put(type, 156);
  put("ustar\x0000", 257);
  let sum = 0;
  for (const b of block) sum += b;
  put((badSum ? sum + 1 : sum).toString(8).padStart(6, "0") + "\0 ", 148);
  return block;
}
const archive = (...blocks: Uint8Array[]) => gzipSync(Buffer.concat([...blocks, new Uint8Array(1024)]));

describe("backup files: gzipped tar, streamed", () => {
  it("packs and unpacks a directory exactly: nested and empty directories, empty files, long paths", async () => {
    const source = join(work, "source");
    const deep = join(source, "a".repeat(60), "b".repeat(60));
    mkdirSync(deep, { recursive: true });
    mkdirSync(join(source, "empty"));
    writeFileSync(join(source, "PG_VERSION"), "18\n");
    writeFileSync(join(source, "zero"), "");
    writeFileSync(join(deep, "c".repeat(90)), new Uint8Array(700_001).map((_, i) => (i * 7) % 251));
    writeFileSync(join(source, "admin.json"), "{}");
    const file = join(work, "packed.tar.gz");
    const packed = await packDirectory(source, file, (p) => p === "admin.json");
    expect(packed.sha256).toBe(createHash("sha256").update(readFileSync(file)).digest("hex"));
    expect(packed.bytes).toBe(statSync(file).size);
    // A standard reader (GNU tar's ustar): names, sizes and padding as the format says.
    const raw = gunzipSync(readFileSync(file));
    expect(raw.byteLength % 512).toBe(0);
    const target = join(work, "target");
    const unpacked = await unpackTarGz(file, target);
    const expected = tree(source);
    delete expected["admin.json"];
    expect(tree(target)).toEqual(expected);
    expect(unpacked.files).toBe(3);
  });

  it("reads what PGlite's own dumpDataDir wrote (backups of earlier versions), and the store opens", async () => {
    const pg = new PGlite();
    await pg.exec("create table t (v text); insert into t values ('kept')");
    const old = join(work, "old.tar.gz");
    writeFileSync(old, new Uint8Array(await (await pg.dumpDataDir("gzip")).arrayBuffer()));
    await pg.close();
    const target = join(work, "from-pglite");
    await unpackTarGz(old, target);
    const reopened = new PGlite(target);
    expect((await reopened.query<{ v: string }>("select v from t")).rows).toEqual([{ v: "kept" }]);
    await reopened.close();
  });

  it("refuses entries that leave the directory, links, corrupt headers and truncated files", async () => {
    const cases: [string, Uint8Array][] = [
      ["parent", archive(header("../escape", "0", 0))],
      ["nested parent", archive(header("a/../../escape", "0", 0))],
      ["symbolic link", archive(header("link", "2", 0))],
      ["hard link", archive(header("hard", "1", 0))],
      ["checksum", archive(header("file", "0", 0, true))],
      ["truncated", gzipSync(Buffer.concat([header("file", "0", 1000), new Uint8Array(100)]))],
      ["not gzip", new TextEncoder().encode("plain text, not a backup")],
    ];
    const refused: string[] = [];
    for (const [name, bytes] of cases) {
      const file = join(work, `${name}.tar.gz`);
      writeFileSync(file, bytes);
      const target = join(work, `bad-${name}`);
      await expect(unpackTarGz(file, target), name).rejects.toBeInstanceOf(TarError);
      refused.push(name);
      expect(readdirSync(work)).not.toContain("escape");
    }
    expect(refused).toHaveLength(cases.length);
  });
});
