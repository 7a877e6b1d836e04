import type { Queryable } from "../../events/db/types.ts";
import type { Visibility } from "../../shared/visibility.ts";

/** A goal with its progress over one period (the goals read model, projection.ts). */
export interface GoalRow {
  id: number;
  type: string;
  period: "week" | "month" | "year";
  dimension: "distance" | "time" | "elevation";
  goal: number;
  created_at: string;
  /** The period's sums over the activities of the visibilities asked for. */
  count: number;
  distance: number;
  moving_time: number;
  elevation_gain: number;
}

/**
 * An athlete's goals, oldest first, each with the sums of its sport's activities in its current
 * period (`periods`: the keys of the week, month and year that hold "today", `w…`, `m…`, `y…`),
 * counting the activities of the given visibilities: one indexed row per goal and visibility.
 */
export async function goalsWithProgress(
  db: Queryable,
  athleteId: number,
  periods: { week: string; month: string; year: string },
  visibilities: readonly Visibility[],
): Promise<GoalRow[]> {
  const rows = await db.query<GoalRow>(
    `select g.id, g.type, g.period, g.dimension, g.goal, g.created_at,
            coalesce(sum(t.count), 0)::int as count, coalesce(sum(t.distance), 0)::float8 as distance,
            coalesce(sum(t.moving_time), 0)::int as moving_time, coalesce(sum(t.elevation_gain), 0)::float8 as elevation_gain
       from goals g
       left join goal_totals t on t.athlete_id = g.athlete_id and t.type = g.type
        and t.period = case g.period when 'week' then $2 when 'month' then $3 else $4 end
        and t.visibility = any($5::text[])
      where g.athlete_id = $1
      group by g.id
      order by g.id`,
    [athleteId, periods.week, periods.month, periods.year, visibilities],
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), goal: Number(r.goal) }));
}

/** Whether the athlete has this goal (for deletions). */
export async function goalOf(db: Queryable, athleteId: number, goalId: number): Promise<boolean> {
  const [row] = await db.query("select 1 from goals where id = $1 and athlete_id = $2", [goalId, athleteId]);
  return row !== undefined;
}
