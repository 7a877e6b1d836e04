import { activityStream } from "../../events/activity/events.ts";
import { type ActivityCommand, activityDecider } from "../../events/activity/decide.ts";
import { type Decider, DomainError, foldIsCurrent, handleAssumed, handleCommand } from "../../events/decider.ts";
import type { RecordedEvent } from "../../events/types.ts";
import type { ConditionSql } from "../../events/store.ts";
import type { NewEvent } from "../../events/catalogue.ts";
import { findGear } from "../../projections/gear/queries.ts";
import type { ActivityType } from "../../shared/activity-types.ts";
import { activityStartProblem } from "../../shared/date-range.ts";
import { resolveSport, type SportType } from "../../shared/sport-types.ts";
import { type Actor, appendOptions } from "../actor.ts";
import { athleteDefaults, newActivityVisibility } from "../athletes/commands.ts";
import type { Visibility } from "../../shared/visibility.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import type { LocalStart } from "./input.ts";

/**
 * The Activities family's commands: the only place that hands activity commands to the activity
 * decider (events/activity/decide.ts). Routes, the CLI, the demo seed, the upload job and
 * `cli reprocess` call these with the Actor the events record as metadata. Who may see or own the
 * activity (404/403) is checked by the caller (server/activities/access.ts) before.
 */

type Command<T extends ActivityCommand["type"]> = Extract<ActivityCommand, { type: T }>;

function decide(
  platform: Platform,
  activityId: number,
  command: ActivityCommand,
  actor: Actor,
  idempotencyKey?: string,
) {
  return handleCommand(platform.store, activityStream(activityId), activityDecider, command, {
    ...appendOptions(actor),
    ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
  });
}

/** What POST /v3/activities (or the seed) gives for a manual activity; left-out fields take the defaults. */
export interface ManualActivity {
  athleteId: number;
  name: string;
  type?: ActivityType;
  sportType?: SportType;
  start: LocalStart;
  elapsedTime: number;
  distance?: number;
  description?: string | null;
  /** Strava's visibility; default: the athlete's default for new activities. */
  visibility?: Visibility;
  /** The spec's flag (true = only_me, false = not only me); must agree with visibility when both are given. */
  private?: boolean;
  trainer?: boolean;
  commute?: boolean;
}

/**
 * Creates a manual activity: the type from sport_type and/or type (one required, both must agree),
 * visibility from the athlete's default unless given. Returns the new activity's id.
 */
export async function createManualActivity(platform: Platform, input: ManualActivity, actor: Actor): Promise<number> {
  const sport = resolveSport(input.type, input.sportType);
  if (!sport) throw new DomainError("invalid", "Activity", "sport_type", "invalid");
  const activityId = await nextId(platform.db, "activity");
  await createActivity(platform, {
    activityId,
    athleteId: input.athleteId,
    name: input.name,
    type: sport.type,
    sportType: sport.sportType,
    startDate: input.start.startDate,
    startDateLocal: input.start.startDateLocal,
    timezone: input.start.timezone,
    elapsedTime: input.elapsedTime,
    distance: input.distance ?? 0,
    description: input.description ?? null,
    visibility: await newActivityVisibility(platform.db, input.athleteId, input),
    trainer: input.trainer ?? false,
    commute: input.commute ?? false,
  }, actor);
  return activityId;
}

/**
 * Creates an activity from complete facts (an archive's manual entry). With an idempotency key a
 * second call appends nothing and its result names the stream the first one created.
 */
export async function createActivity(
  platform: Platform,
  activity: Command<"create">["activity"],
  actor: Actor,
  idempotencyKey?: string,
) {
  // The one rule for activity dates (shared/date-range.ts); callers refuse earlier with their own words.
  if (activityStartProblem(activity.startDate)) {
    throw new DomainError("invalid", "Activity", "start_date_local", "invalid");
  }
  return (await decide(platform, activity.activityId, { type: "create", activity }, actor, idempotencyKey)).result;
}

