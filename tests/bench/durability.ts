import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { athleteFollowed, followStream } from "../../events/athlete/events.ts";
import { openPglite } from "../../events/db/pglite.ts";
import type { Queryable } from "../../events/db/types.ts";
import type { Platform } from "../../server/platform.ts";
import type { BenchFigure } from "./harness.ts";

const RAW = `create table bench_unsynced (
  global_position bigint generated always as identity primary key,
  stream_id text not null, stream_version integer not null, type text not null,
  data jsonb not null, metadata jsonb not null default '{}'::jsonb, unique (stream_id, stream_version))`;

function rawInsert(db: Queryable, i: number) {
  return db.query(
    "insert into bench_unsynced (stream_id, stream_version, type, data, metadata) values ($1, 1, $2, $3::jsonb, $4::jsonb)",
    [
      followStream(i),
      athleteFollowed.type,
      JSON.stringify({ athleteId: i, targetId: i + 1 }),
      JSON.stringify({ athleteId: i }),
    ],
  );
}

/** Runs `count` calls, `concurrency` at a time; returns calls per second. */
async function rate(count: number, concurrency: number, call: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await call(next++);
  }));
  return count / ((performance.now() - started) / 1000);
}

/**
 * The cost of durability: appends through the store on the durable embedded database (each
 * resolves after its WAL is synced, concurrent ones share a sync) next to raw inserts on PGlite
 * as shipped (fsync a no-op, nothing synced).
 */
export async function durabilityCost(platform: Platform, sequentialAppends: number): Promise<BenchFigure[]> {
  const dir = mkdtempSync(join(tmpdir(), "fitness-bench-unsynced-"));
  const raw = await openPglite(join(dir, "data"), { durable: false });
  try {
    await raw.exec(RAW);
    const rawSequential = await rate(1000, 1, (i) => rawInsert(raw, i));
    const concurrency = 16;
    const count = 2000;
    const rawConcurrent = await rate(count, concurrency, (i) => rawInsert(raw, 10_000 + i));
    const stats = platform.db.walSyncs;
    const before = { ...stats! };
    const oursConcurrent = await rate(
      count,
      concurrency,
      (i) =>
        platform.store.append(followStream(200_000 + i), 0, [
          athleteFollowed.create({ athleteId: 200_000 + i, targetId: 1 }),
        ]),
    );
    const syncs = stats!.syncs - before.syncs;
    console.error(
      `core: ${count} appends, ${concurrency} at a time: ${syncs} WAL syncs (${
        (count / Math.max(1, syncs)).toFixed(1)
      } commands per sync)`,
    );
    return [
      {
        suite: "core",
        name: "append, single-event commands, WAL synced before each resolves",
        ours: sequentialAppends,
        baseline: rawSequential,
        baselineName: "raw insert per row, unsynced PGlite",
        unit: "commands/s",
        higherIsBetter: true,
      },
      {
        suite: "core",
        name: `append, ${concurrency} concurrent commands, group commit (${
          (count / Math.max(1, syncs)).toFixed(1)
        } per sync)`,
        ours: oursConcurrent,
        baseline: rawConcurrent,
        baselineName: `raw insert per row, ${concurrency} concurrent, unsynced PGlite`,
        unit: "commands/s",
        higherIsBetter: true,
      },
    ];
  } finally {
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
