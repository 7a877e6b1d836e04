import { closeSync, openSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import { checkTypes, exportEvents, type ExportFormat, UnknownTypeError } from "./export.ts";
import { ImportError, importEvents } from "./import.ts";
import { BoundError, parseBound, positionAt } from "./log-bounds.ts";
import { timeTravel, TimeTravelTargetError } from "./time-travel.ts";
import { reprocessActivity, type ReprocessOutcome, uploadedActivityIds } from "./reprocess.ts";
import { type CliCommand, type CliIo, CliUsageError, optionalString } from "../cli/command.ts";
import { progressBar } from "../cli/progress.ts";
import { markReadModelsCurrent } from "../open-platform.ts";
import {
  type BlobProblem,
  blobProblemLines,
  checkBlobs,
  type NamedBlobs,
  namedBlobsLedger,
  noteNaming,
} from "../ops/blob-check.ts";
import { blobDirBeside, MissingBlobsError, writeBlobsTo } from "../ops/blob-transfer.ts";

/** Errors of analysts' commands whose message is the whole story (exit 1, store unchanged). */
function clear(error: unknown): never {
  if (
    error instanceof BoundError || error instanceof UnknownTypeError || error instanceof ImportError ||
    error instanceof TimeTravelTargetError || error instanceof MissingBlobsError
  ) {
    throw new Error(error.message);
  }
  throw error;
}

function rate(events: number, seconds: number): number {
  return Math.round(events / Math.max(seconds, 1e-9));
}

/** A counter redrawn in place on a terminal, every 100,000 events otherwise. */
function counter(io: CliIo, label: string): (n: number) => void {
  const started = performance.now();
  let lastStep = 0;
  return (n) => {
    const line = `${label}: ${n} events, ${rate(n, (performance.now() - started) / 1000)} events/s`;
    if (io.interactive) io.progress(`\r${line}`);
    else if (Math.floor(n / 100_000) > lastStep) {
      lastStep = Math.floor(n / 100_000);
      io.progress(`${line}\n`);
    }
  };
}

const replay: CliCommand = {
  name: "replay",
  summary:
    "Rebuild every read model from the event log (progress bar, events/s, time taken); with --until and --into, build them as they stood at a point of the log into a separate database.",
  options: {
    until: {
      type: "string",
      description: "a global position or an ISO 8601 time (inclusive); needs --into",
    },
    into: {
      type: "string",
      description: "a new PGlite directory or an empty PostgreSQL URL (postgres://…) to build into",
    },
  },
  async run(platform, o, io) {
    const untilText = optionalString(o, "until");
    const into = optionalString(o, "into");
    if (untilText !== undefined && into === undefined) {
      throw new CliUsageError("--until needs --into: the live read models always follow the whole log");
    }
    if (into === undefined) {
      const bar = progressBar(io, "replay");
      const report = await platform.projections.replay({ onProgress: bar }).finally(bar.done);
      await markReadModelsCurrent(platform.db);
      if (io.interactive) io.progress("\n");
      return {
        events: report.events,
        seconds: Number(report.seconds.toFixed(3)),
        events_per_second: Math.round(report.eventsPerSecond),
      };
    }
    try {
      const until = untilText === undefined
        ? await platform.store.headPosition()
        : await positionAt(platform.db, parseBound(untilText, "until"), "until");
      const bar = progressBar(io, "time travel");
      const report = await timeTravel(platform, until, into, bar).finally(bar.done);
      if (io.interactive) io.progress("\n");
      return {
        events: report.events,
        seconds: Number(report.seconds.toFixed(3)),
        events_per_second: Math.round(report.eventsPerSecond),
        until_position: report.until,
        until_recorded_at: report.untilRecordedAt,
        into: report.into,
      };
    } catch (error) {
      clear(error);
    }
  },
  format: (r) => {
    const x = r as {
      events: number;
      seconds: number;
      events_per_second: number;
      until_position?: number;
      until_recorded_at?: string | null;
      into?: string;
    };
    const timing = `${x.events} events in ${x.seconds} s (${x.events_per_second} events/s)`;
    if (x.into === undefined) return `replayed ${timing}`;
    return `built the read models as of position ${x.until_position}${
      x.until_recorded_at ? ` (recorded ${x.until_recorded_at})` : ""
    } into ${x.into}: ${timing}\nquery them with SQL in schema rm (search_path rm, public)`;
  },
};

const verify: CliCommand = {
  name: "verify",
  summary:
    "Rebuild into a scratch schema and compare with the live read models, and check every blob the events name exists and matches its hash (non-zero exit on a difference).",
  options: {},
  async run(platform, _o, io) {
    const bar = progressBar(io, "verify");
    const { report, differences, tables } = await platform.projections.verify({ onProgress: bar }).finally(bar.done);
    if (io.interactive) io.progress("\n");
    const blobs = await checkBlobs(platform.db);
    return {
      ok: differences.length === 0 && blobs.problems.length === 0,
      events: report.events,
      tables,
      differences,
      blobs: { named: blobs.named, bytes: blobs.bytes, problems: blobs.problems },
    };
  },
  format: (r) => {
    const x = r as {
      ok: boolean;
      events: number;
      tables: number;
      differences: {
        table: string;
        onlyLive: string[];
        onlyRebuilt: string[];
        liveCount: number;
        rebuiltCount: number;
      }[];
      blobs: { named: number; bytes: number; problems: BlobProblem[] };
    };
    const blobLine =
      `verify: ${x.blobs.named} blobs named by the events (${x.blobs.bytes} bytes) are stored and match their sha-256`;
    if (x.ok) {
      return `verify: ${x.tables} read-model tables rebuilt from ${x.events} events are equal to the live ones\n${blobLine}`;
    }
    const lines = [];
    if (x.differences.length === 0) {
      lines.push(`verify: ${x.tables} read-model tables rebuilt from ${x.events} events are equal to the live ones`);
    } else lines.push(`verify: ${x.differences.length} of ${x.tables} tables differ`);
    for (const d of x.differences) {
      lines.push(`  ${d.table}: live ${d.liveCount} rows, rebuilt ${d.rebuiltCount} rows`);
      for (const row of d.onlyLive) lines.push(`    only live:    ${row}`);
      for (const row of d.onlyRebuilt) lines.push(`    only rebuilt: ${row}`);
    }
    if (x.blobs.problems.length === 0) lines.push(blobLine);
    else {
      lines.push(
        `verify: ${x.blobs.problems.length} of ${x.blobs.named} blobs named by the events are missing or corrupt`,
      );
      lines.push(...blobProblemLines(x.blobs.problems));
    }
    return lines.join("\n");
  },
};

const exportCommand: CliCommand = {
  name: "export",
  summary:
    "Export events as CSV or ndjson (streamed page by page, constant memory); with --out FILE the blobs they name go to FILE.blobs/.",
  options: {
    format: { type: "string", description: "csv or ndjson", required: true },
    types: { type: "string", description: "only these event types (comma-separated)" },
    stream: { type: "string", description: "only this stream" },
    from: { type: "string", description: "from this position or ISO time (inclusive)" },
    to: { type: "string", description: "up to this position or ISO time (inclusive)" },
    out: { type: "string", description: "write to this file (default: stdout)", path: true },
  },
  async run(platform, o, io) {
    const format = optionalString(o, "format");
    if (format !== "csv" && format !== "ndjson") throw new CliUsageError("--format must be csv or ndjson");
    const typesText = optionalString(o, "types");
    const types = typesText?.split(",").map((t) => t.trim()).filter((t) => t !== "");
    if (typesText !== undefined && !types?.length) throw new CliUsageError("--types needs at least one event type");
    let from, to;
    try {
      from = optionalString(o, "from") === undefined ? undefined : parseBound(optionalString(o, "from")!, "from");
      to = optionalString(o, "to") === undefined ? undefined : parseBound(optionalString(o, "to")!, "to");
    } catch (error) {
      throw new CliUsageError((error as Error).message);
    }
    const out = optionalString(o, "out");
    if (out === undefined && !io.write) {
      throw new CliUsageError(
        "the running server executes this command: pass --out FILE (an absolute path, written by the server)",
      );
    }
    const options = { format: format as ExportFormat, types, stream: optionalString(o, "stream"), from, to };
    const progress = counter(io, "export");
    const started = performance.now();
    let fd: number | undefined;
    try {
      // Unknown types are refused before a file is created.
      if (types?.length) await checkTypes(platform.store, types);
      if (out !== undefined) fd = openSync(resolve(out), "w");
      const write = fd === undefined ? io.write! : (chunk: string) => {
        writeSync(fd!, chunk);
      };
      // The blobs the exported events name (streams, originals, photos, pictures, heatmap tracks).
      // Less those a later exported event released (a heatmap's superseded tracks: not in the store).
      const ledger = namedBlobsLedger();
      const named: NamedBlobs = ledger.needed;
      const collect = (rows: { position: number; type: string; stream_id: string; data: string }[]) => {
        for (const row of rows) {
          if (!/[0-9a-f]{64}/.test(row.data)) continue;
          noteNaming(
            ledger,
            { position: row.position, type: row.type, stream_id: row.stream_id },
            JSON.parse(row.data),
          );
        }
      };
      const { events, lastPosition } = await exportEvents(platform.store, options, write, (n) => progress(n), collect);
      if (io.interactive) io.progress("\n");
      const blobs = out === undefined || named.size === 0 ? { blobs: 0, bytes: 0, dir: null as string | null } : {
        ...(await writeBlobsTo(platform.db, blobDirBeside(resolve(out)), named)),
        dir: blobDirBeside(resolve(out)),
      };
      const seconds = (performance.now() - started) / 1000;
      const summary = {
        events,
        last_position: lastPosition,
        format,
        out: out === undefined ? "stdout" : resolve(out),
        seconds: Number(seconds.toFixed(3)),
        events_per_second: rate(events, seconds),
        blobs: blobs.blobs,
        blob_bytes: blobs.bytes,
        blobs_dir: blobs.dir,
      };
      if (out !== undefined) return summary;
      // stdout carries the events: the summary goes to stderr.
      io.progress(`exported ${events} events in ${summary.seconds} s (${summary.events_per_second} events/s)\n`);
      if (named.size > 0) {
        io.progress(
          `warning: these events name ${named.size} blobs (streams, original files, photos, pictures) that stdout cannot carry; ` +
            "`import` refuses them in a store that lacks those blobs: export with --out FILE to write them to FILE.blobs/\n",
        );
      }
      return undefined;
    } catch (error) {
      clear(error);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  },
  format: (r) => {
    if (r === undefined) return "";
    const x = r as {
      events: number;
      out: string;
      seconds: number;
      events_per_second: number;
      format: string;
      blobs: number;
      blob_bytes: number;
      blobs_dir: string | null;
    };
    const line =
      `exported ${x.events} events (${x.format}) to ${x.out} in ${x.seconds} s (${x.events_per_second} events/s)`;
    return x.blobs_dir
      ? `${line}\nand the ${x.blobs} blobs they name (${x.blob_bytes} bytes) to ${x.blobs_dir}/ (keep it beside the file: import reads it)`
      : line;
  },
};

const importCommand: CliCommand = {
  name: "import",
  summary:
    "Import an export (ndjson, or CSV with the export's columns) and the blobs in FILE.blobs/ into an EMPTY store, then replay the read models.",
  positional: { name: "file", description: "the export file (.ndjson, or .csv)", path: true },
  // It fills a new, empty store.
  createsStore: true,
  options: {
    file: { type: "string", description: "the export file (same as the positional argument)", path: true },
    format: { type: "string", description: "csv or ndjson (default: from the file name; ndjson unless .csv)" },
  },
  async run(platform, o, io) {
    const file = optionalString(o, "file");
    if (file === undefined) throw new CliUsageError("give the file to import: import FILE");
    const format = optionalString(o, "format");
    if (format !== undefined && format !== "csv" && format !== "ndjson") {
      throw new CliUsageError("--format must be csv or ndjson");
    }
    const started = performance.now();
    try {
      const report = await importEvents(platform, resolve(file), {
        format: format as "csv" | "ndjson" | undefined,
        onProgress: counter(io, "import"),
      });
      if (io.interactive) io.progress("\n");
      const bar = progressBar(io, "replay");
      const replayed = await platform.projections.replay({ onProgress: bar }).finally(bar.done);
      if (io.interactive) io.progress("\n");
      const seconds = (performance.now() - started) / 1000;
      return {
        events: report.events,
        streams: report.streams,
        last_position: report.lastPosition,
        blobs: report.blobsNamed,
        blobs_brought: report.blobsBrought,
        blob_bytes: report.blobBytes,
        replayed: replayed.events,
        seconds: Number(seconds.toFixed(3)),
      };
    } catch (error) {
      clear(error);
    }
  },
  format: (r) => {
    const x = r as {
      events: number;
      streams: number;
      last_position: number;
      seconds: number;
      blobs: number;
      blobs_brought: number;
      blob_bytes: number;
    };
    return `imported ${x.events} events in ${x.streams} streams (last position ${x.last_position}) with the ${x.blobs} blobs they name (${x.blobs_brought} brought, ${x.blob_bytes} bytes) and replayed the read models in ${x.seconds} s`;
  },
};

const reprocess: CliCommand = {
  name: "reprocess",
  summary:
    "Re-derive uploaded activities' stats and segment efforts from their original files with the current algorithms (new events; the originals and awarded achievements stay).",
  options: {
    activity: { type: "string", description: "the activity id" },
    all: { type: "boolean", description: "every uploaded activity" },
  },
  async run(platform, o, io) {
    const id = optionalString(o, "activity");
    if ((id === undefined) === (o.all !== true)) throw new CliUsageError("give either --activity ID or --all");
    if (id !== undefined && !/^\d+$/.test(id)) throw new CliUsageError("--activity must be a positive integer");
    const ids = id !== undefined ? [Number(id)] : await uploadedActivityIds(platform);
    const outcomes = [];
    for (const [n, activityId] of ids.entries()) {
      outcomes.push(await reprocessActivity(platform, activityId));
      if (ids.length > 1) {
        io.progress(
          io.interactive
            ? `\rreprocess: ${n + 1}/${ids.length}`
            : n + 1 === ids.length
            ? `reprocess: ${ids.length} activities\n`
            : "",
        );
      }
    }
    if (io.interactive && ids.length > 1) io.progress("\n");
    if (id !== undefined && outcomes[0].outcome === "skipped") throw new Error(`activity ${id}: ${outcomes[0].reason}`);
    return {
      activities: outcomes.length,
      reprocessed: outcomes.filter((x) => x.outcome === "reprocessed").length,
      unchanged: outcomes.filter((x) => x.outcome === "unchanged").length,
      skipped: outcomes.filter((x) => x.outcome === "skipped").length,
      outcomes,
    };
  },
  format: (r) => {
    const x = r as {
      activities: number;
      reprocessed: number;
      unchanged: number;
      skipped: number;
      outcomes: ReprocessOutcome[];
    };
    const lines = [
      `reprocess: ${x.reprocessed} re-derived, ${x.unchanged} unchanged, ${x.skipped} skipped (of ${x.activities})`,
    ];
    for (const o of x.outcomes) {
      if (o.outcome === "reprocessed") lines.push(`  activity ${o.activityId}: ${o.changed.join(", ")}`);
      if (o.outcome === "skipped") lines.push(`  activity ${o.activityId}: skipped, ${o.reason}`);
    }
    return lines.join("\n");
  },
};

/** The event log for analysts: replay, time travel, verify, export, import, reprocess. */
export const analystsCommands: CliCommand[] = [replay, verify, exportCommand, importCommand, reprocess];
