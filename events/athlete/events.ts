import { z } from "zod";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { defineEvent, type EventOf } from "../catalogue.ts";
import { VISIBILITIES, visibilityOfPrivate } from "../../shared/visibility.ts";

export const athleteRegistered = defineEvent({
  type: "AthleteRegistered",
  description: "An athlete signed up (web page) or was created by an operator (CLI).",
  schema: z.object({
    athleteId: z.number().int().positive(),
    firstname: z.string(),
    lastname: z.string(),
    email: z.string(),
    /** scrypt hash "scrypt$N$r$p$salt$hash"; never the password itself. */
    passwordHash: z.string(),
    sex: z.enum(["M", "F"]).nullable(),
    premium: z.boolean(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    country: z.string().nullable(),
    birthdate: z.string().nullable(),
    weight: z.number().nullable(),
  }),
});

export const athleteProfileUpdated = defineEvent({
  type: "AthleteProfileUpdated",
  version: 2,
  upcasters: {
    1: ({ defaultPrivate, ...rest }) =>
      defaultPrivate === undefined
        ? rest
        : { ...rest, defaultVisibility: visibilityOfPrivate(defaultPrivate === true) },
  },
  description:
    "Profile fields of an athlete changed (only the fields present changed). v2: `defaultVisibility` instead of v1's `defaultPrivate`.",
  schema: z.object({
    athleteId: z.number().int().positive(),
    firstname: z.string().optional(),
    lastname: z.string().optional(),
    sex: z.enum(["M", "F"]).nullable().optional(),
    premium: z.boolean().optional(),
    city: z.string().nullable().optional(),
    state: z.string().nullable().optional(),
    country: z.string().nullable().optional(),
    birthdate: z.string().nullable().optional(),
    weight: z.number().nullable().optional(),
    ftp: z.number().int().nullable().optional(),
    /** Type given to uploads whose file names no sport and that ask for none. */
    defaultActivityType: z.enum(ACTIVITY_TYPES).optional(),
    /** Who may see new activities unless the request says otherwise (everyone, followers_only, only_me). */
    defaultVisibility: z.enum(VISIBILITIES).optional(),
    /** Units the athlete reads distances in (the API's measurement_preference): metres/km or feet/miles. */
    measurementPreference: z.enum(["feet", "meters"]).optional(),
  }),
});

export const athletePasswordRehashed = defineEvent({
  type: "AthletePasswordRehashed",
  description:
    "An athlete's password hash was replaced by one made with stronger parameters (at a successful sign-in); the password is unchanged.",
  schema: z.object({
    athleteId: z.number().int().positive(),
    /** scrypt hash "scrypt$N$r$p$salt$hash"; never the password itself. */
    passwordHash: z.string(),
  }),
});

export const athletePasswordChanged = defineEvent({
  type: "AthletePasswordChanged",
  description:
    "An athlete changed their password (the current one was given): the new scrypt hash. Every other web session of the athlete ends with it.",
  schema: z.object({
    athleteId: z.number().int().positive(),
    /** scrypt hash "scrypt$N$r$p$salt$hash"; never the password itself. */
    passwordHash: z.string(),
  }),
});

export const athleteErased = defineEvent({
  type: "AthleteErased",
  description:
    "An athlete deleted their account (password confirmed). The one sanctioned rewrite of the log follows it: every event of the athlete's streams and every event naming the athlete in another stream is removed, with the blobs only they named (docs/accounts.md); this event, holding nothing but the id, stays as the record.",
  schema: z.object({ athleteId: z.number().int().positive() }),
});

export const athleteErasureCompleted = defineEvent({
  type: "AthleteErasureCompleted",
  description:
    "The log's rewrite after AthleteErased is done: how many events (in how many streams) and blobs went. An erasure without it is resumed by the erasure job (after a crash).",
  schema: z.object({
    athleteId: z.number().int().positive(),
    events: z.number().int().nonnegative(),
    streams: z.number().int().nonnegative(),
    blobs: z.number().int().nonnegative(),
  }),
});

export const athleteStream = (athleteId: number) => `athlete-${athleteId}`;

/** The events of an athlete's stream (`athleteStream`, `athleteDecider`). */
export type AthleteEvent = EventOf<
  | typeof athleteRegistered
  | typeof athleteProfileUpdated
  | typeof athletePasswordRehashed
  | typeof athletePasswordChanged
  | typeof athleteErased
  | typeof athleteErasureCompleted
>;

export const athleteFollowed = defineEvent({
  type: "AthleteFollowed",
  description: "An athlete started following another athlete.",
  schema: z.object({ athleteId: z.number().int().positive(), targetId: z.number().int().positive() }),
});

export const athleteUnfollowed = defineEvent({
  type: "AthleteUnfollowed",
  description: "An athlete stopped following another athlete.",
  schema: z.object({ athleteId: z.number().int().positive(), targetId: z.number().int().positive() }),
});

export const followStream = (athleteId: number) => `follows-${athleteId}`;

/** The events of an athlete's follows stream (`followStream`, `followDecider`). */
export type FollowEvent = EventOf<
  | typeof athleteFollowed
  | typeof athleteUnfollowed
>;
