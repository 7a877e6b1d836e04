import { z } from "zod";
import { defineEvent, type EventOf } from "../catalogue.ts";

/** Challenges (created by operators) and their participants. Stream `challenge-<id>`. */

export const CHALLENGE_TYPES = ["CumulativeChallenge", "SegmentChallenge", "SingleActivityChallenge"] as const;
export const CHALLENGE_DIMENSIONS = ["distance", "elevation", "time", "pace"] as const;

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const challengeCreated = defineEvent({
  type: "ChallengeCreated",
  description: "An operator created a challenge (CLI).",
  schema: z.object({
    challengeId: z.number().int().positive(),
    name: z.string().min(1),
    type: z.enum(CHALLENGE_TYPES),
    dimension: z.enum(CHALLENGE_DIMENSIONS),
    /** Meters (distance, elevation), seconds (time) or seconds per kilometre (pace). */
    goal: z.number().int().nonnegative(),
    startDate: date,
    endDate: date,
    activityType: z.string().nullable(),
    segmentId: z.number().int().positive().nullable(),
    externalUrl: z.string().nullable(),
    description: z.string(),
    mobileDescription: z.string(),
    additionalInfo: z.string(),
    rules: z.string(),
    prizes: z.string(),
    teaser: z.string(),
    url: z.string(),
    logoUrl: z.string(),
    color: z.string(),
    socialHashtag: z.string(),
  }),
});

export const challengeJoined = defineEvent({
  type: "ChallengeJoined",
  description: "An athlete joined a challenge (POST /v3/challenges/:id/athletes).",
  schema: z.object({ challengeId: z.number().int().positive(), athleteId: z.number().int().positive() }),
});

export const challengeLeft = defineEvent({
  type: "ChallengeLeft",
  description:
    "An athlete left a challenge (DELETE /v3/challenges/:id/athletes); their progress leaves its leaderboard.",
  schema: z.object({ challengeId: z.number().int().positive(), athleteId: z.number().int().positive() }),
});

export const challengeStream = (challengeId: number) => `challenge-${challengeId}`;

/** The events of a challenge's stream (`challengeStream`, `challengeDecider`). */
export type ChallengeEvent = EventOf<
  | typeof challengeCreated
  | typeof challengeJoined
  | typeof challengeLeft
>;
