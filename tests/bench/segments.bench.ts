import { mkdtempSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../../server/config.ts";
import { Hono } from "hono";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { startServer } from "../../server/start.ts";
import { rebuildBoards } from "../../projections/segments/boards.ts";
import { exploreSegments } from "../../projections/segments/queries.ts";
import { rebuildTileTops } from "../../projections/segments/tiles.ts";
import type { LatLng } from "../../server/segments/geometry.ts";
import { leaderboard, type LeaderboardFilters, segmentBoard } from "../../server/segments/leaderboard.ts";
import type { Db, Queryable } from "../../events/db/types.ts";
import { visibleActivities } from "../../server/privacy/engine.ts";
import {
  type MatchableSegment,
  matchAll,
  PreparedTrack,
  prepareSegment,
  SegmentIndex,
} from "../../server/segments/matching.ts";
import { type BenchFigure, type BenchSuite, percentiles } from "./harness.ts";
import { writeBoardData } from "./board-data.ts";

/**
 * Segments: leaderboard p50/p99 on one segment with 100,000 efforts by 20,000 athletes (each filter)
 * next to a bare prepared select of the rows a page shows (its floor), and the raw SQL window query
 * that computes the board from the efforts (what the maintained read model saves); explore over 100,000 segments next to a
 * scan of them in memory; matching a 6 h ride against 10,000 and 100,000 segments next to checking
 * every segment. Athletes and efforts are generated in bulk with SQL (generate_series); the
 * leaderboard's read model (bests, period bests, board counts) is then built by the projection's
 * own set-based `rebuildBoards` (the same SQL its event handlers run per athlete).
 * `npm run bench -- segments --leaderboard` runs only the leaderboard rows; `--explain` also prints
 * EXPLAIN ANALYZE of the board's statement for each filter, planned as the route plans it.
 */
const SEGMENTS = 100_000;

let seed = 42;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;

/** p50 / p99 of `runs` calls after `warm` unmeasured ones, and the process's CPU time per call (ms). */
async function time(
  fn: () => Promise<unknown> | unknown,
  runs: number,
  warm = 5,
): Promise<{ p50: number; p99: number; cpu: number }> {
  for (let i = 0; i < warm; i++) await fn();
  const samples: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
  }
  const used = process.cpuUsage(cpu);
  return { ...percentiles(samples), cpu: (used.user + used.system) / 1000 / runs };
}

/** A 6 h ride at 1 Hz: 21,600 points wandering over ~150 km around a centre. */
function sixHourRide(): LatLng[] {
  const points: LatLng[] = [];
  let lat = 45.5, lng = 7.5, heading = 0;
  for (let i = 0; i < 21_600; i++) {
    heading += (random() - 0.5) * 0.05;
    lat += Math.cos(heading) * 7 / 111_195;
    lng += Math.sin(heading) * 7 / (111_195 * Math.cos(lat * Math.PI / 180));
    points.push([lat, lng]);
  }
  return points;
}

/** n segments spread over the ride's region; the same 20 (ids 500, 1000, … 10,000) laid on the ride itself. */
function segmentsAround(ride: LatLng[], n: number): MatchableSegment[] {
  const lats = ride.map((p) => p[0]), lngs = ride.map((p) => p[1]);
  const [minLat, maxLat, minLng, maxLng] = [
    Math.min(...lats) - 0.3,
    Math.max(...lats) + 0.3,
    Math.min(...lngs) - 0.3,
    Math.max(...lngs) + 0.3,
  ];
  const out: MatchableSegment[] = [];
  for (let id = 1; id <= n; id++) {
    if (id % 500 === 0 && id <= 10_000) {
      const start = Math.floor(random() * (ride.length - 400));
      out.push({ id, activityType: "Ride", points: ride.slice(start, start + 300).filter((_, k) => k % 10 === 0) });
      continue;
    }
    const lat = minLat + random() * (maxLat - minLat), lng = minLng + random() * (maxLng - minLng);
    const pts: LatLng[] = [];
    let h = random() * 6.28;
    for (let k = 0; k < 20; k++) {
      h += (random() - 0.5) * 0.3;
      pts.push([lat + Math.cos(h) * k * 100 / 111_195, lng + Math.sin(h) * k * 100 / 78_000]);
    }
    out.push({ id, activityType: "Ride", points: pts });
  }
  return out;
}

