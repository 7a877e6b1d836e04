import { athleteFollowed, followStream } from "../../events/athlete/events.ts";
import { handleCommand } from "../../events/decider.ts";
import { followDecider } from "../../events/follow/decide.ts";
import { LIVE_SCHEMA } from "../../projections/runner.ts";
import type { BenchFigure, BenchSuite } from "./harness.ts";
import { benchPlatform, eventCount, generateLog, rawRead } from "./event-log.ts";
import { durabilityCost } from "./durability.ts";

const RAW_TABLE = `create table public.bench_raw (
  global_position bigint generated always as identity primary key,
  stream_id text not null, stream_version integer not null, type text not null,
  schema_version integer not null, data jsonb not null, metadata jsonb not null default '{}'::jsonb,
  recorded_at timestamptz not null default now(), unique (stream_id, stream_version))`;

/**
 * Platform core: appends through the store (single-event commands; batches) next to raw PGlite
 * inserts of the same rows; replay of a generated log next to a raw select of it.
 * `npm run bench -- core [--events=N]` (default 1,000,000 events).
 */
export const coreSuite: BenchSuite = async (args) => {
  const figures: BenchFigure[] = [];
  const total = eventCount(args);
  const bench = await benchPlatform();
  const { platform } = bench;
  try {
    await platform.db.exec(RAW_TABLE);
    const singles = 1000;
    let started = performance.now();
    for (let i = 1; i <= singles; i++) {
      await platform.store.append(followStream(i), 0, [athleteFollowed.create({ athleteId: i, targetId: i + 1 })], {
        metadata: { athleteId: i },
      });
    }
    const ours = singles / ((performance.now() - started) / 1000);
    started = performance.now();
    for (let i = 1; i <= singles; i++) {
      await platform.db.query(
        "insert into public.bench_raw (stream_id, stream_version, type, schema_version, data, metadata) values ($1, 1, $2, 1, $3::jsonb, $4::jsonb)",
        [
          followStream(i),
          athleteFollowed.type,
          JSON.stringify({ athleteId: i, targetId: i + 1 }),
          JSON.stringify({ athleteId: i }),
        ],
      );
    }
    const raw = singles / ((performance.now() - started) / 1000);
    figures.push({
      suite: "core",
      name: "append, single-event commands",
      ours,
      baseline: raw,
      baselineName: "raw insert per row",
      unit: "commands/s",
      higherIsBetter: true,
    });
    figures.push(...await durabilityCost(platform, ours));

    // The seam: a follow decided and appended through handleCommand (read the stream, fold, decide,
    // version-checked insert, inline projections, checkpoint, durable commit) next to one raw row
    // inserted in its own transaction (also durable), interleaved so both see the same machine.
    const rounds = 10, perRound = 100;
    let seamMs = 0, rawTxMs = 0;
    for (let r = 0; r < rounds; r++) {
      let t = performance.now();
      for (let i = 0; i < perRound; i++) {
        const athleteId = 300_000 + r * perRound + i;
        await handleCommand(platform.store, followStream(athleteId), followDecider, {
          type: "follow",
          athleteId,
          targetId: 1,
        }, { metadata: { athleteId } });
      }
      seamMs += performance.now() - t;
      t = performance.now();
      for (let i = 0; i < perRound; i++) {
        const athleteId = 300_000 + r * perRound + i;
        await platform.db.transaction((tx) =>
          tx.query(
            "insert into public.bench_raw (stream_id, stream_version, type, schema_version, data, metadata) values ($1, 1, $2, 1, $3::jsonb, $4::jsonb)",
            [
              followStream(athleteId),
              athleteFollowed.type,
              JSON.stringify({ athleteId, targetId: 1 }),
              JSON.stringify({ athleteId }),
            ],
          )
        );
      }
      rawTxMs += performance.now() - t;
    }
    const n = rounds * perRound;
    figures.push({
      suite: "core",
      name: "single-event command through the seam (follow)",
      ours: n / (seamMs / 1000),
      baseline: n / (rawTxMs / 1000),
      baselineName: "raw single-row insert in a transaction",
      unit: "commands/s",
      higherIsBetter: true,
      target: "≥ 0.5×",
    });

    const batches = 100;
    const size = 100;
    started = performance.now();
    for (let b = 0; b < batches; b++) {
      const athleteId = 100_000 + b;
      await platform.store.append(
        followStream(athleteId),
        0,
        Array.from({ length: size }, (_, k) => athleteFollowed.create({ athleteId, targetId: k + 1 })),
      );
    }
    const oursBatch = (batches * size) / ((performance.now() - started) / 1000);
    started = performance.now();
    for (let b = 0; b < batches; b++) {
      const athleteId = 100_000 + b;
      const rows = Array.from(
        { length: size },
        (_, k) => ({ stream_id: followStream(athleteId), stream_version: k + 1, data: { athleteId, targetId: k + 1 } }),
      );
      await platform.db.query(
        `insert into public.bench_raw (stream_id, stream_version, type, schema_version, data)
         select t.stream_id, t.stream_version, $2, 1, t.data from jsonb_to_recordset($1::jsonb) as t(stream_id text, stream_version int, data jsonb)`,
        [JSON.stringify(rows), athleteFollowed.type],
      );
    }
    const rawBatch = (batches * size) / ((performance.now() - started) / 1000);
    figures.push({
      suite: "core",
      name: `append, batches of ${size} events`,
      ours: oursBatch,
      baseline: rawBatch,
      baselineName: "raw multi-row insert",
      unit: "events/s",
      higherIsBetter: true,
    });
    await bench.remove();

    // Replay of a generated log (on a fresh platform, so the log is exactly `total` events).
    const fresh = await benchPlatform();
    try {
      console.error(`core: generating ${total} events…`);
      const { events } = await generateLog(fresh.platform.db, total);
      const read = await rawRead(fresh.platform.db);
      console.error(`core: raw read ${events} events in ${read.seconds.toFixed(1)} s; replaying…`);
      const report = await fresh.platform.projections.rebuild(`${LIVE_SCHEMA}_bench`);
      figures.push({
        suite: "core",
        name: `replay of ${events.toLocaleString("en-US")} events`,
        ours: report.eventsPerSecond,
        baseline: read.events / read.seconds,
        baselineName: "raw paged select of the log",
        unit: "events/s",
        higherIsBetter: true,
        target: "≥ 25 % of the raw read rate",
      });
    } finally {
      await fresh.remove();
    }
  } catch (error) {
    await bench.remove().catch(() => {});
    throw error;
  }
  return figures;
};
