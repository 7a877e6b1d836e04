import { type Decider, DomainError } from "../decider.ts";
import type { EventData } from "../catalogue.ts";
import { catalogued, isOneOf } from "../index.ts";
import type { NewEvent } from "../catalogue.ts";
import { segmentEffortsRematched } from "../segment/events.ts";
import { activityReprocessed } from "./reprocessed.ts";
import {
  activityCropped,
  activityCropUndone,
  activitySplitFrom,
  type RecordingWindow,
  type WindowFacts,
} from "./cropped.ts";
import { activityCreated, type ActivityEvent, activityRecorded } from "./events.ts";
import { activityTypeOfSport, resolveSport, type SportType } from "../../shared/sport-types.ts";
import { resolveVisibility, type Visibility } from "../../shared/visibility.ts";
import {
  activityDeleted,
  activityUpdated,
  commentAdded,
  commentDeleted,
  kudosGiven,
  photoAdded,
  photoLinked,
} from "./changes.ts";

/** What the rules of one activity stream need to know. */
export interface ActivityState {
  exists: boolean;
  deleted: boolean;
  athleteId: number | null;
  uploadId: number | null;
  kudoers: Set<number>;
  /** comment id → author. */
  comments: Map<number, number>;
  /** Its sport type (type and sport_type are kept consistent on update). */
  sportType?: SportType;
  /** Who may see it. */
  visibility?: Visibility;
  /** An uploaded activity's recording as first derived: its start and end (ms since the epoch). */
  recording?: { start: number; end: number };
  /** The window of the original file it stands for now (a crop, a split, a split-off part); absent: the whole file. */
  window?: RecordingWindow | null;
  /** The crops and splits in effect, oldest first, each with the window it replaced (undone newest first). */
  edits?: readonly CropEdit[];
  /** The highest edit number recorded (undone ones included): the next crop or split is one more. */
  lastEdit?: number;
}

/** A crop or split in effect. */
export interface CropEdit {
  edit: number;
  splitInto: number | null;
  /** The window before it (null: the whole recording). */
  before: RecordingWindow | null;
}

type UpdateFields = Omit<
  Extract<ActivityCommand, { type: "update" }>,
  "type" | "athleteId" | "activityId" | "private" | "defaultVisibility"
>;

export type ActivityCommand =
  | {
    type: "update";
    activityId: number;
    athleteId: number;
    name?: string;
    activityType?: import("../../shared/activity-types.ts").ActivityType;
    sportType?: SportType;
    /** Strava's visibility; with `private` beside it, the two must agree. */
    visibility?: Visibility;
    /** The spec's flag: true = only_me; false = not only_me (shared/visibility.ts resolveVisibility). */
    private?: boolean;
    /** The athlete's default visibility (what `private: false` turns an only_me activity into). */
    defaultVisibility?: Visibility;
    hideFromHome?: boolean;
    commute?: boolean;
    trainer?: boolean;
    gearId?: string | null;
    description?: string | null;
  }
  | { type: "delete"; activityId: number; athleteId: number }
  | { type: "kudos"; activityId: number; athleteId: number }
  | { type: "comment"; activityId: number; athleteId: number; commentId: number; text: string }
  | { type: "deleteComment"; activityId: number; athleteId: number; commentId: number }
  | {
    type: "addPhoto";
    activityId: number;
    athleteId: number;
    photo: Omit<ReturnType<typeof photoAdded.create>["data"], "activityId" | "athleteId">;
  }
  | {
    type: "linkPhoto";
    activityId: number;
    athleteId: number;
    photo: Omit<ReturnType<typeof photoLinked.create>["data"], "activityId" | "athleteId">;
  }
  | { type: "create"; activity: EventData<typeof activityCreated> }
  /** The upload job records the activity derived from its file (once: nothing when already recorded). */
  | { type: "record"; activity: EventData<typeof activityRecorded> }
  /** The upload job appends what a registered processor derived at upload time (segment efforts, …). */
  | { type: "process"; activityId: number; events: readonly NewEvent[] }
  /** `cli reprocess`: facts and efforts derived again from the stored original (each null when unchanged). */
  | {
    type: "reprocess";
    activityId: number;
    facts: EventData<typeof activityReprocessed>["facts"] | null;
    efforts: EventData<typeof segmentEffortsRematched> | null;
  }
  /** A segment was cut from this activity: its efforts, with those over the new segment added. */
  | { type: "matchSegment"; activityId: number; efforts: EventData<typeof segmentEffortsRematched> }
  /**
   * The owner crops the activity to `window` (or splits it there: the rest becomes `splitInto`):
   * the facts and efforts derived from the original file over the window (efforts null: unchanged).
   */
  | {
    type: "crop";
    activityId: number;
    athleteId: number;
    window: RecordingWindow;
    splitInto: number | null;
    facts: WindowFacts;
    efforts: EventData<typeof segmentEffortsRematched> | null;
  }
  /** The owner undoes crop or split `edit` (the latest): the facts and efforts it had before (efforts null: unchanged). */
  | {
    type: "undoCrop";
    activityId: number;
    athleteId: number;
    edit: number;
    facts: WindowFacts;
    efforts: EventData<typeof segmentEffortsRematched> | null;
  }
  /** The part after a split becomes an activity of its own (once: nothing when it exists), with the original's gear and muting. */
  | {
    type: "recordSplit";
    activity: EventData<typeof activityRecorded>;
    fromActivityId: number;
    window: RecordingWindow;
    gearId: string | null;
    hideFromHome?: boolean;
  };

