import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { startServer } from "../../server/start.ts";
import { rebuildAllBoards } from "../../projections/segments/boards.ts";
import { rebuildTileTops } from "../../projections/segments/tiles.ts";
import type { Queryable } from "../../events/db/types.ts";
import { type BenchFigure, type BenchSuite, percentiles } from "./harness.ts";
import { FACTS } from "./clubs.bench.ts";

/**
 * Flat as the data grows (issue #35 item 6): the same reads, over real HTTP against a real server
 * (startServer, in this process) with a real token, at 1× and at 10× the data, in one run.
 *
 * 1× is one "block" of data; 10× is ten blocks (the first is the 1× data, nine more are added to
 * the same database). A block is 2,000 athletes (each premium, with sex, birthdate and weight),
 * 20,000 activities (10 per athlete over the last 400 days, one in ten private, three in ten runs),
 * 20,000 follows (each athlete follows 10 of its block), 10,000 segments spread over a 10° × 10°
 * region (lat 40–50, lng −5–5), 20,000 segment efforts (half on one popular segment, 5 per
 * athlete, half spread over the block's segments) and 500 club members (a quarter of the block's
 * athletes join the one club). At 10× the club has 5,000 members and the popular segment 100,000
 * efforts by 20,000 athletes (the segments bench's board). The viewer (a real athlete with a real
 * token) is the same at both sizes: 10 activities, follows 20 athletes, owns the club, has efforts
 * on the popular segment — so per-viewer quantities stay and the population around them grows.
 *
 * The rows are written in bulk with SQL (generate_series) straight into the read models, not
 * through events (not replayable, as in clubs.bench.ts): activities, club_feed_activities,
 * athlete_stats_activities / athlete_stats_days (as the athlete-stats projection keeps them),
 * follows, clubs / club_members, segments, segment_efforts, and the boards (segment_bests,
 * period bests, board counts, effort_count / athlete_count) by the projection's own set-based
 * `rebuildAllBoards` and explore's tile lists (`rebuildTileTops`); then `analyze`.
 *
 * Each read: 50 warm-up and 200 measured sequential requests; p50 and p99 at each size. Every
 * read is checked to answer its status with non-empty content at both sizes (the suite throws
 * otherwise). `npm run bench -- scale [--explain] [--scale-reads=explore,…]` (only the reads whose
 * name holds one of the words): `--explain` also prints, at 1× and at 10×,
 * EXPLAIN ANALYZE of every statement each read runs through the server's database handle (the
 * leaderboard's own statement does not pass through it: only its segment lookup is shown).
 */
const BLOCKS = 10;
const ATHLETES = 2_000;
const ACTIVITIES = 20_000;
const SEGMENTS = 10_000;
const EFFORTS = 20_000;
const FOLLOWS_EACH = 10;
const WARM = 50;
const RUNS = 200;
/** Unmeasured requests of every read before the first measurement. */
const SYSTEM_WARM = 150;

const ATH0 = 10_000_000;
const ACT0 = 100_000_000;
const ME_ACT0 = 99_000_000;
const SEG0 = 1_000_000;
const EFFORT0 = 5_000_000_000;
const POPULAR = 1;
const CLUB = 1_000_001;
/** A regional map view (1° × 1°) inside the data's region: ~50 ride segments at 1×, ~500 at 10×. */
const EXPLORE_BOUNDS = "44.5,-0.5,45.5,0.5";
const DAY = 86_400;