/** The fields PUT /v3/activities/:id may change; absent ones stay as they are. */
export interface ActivityChanges {
  name?: string;
  type?: ActivityType;
  sportType?: SportType;
  /** Strava's visibility (everyone, followers_only, only_me). */
  visibility?: Visibility;
  /** The spec's flag: true = only_me; false = not only me (shared/visibility.ts resolveVisibility). */
  private?: boolean;
  hideFromHome?: boolean;
  commute?: boolean;
  trainer?: boolean;
  /** One of the athlete's gear ids, or "none" (any case) to clear it. */
  gearId?: string;
  description?: string | null;
}

/** The gear an update names: null clears it; another athlete's or unknown gear is refused (400). */
async function gearOf(
  platform: Platform,
  athleteId: number,
  gearId: string | undefined,
): Promise<string | null | undefined> {
  if (gearId === undefined) return undefined;
  if (gearId.toLowerCase() === "none") return null;
  const gear = await findGear(platform.db, gearId);
  if (!gear || Number(gear.athlete_id) !== athleteId) throw new DomainError("invalid", "Gear", "id", "invalid");
  return gear.id;
}

/** Updates the owner's activity (the owner is `athleteId`). */
export async function updateActivity(
  platform: Platform,
  activityId: number,
  athleteId: number,
  changes: ActivityChanges,
  actor: Actor,
  idempotencyKey?: string,
): Promise<void> {
  const gearId = await gearOf(platform, athleteId, changes.gearId);
  // What `private: false` turns an only_me activity into: the athlete's default (when not only_me).
  const defaultVisibility = changes.private === false && changes.visibility === undefined
    ? (await athleteDefaults(platform.db, athleteId)).visibility
    : undefined;
  await decide(
    platform,
    activityId,
    {
      type: "update",
      activityId,
      athleteId,
      name: changes.name,
      activityType: changes.type,
      sportType: changes.sportType,
      visibility: changes.visibility,
      private: changes.private,
      defaultVisibility,
      hideFromHome: changes.hideFromHome,
      commute: changes.commute,
      trainer: changes.trainer,
      gearId,
      description: changes.description,
    },
    actor,
    idempotencyKey,
  );
}

/** Deletes the owner's activity. */
export async function deleteActivity(
  platform: Platform,
  activityId: number,
  athleteId: number,
  actor: Actor,
): Promise<void> {
  await decide(platform, activityId, { type: "delete", activityId, athleteId }, actor);
}

/** Kudos from `athleteId` (not on one's own activity, not twice: the decider). */
export async function giveKudos(
  platform: Platform,
  activityId: number,
  athleteId: number,
  actor: Actor,
): Promise<void> {
  await decide(platform, activityId, { type: "kudos", activityId, athleteId }, actor);
}

/**
 * A kudos in one statement when the ordinary way would read first (the activity's owner and
 * visibility not in memory, or its stream's fold not current): the decider decides on what it
 * assumes (events/activity/decide.ts `assume`) and the append checks that and `visible` (who may
 * see the activity, server/activities/access.ts `visibleActivityCondition`) as it runs. False when
 * nothing was written: then the caller checks and gives it the ordinary way (`giveKudos`), which
 * answers every refusal (404, 403, 409) exactly as before.
 */
export async function giveKudosAtOnce(
  platform: Platform,
  activityId: number,
  athleteId: number,
  actor: Actor,
  visible: { known: boolean; condition: (sql: ConditionSql) => string },
): Promise<boolean> {
  const stream = activityStream(activityId);
  if (visible.known && foldIsCurrent(platform.store, stream, activityDecider)) return false;
  const given = await handleAssumed(platform.store, stream, activityDecider, {
    type: "kudos",
    activityId,
    athleteId,
  }, { ...appendOptions(actor), condition: visible.condition });
  return given !== undefined;
}

/** A comment by `athleteId`; returns the new comment's id. */
export async function addComment(
  platform: Platform,
  activityId: number,
  athleteId: number,
  text: string,
  actor: Actor,
): Promise<number> {
  const commentId = await nextId(platform.db, "comment");
  await decide(platform, activityId, { type: "comment", activityId, athleteId, commentId, text }, actor);
  return commentId;
}

/** Deletes a comment, as the activity's owner or the comment's author (the decider). */
export async function deleteComment(
  platform: Platform,
  activityId: number,
  commentId: number,
  athleteId: number,
  actor: Actor,
): Promise<void> {
  await decide(platform, activityId, { type: "deleteComment", activityId, athleteId, commentId }, actor);
}