export const segmentsSuite: BenchSuite = async (args) => {
  const figures: BenchFigure[] = [];
  // `--leaderboard`: only the leaderboard rows (explore and matching take minutes).
  const leaderboardOnly = args.includes("--leaderboard");
  const dataDir = mkdtempSync(join(tmpdir(), "bench-segments-"));
  // A real server on a port (in this process): the leaderboard is also measured over HTTP, as an athlete waits for it.
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
  let bareServer: Deno.HttpServer | undefined;
  try {
    const db = platform.db;
    // --- bulk data -------------------------------------------------------------------------------
    await writeBoardData(db);
    await db.exec(`
      insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade, total_elevation_gain,
             climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private, hazardous, effort_count, athlete_count,
             created_at, updated_at)
      select g, 'Seg ' || g, case when g % 2 = 0 then 'Ride' else 'Run' end, '[[0,0],[0,0.01]]'::jsonb, 1000, 3, 5, 30, g % 6,
             40 + (g % 1000) * 0.01 + (g % 7) * 0.001, -5 + (g / 1000) * 0.1, 40.01, -5, 'abc', false, false, g % 50, g % 40, now(), now()
        from generate_series(2, ${SEGMENTS + 1}) g;
      -- The board's segment (its counters come with the boards).
      insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade, total_elevation_gain,
             climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private, hazardous, created_at, updated_at)
      values (1, 'Board', 'Ride', '[[40,-5],[40.01,-5]]'::jsonb, 1000, 3, 5, 30, 0, 40, -5, 40.01, -5, 'abc', false, false,
              now(), now());
    `);
    const built = performance.now();
    await db.transaction(async (tx) => {
      await rebuildBoards(tx, [1]);
      // explore's tile lists, as a rebuild computes them for segments written in bulk here
      await rebuildTileTops(tx);
    });
    await db.exec("analyze");
    console.error(`segments: leaderboard read model built in ${Math.round(performance.now() - built)} ms`);
    // --- leaderboard -----------------------------------------------------------------------------
    const filters: [string, LeaderboardFilters][] = [
      ["none", {}],
      ["gender", { gender: "F" }],
      ["age_group", { ageGroup: "35_44" }],
      ["weight_class", { weightClass: "75_84" }],
      ["following", { following: true }],
      ["club_id", { clubId: 1 }],
      ["date_range", { dateRange: "this_month" }],
    ];
    const baselineSql = `
      select * from (
        select athlete_id, elapsed_time, rank() over (order by elapsed_time) - 1 as rank from (
          select distinct on (athlete_id) athlete_id, elapsed_time, start_date, id from segment_efforts
           where segment_id = 1 and visibility = 'everyone' order by athlete_id, elapsed_time, start_date, id) b) r
       order by rank limit 10`;
    const fromScratch = await time(() => db.query(baselineSql), 20);
    // The floor: a bare prepared select of the rows a board page shows (the top 10 of the maintained bests, and the viewer's row by key).
    const bareSql =
      `select b.athlete_id, b.effort_id, b.activity_id, b.elapsed_time, b.moving_time, b.start_date, b.start_date_local
        from segment_bests b where b.segment_id = $1 order by b.elapsed_time, b.start_date, b.effort_id limit 10`;
    // Warmed up well (PGlite's WebAssembly is compiled in tiers while the first calls run).
    const bare = await time(
      async () => {
        await db.query(bareSql, [1]);
        await db.query(
          "select elapsed_time, start_date, effort_id from segment_bests where segment_id = $1 and athlete_id = $2",
          [1, 7],
        );
      },
      200,
      50,
    );
    for (const [name, f] of filters) {
      // The viewer sits mid-board (context rows far from the page), or is athlete 1 for the
      // follow/club boards (who follows 200 athletes and belongs to the 601-member club).
      let viewer = 1;
      if (!f.following && f.clubId === undefined) {
        const outsider = { segmentId: 1, viewerId: 0, filters: { ...f }, perPage: 1, contextEntries: 0 };
        const { entry_count } = await leaderboard(db, { ...outsider, page: 1 }, "spec");
        viewer = (await leaderboard(db, { ...outsider, page: Math.ceil(entry_count / 2) }, "spec")).entries[0]
          .athlete_id;
      }
      // leaderboard() is what GET /v3/segments/:id/leaderboard calls after its access checks.
      const ours = await time(
        () =>
          leaderboard(db, {
            segmentId: 1,
            viewerId: viewer,
            // As the route: the followers-only bests this viewer may see (the probe, here finding none).
            followersOnly: (alias, first) => visibleActivities({ athleteId: viewer, viewPrivate: true }, alias, first),
            filters: { ...f },
            page: 1,
            perPage: 10,
            contextEntries: 2,
          }, "spec"),
        200,
        50,
      );
      figures.push({
        suite: "segments",
        name: `leaderboard p50, filter ${name}`,
        ours: ours.p50,
        baseline: bare.p50,
        baselineName: "bare select of the page's rows (2 statements)",
        unit: "ms",
        higherIsBetter: false,
        target: "p50 ≤ 3 ms",
      });
      if (name === "none") {
        figures.push({
          suite: "segments",
          name: "leaderboard p50 (no filter), next to computing it from the efforts",
          ours: ours.p50,
          baseline: fromScratch.p50,
          baselineName: "raw SQL rank() over distinct-on efforts",
          unit: "ms",
          higherIsBetter: false,
        });
      }
      figures.push({
        suite: "segments",
        name: `leaderboard p99, filter ${name}`,
        ours: ours.p99,
        baseline: bare.p99,
        baselineName: "bare select",
        unit: "ms",
        higherIsBetter: false,
      });
      figures.push({
        suite: "segments",
        name: `leaderboard CPU per call, filter ${name}`,
        ours: ours.cpu,
        baseline: bare.cpu,
        baselineName: "bare select",
        unit: "ms",
        higherIsBetter: false,
      });
    }
    if (args.includes("--explain")) {
      for (const [name, f] of filters) await explainBoard(platform.db, name, { segmentId: 1, viewerId: 1, filters: f });
    }
    // --- leaderboard over HTTP ---------------------------------------------------------------------
    // GET /v3/segments/1/leaderboard as an athlete's client sends it (a real token, every check the
    // route makes), next to a bare Hono handler on the same database answering the page's rows (the
    // two statements of the bare select above) as JSON: sequential requests over loopback, in turn.
    const application = await createApplication(platform, {
      name: "Bench",
      ownerId: 1,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
    });
    const tokens = new Map<number, string>();
    const tokenOf = async (athleteId: number) => {
      if (!tokens.has(athleteId)) {
        tokens.set(
          athleteId,
          await issueToken(platform, { athleteId, applicationId: application.client_id, permissions: ["read"] }),
        );
      }
      return tokens.get(athleteId)!;
    };
    const bareApp = new Hono();
    bareApp.get("/board", async (c) => {
      const page = await db.query(bareSql, [1]);
      const mine = await db.query(
        "select elapsed_time, start_date, effort_id from segment_bests where segment_id = $1 and athlete_id = $2",
        [1, 7],
      );
      return c.json({ page: page.map((r) => ({ ...r, effort_id: String(r.effort_id) })), mine: mine.length });
    });
    bareServer = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, bareApp.fetch);
    const bareUrl = `http://127.0.0.1:${(bareServer.addr as Deno.NetAddr).port}/board`;
    const query: Record<string, string> = {
      none: "",
      gender: "gender=F",
      age_group: "age_group=35_44",
      weight_class: "weight_class=75_84",
      following: "following=true",
      club_id: "club_id=1",
      date_range: "date_range=this_month",
    };
    for (const [name, f] of filters) {
      let viewer = 1;
      if (!f.following && f.clubId === undefined) {
        const outsider = { segmentId: 1, viewerId: 0, filters: { ...f }, perPage: 1, contextEntries: 0 };
        const { entry_count } = await leaderboard(db, { ...outsider, page: 1 }, "spec");
        viewer =
          (await leaderboard(db, { ...outsider, page: Math.ceil(entry_count / 2) }, "spec")).entries[0].athlete_id;
      }
      const headers = { authorization: `Bearer ${await tokenOf(viewer)}` };
      const url = `${server.url}/v3/segments/1/leaderboard?per_page=10&context_entries=2&${query[name]}`;
      const get = async (target: string, init?: RequestInit) => {
        const res = await fetch(target, init);
        if (res.status !== 200) throw new Error(`segments: ${target}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
      };
      // In turn, so both see the same machine: ours, bare, ours, bare…
      const oursSamples: number[] = [], bareSamples: number[] = [];
      for (let i = 0; i < 50; i++) {
        await get(url, { headers });
        await get(bareUrl);
      }
      for (let i = 0; i < 300; i++) {
        let t = performance.now();
        await get(url, { headers });
        oursSamples.push(performance.now() - t);
        t = performance.now();
        await get(bareUrl);
        bareSamples.push(performance.now() - t);
      }
      figures.push({
        suite: "segments",
        name: `leaderboard p50 over HTTP, filter ${name}`,
        ours: percentiles(oursSamples).p50,
        baseline: percentiles(bareSamples).p50,
        baselineName: "bare Hono handler: the page's rows over HTTP, same database, in turn",
        unit: "ms",
        higherIsBetter: false,
        target: "p50 ≤ 3 ms",
      });
    }
    console.error(
      `segments: load average ${
        loadavg().map((l) => l.toFixed(1)).join(" / ")
      } (1 / 5 / 15 min) after the leaderboard rows`,
    );
    if (leaderboardOnly) return figures;
    // --- explore ---------------------------------------------------------------------------------
    const rows = await db.query<
      {
        id: number;
        activity_type: string;
        start_lat: number;
        start_lng: number;
        climb_category: number;
        athlete_count: number;
        effort_count: number;
      }
    >(
      "select id, activity_type, start_lat, start_lng, climb_category, athlete_count, effort_count from segments",
    );
    const box = (): [number, number, number, number] => {
      const s = 40 + random() * 9.5, w = -5 + random() * 9.5;
      return [s, w, s + 0.3, w + 0.3];
    };
    const exploreOurs = await time(
      () => exploreSegments(db, { bounds: box(), activityType: "Ride", minCat: 0, maxCat: 5 }),
      100,
    );
    const exploreScan = await time(() => {
      const [s, w, n, e] = box();
      return rows.filter((r) =>
        r.activity_type === "Ride" && r.start_lat >= s && r.start_lat <= n && r.start_lng >= w && r.start_lng <= e
      )
        .sort((a, b) => b.athlete_count - a.athlete_count || b.effort_count - a.effort_count || a.id - b.id).slice(
          0,
          10,
        );
    }, 100);
    figures.push({
      suite: "segments",
      name: `explore p50 over ${SEGMENTS.toLocaleString("en-US")} segments`,
      ours: exploreOurs.p50,
      baseline: exploreScan.p50,
      baselineName: "scan of all rows in memory",
      unit: "ms",
      higherIsBetter: false,
      target: "p50 ≤ 10 ms",
    });
    figures.push({
      suite: "segments",
      name: "explore p99",
      ours: exploreOurs.p99,
      baseline: exploreScan.p99,
      baselineName: "scan in memory",
      unit: "ms",
      higherIsBetter: false,
    });
    // --- matching --------------------------------------------------------------------------------
    const ride = sixHourRide();
    const track = new PreparedTrack(ride);
    const all = segmentsAround(ride, 100_000);
    const results: Record<number, number> = {};
    for (const n of [10_000, 100_000]) {
      const subset = all.slice(0, n);
      const index = new SegmentIndex();
      index.add(subset);
      index.rebuild();
      const prepared = subset.map(prepareSegment);
      const ours = await time(() => index.match(track, ["Ride"]), 5);
      const brute = await time(() => matchAll(track, prepared, ["Ride"]), 3);
      const found = index.match(track, ["Ride"]).length;
      results[n] = ours.p50;
      figures.push({
        suite: "segments",
        name: `match 6 h ride vs ${n.toLocaleString("en-US")} segments (${found} efforts)`,
        ours: ours.p50,
        baseline: brute.p50,
        baselineName: "every segment checked",
        unit: "ms",
        higherIsBetter: false,
      });
    }
    figures.push({
      suite: "segments",
      name: "matching 6 h ride vs 100,000 segments, next to 10,000 (how it grows)",
      ours: results[100_000],
      baseline: results[10_000],
      baselineName: "the same against 10,000 segments",
      unit: "ms",
      higherIsBetter: false,
      target: "≤ 2×",
    });
  } finally {
    await bareServer?.shutdown();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return figures;
};

/**
 * Prints EXPLAIN (ANALYZE, BUFFERS) of the leaderboard's statement for one filter, planned as the
 * route runs it: in its transaction with its settings, as a prepared statement (generic plan),
 * after five warm runs.
 */
export async function explainBoard(
  db: Db,
  name: string,
  req: { segmentId: number; viewerId: number; filters: LeaderboardFilters },
): Promise<void> {
  let seen: { sql: string; params: unknown[] } | undefined;
  const capture: Db = Object.create(db);
  capture.queryWithSettings = db.queryWithSettings &&
    (<T>(settings: Record<string, string>, sql: string, params: unknown[]) => {
      seen = { sql, params };
      return db.queryWithSettings!<T>(settings, sql, params);
    });
  capture.transaction = ((fn: (tx: Queryable) => Promise<unknown>) =>
    db.transaction((tx) => {
      const w: Queryable = Object.create(tx);
      w.query = ((sql: string, params?: unknown[]) => {
        seen = { sql, params: params ?? [] };
        return tx.query(sql, params);
      }) as Queryable["query"];
      return fn(w);
    })) as Db["transaction"];
  for (let i = 0; i < 5; i++) {
    await segmentBoard(capture, { ...req, page: 1, perPage: 10, contextEntries: 2 });
  }
  const literal = (v: unknown): string =>
    Array.isArray(v)
      ? `'{${v.map((x) => `"${String(x)}"`).join(",")}}'`
      : typeof v === "string"
      ? `'${v.replaceAll("'", "''")}'`
      : String(v);
  const plan = await db.transaction(async (tx) => {
    await tx.exec(
      "set local plan_cache_mode = force_generic_plan; set local enable_sort = off; set local jit = off",
    );
    await tx.exec(`prepare board_explain as ${seen!.sql}`);
    for (let i = 0; i < 5; i++) await tx.exec(`execute board_explain(${seen!.params.map(literal).join(", ")})`);
    const rows = await tx.query<{ "QUERY PLAN": string }>(
      `explain (analyze, buffers) execute board_explain(${seen!.params.map(literal).join(", ")})`,
    );
    await tx.exec("deallocate board_explain");
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  });
  console.error(`\n=== leaderboard, filter ${name}\n${plan}`);
}
