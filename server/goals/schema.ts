import { z } from "zod";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { GOAL_DIMENSIONS, GOAL_PERIODS } from "../../events/goal/events.ts";
import { date, int, model, num } from "../http/schema.ts";

/** A goal with its progress (an extension: Strava's goals are not in its public API). */
export const zGoal = model(
  "Goal",
  z.object({
    id: int,
    resource_state: int,
    type: z.enum(ACTIVITY_TYPES).meta({ description: "The sport: activities of this type count." }),
    period: z.enum(GOAL_PERIODS).meta({ description: "week (from Monday), month or year, in local dates." }),
    dimension: z.enum(GOAL_DIMENSIONS).meta({
      description: "distance (metres), time (moving time, seconds) or elevation (gain, metres).",
    }),
    goal: num.meta({ description: "The target, in the dimension's unit." }),
    progress: num.meta({ description: "This period's total so far, in the goal's unit." }),
    completed: z.boolean(),
    activity_count: int,
    period_start: date,
    period_end: date,
  }),
  "Extension: a weekly, monthly or yearly target of distance, moving time or elevation gain for one sport, with this period's progress (the athlete's time zone: that of their latest activity).",
  {
    id: 3,
    resource_state: 2,
    type: "Run",
    period: "week",
    dimension: "distance",
    goal: 20000,
    progress: 12345.6,
    completed: false,
    activity_count: 3,
    period_start: "2026-03-02",
    period_end: "2026-03-08",
  },
);

export const zGoalList = z.array(zGoal);
