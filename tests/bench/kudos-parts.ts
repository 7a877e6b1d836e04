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
 * - count narrow: the same but the count upserted into a two-column table instead of the
 *   activities row;
 * - kudos: the route's command (`giveKudosAtOnce`, a first kudos: the decider's condition and the
 *   privacy predicate in the append, the inline projection fused).
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
  for (let i = 0; i < 2 * ROUNDS + 1; i++) {
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
  const statements: Record<string, string> = {
    "event": `with ${event("events")} select position from appended`,
    "event, 2 indexes": `with ${event("zz_events_lean")} select position from appended`,
    "+ kudos row": `with ${event("events")}${row} select position from appended`,
    "+ count (wide row)": `with ${event("events")}${row}${wide} select position from appended`,
    "+ checkpoint": `with ${event("events")}${row}${wide}${checkpoint} select position from appended`,
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
          await platform.db.query(
            statements[way],
            [`zz-parts-${stream++}`, JSON.stringify({ activityId: id, athleteId: giver }), "{}", id, giver].slice(
              0,
              more ? 5 : 3,
            ),
          );
        }
      };
      const syncsBefore = platform.db.walSyncs!.syncs;
      const start = cpu(), t0 = performance.now();
      let next = 0;
      await Promise.all(Array.from({ length: CALLERS }, async () => {
        while (next < activities.length) await one(activities[next++]);
      }));
      const wall = performance.now() - t0, used = cpu() - start;
      const syncs = platform.db.walSyncs!.syncs - syncsBefore;
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
  if (process.env.EXPLAIN) {
    // The route's statement's plan as the server runs it (a generic plan, PGlite's plan cache), on
    // the log as it now is.
    await platform.db.exec(`set plan_cache_mode = force_generic_plan`);
    await platform.db.exec(`prepare kudos_plan as ${capturedSql}`);
    const giver = givers[0], id = activities[activities.length - 1];
    const literal = (v: unknown) =>
      v === null
        ? "null"
        : Array.isArray(v)
        ? `array[${v.map((x) => `'${x}'`).join(",")}]`
        : typeof v === "number"
        ? String(v)
        : `'${String(v).replaceAll("'", "''")}'`;
    const plan = await platform.db.query<{ "QUERY PLAN": string }>(
      `explain (analyze, buffers, costs off) execute kudos_plan(${replay(id, giver).map(literal).join(", ")})`,
    );
    console.log(plan.map((r) => r["QUERY PLAN"]).join("\n"));
  }
} finally {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
}