/**
 * The upload job records the activity derived from its file (once: no events when it was
 * recorded already). Returns the events appended now.
 */
export async function recordActivity(
  platform: Platform,
  activity: Command<"record">["activity"],
  actor: Actor,
  idempotencyKey: string,
): Promise<NewEvent[]> {
  return (await decide(platform, activity.activityId, { type: "record", activity }, actor, idempotencyKey)).events;
}

/**
 * The activity decider's "record" then "process" as one decision: the upload job records the
 * activity together with what its first processor derived before the recording (the segment
 * efforts), so both are one append — one transaction and one WAL sync, and never efforts without
 * their recording nor a recording whose efforts a crash lost in between.
 */
const recordAndProcess: Decider<
  Parameters<typeof activityDecider.evolve>[0],
  { activity: Command<"record">["activity"]; events: readonly NewEvent[] },
  Parameters<typeof activityDecider.evolve>[1]
> = {
  initialState: activityDecider.initialState,
  evolve: activityDecider.evolve,
  decide({ activity, events }, state) {
    const recorded = activityDecider.decide({ type: "record", activity }, state);
    if (recorded.length === 0 || events.length === 0) return recorded;
    const after = recorded.reduce((s, e) => activityDecider.evolve(s, e), state);
    return [
      ...recorded,
      ...activityDecider.decide({ type: "process", activityId: activity.activityId, events }, after),
    ];
  },
};

/**
 * `recordActivity` with the events a processor derived before the recording, appended with it
 * (none when the activity was recorded already). Returns the events recorded now, as stored.
 */
export async function recordProcessedActivity(
  platform: Platform,
  activity: Command<"record">["activity"],
  events: readonly NewEvent[],
  actor: Actor,
  idempotencyKey: string,
): Promise<RecordedEvent[]> {
  const { result } = await handleCommand(
    platform.store,
    activityStream(activity.activityId),
    recordAndProcess,
    { activity, events },
    { ...appendOptions(actor), idempotencyKey },
  );
  return result && !result.duplicate ? result.events : [];
}

/** The upload job appends what an activity processor derived at upload time (server/activity-processors.ts). */
export async function processActivity(
  platform: Platform,
  activityId: number,
  events: readonly NewEvent[],
  actor: Actor,
  idempotencyKey: string,
) {
  return (await decide(platform, activityId, { type: "process", activityId, events }, actor, idempotencyKey)).result;
}

/** `cli reprocess`: the facts and efforts derived again from the stored original (each null when unchanged). */
export async function reprocess(
  platform: Platform,
  activityId: number,
  derived: Pick<Command<"reprocess">, "facts" | "efforts">,
  actor: Actor,
): Promise<void> {
  await decide(
    platform,
    activityId,
    { type: "reprocess", activityId, facts: derived.facts, efforts: derived.efforts },
    actor,
  );
}

/**
 * Crop or split (server/crop/): the facts and efforts derived over the kept window, recorded for the
 * owner (the decider: an uploaded activity, a window inside the one it stands for now).
 */
export async function cropActivity(
  platform: Platform,
  activityId: number,
  crop: Omit<Command<"crop">, "type" | "activityId">,
  actor: Actor,
): Promise<void> {
  await decide(platform, activityId, { type: "crop", activityId, ...crop }, actor);
}

/** Undoes the latest crop or split: the facts and efforts the activity had before it. */
export async function undoCrop(
  platform: Platform,
  activityId: number,
  undo: Omit<Command<"undoCrop">, "type" | "activityId">,
  actor: Actor,
): Promise<void> {
  await decide(platform, activityId, { type: "undoCrop", activityId, ...undo }, actor);
}

/** Records the part after a split as an activity of its own (once per idempotency key). Returns the events appended now. */
export async function recordSplitPart(
  platform: Platform,
  part: Omit<Command<"recordSplit">, "type">,
  actor: Actor,
  idempotencyKey: string,
): Promise<NewEvent[]> {
  return (await decide(platform, part.activity.activityId, { type: "recordSplit", ...part }, actor, idempotencyKey))
    .events;
}
