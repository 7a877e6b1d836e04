/**
 * A whole-replay CPU profile: one `ProjectionRunner.replay` of the cached API-driven log, sampled
 * by V8's profiler in this process (PGlite runs on this thread, so its WebAssembly and its JS glue
 * are in the same samples as ours), each sample charged to the nearest frame that is ours, PGlite's
 * JS glue, PGlite's WebAssembly (PostgreSQL compiled), the Deno runtime, another library, GC or idle.
 * `deno run -A tests/bench/replay-cpu-profile.ts [--events=N] [--out=file.cpuprofile]`
 * (the log cache of `npm run bench -- replay`; the profile can be opened in Chrome's DevTools).
 */
import { Session } from "node:inspector";
import { readFileSync } from "node:fs";
import process from "node:process";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { apiLogCopy } from "./api-log.ts";
import { eventCount, rawRead } from "./event-log.ts";
import { type CpuProfile, saveProfile } from "./main-thread-profile.ts";

export type Owner = "ours" | "PGlite JS glue" | "PGlite WebAssembly" | "Deno runtime" | "other library" | "GC" | "idle";

/** Whose code a frame is, or undefined for a frame that is nobody's own (a V8 builtin: charged to its caller). */
export function ownerOf(f: { functionName: string; url: string }): Owner | undefined {
  if (f.functionName === "(idle)") return "idle";
  if (f.functionName === "(garbage collector)") return "GC";
  if (f.functionName === "(program)") return "Deno runtime";
  if (f.url.startsWith("wasm://")) return "PGlite WebAssembly";
  if (/@electric-sql\/pglite/.test(f.url)) return "PGlite JS glue";
  if (/node_modules\//.test(f.url)) return "other library";
  if (/^(ext|node|internal):/.test(f.url) || f.url.startsWith("deno:")) return "Deno runtime";
  if (f.url.startsWith("file://")) return "ours";
  return undefined;
}

/** The C library's file calls PostgreSQL makes (the caller named is the PostgreSQL function above them). */
const LIBC =
  /^(open|lseek|access|pwrite|pread|write|read|truncate|ftruncate|stat|fstat|lstat|close|unlink|mkdir|rename|fsync|fdatasync|__.*)$/;

export interface Charged {
  byOwner: Map<Owner, number>;
  /** Time (ms) by phase of the replay, then by owner. */
  byPhase: Map<string, Map<Owner, number>>;
  /**
   * Time (ms) under PGlite's file system layer (its `tryFSOperation`: the Deno runtime's file calls,
   * their errors included), by phase and the nearest named PostgreSQL function that made the call.
   */
  fileCalls: Map<string, number>;
  /** Self time (ms) by function within each owner, the builtins they called included. */
  byFunction: Map<Owner, Map<string, number>>;
  totalMs: number;
}

/** Charges every sample's time to the nearest frame with an owner (builtins to their caller). */
export function charge(
  profile: CpuProfile,
  options: {
    /** WebAssembly function names by index (the module's exports): a frame without one is charged to its nearest named caller. */
    wasmNames?: Map<number, string>;
    /** The phase a sample falls in, by its time (µs, the profile's clock). */
    phaseAt?: (us: number) => string;
  } = {},
): Charged {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const owned = new Map<number, { owner: Owner; name: string }>();
  const resolve = (id: number): { owner: Owner; name: string } => {
    const known = owned.get(id);
    if (known) return known;
    const f = byId.get(id)!.callFrame;
    const owner = ownerOf(f);
    const up = parent.get(id);
    const wasm = owner === "PGlite WebAssembly" ? /wasm-function\[(\d+)\]/.exec(f.functionName) : null;
    const named = wasm ? options.wasmNames?.get(Number(wasm[1])) : undefined;
    const inside = wasm && !named && up !== undefined ? resolve(up) : undefined;
    const result = named
      ? { owner: owner!, name: named }
      : inside?.owner === "PGlite WebAssembly"
      ? { owner: owner!, name: inside.name.startsWith("in ") ? inside.name : `in ${inside.name}` }
      : owner
      ? {
        owner,
        name: `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}`,
      }
      : up !== undefined
      ? resolve(up)
      : { owner: "Deno runtime" as Owner, name: `${f.functionName || "(root)"}` };
    owned.set(id, result);
    return result;
  };
  const fsCaller = new Map<number, string | null>();
  const fileCallOf = (id: number): string | null => {
    if (fsCaller.has(id)) return fsCaller.get(id)!;
    let found: string | null = null;
    let seenFs = false;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (f.functionName === "tryFSOperation") seenFs = true;
      const wasm = seenFs ? /wasm-function\[(\d+)\]/.exec(f.functionName) : null;
      const named = wasm ? options.wasmNames?.get(Number(wasm[1])) : undefined;
      if (named && !LIBC.test(named)) {
        found = named;
        break;
      }
    }
    fsCaller.set(id, found);
    return found;
  };
  const fileCalls = new Map<string, number>();
  const byOwner = new Map<Owner, number>();
  const byFunction = new Map<Owner, Map<string, number>>();
  const byPhase = new Map<string, Map<Owner, number>>();
  let totalMs = 0;
  let at = profile.startTime;
  profile.samples.forEach((sample, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const ms = Math.max(0, profile.timeDeltas[i + 1] ?? 0) / 1000;
    const { owner, name } = resolve(sample);
    const phase = options.phaseAt?.(at) ?? "all";
    const owners = byPhase.get(phase) ?? new Map<Owner, number>();
    owners.set(owner, (owners.get(owner) ?? 0) + ms);
    byPhase.set(phase, owners);
    const fileCall = fileCallOf(sample);
    if (fileCall) fileCalls.set(`${phase} ← ${fileCall}`, (fileCalls.get(`${phase} ← ${fileCall}`) ?? 0) + ms);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + ms);
    const fns = byFunction.get(owner) ?? new Map<string, number>();
    fns.set(name, (fns.get(name) ?? 0) + ms);
    byFunction.set(owner, fns);
    totalMs += ms;
  });
  return { byOwner, byFunction, byPhase, fileCalls, totalMs };
}

