import { z } from "zod";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { SPORT_TYPES } from "../../shared/sport-types.ts";
import { defineEvent } from "../catalogue.ts";
import { VISIBILITIES, visibilityOfPrivate } from "../../shared/visibility.ts";

/**
 * What happens to an activity after it exists (stream `activity-<id>`, beside ActivityRecorded /
 * ActivityCreated): edits, deletion, kudos, comments and photos.
 */

export const activityUpdated = defineEvent({
  type: "ActivityUpdated",
  version: 2,
  upcasters: {
    1: ({ private: isPrivate, ...rest }) =>
      isPrivate === undefined ? rest : { ...rest, visibility: visibilityOfPrivate(isPrivate === true) },
  },
  description:
    "The owner edited an activity (PUT /v3/activities/:id); only the fields present changed. gearId null clears the gear. v2: `visibility` (everyone, followers_only, only_me) instead of v1's `private`.",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    name: z.string().optional(),
    type: z.enum(ACTIVITY_TYPES).optional(),
    /** Given whenever type is (and alone when only the sport type changed within its type). */
    sportType: z.enum(SPORT_TYPES).optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    /** Muted: kept out of others' feeds (Strava's hide_from_home). */
    hideFromHome: z.boolean().optional(),
    commute: z.boolean().optional(),
    trainer: z.boolean().optional(),
    gearId: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
  }),
});

export const activityDeleted = defineEvent({
  type: "ActivityDeleted",
  description:
    "The owner deleted an activity. Read models drop it (uploads report 'The created activity has been deleted.', efforts leave leaderboards).",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    uploadId: z.number().int().nullable(),
  }),
});

export const kudosGiven = defineEvent({
  type: "KudosGiven",
  description: "An athlete gave kudos to another athlete's activity.",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
  }),
});

export const commentAdded = defineEvent({
  type: "CommentAdded",
  description: "An athlete commented on an activity (internal applications only).",
  schema: z.object({
    commentId: z.number().int().positive(),
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    text: z.string(),
  }),
});

export const commentDeleted = defineEvent({
  type: "CommentDeleted",
  description: "A comment was deleted by the activity owner or by its author.",
  schema: z.object({
    commentId: z.number().int().positive(),
    activityId: z.number().int().positive(),
    deletedBy: z.number().int().positive(),
  }),
});

/** One stored size of a native photo (the blob holds the image bytes). */
export const photoRendition = z.object({
  size: z.number().int().nonnegative(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  sha256: z.string(),
  contentType: z.string(),
});

export const photoAdded = defineEvent({
  type: "PhotoAdded",
  description: "The owner uploaded a native photo (source 1) to an activity.",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    uniqueId: z.string(),
    caption: z.string(),
    /** When taken (EXIF not read: the upload time unless given). */
    createdAt: z.string(),
    location: z.tuple([z.number(), z.number()]).nullable(),
    renditions: z.array(photoRendition).min(1),
  }),
});

export const photoLinked = defineEvent({
  type: "PhotoLinked",
  description: "An external-source photo (source 2, type ExternalPhoto) was linked to an activity (CLI `photo link`).",
  schema: z.object({
    photoId: z.number().int().positive(),
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    ref: z.string(),
    uid: z.string(),
    caption: z.string(),
    /** Image URL served for every requested size. */
    url: z.string(),
    /** When uploaded to the external source. */
    uploadedAt: z.string(),
    location: z.tuple([z.number(), z.number()]).nullable(),
  }),
});
