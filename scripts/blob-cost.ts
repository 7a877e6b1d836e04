/**
 * Issue 34, item 5: what storing uploaded originals and streams as PostgreSQL rows costs.
 * Usage: deno run -A scripts/blob-cost.ts <postgres-url-of-an-empty-database> <activities>
 * Per activity it stores the blobs a real upload stores (tests/fixtures/devices/fit/
 * wahoo-elemnt-cycling-power-hr-pauses.fit: its original, the streams JSON and the full polyline
 * its upload derives), each made unique, through putBlob — the upload's own write — and prints
 * the write times, the database's size and pg_dump's time and size.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, statSync } from "node:fs";
import process from "node:process";
import { openPostgres } from "../events/db/postgres.ts";
import { EVENT_STORE_SCHEMA } from "../events/schema.ts";
import { putBlob } from "../server/blobs.ts";

const [url, countText, streamsFile, polylineFile] = process.argv.slice(2);
const count = Number(countText);
const original = readFileSync("tests/fixtures/devices/fit/wahoo-elemnt-cycling-power-hr-pauses.fit");
const streams = readFileSync(streamsFile);
const polyline = readFileSync(polylineFile);
const db = await openPostgres(url);
await db.exec(EVENT_STORE_SCHEMA);
const unique = (bytes: Uint8Array, i: number) => {
  const out = new Uint8Array(bytes.byteLength + 8);
  out.set(bytes);
  new DataView(out.buffer).setFloat64(bytes.byteLength, i);
  return out;
};
const times: number[] = [];
let raw = 0;
const started = performance.now();
for (let i = 0; i < count; i++) {
  const t = performance.now();
  for (const blob of [original, streams, polyline]) {
    const bytes = unique(blob, i);
    raw += bytes.byteLength;
    await putBlob(db, bytes, { file: true });
  }
  times.push(performance.now() - t);
}
const seconds = (performance.now() - started) / 1000;
times.sort((a, b) => a - b);
const [size] = await db.query<{ db: string; blobs: string }>(
  "select pg_database_size(current_database())::text as db, pg_total_relation_size('public.blobs')::text as blobs",
);
await db.close();
const dump = `/tmp/blob-cost-${process.pid}.dump`;
const dumpStarted = performance.now();
execFileSync("pg_dump", ["-Fc", "-f", dump, url]);
const dumpSeconds = (performance.now() - dumpStarted) / 1000;
const dumpBytes = statSync(dump).size;
rmSync(dump);
console.log(JSON.stringify({
  activities: count,
  raw_bytes: raw,
  write_seconds: Number(seconds.toFixed(1)),
  per_activity_ms: {
    median: Number(times[Math.floor(times.length / 2)].toFixed(1)),
    p95: Number(times[Math.floor(times.length * 0.95)].toFixed(1)),
  },
  database_bytes: Number(size.db),
  blobs_table_bytes: Number(size.blobs),
  pg_dump_seconds: Number(dumpSeconds.toFixed(1)),
  pg_dump_bytes: dumpBytes,
}));
