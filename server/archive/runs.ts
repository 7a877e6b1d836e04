/**
 * Imports started over HTTP (the API and the /settings/import page) run in the background of the
 * server; their progress is kept here, in memory, for the status endpoint and the page. The import
 * itself is idempotent, so an import cut short by a restart is finished by posting the archive again.
 */
import { rmSync } from "node:fs";
import { randomSecret } from "../security.ts";
import type { Platform } from "../platform.ts";
import { type ImportFailure, type ImportOptions, type ImportProgress, importArchive } from "./import.ts";

export interface ImportRun {
  id: string;
  athleteId: number;
  fileName: string;
  state: "running" | "done" | "refused";
  progress: ImportProgress;
  /** Why the archive was refused (not a zip, unknown layout, zip bomb, …). */
  error: string | null;
  finishedAt: number | null;
}

const runs = new Map<string, ImportRun>();
const KEEP_MS = 24 * 3600 * 1000;

/** The status body of GET /v3/athlete/imports/:id. */
export function importStatusBody(run: ImportRun) {
  const p = run.progress;
  return {
    id: run.id,
    file_name: run.fileName,
    status: run.state,
    layout: p.layout,
    total: p.total,
    done: p.done,
    imported: p.imported,
    duplicates: p.duplicates,
    skipped: p.skipped,
    failed: p.failed.map((f: ImportFailure) => ({ file: f.file, error: f.error })),
    error: run.error,
    started_at: new Date(p.startedAt).toISOString().replace(/\.\d{3}Z$/, "Z"),
    finished_at: run.finishedAt ? new Date(run.finishedAt).toISOString().replace(/\.\d{3}Z$/, "Z") : null,
  };
}

export function findImportRun(id: string, athleteId: number): ImportRun | undefined {
  const run = runs.get(id);
  return run && run.athleteId === athleteId ? run : undefined;
}

/** Starts importing the received archive (deleted when done); returns at once. */
export function startImportRun(platform: Platform, input: { athleteId: number; path: string; fileName: string; via: ImportOptions["via"] }): ImportRun {
  for (const [id, old] of runs) if (old.finishedAt && Date.now() - old.finishedAt > KEEP_MS) runs.delete(id);
  const run: ImportRun = {
    id: randomSecret(8),
    athleteId: input.athleteId,
    fileName: input.fileName,
    state: "running",
    progress: { layout: null, total: 0, done: 0, imported: 0, duplicates: 0, skipped: 0, failed: [], startedAt: Date.now() },
    error: null,
    finishedAt: null,
  };
  runs.set(run.id, run);
  void importArchive(platform, { athleteId: input.athleteId, path: input.path, via: input.via, onProgress: (p) => (run.progress = p) })
    .then((summary) => {
      run.progress = { ...run.progress, ...summary };
      run.state = "done";
    })
    .catch((error) => {
      run.state = "refused";
      run.error = error instanceof Error ? error.message : String(error);
    })
    .finally(() => {
      run.finishedAt = Date.now();
      rmSync(input.path, { force: true });
    });
  return run;
}

/** The athlete's imports of the last day, newest first. */
export function importRunsOf(athleteId: number): ImportRun[] {
  return [...runs.values()].filter((r) => r.athleteId === athleteId).sort((a, b) => b.progress.startedAt - a.progress.startedAt);
}
