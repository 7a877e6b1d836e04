import { existsSync } from "node:fs";
import { importArchive, type ImportFailure, type ImportProgress, type ImportSummary } from "./import.ts";
import { ArchiveRefused } from "./zip.ts";
import { type CliCommand, type CliIo, CliUsageError, requireInt, requireString } from "../cli/command.ts";

function eta(p: ImportProgress): string {
  if (p.done === 0 || p.total <= p.done) return p.total <= p.done ? "done" : "ETA …";
  const seconds = Math.round(((Date.now() - p.startedAt) / 1000 / p.done) * (p.total - p.done));
  return `ETA ${
    seconds >= 60 ? `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s` : `${seconds}s`
  }`;
}

/** Counts and ETA: one line redrawn in place on a terminal, a line per 10 % otherwise. */
export function importProgressBar(io: CliIo): (p: ImportProgress) => void {
  let lastDecile = -1;
  return (p) => {
    const fraction = p.total ? p.done / p.total : 0;
    const width = 30;
    const filled = Math.round(fraction * width);
    const line =
      `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${p.done}/${p.total} · ${p.imported} imported, ` +
      `${p.duplicates} duplicates, ${p.skipped} skipped, ${p.failedCount} failed · ${eta(p)}`;
    if (io.interactive) io.progress(`\r\x1b[2K${line}`);
    else {
      const decile = Math.floor(fraction * 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        io.progress(`${line}\n`);
      }
    }
  };
}

export const archiveCommands: CliCommand[] = [
  {
    name: "import-archive",
    summary: "Import a Strava or Garmin Connect export archive (.zip) for an athlete (idempotent, resumable).",
    positional: { name: "file", description: "the export archive (.zip)", path: true },
    // PGlite's buffer cache is most of what a long import holds (docs/archive-import.md, "Size and speed").
    smallDatabaseCache: true,
    options: {
      athlete: { type: "string", description: "athlete id", required: true },
    },
    async run(platform, o, io) {
      const path = requireString(o, "file");
      if (!existsSync(path)) throw new CliUsageError(`${path}: no such file`);
      const bar = importProgressBar(io);
      // The CLI lists every failure (the progress keeps only the first ones).
      const failed: ImportFailure[] = [];
      try {
        const summary = await importArchive(platform, {
          athleteId: requireInt(o, "athlete"),
          path,
          via: "cli",
          onProgress: bar,
          onFailure: (f) => failed.push(f),
        });
        if (io.interactive) io.progress("\n");
        return { ...summary, failed };
      } catch (error) {
        if (error instanceof ArchiveRefused) throw new Error(`${path}: ${error.message}`);
        throw error;
      }
    },
    format(result) {
      const s = result as ImportSummary;
      const lines = [
        `imported: ${s.imported}`,
        `duplicates: ${s.duplicates}`,
        `skipped (not workouts): ${s.skipped}`,
        `failed: ${s.failedCount}`,
      ];
      for (const f of s.failed) lines.push(`  ${f.file}: ${f.error}`);
      return lines.join("\n");
    },
  },
];
