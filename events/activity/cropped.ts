import { z } from "zod";
import { defineEvent } from "../catalogue.ts";
import { activityFacts } from "./facts.ts";
import { reprocessedFacts } from "./reprocessed.ts";

/**
 * Crop and split (issue #47 item 5): the owner keeps a window of an uploaded activity's recording,
 * or cuts it in two. Like `cli reprocess`, these re-derive the activity's measured facts from the
 * stored original file — over the kept window — so every read model that follows a re-derivation
 * follows them; unlike it, the start moves with the window, so the facts carry the start too.
 * What the athlete chose (name, type, privacy, gear, …) is not among them.
 */

/** A window of the recording: ISO 8601 instants (UTC, to the second), start before end. */
export const recordingWindow = z.object({ start: z.string(), end: z.string() });

/** The measured facts of an activity over a window of its recording, its start included. */
export const windowFacts = reprocessedFacts.extend(
  activityFacts.pick({ startDate: true, startDateLocal: true, timezone: true }).shape,
);

export const activityCropped = defineEvent({
  type: "ActivityCropped",
  description:
    "The owner cropped an uploaded activity to a window of its recording (POST /v3/activities/:id/crop), or split it there (POST /v3/activities/:id/split: the rest of the window became `splitInto`); its measured facts, start included, were derived again from the original file over the window. `edit` counts the activity's crops and splits (1, 2, …); undone by ActivityCropUndone.",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    edit: z.number().int().positive(),
    window: recordingWindow,
    /** The activity the rest of the window became (a split), else null (a crop). */
    splitInto: z.number().int().positive().nullable(),
    facts: windowFacts,
  }),
});

export const activityCropUndone = defineEvent({
  type: "ActivityCropUndone",
  description:
    "The owner undid the latest crop or split of an activity (DELETE /v3/activities/:id/edits/:edit): its facts and window are those it had before that edit (null: the whole recording), exactly; a split's other activity was deleted.",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    edit: z.number().int().positive(),
    window: recordingWindow.nullable(),
    /** The split-off activity deleted with the split (ActivityDeleted on its stream), else null. */
    splitInto: z.number().int().positive().nullable(),
    facts: windowFacts,
  }),
});

export const activitySplitFrom = defineEvent({
  type: "ActivitySplitFrom",
  description:
    "An activity was recorded from a window of another activity's recording (the part after a split), right after its ActivityRecorded: it derives from the same original file over `window` only.",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    fromActivityId: z.number().int().positive(),
    window: recordingWindow,
  }),
});

export type RecordingWindow = z.infer<typeof recordingWindow>;
export type WindowFacts = z.infer<typeof windowFacts>;

/** The event types that re-derive an activity's measured facts with its start (projections list them). */
export const WINDOW_FACT_TYPES = [activityCropped.type, activityCropUndone.type] as const;
