import process from "node:process";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { apiLogCopy } from "./api-log.ts";
import { eventCount, rawRead } from "./event-log.ts";
import type { BenchFigure, BenchSuite } from "./harness.ts";

/**
 * Replay of a log made by driving the API (tests/bench/api-log.ts: uploads of real device files
 * with streams and segment efforts, manual activities, kudos, comments, club joins, segment stars,
 * edits, deletes, follows), ≥ 100,000 events by default, generated once into a cache directory.
 * `cli replay`'s path (ProjectionRunner.replay: rebuild into rm_next, swap, catch up) is timed on a
 * copy of it, next to a raw paged read of the same events table on the same connection, in the
 * same process. `npm run bench -- replay [--events=N]`.
 */
export const replayBench: BenchSuite = async (args) => {
  const target = eventCount(args, 100_000);
  const log = (s: string) => console.error(`replay: ${s}`);
  const copy = await apiLogCopy(target, log);
  const figures: BenchFigure[] = [];
  try {
    const platform = await openPlatform(
      configFromEnv({ dataDir: copy.dataDir, databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
    );
    try {
      const types = await platform.db.query<{ type: string; n: number; kb: number }>(
        `select type, count(*)::int as n, (sum(octet_length(data::text)) / 1024)::int as kb
           from public.events group by type order by count(*) desc`,
      );
      const total = types.reduce((s, t) => s + t.n, 0);
      log(`${total} events by type:`);
      for (const t of types) {
        console.error(`  ${t.type.padEnd(32)} ${String(t.n).padStart(7)}  ${String(t.kb).padStart(7)} kB`);
      }
      // Warm both paths alike (the first read pulls the table's pages into PGlite's buffers).
      await rawRead(platform.db);
      const readCpu0 = process.cpuUsage();
      const read = await rawRead(platform.db);
      const readCpu = process.cpuUsage(readCpu0);
      const rawRate = read.events / read.seconds;
      log(`raw paged read: ${read.events} events in ${read.seconds.toFixed(2)} s (${Math.round(rawRate)} events/s)`);
      const cpu0 = process.cpuUsage();
      const report = await platform.projections.replay({});
      const cpu = process.cpuUsage(cpu0);
      log(
        `replay: ${report.events} events in ${report.seconds.toFixed(2)} s (${
          Math.round(report.eventsPerSecond)
        } events/s, process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s)`,
      );
      log(`loaded in bulk: ${report.bulk.join(", ") || "none"}`);
      for (const [name, why] of Object.entries(report.eventByEvent)) log(`event by event: ${name} (${why})`);
      const read2Cpu0 = process.cpuUsage();
      const read2 = await rawRead(platform.db);
      const read2Cpu = process.cpuUsage(read2Cpu0);
      const seconds = (u: { user: number; system: number }) => (u.user + u.system) / 1e6;
      log(`raw paged read again: ${(read2.events / read2.seconds).toFixed(0)} events/s`);
      figures.push({
        suite: "replay",
        name: `replay (cli replay's path) of an API-driven log, ${report.events.toLocaleString("en-US")} events`,
        ours: report.eventsPerSecond,
        baseline: (read.events + read2.events) / (read.seconds + read2.seconds),
        baselineName: "raw paged select of the same log, pages of 2,000, same connection",
        unit: "events/s",
        higherIsBetter: true,
        target: "≥ 0.5×",
      });
      // On a shared machine the wall clock also counts time waiting for a core: the same two
      // paths per second of this process's CPU time (PGlite runs in-process).
      figures.push({
        suite: "replay",
        name: `the same, per CPU second of the process`,
        ours: report.events / seconds(cpu),
        baseline: (read.events + read2.events) / (seconds(readCpu) + seconds(read2Cpu)),
        baselineName: "raw paged select, per CPU second",
        unit: "events/CPU-s",
        higherIsBetter: true,
        target: "≥ 0.5×",
      });
    } finally {
      await platform.close();
    }
  } finally {
    copy.remove();
  }
  return figures;
};
