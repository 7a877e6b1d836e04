import { activityStream } from "../../events/activity/events.ts";
import { activityCropped, type RecordingWindow } from "../../events/activity/cropped.ts";
import { DomainError } from "../../events/decider.ts";
import { segmentEffortsRematched } from "../../events/segment/events.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { type Actor } from "../actor.ts";
import { cropActivity, deleteActivity, processActivity, recordSplitPart, undoCrop } from "../activities/commands.ts";
import { activityProcessors } from "../activity-processors.ts";
import { iso } from "../ingest/rounding.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { activityTypeAndPrivacy } from "../../projections/activities/queries.ts";
import { type Standing, standingOf } from "./history.ts";
import {
  cropFacts,
  deriveWindow,
  loadSource,
  sameEfforts,
  type Source,
  storedFacts,
  windowEfforts,
} from "./rederive.ts";

/**
 * Crop, split and undo (issue #47 item 5). Times are given as the activity shows them: seconds
 * from its start (its `time` stream, its `elapsed_time`); windows are recorded as instants of the
 * original recording. Who may (the owner) is checked by the route before; the decider rules again.
 */

/** The window the activity stands for now, in ms since the epoch. */
function windowNow(source: Source): { start: number; end: number } {
  if (source.standing.window) {
    return { start: Date.parse(source.standing.window.start), end: Date.parse(source.standing.window.end) };
  }
  const start = Date.parse(source.row.start_date);
  return { start, end: start + source.row.elapsed_time * 1000 };
}

/** An instant `seconds` after the activity's start, to the second. */
function at(source: Source, seconds: number): number {
  return Date.parse(source.row.start_date) + seconds * 1000;
}

function windowOf(start: number, end: number): RecordingWindow {
  return { start: iso(start), end: iso(end) };
}

/** The offsets must lie inside the activity: 0 ≤ start < end ≤ elapsed_time (400 naming the field). */
function checkOffsets(source: Source, fields: Record<string, number>): void {
  const elapsed = source.row.elapsed_time;
  const bad = Object.entries(fields)
    .filter(([, v]) => !(v >= 0 && v <= elapsed))
    .map(([field]) => new DomainError("invalid", "Activity", field, "outside the activity"));
  if (bad.length) throw DomainError.all(bad);
}

/** Crops the owner's activity to [startTime, endTime] seconds from its start. */
export async function crop(
  platform: Platform,
  activityId: number,
  athleteId: number,
  times: { startTime: number; endTime: number },
  actor: Actor,
): Promise<void> {
  const source = await loadSource(platform, activityId);
  checkOffsets(source, { start_time: times.startTime, end_time: times.endTime });
  if (!(times.endTime > times.startTime)) throw new DomainError("invalid", "Activity", "end_time", "before start_time");
  const now = windowNow(source);
  const window = windowOf(
    times.startTime === 0 ? now.start : at(source, times.startTime),
    times.endTime === source.row.elapsed_time ? now.end : at(source, times.endTime),
  );
  const decoded = await deriveWindow(platform, source, window);
  const facts = cropFacts(
    await storedFacts(platform, decoded, athleteId, { activityId, keepFrom: source.standing.facts }),
  );
  const efforts = await windowEfforts(platform, source, facts, decoded.derived.streams);
  await cropActivity(platform, activityId, { athleteId, window, splitInto: null, facts, efforts }, actor);
}

/**
 * Splits the owner's activity at `time` seconds from its start: it keeps the part before, and the
 * part after becomes a new activity through the recording path (ActivityRecorded, then the
 * processors: segment efforts ranked as at upload), with the original's name, sport, privacy,
 * flags, gear and muting. Returns the new activity's id.
 */