/** Every type of an activity's stream (checked against `ActivityEvent` both ways). */
const ACTIVITY_EVENT_TYPES = Object.keys(
  {
    ActivityRecorded: true,
    ActivityCreated: true,
    ActivityUpdated: true,
    ActivityDeleted: true,
    KudosGiven: true,
    CommentAdded: true,
    CommentDeleted: true,
    PhotoAdded: true,
    PhotoLinked: true,
    ActivityReprocessed: true,
    ActivityCropped: true,
    ActivityCropUndone: true,
    ActivitySplitFrom: true,
    SegmentEffortsMatched: true,
    SegmentEffortsRematched: true,
  } satisfies Record<ActivityEvent["type"], true>,
) as ActivityEvent["type"][];

/** A processor's event (server/activity-processors.ts) as an event of the activity's stream. */
function processed(event: NewEvent): ActivityEvent {
  const known = catalogued(event);
  if (!isOneOf(known, ACTIVITY_EVENT_TYPES)) throw new Error(`${event.type} is not an event of an activity's stream`);
  return known;
}

function notFound(): never {
  throw new DomainError("not_found", "Activity", "id", "invalid", "no such activity");
}

/**
 * Rules of one activity: created once (a manual activity) or recorded once (by the upload job, followed
 * by its processors' events); derived again only while it exists and came from an upload; only the owner edits, deletes or adds photos; kudos not on one's own
 * activity and not twice; comments are deleted by the activity owner or the commenter.
 */
