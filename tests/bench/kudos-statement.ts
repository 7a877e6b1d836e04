/**
 * `deno run -A tests/bench/kudos-statement.ts`: CPU per kudos in process, on a platform opened as
 * `npm start` opens one (PGlite on disk, durable), sequential (a WAL sync each, no group commit),
 * rounds of ROUND kudos alternating between: a first kudos as it was (the activity's owner and
 * visibility read, the stream read and folded, the append: three statements), a first kudos now
 * (one statement: the decider's assumption checked on the stream's events and the privacy engine's
 * predicate on the activity's row, in the append), a warm kudos (the fold held: one statement),
 * and the bare baseline's insert (a two-column row, tests/bench/load-bare.ts) through the same
 * adapter. Then the fused statement's parts one at a time: what each adds at the database.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { systemActor } from "../../server/actor.ts";
import { createActivity, giveKudos, giveKudosAtOnce } from "../../server/activities/commands.ts";
import { visibleActivityCondition } from "../../server/activities/access.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { forgetFoldedStates } from "../../events/decider.ts";
import { activityOwnership } from "../../projections/activities/queries.ts";
import { configFromEnv } from "../../server/config.ts";
import { nextId } from "../../server/ids.ts";
import { openPlatform } from "../../server/open-platform.ts";
import type { Auth } from "../../server/http/auth.ts";

const ROUND = Number(process.env.ROUND ?? 200), ROUNDS = Number(process.env.ROUNDS ?? 6);
const dir = mkdtempSync(join(tmpdir(), "fitness-kudos-statement-"));
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
  for (let i = 0; i < ROUNDS * 4; i++) {
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
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  // The bare baseline's insert (tests/bench/load-bare.ts), through the same adapter and WAL sync.
  await platform.db.exec(`create table bare_kudos (activity_id bigint not null, athlete_id bigint not null,
    primary key (activity_id, athlete_id))`);
  const ways = ["first, before", "first, now", "warm", "bare"] as const;
  const results: Record<string, number[]> = Object.fromEntries(ways.map((w) => [w, []]));
  for (let r = 0; r < ROUNDS * ways.length; r++) {
    const way = ways[r % ways.length];
    const giver = givers[r];
    const auth = { athleteId: giver, permissions: new Set(["read", "write"]) } as unknown as Auth;
    let cost = 0;
    for (const id of activities) {
      // A first kudos: no fold of the stream in this process (forgotten outside the measure).
      if (way.startsWith("first")) forgetFoldedStates(platform.store);
      // A warm kudos: the stream read and folded before (by a refused kudos, the owner's own).
      if (way === "warm") await giveKudos(platform, id, owner, systemActor("bench")).catch(() => {});
      const start = cpu();
      if (way === "bare") {
        await platform.db.query(
          "insert into bare_kudos (activity_id, athlete_id) values ($1, $2) on conflict do nothing",
          [id, giver],
        );
      } else if (way === "first, before") {
        // What a first kudos ran before: the owner and visibility, then the stream's read, then the append.
        await activityOwnership(platform.db, id);
        await giveKudos(platform, id, giver, systemActor("bench"));
      } else if (way === "warm") {
        await giveKudos(platform, id, giver, systemActor("bench"));
      } else {
        const cold = { known: false, condition: visibleActivityCondition(platform.db, id, auth).condition };
        if (!(await giveKudosAtOnce(platform, id, giver, systemActor("bench"), cold))) throw new Error("not given");
      }
      cost += cpu() - start;
    }
    results[way].push(cost / activities.length * 1000);
  }
  // The fused statement's parts, added one at a time (each its own statement and commit, on new
  // streams so that no version check refuses): which part costs what at the database.
  const parts = {
    "event": "",
    "+ kudos row": `, k as (insert into activity_kudos (activity_id, athlete_id, position)
        select $4::bigint, $5::bigint, (select position from appended) on conflict do nothing returning 1)`,
    "+ count": `, k as (insert into activity_kudos (activity_id, athlete_id, position)
        select $4::bigint, $5::bigint, (select position from appended) on conflict do nothing returning 1),
      c as (update activities set kudos_count = kudos_count + (select count(*) from k) where id = $4::bigint)`,
    "+ checkpoint": `, k as (insert into activity_kudos (activity_id, athlete_id, position)
        select $4::bigint, $5::bigint, (select position from appended) on conflict do nothing returning 1),
      c as (update activities set kudos_count = kudos_count + (select count(*) from k) where id = $4::bigint),
      p as (insert into projection_checkpoints (name, position) select 'zz_kudos_parts', (select position from appended)
             on conflict (name) do update set position = excluded.position)`,
  };
  const partCosts: Record<string, number[]> = Object.fromEntries(Object.keys(parts).map((k) => [k, []]));
  let stream = 0;
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, more] of Object.entries(parts)) {
      const giver = 1_000_000 + r * 10 + Object.keys(parts).indexOf(name);
      const start = cpu();
      for (const id of activities) {
        await platform.db.query(
          `with appended as (
             insert into events (stream_id, stream_version, type, schema_version, data, metadata)
             values ($1, 1, 'ZzKudosPart', 1, $2::jsonb, $3::jsonb) returning global_position as position
           )${more} select position from appended`,
          [`zz-parts-${stream++}`, JSON.stringify({ activityId: id, athleteId: giver }), "{}", id, giver]
            .slice(0, more ? 5 : 3),
        );
      }
      partCosts[name].push((cpu() - start) / activities.length * 1000);
    }
  }
  for (const [name, list] of Object.entries(partCosts)) {
    console.log(`${name.padEnd(13)} CPU per statement (µs), per round: ${list.map((v) => v.toFixed(0)).join(", ")}`);
  }
  for (const [way, list] of Object.entries(results)) {
    console.log(`${way.padEnd(9)} CPU per kudos (µs), per round: ${list.map((v) => v.toFixed(0)).join(", ")}`);
  }
} finally {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
}
