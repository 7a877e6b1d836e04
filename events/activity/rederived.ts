import type { StoredEvent } from "../index.ts";
import { activityReprocessed, type reprocessedFacts } from "./reprocessed.ts";
import { activityCropped, activityCropUndone } from "./cropped.ts";
import type { z } from "zod";

/**
 * The events that derive an activity's measured facts again from its recording, in one list: the
 * read models that keep figures of those facts (records, training volume, the searched activity
 * list, training load, the heatmaps' sources) handle exactly these types, through `rederivationOf`.
 * `cli reprocess` (same start); a crop, a split's first part and their undo (ActivityCropped,
 * ActivityCropUndone: a window of the recording) also move the start: they give `start`, and the
 * read models move the activity's day, year and place in the list with it. A new such event is one more entry here and in `rederivationOf`.
 */
export const REDERIVATION_TYPES = [activityReprocessed.type, activityCropped.type, activityCropUndone.type] as const;

/** What a re-derivation says of its activity: its new measured facts, and its new start if it moved. */
export interface Rederivation {
  activityId: number;
  athleteId: number;
  facts: z.infer<typeof reprocessedFacts>;
  /** The new start (UTC and local, ISO 8601), or null: the start did not move. */
  start: { startDate: string; startDateLocal: string } | null;
}

/** The re-derivation an event carries (null: the event is not one of REDERIVATION_TYPES). */
export function rederivationOf(event: StoredEvent): Rederivation | null {
  switch (event.type) {
    case activityReprocessed.type:
      return {
        activityId: event.data.activityId,
        athleteId: event.data.athleteId,
        facts: event.data.facts,
        start: null,
      };
    case activityCropped.type:
    case activityCropUndone.type: {
      const { activityId, athleteId, facts } = event.data;
      return {
        activityId,
        athleteId,
        facts,
        start: { startDate: facts.startDate, startDateLocal: facts.startDateLocal },
      };
    }
  }
  return null;
}
