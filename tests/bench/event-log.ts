import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Queryable } from "../../events/db/types.ts";
import { configFromEnv } from "../../server/config.ts";
import { type Platform } from "../../server/platform.ts";
import { openPlatform } from "../../server/open-platform.ts";

/** A platform on PGlite in a temp directory, for a benchmark; remove() closes and deletes it. */
export async function benchPlatform(): Promise<{ platform: Platform; dir: string; remove(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "fitness-bench-"));
  const platform = await openPlatform(
    configFromEnv({ dataDir: join(dir, "data"), databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
  );
  return {
    platform,
    dir,
    async remove() {
      await platform.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `--events=N` from the bench arguments (default 1,000,000). */
export function eventCount(args: string[], fallback = 1_000_000): number {
  const arg = args.find((a) => a.startsWith("--events="));
  const n = arg ? Number(arg.slice("--events=".length)) : fallback;
  if (!Number.isSafeInteger(n) || n < 1000) throw new Error("--events must be an integer ≥ 1000");
  return n;
}

/**
 * Writes a realistic log of `total` events with bulk SQL: AthleteRegistered for 1 % of them (at
 * least 100 athletes), then AthleteFollowed / AthleteUnfollowed in alternation on each athlete's
 * follows stream (real catalogue shapes, so the projections do real work on replay).
 */
export async function generateLog(db: Queryable, total: number): Promise<{ events: number; athletes: number }> {
  const athletes = Math.max(100, Math.floor(total / 100));
  const perAthlete = Math.floor((total - athletes) / athletes);
  await db.query(
    `insert into public.events (stream_id, stream_version, type, schema_version, data, metadata, recorded_at)
     select 'athlete-' || i, 1, 'AthleteRegistered', 1,
            jsonb_build_object('athleteId', i, 'firstname', 'Bench', 'lastname', 'Athlete ' || i,
              'email', 'bench' || i || '@example.com', 'passwordHash', 'scrypt$16384$8$1$00$00',
              'sex', case when i % 2 = 0 then 'F' else 'M' end, 'premium', i % 10 = 0, 'city', 'Lyon',
              'state', null, 'country', 'France', 'birthdate', '1990-01-01', 'weight', 70),
            '{"source": "bench"}'::jsonb, timestamptz '2024-01-01T00:00:00Z' + i * interval '1 second'
       from generate_series(1, $1::int) as i`,
    [athletes],
  );
  await db.query(
    `insert into public.events (stream_id, stream_version, type, schema_version, data, metadata, recorded_at)
     select 'follows-' || a, v, case when v % 2 = 1 then 'AthleteFollowed' else 'AthleteUnfollowed' end, 1,
            jsonb_build_object('athleteId', a, 'targetId', ((a - 1 + (v + 1) / 2) % $1::int) + 1),
            jsonb_build_object('athleteId', a, 'source', 'bench'),
            timestamptz '2024-01-01T00:00:00Z' + ($1::int + (v - 1) * $1::int + a) * interval '1 second'
       from generate_series(1, $2::int) as v, generate_series(1, $1::int) as a
      order by v, a`,
    [athletes, perAthlete],
  );
  const [{ n }] = await db.query<{ n: number }>("select count(*)::int as n from public.events");
  return { events: n, athletes };
}

/** The baseline read: the whole log, all columns, paged by position like the replay reads it. */
export async function rawRead(db: Queryable, page = 2000): Promise<{ events: number; seconds: number }> {
  const started = performance.now();
  let position = 0;
  let events = 0;
  for (;;) {
    const rows = await db.query<{ global_position: number }>(
      `select global_position, stream_id, stream_version, type, schema_version, data, metadata, recorded_at
         from public.events where global_position > $1 order by global_position limit $2`,
      [position, page],
    );
    if (rows.length === 0) break;
    events += rows.length;
    position = Number(rows[rows.length - 1].global_position);
  }
  return { events, seconds: (performance.now() - started) / 1000 };
}
