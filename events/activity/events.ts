import { z } from "zod";
import { activityFacts, activityType, sportType } from "./facts.ts";
import { defineEvent, type EventOf, type Upcaster } from "../catalogue.ts";
import { VISIBILITIES, visibilityOfPrivate } from "../../shared/visibility.ts";
import type { segmentEffortsMatched, segmentEffortsRematched } from "../segment/events.ts";
import type {
  activityDeleted,
  activityUpdated,
  commentAdded,
  commentDeleted,
  kudosGiven,
  photoAdded,
  photoLinked,
} from "./changes.ts";
import type { activityReprocessed } from "./reprocessed.ts";
import type { activityCropped, activityCropUndone, activitySplitFrom } from "./cropped.ts";

/**
 * The seam between uploads (which derive facts from device files) and activities (which serve
 * them). Facts derived once are recorded here and never recomputed on replay.
 */

export { activityFacts, bestEffortFacts, lapFacts, splitFacts } from "./facts.ts";

/**
 * v1 → v2 of the events that carried the spec's `private` flag: `visibility` takes its place
 * (true = only_me, false = everyone), so followers-only can be recorded (issue #47).
 */
export const privateToVisibility: Upcaster = ({ private: isPrivate, ...rest }) =>
  isPrivate === undefined ? rest : { ...rest, visibility: visibilityOfPrivate(isPrivate === true) };

export const activityRecorded = defineEvent({
  type: "ActivityRecorded",
  version: 2,
  upcasters: { 1: privateToVisibility },
  description:
    "An upload was processed into an activity; every derived fact is recorded here. v2: `visibility` (everyone, followers_only, only_me) instead of v1's `private`.",
  schema: z.object({ activityId: z.number().int().positive(), athleteId: z.number().int().positive() })
    .extend(activityFacts.shape),
});

export const activityCreated = defineEvent({
  type: "ActivityCreated",
  version: 2,
  upcasters: { 1: privateToVisibility },
  description:
    "An athlete created a manual activity (POST /v3/activities). v2: `visibility` instead of v1's `private`.",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    name: z.string(),
    type: activityType,
    sportType,
    startDate: z.string(),
    startDateLocal: z.string(),
    timezone: z.string(),
    elapsedTime: z.number().int(),
    distance: z.number(),
    description: z.string().nullable(),
    visibility: z.enum(VISIBILITIES),
    trainer: z.boolean(),
    commute: z.boolean(),
  }),
});

export const activityStream = (activityId: number) => `activity-${activityId}`;

/**
 * The events of an activity's stream (`activityStream`, `activityDecider`): its recording or
 * creation, the changes to it, and what was derived from it (facts again, segment efforts).
 */
export type ActivityEvent = EventOf<
  | typeof activityRecorded
  | typeof activityCreated
  | typeof activityUpdated
  | typeof activityDeleted
  | typeof kudosGiven
  | typeof commentAdded
  | typeof commentDeleted
  | typeof photoAdded
  | typeof photoLinked
  | typeof activityReprocessed
  | typeof activityCropped
  | typeof activityCropUndone
  | typeof activitySplitFrom
  | typeof segmentEffortsMatched
  | typeof segmentEffortsRematched
>;
