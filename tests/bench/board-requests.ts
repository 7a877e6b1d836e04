/**
 * `deno run -A tests/bench/board-requests.ts [--runs=200]`: where a leaderboard request's time goes
 * over HTTP, per filter, on the segments bench's board (100,000 efforts by 20,000 athletes, a
 * 601-member club, 200 followees; `npm run bench -- segments --leaderboard`): the statements one
 * GET /v3/segments/1/leaderboard sends (with their transactions), the p50 of each, the p50 of the
 * whole request over loopback, of the same request through `app.request` (no socket), and of the
 * board's database time alone — the rest is ours (auth, middleware, checks, JSON).
 */
import { mkdtempSync, rmSync } from "node:fs";
import process from "node:process";
import { writeBoardData } from "./board-data.ts";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../../server/config.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { startServer } from "../../server/start.ts";
import { createApp } from "../../server/app.ts";
import { rebuildBoards } from "../../projections/segments/boards.ts";
import type { Db, Queryable } from "../../events/db/types.ts";
import { type CpuProfile, saveProfile } from "./main-thread-profile.ts";
import { segmentBoard } from "../../projections/segments/leaderboard.ts";
import { visibleActivities } from "../../server/privacy/engine.ts";
import { percentiles } from "./harness.ts";
import { explainBoard } from "./segments.bench.ts";
import type { LeaderboardFilters } from "../../server/segments/leaderboard.ts";

const only = process.argv.find((a) => a.startsWith("--filters="))?.split("=")[1]?.split(",");
const runs = Number(process.argv.find((a) => a.startsWith("--runs="))?.split("=")[1] ?? 200);
const dataDir = mkdtempSync(join(tmpdir(), "board-requests-"));
const server = await startServer(
  configFromEnv({
    port: 0,
    dataDir,
    databaseUrl: undefined,
    seedDemo: false,
    quiet: true,
    runJobs: false,
    rateLimitShort: 1e9,
    rateLimitLong: 1e9,
  }),
);
const platform = server.platform;
const db = platform.db;
// Statement tracing: each statement's text and duration, while `recording`.
let recording = false;
let trace: { sql: string; ms: number }[] = [];
const short = (sql: string) => (sql.startsWith("  ") ? "  " : "") + sql.replace(/\s+/g, " ").trim().slice(0, 100);
const timed = <T>(sql: string, run: () => Promise<T>): Promise<T> => {
  if (!recording) return run();
  const t = performance.now();
  return run().finally(() => trace.push({ sql: short(sql), ms: performance.now() - t }));
};
const wrap = <T extends Queryable>(q: T): T => {
  const w = Object.create(q) as T;
  w.query = ((sql: string, params?: unknown[]) => timed(`  ${sql}`, () => q.query(sql, params))) as T["query"];
  w.exec = ((sql: string) => timed(`  ${sql}`, () => q.exec(sql))) as T["exec"];
  return w;
};
const query = db.query.bind(db), exec = db.exec.bind(db), transaction = db.transaction.bind(db);
db.query = ((sql: string, params?: unknown[]) => timed(sql, () => query(sql, params))) as typeof db.query;
db.exec = ((sql: string) => timed(sql, () => exec(sql))) as typeof db.exec;
const withSettings = db.queryWithSettings?.bind(db);
if (withSettings) {
  db.queryWithSettings = (<T>(settings: Record<string, string>, sql: string, params: unknown[]) =>
    timed(`ONE CALL: ${sql}`, () =>
      withSettings<T>(settings, sql, params))) as typeof db.queryWithSettings;
}
db.transaction =
  ((fn, options) =>
    timed("TRANSACTION (whole)", () => transaction((tx) => fn(wrap(tx)), options))) as typeof db.transaction;

