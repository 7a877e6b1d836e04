/**
 * Imports a Strava or Garmin export archive for one athlete. Every recording goes through the
 * upload pipeline (submitUpload: the same events, duplicate check and derive worker pool as
 * POST /v3/uploads); manual entries become ActivityCreated; gear through addGear; photos through
 * addNativePhoto. Each step is idempotent (the upload duplicate check, an idempotency key per
 * archive entry), so a second run adds nothing and a run killed half-way, started again, finishes
 * the rest. One bad file is reported and never stops the batch.
 */
import { resolveVisibility, type Visibility } from "../../shared/visibility.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activityStream } from "../../events/activity/events.ts";
import { DomainError } from "../../events/decider.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { addGear } from "../gear/commands.ts";
import { type Actor, systemActor } from "../actor.ts";
import { createActivity, updateActivity } from "../activities/commands.ts";
import { athleteDefaults } from "../athletes/commands.ts";
import { addNativePhoto } from "../photos/commands.ts";
import { MAX_PHOTO_BYTES } from "../images/kinds.ts";
import { MAX_DESCRIPTION, MAX_NAME, parseStartDateLocal } from "../activities/input.ts";
import { activityStartProblem } from "../../shared/date-range.ts";
import { ApiError } from "../http/errors.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { findActivity, processingUploadOf } from "../activities/read.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { gearOfAthlete } from "../../projections/gear/queries.ts";
import { processUpload, uploadJob } from "../uploads/job.ts";
import { findUpload } from "../uploads/status.ts";
import { submitUpload } from "../uploads/submit.ts";
import { FIT_ACTIVITY, fitFileType } from "./fit-type.ts";
import { type ArchiveActivity, type ArchiveContents, type ArchiveGear, garminActivity, readArchive } from "./layout.ts";
import { processingUploadsOfActivity } from "../../projections/uploads/queries.ts";
import { TurnBudget } from "../event-loop-turn.ts";
import { ArchiveRefused, DEFAULT_ZIP_LIMITS, openZip, type ZipArchive, type ZipLimits } from "./zip.ts";

export interface ImportFailure {
  file: string;
  error: string;
}

export interface ImportProgress {
  layout: "strava" | "garmin" | null;
  /** Activities found so far (a Garmin export's nested zips are counted as they are opened). */
  total: number;
  done: number;
  imported: number;
  duplicates: number;
  /** Files that are not workouts (a Garmin export's monitoring, sleep, settings FIT files). */
  skipped: number;
  /** The first failures (at most `REPORTED_FAILURES`); all of them go to `onFailure`. */
  failed: ImportFailure[];
  /** How many entries failed (all of them, reported or not). */
  failedCount: number;
  startedAt: number;
}

/**
 * Failures kept in a progress report and shown on the status page and body: an archive of 50,000
 * rows naming missing files made a 4.8 MB status body, and copying the growing list into every
 * progress report took seconds of the event loop. The full list is recorded in the import's events
 * (GET /settings/import/:id/failures.csv) and printed by the CLI.
 */
export const REPORTED_FAILURES = 100;

/** What became of one archive entry (an activity's recording or manual row). */
export type EntryOutcome = "imported" | "duplicate" | "skipped" | "failed";

/** The import stopped early because `shouldStop` said so (the server is shutting down). */
export class ImportStopped extends Error {
  constructor() {
    super("the import was stopped");
    this.name = "ImportStopped";
  }
}

export interface ImportSummary {
  imported: number;
  duplicates: number;
  skipped: number;
  /** The first REPORTED_FAILURES failures (the CLI collects every one through `onFailure`). */
  failed: ImportFailure[];
  failedCount: number;
}

