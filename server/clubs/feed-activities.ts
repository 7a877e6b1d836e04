import type { ActivityContext } from "../activities/extensions.ts";
import { type ActivityRow, summaryActivities } from "../activities/read.ts";
import { activitiesByIds } from "../../projections/activities/queries.ts";
import { athleteFor } from "../athletes/represent.ts";
import { findAthletes } from "../../projections/athletes/queries.ts";
import { relationships } from "../../projections/follows/projection.ts";

/**
 * Feed activities (read, then represented: so not a represent.ts): the Activities family's summary
 * representation (resource_state 2, the detail-only attributes absent, the same privacy rules) for
 * the given ids in the given order, plus `guid` ("activity-<id>"). `athletes`: "summary", each
 * owner as the spec's summary athlete with friend/follower (the spec's club activities; the web
 * app's following feed, server/feeds/routes.ts); "club-feed", as the real service shows them in
 * club feeds: `{resource_state: 2, firstname, lastname: "<initial>."}`, no id (see athleteFor).
 */
export async function feedActivities(
  ids: readonly number[],
  context: ActivityContext & { viewer: { athleteId: number } },
  athletes: "summary" | "club-feed",
) {
  if (ids.length === 0) return [];
  const byId = new Map((await activitiesByIds(context.db, ids)).map((r) => [Number(r.id), r]));
  const rows = ids.map((id) => byId.get(id)).filter((r): r is ActivityRow => r !== undefined);
  const owners = [...new Set(rows.map((r) => r.athlete_id))];
  const [summaries, found, related] = await Promise.all([
    summaryActivities(rows, context),
    findAthletes(context.db, owners),
    athletes === "summary" ? relationships(context.db, context.viewer.athleteId, owners) : undefined,
  ]);
  return summaries.map((summary, i) => {
    const ownerId = rows[i].athlete_id;
    const owner = found.get(ownerId);
    const athlete = athletes === "summary"
      ? owner
        ? athleteFor(owner, context.viewer, { form: "summary", relationship: related?.get(ownerId) })
        : { id: ownerId, resource_state: 1 }
      : owner
      ? athleteFor(owner, context.viewer, { form: "club-feed" })
      : { resource_state: 2, firstname: "", lastname: "" };
    return { ...summary, athlete, guid: `activity-${rows[i].id}` };
  });
}

/**
 * A club's activities in the request's dialect. The spec's (/v3): summary activities with `guid`,
 * each athlete a summary athlete (members see each other in the member list already). Strava's
 * (/api/v3): its ClubActivity, the reduced object — name, distance, moving_time, elapsed_time,
 * total_elevation_gain, type, sport_type, workout_type, with resource_state 2 and the athlete as
 * first name and last initial —, from the same summaries (the same privacy rules); no id, dates,
 * places or map.
 */
export async function clubActivities(
  ids: readonly number[],
  context: ActivityContext & { viewer: { athleteId: number } },
) {
  if (context.dialect === "spec") return await feedActivities(ids, context, "summary");
  return (await feedActivities(ids, context, "club-feed")).map((a) => {
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
