import type { z } from "zod";
import type { GoalRow } from "../../projections/goals/queries.ts";
import type { CurrentPeriods } from "./periods.ts";
import type { zGoal } from "./schema.ts";

const tenth = (x: number) => Math.round(x * 10) / 10;

/** A goal and its current period's progress in the goal's unit (metres, seconds, metres). */
export function goalJson(row: GoalRow, periods: CurrentPeriods): z.input<typeof zGoal> {
  const progress = row.dimension === "distance"
    ? tenth(Number(row.distance))
    : row.dimension === "time"
    ? Number(row.moving_time)
    : tenth(Number(row.elevation_gain));
  const period = periods[row.period];
  return {
    id: row.id,
    resource_state: 2,
    type: row.type as z.input<typeof zGoal>["type"],
    period: row.period,
    dimension: row.dimension,
    goal: row.goal,
    progress,
    completed: progress >= row.goal,
    activity_count: Number(row.count),
    period_start: period.start,
    period_end: period.end,
  };
}