export const activityDecider: Decider<ActivityState, ActivityCommand, ActivityEvent> = {
  initialState: () => ({
    exists: false,
    deleted: false,
    athleteId: null,
    uploadId: null,
    kudoers: new Set(),
    comments: new Map(),
  }),
  evolve(state, event: ActivityEvent) {
    switch (event.type) {
      case activityRecorded.type: {
        const start = Date.parse(event.data.startDate);
        return {
          ...state,
          exists: true,
          athleteId: event.data.athleteId,
          uploadId: event.data.uploadId ?? null,
          sportType: (event.data.sportType ?? event.data.type) as SportType,
          visibility: event.data.visibility,
          recording: { start, end: start + event.data.elapsedTime * 1000 },
        };
      }
      case activityCropped.type: {
        const d = event.data;
        const edit: CropEdit = { edit: d.edit, splitInto: d.splitInto, before: state.window ?? null };
        return {
          ...state,
          window: d.window,
          edits: [...(state.edits ?? []), edit],
          lastEdit: Math.max(state.lastEdit ?? 0, d.edit),
        };
      }
      case activityCropUndone.type: {
        const d = event.data;
        return { ...state, window: d.window, edits: (state.edits ?? []).filter((e) => e.edit !== d.edit) };
      }
      case activitySplitFrom.type:
        return { ...state, window: event.data.window };
      case activityCreated.type:
        return {
          ...state,
          exists: true,
          athleteId: event.data.athleteId,
          uploadId: null,
          sportType: (event.data.sportType ?? event.data.type) as SportType,
          visibility: event.data.visibility,
        };
      case activityUpdated.type: {
        const sport = event.data.sportType ?? event.data.type;
        const next = sport ? { ...state, sportType: sport as SportType } : state;
        return event.data.visibility ? { ...next, visibility: event.data.visibility } : next;
      }
      case activityDeleted.type:
        return { ...state, deleted: true };
      case kudosGiven.type:
        return { ...state, kudoers: new Set([...state.kudoers, event.data.athleteId]) };
      case commentAdded.type: {
        const comments = new Map(state.comments);
        comments.set(event.data.commentId, event.data.athleteId);
        return { ...state, comments };
      }
      case commentDeleted.type: {
        const comments = new Map(state.comments);
        comments.delete(event.data.commentId);
        return { ...state, comments };
      }
      default:
        return state;
    }
  },
  /**
   * A kudos is decided without reading the stream (server/activities/commands.ts `giveKudosAtOnce`): on an
   * activity that exists, is not deleted, is another athlete's and has no kudos from the giver yet —
   * the condition checks exactly that on the stream's events in the append's own statement (else
   * the command is decided again on the stream as read, and refused as before).
   */
  assume(command) {
    if (command.type !== "kudos") return undefined;
    return {
      state: { ...activityDecider.initialState(), exists: true },
      holds(sql) {
        const giver = `${sql.param(command.athleteId)}::bigint`;
        const type = (t: string) => `e.type = '${t}'`;
        const by = `(e.data->>'athleteId')::bigint`;
        // One scan of the stream's events (events_stream_version) with no condition on the type:
        // two probes filtered by type were planned as bitmaps of the stream's index and of
        // events_type, which reads every KudosGiven of the whole log, a cost growing with the log.
        return `coalesce((select bool_or(case when ${type(activityCreated.type)} or ${type(activityRecorded.type)}
                                              then ${by} <> ${giver} else false end)
                             and not bool_or(case when ${type(activityDeleted.type)} then true
                                                  when ${type(kudosGiven.type)} then ${by} = ${giver}
                                                  else false end)
                            from events e where e.stream_id = ${sql.stream}), false)`;
      },
    };
  },
  decide(command, state) {
    if (command.type === "create") {
      if (state.exists) throw new DomainError("conflict", "Activity", "id", "already exists");
      return [activityCreated.create(command.activity)];
    }
    if (command.type === "record") return state.exists ? [] : [activityRecorded.create(command.activity)];
    if (command.type === "process") {
      // Upload-time facts: recorded even when the athlete deleted the activity meanwhile (replay keeps them).
      if (!state.exists) notFound();
      return command.events.map(processed);
    }
    if (command.type === "reprocess") {
      if (!state.exists || state.deleted) notFound();
      if (state.uploadId === null || state.athleteId === null) {
        throw new DomainError(
          "invalid",
          "Activity",
          "id",
          "not uploaded",
          "only an uploaded activity is derived again",
        );
      }
      const events: ActivityEvent[] = [];
      if (command.facts) {
        events.push(
          activityReprocessed.create({
            activityId: command.activityId,
            athleteId: state.athleteId,
            facts: command.facts,
          }),
        );
      }
      if (command.efforts) events.push(segmentEffortsRematched.create(command.efforts));
      return events;
    }
    if (command.type === "matchSegment") {
      if (!state.exists || state.deleted) notFound();
      return [segmentEffortsRematched.create(command.efforts)];
    }
    if (command.type === "recordSplit") return recordSplit(command, state);
    if (command.type === "crop") return crop(command, state);
    if (command.type === "undoCrop") return undoCrop(command, state);
    if (!state.exists || state.deleted) notFound();
    const owner = state.athleteId === command.athleteId;
    switch (command.type) {
      case "update": {
        if (!owner) notFound();
        const {
          type: _t,
          activityType,
          sportType: askedSport,
          activityId,
          athleteId,
          visibility: askedVisibility,
          private: askedPrivate,
          defaultVisibility,
          ...rest
        } = command;
        let visibility: Visibility | undefined;
        if (askedVisibility !== undefined || askedPrivate !== undefined) {
          const current = state.visibility ?? "everyone";
          const resolved = resolveVisibility(
            { visibility: askedVisibility, private: askedPrivate },
            current,
            defaultVisibility ?? "everyone",
          );
          if (resolved === "conflict") {
            throw new DomainError("invalid", "Activity", "private", "invalid", "private does not match visibility");
          }
          // Unchanged: not recorded (an edit form sends every field).
          if (resolved !== current) visibility = resolved;
        }
        // sport_type wins and gives type; a type alone keeps a sport type of that type (MountainBikeRide
        // stays when type Ride is sent again), else becomes its own sport type.
        const sport = resolveSport(activityType, askedSport);
        if (sport === null) {
          throw new DomainError("invalid", "Activity", "sport_type", "invalid", "sport_type does not match type");
        }
        const keep = askedSport === undefined && sport && state.sportType &&
          activityTypeOfSport(state.sportType) === sport.type;
        const fields: UpdateFields & { type?: typeof activityType } = {
          ...rest,
          visibility,
          ...(sport ? { type: sport.type, sportType: keep ? state.sportType : sport.sportType } : {}),
        };
        const data = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
        return [activityUpdated.create({ activityId, athleteId, ...data })];
      }
      case "delete":
        if (!owner) notFound();
        return [
          activityDeleted.create({
            activityId: command.activityId,
            athleteId: command.athleteId,
            uploadId: state.uploadId,
          }),
        ];
      case "kudos":
        if (owner) {
          throw new DomainError("forbidden", "Kudos", "athlete", "own activity", "no kudos on one's own activity");
        }
        if (state.kudoers.has(command.athleteId)) {
          throw new DomainError("conflict", "Kudos", "athlete", "already exists", "kudos already given");
        }
        return [kudosGiven.create({ activityId: command.activityId, athleteId: command.athleteId })];
      case "comment":
        return [
          commentAdded.create({
            commentId: command.commentId,
            activityId: command.activityId,
            athleteId: command.athleteId,
            text: command.text,
          }),
        ];
      case "deleteComment": {
        const author = state.comments.get(command.commentId);
        if (author === undefined) throw new DomainError("not_found", "Comment", "id", "invalid", "no such comment");
        if (!owner && author !== command.athleteId) {
          throw new DomainError(
            "forbidden",
            "Comment",
            "id",
            "forbidden",
            "only the activity owner or the commenter may delete",
          );
        }
        return [
          commentDeleted.create({
            commentId: command.commentId,
            activityId: command.activityId,
            deletedBy: command.athleteId,
          }),
        ];
      }
      case "addPhoto":
        if (!owner) notFound();
        return [photoAdded.create({ ...command.photo, activityId: command.activityId, athleteId: command.athleteId })];
      case "linkPhoto":
        if (!owner) notFound();
        return [photoLinked.create({ ...command.photo, activityId: command.activityId, athleteId: command.athleteId })];
    }
  },
};