/** The function names a WebAssembly module exports, by function index (PGlite's has no name section). */
export function wasmExportNames(bytes: Uint8Array): Map<number, string> {
  let p = 8;
  const leb = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[p++];
      value |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return value >>> 0;
  };
  const names = new Map<number, string>();
  while (p < bytes.length) {
    const id = bytes[p++];
    const end = leb() + p;
    if (id === 7) {
      for (let n = leb(); n > 0; n--) {
        const length = leb();
        const name = new TextDecoder().decode(bytes.subarray(p, p + length));
        p += length;
        const kind = bytes[p++];
        const index = leb();
        if (kind === 0) names.set(index, name);
      }
    }
    p = end;
  }
  return names;
}

const sum = (m: Map<unknown, number>) => [...m.values()].reduce((a, b) => a + b, 0);

if (import.meta.main) {
  const args = process.argv.slice(2);
  const target = eventCount(args, 32_000);
  const out = args.find((a) => a.startsWith("--out="))?.slice(6);
  const copy = await apiLogCopy(target, (s) => console.error(s));
  const platform = await openPlatform(
    configFromEnv({ dataDir: copy.dataDir, databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
  );
  // Phases: intervals of performance.now(), the innermost (latest started) containing a sample wins.
  const intervals: { from: number; to: number; phase: string }[] = [];
  const timed = async <T>(phase: string, run: () => Promise<T>): Promise<T> => {
    const interval = { from: performance.now(), to: Infinity, phase };
    intervals.push(interval);
    try {
      return await run();
    } finally {
      interval.to = performance.now();
    }
  };
  const runner = platform.projections;
  const migrateIn = runner.migrateIn.bind(runner);
  runner.migrateIn = (tx, schema) => timed("schema DDL (migrateIn)", () => migrateIn(tx, schema));
  for (const p of runner.projections) {
    const apply = p.apply.bind(p);
    (p as { apply: typeof apply }).apply = (tx, event, rebuilding) =>
      timed("event by event", () => apply(tx, event, rebuilding));
    const batch = p.applyBatch?.bind(p);
    if (batch) {
      (p as { applyBatch: typeof batch }).applyBatch = (tx, events, rebuilding) =>
        timed("event by event", () => batch(tx, events, rebuilding));
    }
    const finish = p.finishRebuild?.bind(p);
    if (finish) {
      (p as { finishRebuild: typeof finish }).finishRebuild = (tx) => timed(`finish ${p.name}`, () => finish(tx));
    }
    const bulk = p.bulk;
    if (bulk) {
      (p as { bulk: typeof bulk }).bulk = {
        writtenFor: bulk.writtenFor,
        fits: bulk.fits && ((tx, log) => timed("fits checks", () => bulk.fits!(tx, log))),
        load: (tx, log) => timed(`bulk load ${p.name}`, () => bulk.load(tx, log)),
      };
    }
  }
  const db = platform.db;
  const transaction = db.transaction.bind(db);
  (db as { transaction: typeof transaction }).transaction = (fn, options) => {
    let body: { from: number; to: number; phase: string } | undefined;
    return timed("commit (and other statements of the swap)", () =>
      transaction(async (tx) => {
        const withAnalyze = Object.create(tx) as typeof tx;
        withAnalyze.exec = ((sql: string) =>
          /^\s*analyze\b/i.test(sql)
            ? timed("ANALYZE", () => tx.exec(sql))
            : tx.exec(sql)) as typeof tx.exec;
        body = { from: performance.now(), to: Infinity, phase: "transactions' other statements (swap, catch-up)" };
        intervals.push(body);
        try {
          return await fn(withAnalyze);
        } finally {
          body.to = performance.now();
        }
      }, options));
  };
  const store = platform.store;
  const readAll = store.readAll.bind(store);
  (store as { readAll: typeof readAll }).readAll = (...a) => timed("log reads (event by event)", () => readAll(...a));
  // Statements outside transactions, by their first words.
  for (const method of ["query", "exec"] as const) {
    const run = db[method].bind(db) as (sql: string, params?: unknown[]) => Promise<unknown>;
    (db as unknown as Record<string, unknown>)[method] = (sql: string, params?: unknown[]) =>
      timed(`statement: ${sql.replace(/\s+/g, " ").trim().split(" ").slice(0, 3).join(" ")}`, () => run(sql, params));
  }
  const phaseOf = (ms: number) => {
    let best: { from: number; phase: string } | undefined;
    for (const i of intervals) if (i.from <= ms && ms < i.to && (!best || i.from >= best.from)) best = i;
    return best?.phase ?? "outside transactions (log reads, counts, ANALYZE of the log)";
  };
  const wasmNames = wasmExportNames(
    readFileSync(new URL(import.meta.resolve("@electric-sql/pglite")).pathname.replace(/[^/]+$/, "pglite.wasm")),
  );
  // As the bench: the log read once first (its pages in PGlite's buffers).
  await rawRead(platform.db);
  const session = new Session();
  session.connect();
  const post = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) =>
      session.post(
        method,
        params,
        (error: Error | null, result: unknown) => error ? reject(error) : resolve(result as T),
      )
    );
  await post("Profiler.enable");
  await post("Profiler.setSamplingInterval", { interval: 500 });
  // The inspector handles the start as it is posted: the profile's clock starts at about this time.
  const perfStart = performance.now();
  await post("Profiler.start");
  const cpu0 = process.cpuUsage();
  const report = await platform.projections.replay();
  const cpu = process.cpuUsage(cpu0);
  const { profile } = await post<{ profile: CpuProfile }>("Profiler.stop");
  session.disconnect();
  if (out) saveProfile(out, profile);
  console.log(
    `replay: ${report.events} events in ${report.seconds.toFixed(2)} s = ${
      Math.round(report.eventsPerSecond)
    } events/s;` +
      ` process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s`,
  );
  const charged = charge(profile, {
    wasmNames,
    phaseAt: (us) => phaseOf(perfStart + (us - profile.startTime) / 1000),
  });
  const busy = charged.totalMs - (charged.byOwner.get("idle") ?? 0);
  console.log(`sampled ${charged.totalMs.toFixed(0)} ms (busy ${busy.toFixed(0)} ms)`);
  console.log("| owner | ms | share of samples | share of busy |\n|---|---|---|---|");
  for (const [owner, ms] of [...charged.byOwner].sort((a, b) => b[1] - a[1])) {
    console.log(
      `| ${owner} | ${ms.toFixed(0)} | ${(ms / charged.totalMs * 100).toFixed(1)} % | ${
        owner === "idle" ? "—" : `${(ms / busy * 100).toFixed(1)} %`
      } |`,
    );
  }
  const owners: Owner[] = [
    "ours",
    "PGlite JS glue",
    "PGlite WebAssembly",
    "Deno runtime",
    "other library",
    "GC",
    "idle",
  ];
  console.log(`\n| phase | ${owners.join(" | ")} | total |\n|---|${owners.map(() => "---|").join("")}---|`);
  for (const [phase, by] of [...charged.byPhase].sort((a, b) => sum(b[1]) - sum(a[1]))) {
    console.log(`| ${phase} | ${owners.map((o) => (by.get(o) ?? 0).toFixed(0)).join(" | ")} | ${sum(by).toFixed(0)} |`);
  }
  const top = Number(process.env.ROWS ?? 12);
  const fileMs = sum(charged.fileCalls);
  console.log(`\nunder PGlite's file system layer: ${fileMs.toFixed(0)} ms, by phase ← PostgreSQL function:`);
  for (const [key, ms] of [...charged.fileCalls].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${key}`);
  }
  for (const [owner, fns] of charged.byFunction) {
    if (owner === "idle") continue;
    console.log(`\n${owner}:`);
    for (const [name, ms] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${name}`);
    }
  }
  await platform.close();
  copy.remove();
}