const isoOf = (epoch: string) => `to_char(to_timestamp(${epoch}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

/**
 * Blocks [from, to) of bulk data. In block b, athlete j (0-based) is ATH0 + b·A + j + 1; activity l
 * is ACT0 + b·N + l + 1, owned by athlete l mod A, its k-th (k = l div A); efforts use the owner's
 * first activity (k = 0, public).
 */
function blocksSql(from: number, to: number, now: number): string {
  const A = ATHLETES, N = ACTIVITIES, S = SEGMENTS, E = EFFORTS;
  const facts = JSON.stringify(FACTS);
  return `
    insert into athletes (id, firstname, lastname, email, password_hash, sex, premium, birthdate, weight, created_at, updated_at)
      select ${ATH0} + g, 'Rider' || g, 'Bulk', 'r' || g || '@scale.example', 'x',
             case when g % 2 = 0 then 'F' else 'M' end, true, (1950 + g % 55)::text || '-06-01', 45 + (g % 60), now(), now()
        from generate_series(${from * A + 1}, ${to * A}) g;
    insert into activities (id, athlete_id, name, type, start_date, start_epoch, start_date_local, timezone, distance,
        moving_time, elapsed_time, total_elevation_gain, visibility, commute, trainer, manual, facts, recorded_position)
      select ${ACT0} + g + 1, ${ATH0} + b * ${A} + (l % ${A}) + 1, 'Ride ' || g,
             case when (l / ${A}) % 3 = 2 then 'Run' else 'Ride' end,
             ${isoOf("t")}, t, ${isoOf("t")}, '(GMT+00:00) UTC', 20000 + l % 5000, 3600, 3700, 100 + l % 300,
             case when (l / ${A}) % 10 = 3 then 'only_me' else 'everyone' end, false, false, false, $facts$${facts}$facts$::jsonb, ${ACT0} + g + 1
        from generate_series(${from * N}, ${to * N - 1}) g,
             lateral (select g / ${N} as b, g % ${N} as l) x,
             lateral (select ${now} - l * ${Math.floor(400 * DAY / N)} - b * 17 as t) y;
    insert into follows (follower_id, followee_id, created_at)
      select ${ATH0} + b * ${A} + j + 1, ${ATH0} + b * ${A} + (j + 1 + 37 * k) % ${A} + 1, now()
        from generate_series(${from * A}, ${to * A - 1}) g, generate_series(0, ${FOLLOWS_EACH - 1}) k,
             lateral (select g / ${A} as b, g % ${A} as j) x
      on conflict do nothing;
    insert into club_members (club_id, athlete_id, membership, admin, owner, since)
      select ${CLUB}, ${ATH0} + g + 1, 'member', false, false, now()
        from generate_series(${from * A}, ${to * A - 1}) g where g % 4 = 0;
    update clubs c set member_count = (select count(*) from club_members m where m.club_id = c.id and m.membership = 'member')
     where c.id = ${CLUB};
    insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade, total_elevation_gain,
        climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private, hazardous, created_at, updated_at)
      select ${SEG0} + g + 1, 'Seg ' || g, case when g % 2 = 0 then 'Ride' else 'Run' end, '[[0,0],[0,0.01]]'::jsonb,
             1000, 3, 5, 30, g % 6, lat, lng, lat + 0.009, lng, 'abc', false, false, now(), now()
        from generate_series(${from * S}::bigint, ${to * S - 1}::bigint) g,
             lateral (select 40 + ((g * 7919) % 100003) / 100003.0 * 10 as lat,
                             -5 + ((g * 15485863) % 99991) / 99991.0 * 10 as lng) p;
    insert into segment_efforts (id, segment_id, activity_id, athlete_id, ord, name, start_index, end_index, start_date,
        start_date_local, elapsed_time, moving_time, distance, achievements, hidden, visibility)
      select ${EFFORT0} + g, case when e % 2 = 0 then ${POPULAR} else ${SEG0} + b * ${S} + (e / 2) % ${S} + 1 end,
             ${ACT0} + b * ${N} + j + 1, ${ATH0} + b * ${A} + j + 1, e % 2, 'S', 0, 10,
             now() - (((e + b * 97) % 400) || ' days')::interval,
             (now() - (((e + b * 97) % 400) || ' days')::interval)::timestamp,
             300 + ((g * 7919) % 900), 300 + ((g * 7919) % 900), 1000, '[]'::jsonb, false, 'everyone'
        from generate_series(${from * E}::bigint, ${to * E - 1}::bigint) g,
             lateral (select g / ${E} as b, g % ${E} as e) x, lateral (select (e / 2) % ${A} as j) y;
    insert into club_feed_activities (activity_id, athlete_id, start_date, visibility)
      select id, athlete_id, start_date::timestamptz, visibility from activities
       where id > ${ACT0 + from * N} and id <= ${ACT0 + to * N};
    ${statsSql(`activity_id > ${ACT0 + from * N} and activity_id <= ${ACT0 + to * N}`)}
  `;
}

/** The athlete-stats read model of the activities whose stats rows match `where` (new athletes only). */
function statsSql(where: string): string {
  return `
    insert into athlete_stats_activities (activity_id, athlete_id, sport, grp, day, visibility, distance, moving_time,
        elapsed_time, elevation_gain)
      select id, athlete_id, type, case type when 'Ride' then 'ride' when 'Run' then 'run' end, left(start_date_local, 10),
             visibility, distance, moving_time, elapsed_time, total_elevation_gain from activities a
       where ${where.replaceAll("activity_id", "a.id")};
    insert into athlete_stats_days (athlete_id, grp, day, visibility, count, distance, moving_time, elapsed_time,
        elevation_gain, achievement_count)
      select athlete_id, grp, day, visibility, count(*), sum(distance), sum(moving_time), sum(elapsed_time),
             sum(elevation_gain), sum(achievement_count)
        from athlete_stats_activities where ${where} and grp is not null
       group by athlete_id, grp, day, visibility;
  `;
}

/** The viewer's own rows (1× only): activities, follows, club ownership, efforts on the popular segment. */
function viewerSql(me: number, now: number): string {
  const facts = JSON.stringify(FACTS);
  return `
    insert into activities (id, athlete_id, name, type, start_date, start_epoch, start_date_local, timezone, distance,
        moving_time, elapsed_time, total_elevation_gain, visibility, commute, trainer, manual, facts, recorded_position)
      select ${ME_ACT0} + k, ${me}, 'My ride ' || k, 'Ride', ${isoOf("t")}, t, ${isoOf("t")}, '(GMT+00:00) UTC',
             30000, 3600, 3700, 200, 'everyone', false, false, false, $facts$${facts}$facts$::jsonb, ${ME_ACT0} + k
        from generate_series(1, 10) k, lateral (select ${now} - k * ${40 * DAY} + 600 as t) y;
    insert into club_feed_activities (activity_id, athlete_id, start_date, visibility)
      select id, athlete_id, start_date::timestamptz, visibility from activities where athlete_id = ${me};
    ${statsSql(`activity_id > ${ME_ACT0} and activity_id <= ${ME_ACT0 + 10}`)}
    insert into follows (follower_id, followee_id, created_at)
      select ${me}, ${ATH0} + j, now() from generate_series(1, 20) j;
    insert into clubs (id, name, club_type, sport_type, private, verified, owner_id, url, created_at, updated_at)
      values (${CLUB}, 'Scale club', 'casual_club', 'cycling', false, false, ${me}, 'scale-club', now(), now());
    insert into club_members (club_id, athlete_id, membership, admin, owner, since)
      values (${CLUB}, ${me}, 'member', true, true, now());
    update clubs c set member_count = (select count(*) from club_members m where m.club_id = c.id and m.membership = 'member')
     where c.id = ${CLUB};
    insert into segments (id, name, activity_type, points, distance, average_grade, maximum_grade, total_elevation_gain,
        climb_category, start_lat, start_lng, end_lat, end_lng, polyline, private, hazardous, created_at, updated_at)
      values (${POPULAR}, 'Popular', 'Ride', '[[45,0],[45.009,0]]'::jsonb, 1000, 3, 5, 30, 1, 45, 0, 45.009, 0, 'abc',
              false, false, now(), now());
    insert into segment_efforts (id, segment_id, activity_id, athlete_id, ord, name, start_index, end_index, start_date,
        start_date_local, elapsed_time, moving_time, distance, achievements, hidden, visibility)
      select ${EFFORT0 - 10} + k, ${POPULAR}, ${ME_ACT0} + k, ${me}, 0, 'S', 0, 10, now() - (k || ' days')::interval,
             (now() - (k || ' days')::interval)::timestamp, 700 + k, 700 + k, 1000, '[]'::jsonb, false, 'everyone'
        from generate_series(1, 3) k;
  `;
}

interface Read {
  name: string;
  path: string;
  /** The status the read answers (another athlete's activity: 403, as Strava's detailed read). */
  status: number;
  /** Throws unless the body holds what the read should return. */
  check: (body: unknown) => void;
}

function nonEmpty(what: string, ok: boolean): void {
  if (!ok) throw new Error(`scale: ${what} answered nothing`);
}

export const scaleBench: BenchSuite = async (args) => {
  const explain = args.includes("--explain");
  const dataDir = mkdtempSync(join(tmpdir(), "bench-scale-"));
  const server = await startServer(
    configFromEnv({
      port: 0,
      dataDir,
      seedDemo: false,
      quiet: true,
      databaseUrl: undefined,
      runJobs: false,
      rateLimitShort: 1e9,
      rateLimitLong: 1e9,
    }),
  );
  try {
    const { platform } = server;
    const db = platform.db;
    const me = await createAthlete(platform, {
      firstname: "Scale",
      lastname: "Viewer",
      email: "scale@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Scale bench",
      ownerId: me,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
      challengesEnabled: true,
    });
    const token = await issueToken(platform, {
      athleteId: me,
      applicationId: app.client_id,
      permissions: ["read", "write"],
    });
    const now = Math.floor(Date.now() / 1000) - 3600;
    const other = ATH0 + 2; // block 0's athlete 1, whom the viewer follows
    const otherActivity = ACT0 + 2; // their first activity (public)
    const allReads: Read[] = [
      {
        name: "GET /v3/activities/:id (own)",
        path: `/v3/activities/${ME_ACT0 + 1}`,
        status: 200,
        check: (b) => nonEmpty("own activity", (b as { id?: number }).id === ME_ACT0 + 1),
      },
      {
        name: "GET /v3/activities/:id (another athlete's, visible: 403 by design)",
        path: `/v3/activities/${otherActivity}`,
        status: 403,
        check: (b) => nonEmpty("other's activity", typeof (b as { message?: string }).message === "string"),
      },
      {
        name: "GET /v3/athlete/activities (per_page 30)",
        path: "/v3/athlete/activities?per_page=30",
        status: 200,
        check: (b) => nonEmpty("athlete activities", Array.isArray(b) && b.length === 10),
      },
      {
        name: "GET /v3/activities/following (feed, per_page 30)",
        path: "/v3/activities/following?per_page=30",
        status: 200,
        check: (b) => nonEmpty("following feed", Array.isArray(b) && b.length === 30),
      },
      {
        name: "GET /v3/clubs/:id/activities (club feed)",
        path: `/v3/clubs/${CLUB}/activities`,
        status: 200,
        check: (b) => nonEmpty("club feed", Array.isArray(b) && b.length === 30),
      },
      {
        name: `GET /v3/segments/explore (bounds ${EXPLORE_BOUNDS})`,
        path: `/v3/segments/explore?bounds=${EXPLORE_BOUNDS}`,
        status: 200,
        check: (b) => nonEmpty("explore", ((b as { segments?: unknown[] }).segments?.length ?? 0) === 10),
      },
      {
        name: "GET /v3/segments/:id/leaderboard (popular segment)",
        path: `/v3/segments/${POPULAR}/leaderboard`,
        status: 200,
        check: (b) => {
          const board = b as { entries?: { athlete_id?: number }[]; entry_count?: number };
          nonEmpty("leaderboard", (board.entries?.length ?? 0) >= 10 && (board.entry_count ?? 0) > ATHLETES);
        },
      },
      {
        name: "GET /v3/athletes/:id/stats (own)",
        path: `/v3/athletes/${me}/stats`,
        status: 200,
        check: (b) =>
          nonEmpty("stats", ((b as { all_ride_totals?: { count?: number } }).all_ride_totals?.count ?? 0) > 0),
      },
    ];
    // `--scale-reads=explore,feed`: only the reads whose name contains one of these words.
    const only = args.find((a) => a.startsWith("--scale-reads="))?.slice("--scale-reads=".length).split(",");
    const reads = only ? allReads.filter((r) => only.some((w) => r.name.includes(w))) : allReads;
    const get = async (read: Read, check = false) => {
      const res = await fetch(`${server.url}${read.path}`, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== read.status) throw new Error(`scale: ${read.path}: ${res.status} ${await res.text()}`);
      if (check) read.check(await res.json());
      else await res.arrayBuffer();
    };
    const measure = async (label: string) => {
      const out: { p50: number; p99: number }[] = [];
      for (const read of reads) {
        await get(read, true);
        for (let i = 0; i < WARM; i++) await get(read);
        const samples: number[] = [];
        for (let i = 0; i < RUNS; i++) {
          const t = performance.now();
          await get(read);
          samples.push(performance.now() - t);
        }
        out.push(percentiles(samples));
      }
      console.error(
        `scale: load average ${
          loadavg().map((l) => l.toFixed(1)).join(" / ")
        } (1 / 5 / 15 min) after the ${label} reads`,
      );
      return out;
    };
    const build = async (label: string, sql: string, before?: string) => {
      const t = performance.now();
      if (before) await db.exec(before);
      await db.exec(sql);
      await db.transaction(async (tx) => {
        await rebuildAllBoards(tx);
        await rebuildTileTops(tx);
      });
      await db.exec("analyze");
      console.error(`scale: ${label} data built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    };
    await build("1×", blocksSql(0, 1, now), viewerSql(me, now));
    const [count1] = await db.query<{ n: number }>("select count(*)::int as n from activities where athlete_id = $1", [
      other,
    ]);
    nonEmpty("the followed athlete's activities", count1.n === 10);
    // The whole server warmed first (PGlite's WebAssembly is compiled in tiers while the first calls
    // run): without it the 1× figures, measured first, carry the warm-up and the ratios look better.
    for (const read of reads) for (let i = 0; i < SYSTEM_WARM; i++) await get(read);
    const one = await measure("1×");
    if (explain) await explainReads(db, reads, get, "1×");
    await build(`${BLOCKS}×`, blocksSql(1, BLOCKS, now));
    const ten = await measure(`${BLOCKS}×`);
    if (explain) await explainReads(db, reads, get, `${BLOCKS}×`);
    const figures: BenchFigure[] = [];
    reads.forEach((read, i) => {
      for (const q of ["p50", "p99"] as const) {
        figures.push({
          suite: "scale",
          name: `${read.name} ${q}`,
          ours: ten[i][q],
          baseline: one[i][q],
          baselineName: "same read at 1× data",
          unit: "ms",
          higherIsBetter: false,
          ...(q === "p50" ? { target: "10× p50 ≤ 1.3× the 1× p50" } : {}),
        });
      }
    });
    return figures;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/**
 * Prints EXPLAIN ANALYZE of each statement a read runs: the server's database handle is wrapped
 * while one request of the read runs, so the statements (with their parameters) are the route's own.
 */
async function explainReads(
  db: Queryable,
  reads: Read[],
  get: (read: Read) => Promise<void>,
  size: string,
): Promise<void> {
  const original = db.query.bind(db);
  for (const read of reads) {
    const seen: { sql: string; params?: unknown[] }[] = [];
    (db as { query: Queryable["query"] }).query = (sql: string, params?: unknown[]) => {
      seen.push({ sql, params });
      return original(sql, params);
    };
    try {
      await get(read);
    } finally {
      (db as { query: Queryable["query"] }).query = original;
    }
    console.error(`\n=== ${size}: ${read.name}: ${seen.length} statement(s)`);
    for (const s of seen) {
      if (!/^\s*(with|select)\b/i.test(s.sql)) continue;
      const plan = await original<{ "QUERY PLAN": string }>(`explain (analyze, buffers) ${s.sql}`, s.params);
      console.error(`--- ${s.sql.replace(/\s+/g, " ").slice(0, 300)}\n    params ${JSON.stringify(s.params ?? [])}`);
      console.error(plan.map((r) => r["QUERY PLAN"]).join("\n"));
    }
  }
}
