import { DEVICES } from "../helpers/fixtures.ts";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { DataType } from "../../server/ingest/decode.ts";

export { DEVICES };

export interface DeviceFile {
  name: string;
  kind: "fit" | "gpx" | "tcx";
  bytes: Uint8Array;
}

export interface Mutant {
  label: string;
  source: string;
  dataType: DataType;
  bytes: Uint8Array;
}

/** Every device file of the fixtures (good and broken ones), optionally only those up to maxBytes. */
export function deviceFiles(maxBytes = Infinity): DeviceFile[] {
  const out: DeviceFile[] = [];
  for (const dir of ["fit", "gpx", "tcx", "broken"]) {
    for (const name of readdirSync(join(DEVICES, dir)).sort()) {
      const path = join(DEVICES, dir, name);
      const kind = name.split(".").pop() as DeviceFile["kind"];
      if (!["fit", "gpx", "tcx"].includes(kind) || statSync(path).size > maxBytes) continue;
      out.push({ name: `${dir}/${name}`, kind, bytes: new Uint8Array(readFileSync(path)) });
    }
  }
  return out;
}

/** A small deterministic PRNG (mulberry32), so a failing mutant is reproducible from its seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (max: number) => Math.floor(next() * max),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)],
  };
}
type Rng = ReturnType<typeof prng>;

const HOSTILE_NUMBERS = [
  "NaN",
  "-1",
  "0",
  "1e308",
  "-1e308",
  "Infinity",
  "",
  "99999999999999999999",
  "1.7976931348623157e309",
  "-0",
  "0x10",
  "   ",
];

/** The mutation operators; each returns new bytes. */
const operators: Record<string, (b: Uint8Array, rng: Rng, kind: DeviceFile["kind"]) => Uint8Array> = {
  bitFlips(b, rng) {
    const out = b.slice();
    const flips = 1 + rng.int(32);
    for (let i = 0; i < flips && out.length; i++) out[rng.int(out.length)] ^= 1 << rng.int(8);
    return out;
  },
  truncation(b, rng) {
    return b.slice(0, rng.int(b.length));
  },
  randomRun(b, rng) {
    const out = b.slice();
    const len = 1 + rng.int(512);
    const at = rng.int(Math.max(1, out.length));
    for (let i = at; i < Math.min(out.length, at + len); i++) out[i] = rng.int(256);
    return out;
  },
  duplicatedChunk(b, rng) {
    const from = rng.int(Math.max(1, b.length));
    const chunk = b.slice(from, from + 1 + rng.int(4096));
    const at = rng.int(Math.max(1, b.length));
    const out = new Uint8Array(b.length + chunk.length);
    out.set(b.subarray(0, at));
    out.set(chunk, at);
    out.set(b.subarray(at), at + chunk.length);
    return out;
  },
  /** FIT: the header's size byte, data size (bytes 4–7) or a definition's field sizes made wrong. */
  wrongLengthFields(b, rng, kind) {
    const out = b.slice();
    if (kind !== "fit" || out.length < 14) return operators.randomRun(b, rng, kind);
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    switch (rng.int(4)) {
      case 0:
        out[0] = rng.pick([0, 1, 12, 13, 15, 255, 14 + rng.int(64)]);
        break;
      case 1:
        view.setUint32(
          4,
          rng.pick([0, 1, 0xffffffff, 0x7fffffff, out.length * 4, Math.max(0, out.length - 14 - 1 - rng.int(100))]),
          true,
        );
        break;
      case 2: {
        // A definition message's field size byte (every 3rd byte after a definition header).
        const at = out[0] + rng.int(Math.max(1, Math.min(out.length - out[0], 4096)));
        out[Math.min(at, out.length - 1)] = rng.pick([0, 255, 254, 1]);
        break;
      }
      default:
        out[Math.min(out.length - 1, out[0] + 5)] = 255; // number of fields of the first definition
    }
    return out;
  },
  /** GPX/TCX: numbers replaced with hostile values, tags cut. */
  hostileValues(b, rng, kind) {
    if (kind === "fit") return operators.wrongLengthFields(b, rng, kind);
    let text = new TextDecoder().decode(b);
    const numbers = [...text.matchAll(/-?\d+(\.\d+)?/g)];
    for (let i = 0; i < 1 + rng.int(20) && numbers.length; i++) {
      const m = rng.pick(numbers);
      text = text.slice(0, m.index!) + rng.pick(HOSTILE_NUMBERS) + text.slice(m.index! + m[0].length);
    }
    if (rng.next() < 0.3) {
      const close = [...text.matchAll(/<\/[^>]+>/g)];
      if (close.length) {
        const m = rng.pick(close);
        text = text.slice(0, m.index!) + text.slice(m.index! + m[0].length);
      }
    }
    return new TextEncoder().encode(text);
  },
};

/** count mutants, round-robin over the files, deterministic for a seed; about 1 in 8 is gzipped. */
export function mutants(files: DeviceFile[], count: number, seed: number): Mutant[] {
  const rng = prng(seed);
  const names = Object.keys(operators);
  const out: Mutant[] = [];
  for (let i = 0; i < count; i++) {
    const file = files[i % files.length];
    const op = names[(i + Math.floor(i / files.length)) % names.length];
    let bytes = operators[op](file.bytes, rng, file.kind);
    if (rng.next() < 0.3) bytes = operators[rng.pick(names)](bytes, rng, file.kind); // a second operator
    let dataType: DataType = file.kind;
    let label = op;
    const gz = rng.next();
    if (gz < 0.08) {
      bytes = new Uint8Array(gzipSync(bytes));
      dataType = `${file.kind}.gz` as DataType;
      label += "+gzip";
    } else if (gz < 0.12) {
      bytes = operators.bitFlips(new Uint8Array(gzipSync(file.bytes)), rng, file.kind);
      dataType = `${file.kind}.gz` as DataType;
      label = "corruptGzip";
    }
    out.push({ label, source: file.name, dataType, bytes });
  }
  return out;
}
