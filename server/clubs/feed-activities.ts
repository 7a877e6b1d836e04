import type { ActivityContext } from "../activities/extensions.ts";
import { type ActivityRow, summaryActivities } from "../activities/read.ts";
import { activitiesByIds } from "../../projections/activities/queries.ts";
import { athleteFor } from "../athletes/represent.ts";
import { findAthletes } from "../../projections/athletes/queries.ts";

/**
 * Feed activities (read, then represented: so not a represent.ts): the Activities family's summary
 * representation (resource_state 2, the detail-only attributes absent, the same privacy rules) for
 * the given ids in the given order, plus `guid` ("activity-<id>"); `athlete` as the real service shows it in club feeds:
 * `{resource_state: 2, firstname, lastname: "<initial>."}`, no id (see athleteFor). The web app's
 * following feed (server/feeds/routes.ts) builds on it.
 */
export async function feedActivities(
  ids: readonly number[],
  context: ActivityContext & { viewer: { athleteId: number } },
) {
  if (ids.length === 0) return [];
  const byId = new Map((await activitiesByIds(context.db, ids)).map((r) => [Number(r.id), r]));
  const rows = ids.map((id) => byId.get(id)).filter((r): r is ActivityRow => r !== undefined);
  const summaries = await summaryActivities(rows, context);
  const owners = [...new Set(rows.map((r) => r.athlete_id))];
  const athletes = await findAthletes(context.db, owners);
  return summaries.map((summary, i) => {
    const owner = athletes.get(rows[i].athlete_id);
    return {
      ...summary,
      athlete: owner
        ? athleteFor(owner, context.viewer, { form: "club-feed" })
        : { resource_state: 2, firstname: "", lastname: "" },
      guid: `activity-${rows[i].id}`,
    };
  });
}

/**
 * Club feed activities as Strava's model has them (ClubActivity): the reduced object — name,
 * distance, moving_time, elapsed_time, total_elevation_gain, type, sport_type, workout_type, with
 * resource_state 2 and the athlete as first name and last initial —, taken from feedActivities (the
 * same privacy rules); no id, dates, places or map.
 */
export async function clubActivities(
  ids: readonly number[],
  context: ActivityContext & { viewer: { athleteId: number } },
) {
  return (await feedActivities(ids, context)).map((a) => {
    const summary = a as Record<string, unknown>;
    return {
      resource_state: 2,
      athlete: a.athlete,
      name: summary.name,
      distance: summary.distance,
      moving_time: summary.moving_time,
      elapsed_time: summary.elapsed_time,
      total_elevation_gain: summary.total_elevation_gain,
      type: summary.type,
      sport_type: summary.sport_type,
      workout_type: summary.workout_type,
    };
  });
}