export interface ImportOptions {
  athleteId: number;
  /** The archive file on disk (read as a stream, never loaded whole). */
  path: string;
  /** Who asked: recorded in the events' metadata as `archive:<layout>:<via>`. */
  via: "cli" | "web" | "api" | "bench";
  onProgress?(progress: ImportProgress): void;
  /** Called with every failure as it happens (the progress keeps only the first REPORTED_FAILURES). */
  onFailure?(failure: ImportFailure): void;
  limits?: ZipLimits;
  /** Activities in flight at once (submitted and waiting for their upload to finish). */
  window?: number;
  /** Entries (by key) a previous run of this import finished: not imported again, not counted. */
  isDone?(key: string): boolean;
  /** Called as each entry is finished, with its key. */
  onEntry?(key: string, outcome: EntryOutcome): void;
  /** Polled before each entry: true stops the import (ImportStopped) once the entries in flight are finished. */
  shouldStop?(): boolean;
}

const POLL_MS = 100;

/**
 * The activity an upload's error names as the one it duplicates, or null. The message is
 * `<file name> duplicate of activity <id>` (server/uploads/duplicates.ts): the id is its end. The
 * file name comes from the archive and may itself say "duplicate of activity N", so only the end
 * counts, and the caller still checks the activity is the importer's.
 */