export async function split(
  platform: Platform,
  activityId: number,
  athleteId: number,
  time: number,
  actor: Actor,
): Promise<number> {
  const source = await loadSource(platform, activityId);
  checkOffsets(source, { time });
  if (time <= 0 || time >= source.row.elapsed_time) {
    throw new DomainError("invalid", "Activity", "time", "outside the activity", "a split falls inside the activity");
  }
  const now = windowNow(source);
  const cut = at(source, time);
  const first = windowOf(now.start, cut), rest = windowOf(cut, now.end);
  // Both parts derived before anything is recorded: a part without records refuses the split whole.
  const [before, after] = await Promise.all([
    deriveWindow(platform, source, first),
    deriveWindow(platform, source, rest),
  ]);
  const partId = await nextId(platform.db, "activity");

  const facts = cropFacts(
    await storedFacts(platform, before, athleteId, { activityId, keepFrom: source.standing.facts }),
  );
  const efforts = await windowEfforts(platform, source, facts, before.derived.streams);
  await cropActivity(platform, activityId, { athleteId, window: first, splitInto: partId, facts, efforts }, actor);

  const row = source.row;
  const partFacts = await storedFacts(platform, after, athleteId, { activityId: partId, keepFrom: null });
  const activity = {
    ...partFacts,
    activityId: partId,
    athleteId,
    // What the athlete chose stays the original's; the file's external id names the original only.
    name: row.name,
    type: row.type as typeof partFacts.type,
    sportType: (row.facts.sportType ?? row.type) as typeof partFacts.sportType,
    description: row.description,
    externalId: null,
    uploadId: source.standing.recorded.uploadId,
    visibility: row.visibility,
    trainer: row.trainer,
    commute: row.commute,
    workoutType: row.facts.workoutType ?? null,
  };
  await recordSplitPart(
    platform,
    {
      activity,
      fromActivityId: activityId,
      window: rest,
      gearId: row.gear_id,
      hideFromHome: (row.facts as { hideFromHome?: boolean }).hideFromHome === true,
    },
    actor,
    `split-${partId}:recorded`,
  );
  await runProcessors(platform, activity, after.derived.streams, actor, partId);
  return partId;
}

/** The processors of the recording path (segment efforts, segment profiles), each appended once. */
async function runProcessors(
  platform: Platform,
  activity: Parameters<(typeof activityProcessors)[number]>[0]["activity"],
  streams: ActivityStreams,
  actor: Actor,
  partId: number,
) {
  const appended = [];
  for (const [index, processor] of activityProcessors.entries()) {
    const events = await processor({ platform, activity, streams, appended });
    if (events.length === 0) continue;
    const result = await processActivity(platform, partId, events, actor, `split-${partId}:processor-${index}`);
    if (result && !result.duplicate) appended.push(...result.events);
  }
}

/**
 * Undoes crop or split `edit` of the owner's activity, the latest in effect: its facts and efforts
 * become exactly those it had before (the window too); a split's other part is deleted first.
 */
export async function undo(
  platform: Platform,
  activityId: number,
  athleteId: number,
  edit: number,
  actor: Actor,
): Promise<void> {
  const events = await platform.store.readStream(activityStream(activityId));
  const now = standingOf(events);
  const inEffect = now?.edits ?? [];
  const target = inEffect.find((e) => e.edit === edit);
  if (!now || !target) throw new DomainError("not_found", "Edit", "edit", "invalid", "no such crop or split in effect");
  if (inEffect[inEffect.length - 1] !== target) {
    throw new DomainError("conflict", "Edit", "edit", "not the latest", "undo the later crop or split first");
  }
  const before = standingOf(events, (e) => e.type === activityCropped.type && e.data.edit === edit) as Standing;
  const row = await activityTypeAndPrivacy(platform.db, activityId);
  if (!row) throw new DomainError("not_found", "Activity", "id", "invalid");
  if (target.splitInto !== null) {
    // The other part goes whole: not while it has crops or splits of its own (a split of it would stay behind).
    const part = standingOf(await platform.store.readStream(activityStream(target.splitInto)));
    if (part && part.edits.length > 0) {
      throw new DomainError(
        "conflict",
        "Edit",
        "edit",
        "part edited",
        "undo the crops and splits of the other part first",
      );
    }
    await deletePart(platform, target.splitInto, athleteId, actor);
  }
  // The efforts as they were, with the activity's sport and privacy as they are now.
  const restored = before.efforts
    ? segmentEffortsRematched.schema.parse({ ...before.efforts, visibility: row.visibility, activityType: row.type })
    : null;
  const efforts = sameEfforts(restored, now.efforts) ? null : restored ??
    segmentEffortsRematched.schema.parse({ ...now.efforts!, efforts: [], prCount: 0, achievementCount: 0 });
  await undoCrop(platform, activityId, { athleteId, edit, facts: before.facts, efforts }, actor);
}

/** A split's other part, deleted with the split's undoing (already deleted: nothing to do). */
async function deletePart(platform: Platform, partId: number, athleteId: number, actor: Actor) {
  try {
    await deleteActivity(platform, partId, athleteId, actor);
  } catch (error) {
    if (!(error instanceof DomainError && error.kind === "not_found")) throw error;
  }
}