/** Within a second: windows are to the second, the recording's own start and end to the millisecond. */
const SLACK_MS = 1000;

/** The window the activity stands for now, in ms since the epoch. */
function currentWindow(state: ActivityState): { start: number; end: number } | null {
  if (state.window) return { start: Date.parse(state.window.start), end: Date.parse(state.window.end) };
  return state.recording ?? null;
}

/** Crop and split: the owner's uploaded activity, to a window strictly inside the one it stands for now. */
function crop(command: Extract<ActivityCommand, { type: "crop" }>, state: ActivityState): ActivityEvent[] {
  if (!state.exists || state.deleted || state.athleteId !== command.athleteId) notFound();
  if (state.uploadId === null) {
    throw new DomainError("invalid", "Activity", "id", "not uploaded", "only an uploaded activity is cropped or split");
  }
  const now = currentWindow(state);
  const start = Date.parse(command.window.start), end = Date.parse(command.window.end);
  if (!now || !(start < end) || start < now.start - SLACK_MS || end > now.end + SLACK_MS) {
    throw new DomainError("invalid", "Activity", "window", "outside the recording", "the window must lie inside it");
  }
  if (start - now.start < SLACK_MS && now.end - end < SLACK_MS) {
    throw new DomainError("invalid", "Activity", "window", "keeps everything", "the window keeps the whole activity");
  }
  const events: ActivityEvent[] = [
    activityCropped.create({
      activityId: command.activityId,
      athleteId: state.athleteId,
      edit: (state.lastEdit ?? 0) + 1,
      window: command.window,
      splitInto: command.splitInto,
      facts: command.facts,
    }),
  ];
  if (command.efforts) events.push(segmentEffortsRematched.create(command.efforts));
  return events;
}

/** Undo: only the latest crop or split in effect, by the owner. */
function undoCrop(command: Extract<ActivityCommand, { type: "undoCrop" }>, state: ActivityState): ActivityEvent[] {
  if (!state.exists || state.deleted || state.athleteId !== command.athleteId) notFound();
  const edits = state.edits ?? [];
  const edit = edits.find((e) => e.edit === command.edit);
  if (!edit) throw new DomainError("not_found", "Edit", "edit", "invalid", "no such crop or split in effect");
  if (edits[edits.length - 1] !== edit) {
    throw new DomainError("conflict", "Edit", "edit", "not the latest", "undo the later crop or split first");
  }
  const events: ActivityEvent[] = [
    activityCropUndone.create({
      activityId: command.activityId,
      athleteId: state.athleteId,
      edit: edit.edit,
      window: edit.before,
      splitInto: edit.splitInto,
      facts: command.facts,
    }),
  ];
  if (command.efforts) events.push(segmentEffortsRematched.create(command.efforts));
  return events;
}

/** The part after a split, recorded once. */
function recordSplit(
  command: Extract<ActivityCommand, { type: "recordSplit" }>,
  state: ActivityState,
): ActivityEvent[] {
  if (state.exists) return [];
  const { activityId, athleteId } = command.activity;
  const events: ActivityEvent[] = [
    activityRecorded.create(command.activity),
    activitySplitFrom.create({ activityId, athleteId, fromActivityId: command.fromActivityId, window: command.window }),
  ];
  const chosen = {
    ...(command.gearId === null ? {} : { gearId: command.gearId }),
    ...(command.hideFromHome ? { hideFromHome: true } : {}),
  };
  if (Object.keys(chosen).length) events.push(activityUpdated.create({ activityId, athleteId, ...chosen }));
  return events;
}
