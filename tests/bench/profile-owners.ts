/**
 * Who a CPU profile's time belongs to: `deno run -A tests/bench/profile-owners.ts <file.cpuprofile>…`
 * charges every sample to the nearest frame that is ours, PGlite's JS glue, PGlite's WebAssembly,
 * the Deno runtime, another library (Hono, zod…), GC or idle (replay-cpu-profile.ts's rule), and
 * prints the shares and our largest functions — the "under 10 % of the remaining time" read
 * from the profiles the benches write (`BENCH_PROFILE=<dir>`: load, uploads; board-requests.ts
 * `--profile=`).
 */
import { readFileSync } from "node:fs";
import process from "node:process";
import { charge, wasmExportNames } from "./replay-cpu-profile.ts";
import type { CpuProfile } from "./main-thread-profile.ts";

const files = process.argv.slice(2).filter((a) => !a.startsWith("--"));
if (files.length === 0) {
  console.error("usage: deno run -A tests/bench/profile-owners.ts <file.cpuprofile>…");
  process.exit(2);
}
const wasmNames = wasmExportNames(
  readFileSync(new URL(import.meta.resolve("@electric-sql/pglite")).pathname.replace(/[^/]+$/, "pglite.wasm")),
);
const top = Number(process.env.ROWS ?? 10);
for (const file of files) {
  const charged = charge(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, { wasmNames });
  const busy = charged.totalMs - (charged.byOwner.get("idle") ?? 0);
  console.log(`\n${file}: sampled ${charged.totalMs.toFixed(0)} ms, busy ${busy.toFixed(0)} ms`);
  console.log("| owner | ms | share of samples | share of busy |\n|---|---|---|---|");
  for (const [owner, ms] of [...charged.byOwner].sort((a, b) => b[1] - a[1])) {
    const ofBusy = owner === "idle" ? "—" : `${(ms / busy * 100).toFixed(1)} %`;
    console.log(`| ${owner} | ${ms.toFixed(0)} | ${(ms / charged.totalMs * 100).toFixed(1)} % | ${ofBusy} |`);
  }
  for (const owner of ["ours", "other library"] as const) {
    const fns = charged.byFunction.get(owner);
    if (!fns) continue;
    console.log(`${owner}, largest:`);
    for (const [name, ms] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`  ${ms.toFixed(1).padStart(8)} ms  ${name}`);
    }
  }
}
