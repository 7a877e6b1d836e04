import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { exportEvents } from "../../server/analysts/export.ts";
import { timeTravel } from "../../server/analysts/time-travel.ts";
import type { BenchFigure, BenchSuite } from "./harness.ts";
import { benchPlatform, eventCount, generateLog, rawRead } from "./event-log.ts";

/**
 * The event log for analysts: export throughput and `replay --until` (time travel into a new
 * PGlite directory) over a generated log, next to a raw paged read of the same log.
 * `npm run bench -- analysts [--events=N]` (default 1,000,000 events).
 */
export const analystsSuite: BenchSuite = async (args) => {
  const figures: BenchFigure[] = [];
  const total = eventCount(args);
  const bench = await benchPlatform();
  const { platform } = bench;
  try {
    console.error(`analysts: generating ${total} events…`);
    const { events } = await generateLog(platform.db, total);
    const read = await rawRead(platform.db);
    const rawRate = read.events / read.seconds;
    for (const format of ["ndjson", "csv"] as const) {
      const file = join(bench.dir, `export.${format}`);
      const fd = openSync(file, "w");
      const started = performance.now();
      let exported = 0;
      try {
        exported = (await exportEvents(platform.store, { format }, (chunk) => {
          writeSync(fd, chunk);
        })).events;
      } finally {
        closeSync(fd);
      }
      figures.push({
        suite: "analysts",
        name: `export ${format}, ${exported.toLocaleString("en-US")} events`,
        ours: exported / ((performance.now() - started) / 1000),
        baseline: rawRate,
        baselineName: "raw paged select of the log",
        unit: "events/s",
        higherIsBetter: true,
      });
    }
    const until = Math.floor(events * 0.9);
    console.error(`analysts: replay --until ${until} into a new directory…`);
    const report = await timeTravel(platform, until, join(bench.dir, "time-travel"));
    figures.push({
      suite: "analysts",
      name: `replay --until ${until.toLocaleString("en-US")} --into <new dir>`,
      ours: report.events / report.seconds,
      baseline: rawRate,
      baselineName: "raw paged select of the log",
      unit: "events/s",
      higherIsBetter: true,
    });
  } finally {
    await bench.remove();
  }
  return figures;
};