function duplicateOf(text: string): number | null {
  const m = /\bduplicate of activity (\d{1,15})$/.exec(text);
  return m ? Number(m[1]) : null;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function message(error: unknown): string {
  if (error instanceof ApiError) {
    const body = error.body as { error?: string } | undefined;
    return body?.error ?? error.errors.map((e) => `${e.field} ${e.code}`).join(", ") ?? error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** What every step of one import shares: where it reads, who it acts as, and its progress. */
interface Importing {
  platform: Platform;
  options: ImportOptions;
  athleteId: number;
  /** The archive itself (photos are read from it, whichever zip holds the recording). */
  zip: ZipArchive;
  layout: ArchiveContents["layout"];
  /** Recorded in the events' metadata as `archive:<layout>:<via>`. */
  actor: Actor;
  /** The athlete's defaults for new activities (privacy, a manual entry's type). */
  defaults: Awaited<ReturnType<typeof athleteDefaults>>;
  /** The athlete's gear ids by lower-cased name (activities name their gear). */
  gearIds: Map<string, string>;
  progress: ImportProgress;
  /** Entries that fail at once (a row naming a missing file) yield between turns of the event loop. */
  turn: TurnBudget;
  report(): void;
  fail(failure: ImportFailure): void;
}

/** What became of an entry's activity: imported or a duplicate (with the importer's activity, if any), skipped or failed. */
type Outcome =
  | { kind: "imported" | "duplicate"; activityId: number | null }
  | { kind: "skipped" }
  | { kind: "failed"; error: string };

/** Imports the archive; throws ArchiveRefused (nothing imported) for a hostile or unknown archive. */
export async function importArchive(platform: Platform, options: ImportOptions): Promise<ImportSummary> {
  const { athleteId } = options;
  if (!(await findAthlete(platform.db, athleteId))) {
    throw new DomainError("not_found", "Athlete", "id", "invalid", `athlete ${athleteId} not found`);
  }
  const limits = options.limits ?? DEFAULT_ZIP_LIMITS;
  const tracking = progressTracking(options);
  const zip = await openZip(options.path, limits);
  const scratch = mkdtempSync(join(tmpdir(), "archive-import-"));
  try {
    const contents = await readArchive(zip);
    const importing = await begin(platform, options, zip, contents, tracking);
    await importGear(importing, contents.gear);
    await importEntries(importing, zip, contents.activities);
    await importContainers(importing, contents.containers, scratch, limits);
    const { progress } = importing;
    return {
      imported: progress.imported,
      duplicates: progress.duplicates,
      skipped: progress.skipped,
      failed: progress.failed,
      failedCount: progress.failedCount,
    };
  } finally {
    zip.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The import's progress, how it is reported, and how a failure is counted. */
function progressTracking(options: ImportOptions): Pick<Importing, "progress" | "report" | "fail" | "turn"> {
  const progress: ImportProgress = {
    layout: null,
    total: 0,
    done: 0,
    imported: 0,
    duplicates: 0,
    skipped: 0,
    failed: [],
    failedCount: 0,
    startedAt: Date.now(),
  };
  // A report copies at most REPORTED_FAILURES failures, however many there are.
  const report = () => options.onProgress?.({ ...progress, failed: [...progress.failed] });
  const fail = (failure: ImportFailure) => {
    progress.failedCount++;
    if (progress.failed.length < REPORTED_FAILURES) progress.failed.push(failure);
    options.onFailure?.(failure);
  };
  // Entries that fail at once (a row naming a missing file) finish without any I/O: the loop over
  // them yields between turns, so 50,000 of them never hold the event loop.
  return { progress, report, fail, turn: new TurnBudget(8) };
}

/** Reports the archive's layout and entries, starts the upload jobs if no server runs them, and reads the athlete's defaults. */
async function begin(
  platform: Platform,
  options: ImportOptions,
  zip: ZipArchive,
  contents: ArchiveContents,
  tracking: Pick<Importing, "progress" | "report" | "fail" | "turn">,
): Promise<Importing> {
  const { athleteId } = options;
  tracking.progress.layout = contents.layout;
  tracking.progress.total = contents.activities.length;
  tracking.report();
  const actor = systemActor(`archive:${contents.layout}:${options.via}`, athleteId);
  // The upload jobs run in the server; a CLI run without a server runs them itself.
  if (!platform.jobs.running) {
    platform.jobs.register(uploadJob(platform));
    platform.jobs.start();
  }
  const defaults = await athleteDefaults(platform.db, athleteId);
  return {
    platform,
    options,
    athleteId,
    zip,
    layout: contents.layout,
    actor,
    defaults,
    gearIds: new Map(),
    ...tracking,
  };
}

/** Gear first, so activities can name it. Known by kind and name (a second run adds none). */
async function importGear(importing: Importing, gear: readonly ArchiveGear[]): Promise<void> {
  const { platform, athleteId, gearIds, progress } = importing;
  for (const g of await gearOfAthlete(platform.db, athleteId)) gearIds.set(g.name.trim().toLowerCase(), g.id);
  for (const g of gear) {
    const key = g.name.trim().toLowerCase();
    if (gearIds.has(key)) continue;
    try {
      gearIds.set(
        key,
        await addGear(platform, {
          athleteId,
          kind: g.kind,
          name: g.name,
          brandName: g.brandName,
          modelName: g.modelName,
        }, importing.actor),
      );
    } catch (error) {
      importing.fail({ file: `${g.kind === "bike" ? "bikes" : "shoes"}.csv: ${g.name}`, error: message(error) });
    }
  }
  if (progress.failedCount > 0) importing.report();
}

/**
 * Imports the entries of one zip, `window` at a time, skipping those a previous run finished;
 * throws ImportStopped when `shouldStop` said so (after the entries in flight are finished).
 */
async function importEntries(
  importing: Importing,
  archive: ZipArchive,
  items: readonly ArchiveActivity[],
): Promise<void> {
  const { options, progress } = importing;
  const inFlight = new Set<Promise<void>>();
  for (const item of items) {
    await importing.turn.spent();
    if (options.isDone?.(item.key)) continue;
    while (inFlight.size >= (options.window ?? 8)) await Promise.race(inFlight);
    if (options.shouldStop?.()) break;
    const task = importEntry(importing, archive, item).then(
      (outcome) => options.onEntry?.(item.key, outcome),
      (error) => {
        importing.fail({ file: item.file ?? `activities.csv (activity ${item.key})`, error: message(error) });
        options.onEntry?.(item.key, "failed");
      },
    ).finally(() => {
      inFlight.delete(task);
      progress.done++;
      importing.report();
    });
    inFlight.add(task);
  }
  await Promise.all(inFlight);
  if (options.shouldStop?.()) throw new ImportStopped();
}

/** Imports one entry (a recording or a manual row), then its gear and photos, and counts what became of it. */
async function importEntry(importing: Importing, archive: ZipArchive, item: ArchiveActivity): Promise<EntryOutcome> {
  const { progress } = importing;
  const outcome = item.file ? await importRecording(importing, archive, item) : await importManual(importing, item);
  if (outcome.kind === "skipped") {
    progress.skipped++;
    return "skipped";
  }
  if (outcome.kind === "failed") {
    importing.fail({ file: item.file ?? `activities.csv (activity ${item.key})`, error: outcome.error });
    return "failed";
  }
  if (outcome.activityId !== null) {
    await assignGear(importing, outcome.activityId, item);
    await importPhotos(importing, outcome.activityId, item);
  }
  if (outcome.kind === "imported") progress.imported++;
  else progress.duplicates++;
  return outcome.kind === "imported" ? "imported" : "duplicate";
}

/** A recording goes through the upload pipeline like POST /v3/uploads, and is waited for. */
async function importRecording(importing: Importing, archive: ZipArchive, item: ArchiveActivity): Promise<Outcome> {
  const { platform, athleteId } = importing;
  const file = item.file!;
  if (!item.dataType) return { kind: "failed", error: "not a FIT, TCX or GPX recording" };
  if (!archive.entries.has(file)) return { kind: "failed", error: "named in activities.csv but not in the archive" };
  const bytes = await archive.read(file, platform.config.maxUploadBytes);
  if (importing.layout === "garmin") {
    const type = fitFileType(bytes);
    if (type !== null && type !== FIT_ACTIVITY) return { kind: "skipped" };
  }
  let uploadId: number;
  try {
    const status = await submitUpload(platform, {
      athleteId,
      fileName: file.split("/").pop() ?? file,
      bytes,
      dataType: item.dataType,
      activityType: item.type,
      // The type in activities.csv is what the athlete set on the platform: it wins over the file's sport.
      activityTypeWins: item.type !== null,
      name: item.name?.slice(0, MAX_NAME) ?? null,
      description: item.description?.slice(0, MAX_DESCRIPTION) ?? null,
      private: item.private ?? undefined,
      trainer: false,
      commute: item.commute,
      externalId: file.slice(-255),
    }, importing.actor);
    uploadId = status.id;
  } catch (error) {
    const text = message(error);
    const activityId = duplicateOf(text);
    if (activityId === null) return { kind: "failed", error: text };
    return await finishDuplicate(importing, activityId);
  }
  return await uploadOutcome(platform, uploadId);
}

/**
 * A recording already imported (or submitted by a run that was killed): finished if it is still
 * waiting. A run killed after submitting left it processing: this run finishes it (an import, not a
 * duplicate). Only an activity of the importer is looked at: an id of someone else's (a file named
 * "… duplicate of activity N …" put it in the message) is treated as no activity at all, so nothing
 * the import says depends on activities the importer cannot see.
 */
async function finishDuplicate(importing: Importing, activityId: number): Promise<Outcome> {
  const { platform, athleteId } = importing;
  const left = await processingUploadsOfActivity(platform.db, athleteId, activityId);
  for (const id of left) await processUpload(platform, id);
  while ((await processingUploadOf(platform.db, activityId))?.athleteId === athleteId) await sleep(POLL_MS);
  const exists = await ownActivity(importing, activityId);
  return { kind: left.length > 0 && exists ? "imported" : "duplicate", activityId: exists ? activityId : null };
}

/** Waits for a submitted upload to be ready (imported), a duplicate, or an error. */
async function uploadOutcome(platform: Platform, uploadId: number): Promise<Outcome> {
  for (;;) {
    const row = await findUpload(platform.db, uploadId);
    if (row && row.status === UPLOAD_STATUS.ready) return { kind: "imported", activityId: row.activity_id };
    if (row && row.status === UPLOAD_STATUS.error) {
      if (duplicateOf(row.error ?? "") !== null) return { kind: "duplicate", activityId: null };
      return { kind: "failed", error: row.error ?? "processing failed" };
    }
    await sleep(POLL_MS);
  }
}

/** A manual entry (no recording) becomes an activity through the Activities family's commands, like POST /v3/activities. */
async function importManual(importing: Importing, item: ArchiveActivity): Promise<Outcome> {
  const { platform, athleteId, defaults } = importing;
  if (!item.startDate) return { kind: "failed", error: "a manual entry without an Activity Date" };
  const start = parseStartDateLocal(item.startDate);
  if (!start) return { kind: "failed", error: `unreadable Activity Date ${item.startDate}` };
  // The one rule for activity dates (shared/date-range.ts), as for POST /v3/activities.
  const problem = activityStartProblem(start.startDate);
  if (problem) return { kind: "failed", error: `Activity Date ${problem}` };
  const type = item.type ?? defaults.activityType;
  const activityId = await nextId(platform.db, "activity");
  // The key makes a second import a no-op that answers the stream of the activity the first import created.
  const result = await createActivity(
    platform,
    {
      activityId,
      athleteId,
      name: (item.name ?? type).slice(0, MAX_NAME),
      type,
      startDate: start.startDate,
      startDateLocal: start.startDateLocal,
      timezone: start.timezone,
      elapsedTime: Math.max(0, Math.round(item.elapsedTime ?? 0)),
      distance: Math.max(0, item.distance ?? 0),
      description: item.description?.slice(0, MAX_DESCRIPTION) ?? null,
      visibility: resolveVisibility({ private: item.private ?? undefined }, null, defaults.visibility) as Visibility,
      trainer: false,
      commute: item.commute,
    },
    importing.actor,
    `archive:${athleteId}:${item.key}`,
  );
  if (!result) throw new Error("the activity was not created");
  if (result.streamId === activityStream(activityId)) return { kind: "imported", activityId };
  const earlier = Number(result.streamId.replace(/^activity-/, ""));
  return { kind: "duplicate", activityId: (await ownActivity(importing, earlier)) ? earlier : null };
}

/** Whether the activity exists and is the importer's (anything else reads as no activity). */
async function ownActivity(importing: Importing, activityId: number): Promise<boolean> {
  return Number((await findActivity(importing.platform.db, activityId))?.athlete_id) === importing.athleteId;
}

/** The gear activities.csv names for the activity (once, however often the archive is imported). */
async function assignGear(importing: Importing, activityId: number, item: ArchiveActivity): Promise<void> {
  const { platform, athleteId } = importing;
  const gearId = item.gearName ? importing.gearIds.get(item.gearName.trim().toLowerCase()) : undefined;
  if (gearId) {
    await updateActivity(
      platform,
      activityId,
      athleteId,
      { gearId },
      importing.actor,
      `archive:${athleteId}:${item.key}:gear`,
    );
  }
}

/** The activity's photos from the archive (each once); one that is missing or unusable is reported. */
async function importPhotos(importing: Importing, activityId: number, item: ArchiveActivity): Promise<void> {
  const { platform, athleteId, zip } = importing;
  for (const media of item.media) {
    try {
      if (!zip.entries.has(media)) throw new Error("named in activities.csv but not in the archive");
      const bytes = await zip.read(media, MAX_PHOTO_BYTES);
      await addNativePhoto(
        platform,
        { activityId, athleteId, bytes },
        importing.actor,
        `archive:${athleteId}:${item.key}:${media}`,
      );
    } catch (error) {
      importing.fail({
        file: media,
        error: error instanceof DomainError ? `not a usable photo (${error.field} ${error.code})` : message(error),
      });
    }
  }
}

/** A Garmin export: zips of FIT files, each copied out (streamed) and opened in turn. */
async function importContainers(
  importing: Importing,
  containers: readonly string[],
  scratch: string,
  limits: ZipLimits,
): Promise<void> {
  const { zip, progress } = importing;
  for (const [n, container] of containers.entries()) {
    const path = join(scratch, `${n}.zip`);
    let inner: ZipArchive;
    try {
      await zip.copyTo(container, path);
      inner = await openZip(path, limits);
    } catch (error) {
      if (error instanceof ArchiveRefused && /zip bomb|outside the archive/.test(error.message)) throw error;
      // Reported (and recorded by the next checkpoint): a Garmin export whose inner zip is not a
      // zip used to finish "done" with nothing failed.
      importing.fail({ file: container, error: message(error) });
      rmSync(path, { force: true });
      importing.report();
      continue;
    }
    try {
      const items = [...inner.entries.keys()].filter((name) => /\.fit$/i.test(name)).map((name) =>
        garminActivity(name, container)
      );
      progress.total += items.length;
      importing.report();
      await importEntries(importing, inner, items);
    } finally {
      inner.close();
      rmSync(path, { force: true });
    }
  }
}
