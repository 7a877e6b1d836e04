/**
 * Every device file of the corpus (tests/fixtures/devices and, where present, ../shared/fixtures/devices)
 * derived as the server derives an upload, its figures printed as JSON: what a change to
 * server/ingest moves, file by file (docs/numbers.md keeps the table of the last change).
 *
 *   deno run -A scripts/corpus-figures.ts [--root DIR] > figures.json
 *     DIR: another checkout whose ingest code derives (a worktree of the base commit), default this one
 *   deno run -A scripts/corpus-figures.ts --compare before.json after.json
 *     a Markdown table of every file with what changed, before → after
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import process from "node:process";

const here = resolve(import.meta.dirname ?? ".", "..");
const argv = process.argv.slice(2);

/** The figures compared, in the table's order. */
const FIELDS = [
  "type",
  "startDate",
  "distance",
  "movingTime",
  "elapsedTime",
  "totalElevationGain",
  "elevationSource",
  "averageSpeed",
  "maxSpeed",
  "averageHeartrate",
  "maxHeartrate",
  "averageCadence",
  "averageWatts",
  "averageTemp",
  "calories",
  "laps",
  "lapsMaxBelowAverage",
  "lapsDistance",
  "streamPoints",
  "streamSpan",
  "streamHeartrateMean",
] as const;
type Figures = Record<string, unknown>;

if (argv[0] === "--compare") {
  const before = JSON.parse(readFileSync(argv[1], "utf8")) as Record<string, Figures>;
  const after = JSON.parse(readFileSync(argv[2], "utf8")) as Record<string, Figures>;
  console.log("| File | What moved (before → after) |\n|---|---|");
  for (const file of Object.keys({ ...before, ...after }).sort()) {
    const a = before[file] ?? {};
    const b = after[file] ?? {};
    const moved = FIELDS.filter((k) => JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null))
      .map((k) => `${k} ${show(a[k])} → ${show(b[k])}`);
    console.log(`| ${file} | ${moved.length ? moved.join("; ") : "—"} |`);
  }
  process.exit(0);
}

function show(v: unknown): string {
  return v === undefined || v === null ? "–" : typeof v === "number" ? String(v) : String(v);
}

const rootAt = argv.indexOf("--root");
const root = rootAt >= 0 ? resolve(argv[rootAt + 1]) : here;
const { parseDeviceFile } = await import(join(root, "server/ingest/decode.ts"));
const { deriveActivity } = await import(join(root, "server/ingest/derive.ts"));

const folders = [join(here, "tests/fixtures/devices"), resolve(here, "../shared/fixtures/devices")];
const files = new Map<string, string>();
for (const folder of folders.filter(existsSync)) {
  for (const dir of ["fit", "tcx", "gpx", "gz", "broken"]) {
    if (!existsSync(join(folder, dir))) continue;
    for (const name of readdirSync(join(folder, dir)).sort()) {
      const key = `${dir}/${name}`;
      if (!files.has(key)) files.set(key, join(folder, dir, name));
    }
  }
}

const ctx = {
  uploadId: 1,
  externalId: null,
  activityType: null,
  defaultType: "Ride",
  name: null,
  description: null,
  private: false,
  trainer: false,
  commute: false,
  athlete: { premium: true, weight: 70, birthdate: "1985-06-01", sex: null },
};
const out: Record<string, Figures> = {};
for (const [key, path] of files) {
  const dataType = key.replace(/^.*?\.(fit|tcx|gpx)(\.gz)?$/i, (_m, kind: string, gz?: string) => kind + (gz ?? ""));
  try {
    let bytes = new Uint8Array(readFileSync(path));
    if (dataType.endsWith(".gz")) {
      const { gunzipSync } = await import("node:zlib");
      bytes = new Uint8Array(gunzipSync(bytes));
    }
    const parsed = await parseDeviceFile(bytes, dataType.replace(".gz", ""));
    const { facts, streams } = deriveActivity(parsed, ctx);
    const hr = streams.heartrate as number[] | undefined;
    const row: Figures = {};
    for (const k of FIELDS) if (k in facts) row[k] = facts[k];
    row.laps = facts.laps.length;
    row.lapsMaxBelowAverage = facts.laps.filter((l: { maxSpeed: number; averageSpeed: number }) =>
      l.maxSpeed < l.averageSpeed
    ).length;
    row.lapsDistance = Math.round(facts.laps.reduce((a: number, l: { distance: number }) => a + l.distance, 0));
    row.streamPoints = streams.time.length;
    row.streamSpan = `${streams.time[0]}–${streams.time[streams.time.length - 1]}`;
    if (hr) {
      // The heart-rate stream's mean over moving time, each value over the interval it closes (as averages are).
      let sum = 0;
      let weight = 0;
      for (let i = 1; i < hr.length; i++) {
        const dt = streams.time[i] - streams.time[i - 1];
        if (!streams.moving[i] || !(hr[i] > 0) || dt <= 0) continue;
        sum += hr[i] * dt;
        weight += dt;
      }
      row.streamHeartrateMean = weight ? Math.round((sum / weight) * 10) / 10 : null;
    }
    out[key] = row;
  } catch (error) {
    out[key] = { error: String((error as Error).message).slice(0, 80) };
  }
}
console.log(JSON.stringify(out, null, 1));
