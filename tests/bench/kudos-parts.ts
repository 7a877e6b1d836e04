/**
 * `deno run -A tests/bench/kudos-parts.ts`: a kudos's statement taken apart **under 8 callers at
 * once** (as the load bench's 8 connections), on a platform opened as `npm start` opens one (PGlite
 * on disk, durable: every statement's WAL synced before it resolves, with group commit). Rounds of
 * ROUND statements alternate between ways; each way reports the process's CPU per statement, the
 * statements per second and how many statements shared a WAL sync:
 * - bare: the load bench's baseline insert (a two-column row, tests/bench/load-bare.ts);
 * - event: the append's insert into `events` (its five indexes);
 * - event, 2 indexes: the same row into a table with the primary key and the stream's unique
 *   version only (what the three other indexes cost each append);
 * - + kudos row, + count (wide row), + checkpoint: the fused statement's parts added one at a time;
 * - + condition, + privacy, + the append's shape: the statement's read side added to the four writes
 *   one part at a time (the decider's condition over the activity's stream, the privacy predicate,
 *   then the append shaped as the route sends it: version read first, events as a JSON array);
 * - count narrow: the same but the count upserted into a two-column table instead of the
 *   activities row;
 * - kudos: the route's command (`giveKudosAtOnce`, a first kudos: the decider's condition and the
 *   privacy predicate in the append, the inline projection fused).
 * Then each way's WAL per statement (pg_stat_wal: records, full-page images, bytes, and the insert
 * LSN's advance); CHECKPOINTS=1 checkpoints before every round (every page's first change then
 * writes a full-page image). EXPLAIN=1 prints the route statement's generic plan; EXPLAIN=times
 * also sets its planning against its execution (EXPLAIN's summary) and runs it, one caller, planned
 * anew as the server sends it against prepared once (PLAN_MODE sets plan_cache_mode for that one).
 * PRINT_SQL=1 prints the route's statement as captured.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { systemActor } from "../../server/actor.ts";
import { createActivity, giveKudosAtOnce } from "../../server/activities/commands.ts";
import { visibleActivityCondition } from "../../server/activities/access.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { forgetFoldedStates } from "../../events/decider.ts";
import { configFromEnv } from "../../server/config.ts";
import { nextId } from "../../server/ids.ts";
import { openPlatform } from "../../server/open-platform.ts";
import type { Auth } from "../../server/http/auth.ts";

const ROUND = Number(process.env.ROUND ?? 400), ROUNDS = Number(process.env.ROUNDS ?? 4);
const CALLERS = Number(process.env.CALLERS ?? 8);
const dir = mkdtempSync(join(tmpdir(), "fitness-kudos-parts-"));
const platform = await openPlatform(
  configFromEnv({ dataDir: join(dir, "data"), databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
);
try {
  const owner = await createAthlete(platform, {
    firstname: "O",
    lastname: "K",
    email: "o@example.com",
    password: "password123",
  });
  const givers: number[] = [];
  for (let i = 0; i < 2 * ROUNDS + 4; i++) {
    givers.push(
      await createAthlete(platform, {
        firstname: `G${i}`,
        lastname: "K",
        email: `g${i}@example.com`,
        password: "password123",
      }),
    );
  }
  const activities: number[] = [];
  for (let i = 0; i < ROUND; i++) {
    const activityId = await nextId(platform.db, "activity");
    await createActivity(platform, {
      activityId,
      athleteId: owner,
      name: `Ride ${i}`,
      type: "Ride",
      sportType: "Ride",
      startDate: "2026-01-01T08:00:00Z",
      startDateLocal: "2026-01-01T09:00:00Z",
      timezone: "(GMT+01:00) Europe/Paris",
      elapsedTime: 3600,
      distance: 20_000,
      description: null,
      visibility: "everyone",
      trainer: false,
      commute: false,
    }, systemActor("bench"));
    activities.push(activityId);
  }
  await platform.db.exec(`
    create table bare_kudos (activity_id bigint not null, athlete_id bigint not null, primary key (activity_id, athlete_id));
    create table zz_events_lean (
      global_position bigint generated always as identity primary key,
      transaction_id xid8 not null default pg_current_xact_id(),
      stream_id text not null, stream_version integer not null, type text not null,
      schema_version integer not null, data jsonb not null, metadata jsonb not null default '{}'::jsonb,
      recorded_at timestamptz not null default now(),
      constraint zz_events_lean_stream_version unique (stream_id, stream_version));
    create table zz_kudos_counts (activity_id bigint primary key, n integer not null);
    create table zz_kudos (activity_id bigint not null, athlete_id bigint not null, position bigint not null,
      primary key (activity_id, athlete_id));`);
  const event = (table: string) =>
    `appended as (
       insert into ${table} (stream_id, stream_version, type, schema_version, data, metadata)
       values ($1, 1, 'ZzKudosPart', 1, $2::jsonb, $3::jsonb) returning global_position as position)`;
  const row = `, k as (insert into zz_kudos (activity_id, athlete_id, position)
      select $4::bigint, $5::bigint, (select position from appended) on conflict do nothing returning 1)`;
  const wide =
    `, c as (update activities set kudos_count = kudos_count + (select count(*) from k) where id = $4::bigint)`;
  const narrow = `, c as (insert into zz_kudos_counts (activity_id, n) select $4::bigint, count(*) from k
      on conflict (activity_id) do update set n = zz_kudos_counts.n + excluded.n)`;
  const checkpoint =
    `, p as (insert into projection_checkpoints (name, position) select 'zz_kudos_parts', (select position from appended)
      on conflict (name) do update set position = excluded.position)`;
  // The statement's read side, added to the four writes: the decider's condition (one aggregate
  // over the activity's stream, as events/activity/decide.ts sends it) and the privacy predicate.
  const condition = `coalesce((select bool_or(case when e.type = 'ActivityCreated' or e.type = 'ActivityRecorded'
        then (e.data->>'athleteId')::bigint <> $5::bigint else false end)
      and not bool_or(case when e.type = 'ActivityDeleted' then true
        when e.type = 'KudosGiven' then (e.data->>'athleteId')::bigint = $5::bigint else false end)
      from events e where e.stream_id = 'activity-' || $4::bigint::text), false)`;
  const privacy = `exists (select 1 from activities a where a.id = $4::bigint and (a.visibility = 'everyone'
      or (a.athlete_id = $5::bigint and a.visibility <> 'only_me')
      or (a.visibility = 'followers_only' and exists (select 1 from follows viewer_follows
        where viewer_follows.follower_id = $5::bigint and viewer_follows.followee_id = a.athlete_id))))`;
  const gated = (where: string) =>
    `appended as (
       insert into events (stream_id, stream_version, type, schema_version, data, metadata)
       select $1, 1, 'ZzKudosPart', 1, $2::jsonb, $3::jsonb where ${where} returning global_position as position)`;
  // The append as the route shapes it: the stream's version read first, the events as a JSON array
  // with their ordinals, each returned with its ordinal.
  const shaped = `current_version as (
       select coalesce(max(stream_version), 0)::int as version from events where stream_id = $1),
     appended as (
       insert into events (stream_id, stream_version, type, schema_version, data, metadata)
       select $1, c.version + t.ord::int, 'ZzKudosPart', 1, t.e, $3::jsonb
         from current_version c, jsonb_array_elements(jsonb_build_array($2::jsonb)) with ordinality as t(e, ord)
        where ${condition} and ${privacy} order by t.ord
       returning global_position as position, stream_version - (select version from current_version) as ord)`;
  const statements: Record<string, string> = {
    "event": `with ${event("events")} select position from appended`,
    "event, 2 indexes": `with ${event("zz_events_lean")} select position from appended`,
    "+ kudos row": `with ${event("events")}${row} select position from appended`,
    "+ count (wide row)": `with ${event("events")}${row}${wide} select position from appended`,
    "+ checkpoint": `with ${event("events")}${row}${wide}${checkpoint} select position from appended`,
    "+ condition": `with ${gated(condition)}${row}${wide}${checkpoint} select position from appended`,
    "+ privacy": `with ${gated(`${condition} and ${privacy}`)}${row}${wide}${checkpoint} select position from appended`,
    "+ the append's shape": `with ${shaped}${row}${wide}${checkpoint} select position from appended`,
    "count narrow": `with ${event("events")}${row}${narrow}${checkpoint} select position from appended`,
  };
  // The route's statement itself, captured from one kudos and run again with other ids: the
  // statement without the JavaScript around it.
  let captured: { sql: string; params: unknown[] } | undefined;
  const query = platform.db.query.bind(platform.db);
  platform.db.query = ((sql: string, params?: unknown[]) => {
    if (!captured && sql.includes("insert into activity_kudos")) captured = { sql, params: params ?? [] };
    return query(sql, params);
  }) as typeof platform.db.query;
  const sample = { auth: { athleteId: givers[0], permissions: new Set(["read", "write"]) } as unknown as Auth };
  forgetFoldedStates(platform.store);
  await giveKudosAtOnce(platform, activities[0], givers[0], systemActor("bench"), {
    known: false,
    condition: visibleActivityCondition(platform.db, activities[0], sample.auth).condition,
  });
  platform.db.query = query;
  if (!captured) throw new Error("no kudos statement captured");
  const capturedSql = captured.sql;
  if (process.env.PRINT_SQL) console.log(capturedSql, JSON.stringify(captured.params));
  // Its parameters: the stream, the event, the metadata, the expected version, then the giver (the
  // decider's condition), the viewer and the activity (the privacy predicate), the activity and
  // the giver (the fused projection), the projections' names.
  const [, , metadata, version, , , , , , names] = captured.params;
  const replay = (id: number, giver: number) => [
    `activity-${id}`,
    JSON.stringify([{ type: "KudosGiven", v: 1, data: { activityId: id, athleteId: giver } }]),
    metadata,
    version,
    giver,
    giver,
    id,
    id,
    giver,
    names,
  ];
  const ways = ["bare", ...Object.keys(statements), "kudos statement", "kudos"];
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  // The WAL each way writes (pg_stat_wal: records, full-page images, bytes), to set a kudos's WAL
  // against the bare insert's.
  const walNow = async () => {
    // PGlite's single backend flushes its statistics lazily: force them out first.
    await platform.db.query("select pg_stat_force_next_flush()");
    await platform.db.query("select 1");
    const [w] = await platform.db.query<{ records: string; fpi: string; bytes: string; lsn: string }>(
      `select wal_records::text as records, wal_fpi::text as fpi, wal_bytes::text as bytes,
        pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::text as lsn from pg_stat_wal`,
    );
    return { records: Number(w.records), fpi: Number(w.fpi), bytes: Number(w.bytes), lsn: Number(w.lsn) };
  };
  const wal: Record<string, { records: number; fpi: number; bytes: number; lsn: number }> = Object.fromEntries(
    ways.map((w) => [w, { records: 0, fpi: 0, bytes: 0, lsn: 0 }]),
  );
  const results: Record<string, { cpu: number; rate: number; perSync: number }[]> = Object.fromEntries(
    ways.map((w) => [w, []]),
  );
  let stream = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const way of ways) {
      const giver = way === "kudos"
        ? givers[r + 1]
        : way === "kudos statement"
        ? givers[ROUNDS + r + 1]
        : 1_000_000 + r * 100 + ways.indexOf(way);
      const auth = { athleteId: giver, permissions: new Set(["read", "write"]) } as unknown as Auth;
      const one = async (id: number) => {
        if (way === "bare") {
          await platform.db.query(
            "insert into bare_kudos (activity_id, athlete_id) values ($1, $2) on conflict do nothing",
            [
              id,
              giver,
            ],
          );
        } else if (way === "kudos statement") {
          const rows = await platform.db.query(capturedSql, replay(id, giver));
          if (rows.length !== 1) throw new Error("not given");
        } else if (way === "kudos") {
          forgetFoldedStates(platform.store);
          const cold = { known: false, condition: visibleActivityCondition(platform.db, id, auth).condition };
          if (!(await giveKudosAtOnce(platform, id, giver, systemActor("bench"), cold))) throw new Error("not given");
        } else {
          const more = statements[way].includes("$4");
          const rows = await platform.db.query(
            statements[way],
            [`zz-parts-${stream++}`, JSON.stringify({ activityId: id, athleteId: giver }), "{}", id, giver].slice(
              0,
              more ? 5 : 3,
            ),
          );
          if (rows.length !== 1) throw new Error(`${way}: nothing appended`);
        }
      };
      // CHECKPOINTS=1: a checkpoint before every round, so each page's first change writes its
      // full-page image (the worst case; PGlite has no checkpointer of its own between them).
      if (process.env.CHECKPOINTS) await platform.db.exec("checkpoint");
      const walBefore = await walNow();
      const syncsBefore = platform.db.walSyncs!.syncs;
      const start = cpu(), t0 = performance.now();
      let next = 0;
      await Promise.all(Array.from({ length: CALLERS }, async () => {
        while (next < activities.length) await one(activities[next++]);
      }));
      const wall = performance.now() - t0, used = cpu() - start;
      const syncs = platform.db.walSyncs!.syncs - syncsBefore;
      const walAfter = await walNow();
      for (const k of ["records", "fpi", "bytes", "lsn"] as const) wal[way][k] += walAfter[k] - walBefore[k];
      results[way].push({
        cpu: used / activities.length * 1000,
        rate: activities.length / wall * 1000,
        perSync: activities.length / Math.max(1, syncs),
      });
    }
  }
  console.log(
    `${CALLERS} callers, ${ROUND} statements a round; per round: CPU per statement µs | statements/s | per WAL sync`,
  );
  for (const [way, list] of Object.entries(results)) {
    console.log(
      `${way.padEnd(20)} ${
        list.map((v) => `${v.cpu.toFixed(0)} | ${v.rate.toFixed(0)} | ${v.perSync.toFixed(1)}`).join("   ")
      }`,
    );
  }
  const statementsRun = ROUNDS * activities.length;
  console.log("WAL per statement (pg_stat_wal, all rounds): records | full-page images | bytes | LSN advance");
  for (const [way, w] of Object.entries(wal)) {
    console.log(
      `${way.padEnd(20)} ${(w.records / statementsRun).toFixed(1)} | ${(w.fpi / statementsRun).toFixed(2)} | ${
        (w.bytes / statementsRun).toFixed(0)
      } | ${(w.lsn / statementsRun).toFixed(0)}`,
    );
  }
  if (process.env.EXPLAIN) {
    // The route's statement's plan as the server runs it (a generic plan, PGlite's plan cache), on
    // the log as it now is.
    const giver = givers[0], id = activities[activities.length - 1];
    const literal = (v: unknown) =>
      v === null
        ? "null"
        : Array.isArray(v)
        ? `array[${v.map((x) => `'${x}'`).join(",")}]`
        : typeof v === "number"
        ? String(v)
        : `'${String(v).replaceAll("'", "''")}'`;
    if (process.env.EXPLAIN === "times") {
      // Planning against execution, as the server runs it: an unnamed statement planned anew each time
      // (a custom plan), for the last givers on every activity.
      const times = { planning: 0, execution: 0, n: 0 };
      for (const activity of activities.slice(0, 100)) {
        const rows = await platform.db.query<{ "QUERY PLAN": string }>(
          `explain (analyze, summary, costs off, timing off) ${capturedSql}`,
          replay(activity, givers[2 * ROUNDS + 1]),
        );
        for (const { "QUERY PLAN": line } of rows) {
          const m = /^(Planning|Execution) Time: ([\d.]+) ms/.exec(line);
          if (m) times[m[1] === "Planning" ? "planning" : "execution"] += Number(m[2]);
        }
        times.n++;
      }
      console.log(
        `per statement: planning ${(times.planning / times.n * 1000).toFixed(0)} µs, execution ${
          (times.execution / times.n * 1000).toFixed(0)
        } µs (${times.n} statements)`,
      );
    }
    if (process.env.EXPLAIN === "times") {
      // The same statements, one caller, each planned anew (as the server sends them) against one
      // prepared once (a cached plan, its parameters as literals), alternating, wall time each.
      await platform.db.exec(`set plan_cache_mode = ${process.env.PLAN_MODE ?? "auto"}`);
      await platform.db.exec(`prepare kudos_cached as ${capturedSql}`);
      const wall = { anew: 0, cached: 0, cpuAnew: 0, cpuCached: 0, n: 0 };
      for (const activity of activities) {
        let t = performance.now(), c = cpu();
        const given = await platform.db.query(capturedSql, replay(activity, givers[2 * ROUNDS + 2]));
        wall.anew += performance.now() - t, wall.cpuAnew += cpu() - c;
        t = performance.now(), c = cpu();
        const cached = await platform.db.query(
          `execute kudos_cached(${replay(activity, givers[2 * ROUNDS + 3]).map(literal).join(", ")})`,
        );
        wall.cached += performance.now() - t, wall.cpuCached += cpu() - c;
        if (given.length !== 1 || cached.length !== 1) throw new Error("not given");
        wall.n++;
      }
      const us = (ms: number) => (ms / wall.n * 1000).toFixed(0);
      console.log(
        `per statement, one caller (wall | CPU µs): planned anew ${us(wall.anew)} | ${us(wall.cpuAnew)}, cached plan ${
          us(wall.cached)
        } | ${us(wall.cpuCached)}`,
      );
    }
    await platform.db.exec(`set plan_cache_mode = force_generic_plan`);
    await platform.db.exec(`prepare kudos_plan as ${capturedSql}`);
    const plan = await platform.db.query<{ "QUERY PLAN": string }>(
      `explain (analyze, buffers, costs off) execute kudos_plan(${replay(id, giver).map(literal).join(", ")})`,
    );
    console.log(plan.map((r) => r["QUERY PLAN"]).join("\n"));
  }
} finally {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
}