try {
  await writeBoardData(db);
  await db.exec(`
    insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade, total_elevation_gain,
           climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private, hazardous, created_at, updated_at)
    values (1, 'Board', 'Ride', '[[40,-5],[40.01,-5]]'::jsonb, 1000, 3, 5, 30, 0, 40, -5, 40.01, -5, 'abc', false, false,
            now(), now());
  `);
  await db.transaction((tx) => rebuildBoards(tx, [1]));
  await db.exec("analyze");
  const application = await createApplication(platform, {
    name: "Bench",
    ownerId: 1,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  const token = await issueToken(platform, {
    athleteId: 1,
    applicationId: application.client_id,
    permissions: ["read"],
  });
  const headers = { authorization: `Bearer ${token}` };
  const filters: Record<string, string> = {
    none: "",
    gender: "gender=F",
    age_group: "age_group=35_44",
    weight_class: "weight_class=75_84",
    following: "following=true",
    club_id: "club_id=1",
    date_range: "date_range=this_month",
  };
  const get = async (url: string) => {
    const res = await fetch(url, { headers });
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const { app } = createApp(platform);
  const inProcess = async (path: string) => {
    const res = await app.request(path, { headers });
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    await res.arrayBuffer();
  };
  const explain = process.argv.find((a) => a.startsWith("--explain="))?.split("=")[1];
  if (explain) {
    const f: Record<string, LeaderboardFilters> = { following: { following: true }, club_id: { clubId: 1 } };
    await explainBoard(db, explain, { segmentId: 1, viewerId: 1, filters: f[explain] ?? {} });
  }
  // `--loop=N`: N requests of the first filter listed in process, nothing printed (to profile with
  // `--v8-flags=--prof` and `node --prof-process`).
  const loop = Number(process.argv.find((a) => a.startsWith("--loop="))?.split("=")[1] ?? 0);
  if (loop) {
    const path = `/v3/segments/1/leaderboard?per_page=10&context_entries=2&${filters[only?.[0] ?? "none"]}`;
    // `--profile=<file>`: the loop sampled by V8's profiler in this process (the app and PGlite run
    // here); `deno run -A tests/bench/profile-owners.ts <file>` says whose time it is.
    const profileTo = process.argv.find((a) => a.startsWith("--profile="))?.slice(10);
    const session = profileTo ? new Session() : undefined;
    const post = <T>(method: string, params: Record<string, unknown> = {}) =>
      new Promise<T>((resolve, reject) =>
        session!.post(
          method,
          params,
          (error: Error | null, result: unknown) => error ? reject(error) : resolve(result as T),
        )
      );
    if (session) {
      for (let i = 0; i < 200; i++) await inProcess(path);
      session.connect();
      await post("Profiler.enable");
      await post("Profiler.setSamplingInterval", { interval: 200 });
      await post("Profiler.start");
    }
    for (let i = 0; i < loop; i++) await inProcess(path);
    if (session) {
      const { profile } = await post<{ profile: CpuProfile }>("Profiler.stop");
      session.disconnect();
      saveProfile(profileTo!, profile);
    }
  }
  // `--ab`: in process, in turn, the board as it runs now (one call) and as before round 9 (the
  // followers-only probe as its own statement, then BEGIN, SET, the statement, COMMIT).
  if (process.argv.includes("--ab")) {
    const before: Db = Object.create(db);
    before.queryWithSettings = undefined;
    const asFilters: Record<string, LeaderboardFilters> = {
      none: {},
      gender: { gender: "F" },
      age_group: { ageGroup: "35_44" },
      weight_class: { weightClass: "75_84" },
      following: { following: true },
      club_id: { clubId: 1 },
      date_range: { dateRange: "this_month" },
    };
    for (const [name, f] of Object.entries(asFilters)) {
      if (only && !only.includes(name)) continue;
      const req = {
        segmentId: 1,
        viewerId: 1,
        followersOnly: (alias: string, first: number) =>
          visibleActivities({ athleteId: 1, viewPrivate: true }, alias, first),
        filters: f,
        page: 1,
        perPage: 10,
        contextEntries: 2,
      };
      const now: number[] = [], then: number[] = [];
      for (let i = 0; i < 30 + runs; i++) {
        let t = performance.now();
        await segmentBoard(db, req);
        if (i >= 30) now.push(performance.now() - t);
        t = performance.now();
        const v = req.followersOnly("b", 3);
        await db.query(
          `select b.athlete_id::text as athlete_id from segment_follower_bests b
            where b.segment_id = $1 and b.period = $2 and ${v.sql}`,
          [1, f.dateRange ? "m" : "all", ...v.params],
        );
        await segmentBoard(before, { ...req, followersOnly: undefined });
        if (i >= 30) then.push(performance.now() - t);
      }
      const p = (xs: number[]) => percentiles(xs).p50;
      console.log(
        `ab ${name}: one call ${p(now).toFixed(2)} ms, five calls ${p(then).toFixed(2)} ms (${
          (p(now) / p(then)).toFixed(2)
        }×)`,
      );
    }
  }
  for (const [name, q] of Object.entries(filters)) {
    if (loop || process.argv.includes("--ab")) break;
    if (only && !only.includes(name)) continue;
    const path = `/v3/segments/1/leaderboard?per_page=10&context_entries=2&${q}`;
    for (let i = 0; i < 30; i++) await get(server.url + path);
    const http: number[] = [], local: number[] = [], dbTime: number[] = [];
    const perStatement = new Map<string, number[]>();
    for (let i = 0; i < runs; i++) {
      let t = performance.now();
      await get(server.url + path);
      http.push(performance.now() - t);
      trace = [];
      recording = true;
      t = performance.now();
      await inProcess(path);
      local.push(performance.now() - t);
      recording = false;
      // Database time: the top-level calls (a transaction's statements are inside its whole).
      trace.forEach((s, k) => {
        const key = `${k}. ${s.sql}`;
        perStatement.set(key, [...perStatement.get(key) ?? [], s.ms]);
      });
      dbTime.push(trace.filter((s) => !s.sql.startsWith("  ")).reduce((a, s) => a + s.ms, 0));
    }
    const p = (xs: number[]) => percentiles(xs).p50.toFixed(2);
    console.log(
      `\n== ${name}: HTTP ${p(http)} ms, app.request ${p(local)} ms, statements ${p(dbTime)} ms (p50 of the sum)`,
    );
    for (const [sql, ms] of perStatement) console.log(`   ${p(ms)} ms  ${sql}`);
  }
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
