import process from "node:process";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { uploadsInStatus } from "../../projections/uploads/queries.ts";
import type { EventData } from "../../events/catalogue.ts";
import { findEvent } from "../../events/index.ts";
import type { RecordedEvent } from "../../events/types.ts";
import type { Db } from "../../events/db/types.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";
import { activityStartProblem } from "../../shared/date-range.ts";
import { activityProcessors } from "../activity-processors.ts";
import { type Actor, systemActor } from "../actor.ts";
import { processActivity, recordProcessedActivity } from "../activities/commands.ts";
import { segmentEffortsMatched, segmentEffortsRematched } from "../../events/segment/events.ts";
import { blobDirOf, blobFile, getBlob, putBlob, putSettledBlob } from "../blobs.ts";
import { storableText } from "../ingest/decode.ts";
import { deriveContextOf, deriveFile } from "./derive-upload.ts";
import { derivePool } from "./derive-pool.ts";
import { prepareTimezones } from "../ingest/timezone.ts";
import type { JobKind } from "../jobs/runner.ts";
import type { Platform } from "../platform.ts";
import { segmentIndexFor } from "../segments/segment-index.ts";
import type { TrackMatch } from "../segments/track-matches.ts";
import { rankBestEfforts } from "./best-efforts.ts";
import { keepPolyline } from "./polyline-blob.ts";
import { athleteTurn } from "./athlete-lock.ts";
import { duplicateAtProcessing, duplicateMessage } from "./duplicates.ts";
import { takeReceivedOriginal } from "./originals.ts";
import { findUpload } from "./status.ts";
import { failUpload, succeedUpload } from "./commands.ts";
import { type ReceivedUpload as Received, receivedUpload } from "../../events/upload/received.ts";

type Recorded = EventData<typeof activityRecorded>;

export const UPLOAD_JOB = "upload";

/** Segment matching ran already when its events are in the activity's stream (appended with the recording). */
function matchedIn(stream: readonly RecordedEvent[]): boolean {
  return Boolean(findEvent(stream, [segmentEffortsMatched.type, segmentEffortsRematched.type]));
}

/** The processor whose events are appended with the recording (segment matching: activity-processors.ts). */
const firstProcessor = activityProcessors[0];

/**
 * The upload job. Its steps are events, each appended idempotently, so a restart at any point
 * resumes where it stopped: ActivityRecorded (stream activity-<id>) with the first processor's
 * events (segment efforts) in the same append, then each other processor's events, then
 * UploadSucceeded; or UploadFailed when the file cannot become an activity.
 */
export function uploadJob(platform: Platform): JobKind {
  return {
    kind: UPLOAD_JOB,
    async pending(db: Db, limit: number) {
      const rows = await uploadsInStatus(db, UPLOAD_STATUS.processing, limit);
      // While idle, keep the in-memory segment index current (new segments are read incrementally),
      // so an upload never waits for thousands of segments to be loaded at once.
      if (rows.length === 0) {
        prepareTimezones();
        // …and a derive worker started, warm and holding every segment (derive-pool.ts).
        void segmentIndexFor(platform.db)
          .then(({ source, entries }) => {
            // Not once the platform is closing (its idle workers are being released).
            if (platform.jobs.running) derivePool(platform.config.deriveWorkers).prestart({ source, entries });
          })
          .catch(() => {});
      }
      return rows.map((r) => String(r.id));
    },
    run: (id: string) => processUpload(platform, Number(id)),
    maxAttempts: 5,
    async giveUp(id: string, message: string) {
      const received = await receivedUpload(platform.store, Number(id));
      if (!received) return;
      await fail(platform, received, `${received.fileName}: processing failed repeatedly (${message})`, null);
    },
  };
}

/** Who the upload job's events are recorded as: the job, for the uploading athlete. */
function jobActor(received: Received): Actor {
  return systemActor("job:upload", received.athleteId);
}

async function fail(platform: Platform, received: Received, error: string, duplicateOf: number | null) {
  // A second outcome (a resumed or concurrent run) decides nothing.
  await failUpload(platform, {
    uploadId: received.uploadId,
    athleteId: received.athleteId,
    error: storableText(error),
    duplicateOf,
  }, jobActor(received));
}

type Failure = { ok: false; error: string; duplicateOf: number | null };
type Decoded = Awaited<ReturnType<typeof deriveFile>>;
type Settled =
  | { ok: true; activity: Recorded; streams: ActivityStreams; notes: string[]; matches?: TrackMatch[] }
  | Failure;

