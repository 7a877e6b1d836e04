import { z } from "zod";
import { ACTIVITY_TYPES, activityTypeOf } from "../../shared/activity-types.ts";
import { GOAL_DIMENSIONS, GOAL_MAX, GOAL_PERIODS } from "../../events/goal/events.ts";
import { goalsWithProgress } from "../../projections/goals/queries.ts";
import { latestActivityTimezone } from "../../projections/activities/queries.ts";
import { requestActor } from "../actor.ts";
import type { Auth } from "../http/auth.ts";
import { notFound } from "../http/errors.ts";
import { zFloat, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import type { Platform } from "../platform.ts";
import { viewerOf, visibilitiesSeen } from "../privacy/engine.ts";
import { deleteGoal, setGoal } from "./commands.ts";
import { currentPeriods, localDate } from "./periods.ts";
import { goalJson } from "./represent.ts";
import { zGoal, zGoalList } from "./schema.ts";

/**
 * Extension: the authenticated athlete's goals — per sport (activity type), week (from Monday),
 * month or year, of distance, moving time or elevation gain — with this period's progress. The
 * periods are local dates in the athlete's time zone (that of their latest activity; UTC without
 * one). Progress counts the activities the token may see (the privacy engine: only_me ones only
 * with view_private).
 */
async function goalsOf(platform: Platform, auth: Auth) {
  const today = localDate(await latestActivityTimezone(platform.db, auth.athleteId), new Date());
  const periods = currentPeriods(today);
  const rows = await goalsWithProgress(
    platform.db,
    auth.athleteId,
    { week: periods.week.key, month: periods.month.key, year: periods.year.key },
    visibilitiesSeen(viewerOf(auth), auth.athleteId, false),
  );
  return rows.map((row) => goalJson(row, periods));
}

export const goalRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athlete/goals",
    response: zGoalList,
    summary:
      "Extension: the authenticated athlete's goals, each with `progress` (in the goal's unit) over the current week, month or year.",
    description:
      "Weeks start on Monday; periods are local dates in the athlete's time zone (that of their latest activity, UTC without one). Progress sums the activities of the goal's type that started in the period and that the token may see (only_me ones need view_private); completed once it reaches the goal.",
    tag: "Athlete",
    auth: "token",
    resource: "Goal",
    handler: ({ platform, auth }) => goalsOf(platform, auth),
  }),
  defineRoute({
    method: "POST",
    path: "/v3/athlete/goals",
    response: zGoal,
    summary:
      "Extension: set a goal — type (an activity type), period (week, month, year), dimension (distance, time, elevation), goal (metres, seconds or metres). 201 with the goal and its progress.",
    description:
      `One goal per type, period and dimension (a second: 409 {Goal, type, already exists}); goal above 0 and at most ${GOAL_MAX.distance} m, ${GOAL_MAX.time} s or ${GOAL_MAX.elevation} m; at most 30 goals.`,
    tag: "Athlete",
    auth: "token",
    permission: "write",
    resource: "Goal",
    status: 201,
    body: z.object({
      type: z.string().transform((v, ctx) => {
        const type = activityTypeOf(v);
        if (!type) {
          ctx.addIssue({ code: "custom", message: "unknown activity type" });
          return z.NEVER;
        }
        return type;
      }).pipe(z.enum(ACTIVITY_TYPES)),
      period: z.enum(GOAL_PERIODS),
      dimension: z.enum(GOAL_DIMENSIONS),
      goal: zFloat.pipe(z.number().positive().max(GOAL_MAX.distance)),
    }),
    async handler({ platform, auth, body, requestId }) {
      const id = await setGoal(platform, {
        athleteId: auth.athleteId,
        type: body.type,
        period: body.period,
        dimension: body.dimension,
        goal: body.goal,
      }, requestActor(auth, requestId));
      const made = (await goalsOf(platform, auth)).find((g) => g.id === id);
      if (!made) throw notFound("Goal");
      return made;
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/athlete/goals/:id",
    summary:
      "Extension: remove one of the authenticated athlete's goals. 204 No Content; 404 for another's or unknown.",
    tag: "Athlete",
    auth: "token",
    permission: "write",
    resource: "Goal",
    params: z.object({ id: zNumId }),
    status: 204,
    async handler({ platform, auth, params, requestId }) {
      await deleteGoal(platform, auth.athleteId, params.id, requestActor(auth, requestId));
      return null;
    },
  }),
];
