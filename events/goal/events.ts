import { z } from "zod";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { defineEvent, type EventOf } from "../catalogue.ts";

/**
 * An athlete's training goals: per sport (the activities' type), period (a week from Monday, a
 * calendar month or year, in local dates) and dimension (distance in metres, moving time in
 * seconds, elevation gain in metres). One stream per athlete (`goals-<athleteId>`).
 */
export const GOAL_PERIODS = ["week", "month", "year"] as const;
export const GOAL_DIMENSIONS = ["distance", "time", "elevation"] as const;
/** The most goals one athlete keeps. */
export const MAX_GOALS = 30;
/** The largest target of each dimension: 100,000 km, 10,000 h, 1,000 km of climbing. */
export const GOAL_MAX: Record<(typeof GOAL_DIMENSIONS)[number], number> = {
  distance: 100_000_000,
  time: 36_000_000,
  elevation: 1_000_000,
};

export const goalSet = defineEvent({
  type: "GoalSet",
  description:
    "An athlete set a goal: a target of distance (m), moving time (s) or elevation gain (m) for one sport (activity type) per week (from Monday), month or year.",
  schema: z.object({
    goalId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    type: z.enum(ACTIVITY_TYPES),
    period: z.enum(GOAL_PERIODS),
    dimension: z.enum(GOAL_DIMENSIONS),
    goal: z.number().positive(),
  }),
});

export const goalDeleted = defineEvent({
  type: "GoalDeleted",
  description: "An athlete removed one of their goals.",
  schema: z.object({ goalId: z.number().int().positive(), athleteId: z.number().int().positive() }),
});

export const goalStream = (athleteId: number) => `goals-${athleteId}`;

/** The events of an athlete's goals stream (`goalStream`, `goalDecider`). */
export type GoalEvent = EventOf<typeof goalSet | typeof goalDeleted>;