/** Derives the activity from the stored original (pure work in the derive pool; any failure is the file's). */
async function derive(platform: Platform, received: Received): Promise<({ ok: true } & Decoded) | Failure> {
  // A large original is a file blob: the worker reads it by path (it never passes through here).
  const original = takeReceivedOriginal(received.originalSha256) ??
    await blobFile(platform.db, received.originalSha256) ??
    await getBlob(platform.db, received.originalSha256);
  if (!original) {
    return { ok: false, error: `${received.fileName}: the uploaded file is no longer stored.`, duplicateOf: null };
  }
  const context = await deriveContextOf(platform.db, received);
  // The worker also matches the track against the segments (it is sent those it lacks).
  const { entries, source } = await segmentIndexFor(platform.db);
  let decoded: Decoded;
  try {
    decoded = await deriveFile(
      original,
      received,
      context,
      platform.config.maxUploadBytes,
      platform.config.deriveWorkers,
      { source, entries },
      blobDirOf(platform.db),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `${received.fileName}: ${message}`, duplicateOf: null };
  }
  // The one rule for activity dates (shared/date-range.ts): a file starting in 9999 or 1970 is no activity.
  const problem = activityStartProblem(decoded.derived.facts.startDate);
  if (problem) {
    return { ok: false, error: `${received.fileName}: the file's start time ${problem}.`, duplicateOf: null };
  }
  return { ok: true, ...decoded };
}

/** The duplicate check and what the activity event needs; run during the athlete's turn. */
async function settle(platform: Platform, received: Received, decoded: Decoded): Promise<Settled> {
  const { derived, notes, streamsJson, streamsSha256: knownSha256, streamsFile, polylineFile, matches } = decoded;
  const duplicateOf = await duplicateAtProcessing(platform.db, {
    athleteId: received.athleteId,
    activityId: received.activityId,
    contentSha256: received.contentSha256,
    startDate: derived.facts.startDate,
    deviceName: derived.facts.deviceName,
  });
  // (A streams file the worker stored stays: blobs are content-addressed, another row may name it.)
  if (duplicateOf !== null) return { ok: false, error: duplicateMessage(received.fileName, duplicateOf), duplicateOf };
  derived.facts.bestEfforts = await rankBestEfforts(
    platform.db,
    received.athleteId,
    received.activityId,
    derived.facts.bestEfforts,
  );
  // Large streams and polyline documents were stored as file blobs by the worker: only their rows
  // are written here, in one transaction whose WAL sync is left to the recording's append (the
  // next durable write). The WAL is written in order, so the rows are on disk before the event
  // naming them; a crash before that append loses both, and the upload is derived again.
  const settledFiles = [
    ...(streamsFile ? [{ sha256: knownSha256, size: streamsFile.size }] : []),
    ...(polylineFile ? [{ sha256: polylineFile.sha256, size: polylineFile.size }] : []),
  ];
  if (settledFiles.length) {
    await platform.db.transaction(async (tx) => {
      for (const file of settledFiles) await putSettledBlob(tx, file.sha256, file.size);
    }, { deferSync: true });
  }
  const streamsSha256 = streamsFile
    ? knownSha256
    : await putBlob(platform.db, streamsJson, { file: true, sha256: knownSha256 });
  // A long track's full polyline is a blob too: the event and the row keep its hash.
  const polyline = polylineFile
    ? { polyline: null, polylineSha256: polylineFile.sha256 }
    : await keepPolyline(platform.db, derived.facts.polyline);
  return {
    ok: true,
    activity: {
      activityId: received.activityId,
      athleteId: received.athleteId,
      ...derived.facts,
      ...polyline,
      streamsSha256,
    },
    streams: derived.streams,
    notes,
    matches,
  };
}

export async function processUpload(platform: Platform, uploadId: number): Promise<void> {
  const row = await findUpload(platform.db, uploadId);
  if (!row || row.status !== UPLOAD_STATUS.processing) return;
  const found = await receivedUpload(platform.store, uploadId);
  if (!found) return;
  const received: Received = found;
  const actor = jobActor(received);

  const turn: { done: (() => void) | null } = { done: null };
  const clock = stepClock();
  try {
    await recordAndFinish();
  } finally {
    turn.done?.();
    clock.report(uploadId);
  }

  async function recordAndFinish(): Promise<void> {
    // Step 1: ActivityRecorded (skipped when a previous run got that far).
    const stream = await platform.store.readStream(activityStream(received.activityId));
    const existing = findEvent(stream, activityRecorded.type);
    let activity: Recorded;
    let streams: ActivityStreams | null;
    let notes: string[] = [];
    let matches: TrackMatch[] | undefined;
    // What this run appended to the activity's stream after ActivityRecorded (a later processor reads it).
    const appended: RecordedEvent[] = [];
    // The first processor's events went with the recording (this run's, another's, or a run before a restart).
    let firstDone = false;
    if (existing) {
      activity = existing.data;
      firstDone = matchedIn(stream);
      const blob = activity.streamsSha256 ? await getBlob(platform.db, activity.streamsSha256) : undefined;
      streams = blob ? JSON.parse(new TextDecoder().decode(blob)) as ActivityStreams : null;
      notes = (await reparseNotes(platform, received)) ?? [];
    } else {
      clock.step("read");
      const decoded = await derive(platform, received);
      clock.step("derive", decoded.ok ? decoded.timings : undefined);
      if (!decoded.ok) return await fail(platform, received, decoded.error, decoded.duplicateOf);
      // From the duplicate check to the upload's outcome (which records the fingerprint the check
      // reads), one upload of this athlete at a time.
      turn.done = await athleteTurn(received.athleteId);
      clock.step("turn");
      {
        const result = await settle(platform, received, decoded);
        clock.step("settle");
        if (!result.ok) return await fail(platform, received, result.error, result.duplicateOf);
        activity = result.activity;
        streams = result.streams;
        notes = result.notes;
        matches = result.matches;
        // The first processor (segment matching) reads the activity's data and the boards, not its
        // recording: its events are appended with ActivityRecorded, in the same transaction.
        const early = await firstProcessor({ platform, activity, streams, matches });
        clock.step("processor0");
        const recorded = await recordProcessedActivity(platform, activity, early, actor, `upload-${uploadId}:recorded`);
        clock.step("recorded");
        if (recorded.length === 0) {
          // Recorded meanwhile by another run: that recording stands (its processors follow below).
          const now = await platform.store.readStream(activityStream(received.activityId));
          const again = findEvent(now, activityRecorded.type);
          if (!again) {
            throw new Error(`upload ${uploadId}: activity ${received.activityId} is neither new nor recorded`);
          }
          activity = again.data;
          firstDone = matchedIn(now);
        } else {
          firstDone = true;
          for (const event of recorded) if (event.type !== activityRecorded.type) appended.push(event);
        }
      }
    }

    // Step 2: every registered processor (segment matching, …), appended once each.
    for (const [index, processor] of activityProcessors.entries()) {
      if (index === 0 && firstDone) continue;
      const events = await processor({ platform, activity, streams, matches, appended });
      clock.step(`processor${index}`);
      if (events.length === 0) continue;
      const result = await processActivity(
        platform,
        received.activityId,
        events,
        actor,
        `upload-${uploadId}:processor-${index}`,
      );
      // What a later processor may take as recorded: only what this run appended (not a retry's duplicate).
      if (result && !result.duplicate) { for (const event of result.events) appended.push(event); }
      clock.step(`processor${index}-append`);
    }

    // Step 3: the upload is ready.
    await succeedUpload(platform, {
      uploadId,
      athleteId: received.athleteId,
      activityId: received.activityId,
      startDate: activity.startDate,
      deviceName: activity.deviceName,
      contentSha256: received.contentSha256,
      notes,
    }, actor);
    clock.step("succeeded");
  }
}

/**
 * UPLOAD_TIMINGS=1: each processed upload prints where its time went on stderr (wall ms per step of
 * the job, and the derive worker's own split) and when it started (epoch ms, to set the steps against
 * other logs such as LOG_LOOP_STALLS_MS), e.g. to find what dominates in a benchmark.
 */
function stepClock() {
  const on = Boolean(process.env.UPLOAD_TIMINGS);
  let last = performance.now();
  const startedAt = Date.now();
  const parts: string[] = [];
  return {
    step(name: string, inner?: Record<string, number>) {
      if (!on) return;
      const now = performance.now();
      const split = inner ? ` (${Object.entries(inner).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(", ")})` : "";
      parts.push(`${name} ${(now - last).toFixed(1)}${split}`);
      last = now;
    },
    report(uploadId: number) {
      if (on) console.error(`upload ${uploadId} (started ${startedAt}) steps (ms): ${parts.join(" | ")}`);
    },
  };
}

/** Notes of a file whose activity was recorded before a restart (derived again in a worker). */
async function reparseNotes(platform: Platform, received: Received): Promise<string[] | null> {
  const original = await blobFile(platform.db, received.originalSha256) ??
    await getBlob(platform.db, received.originalSha256);
  if (!original) return null;
  try {
    const context = await deriveContextOf(platform.db, received);
    const { notes } = await deriveFile(
      original,
      received,
      context,
      platform.config.maxUploadBytes,
      platform.config.deriveWorkers,
    );
    return notes;
  } catch {
    return null;
  }
}
