import { relationships } from "../../projections/follows/projection.ts";
import { ACTIVITY_SELECT, type ActivityContext, type ActivityRow, normalizeActivityRow, summaryActivities } from "./activity.ts";
import { findAthletes, summaryAthlete } from "./athlete.ts";

/**
 * Club feed activities: the Activities family's summary representation (resource_state 2, the
 * detail-only attributes absent, the same privacy rules) for the given ids in the given order,
 * plus `guid` ("activity-<id>"); `athlete` is a summary athlete with friend/follower, as the spec's
 * Athlete table says for club activities.
 */
export async function clubActivities(ids: readonly number[], context: ActivityContext & { viewer: { athleteId: number } }) {
  if (ids.length === 0) return [];
  const raw = await context.db.query<ActivityRow>(`${ACTIVITY_SELECT} where a.id = any($1::bigint[])`, [[...ids]]);
  const byId = new Map(raw.map((r) => [Number(r.id), normalizeActivityRow(r)]));
  const rows = ids.map((id) => byId.get(id)).filter((r): r is ActivityRow => r !== undefined);
  const summaries = await summaryActivities(rows, context);
  const owners = [...new Set(rows.map((r) => r.athlete_id))];
  const athletes = await findAthletes(context.db, owners);
  const rel = await relationships(context.db, context.viewer.athleteId, owners);
  return summaries.map((summary, i) => {
    const owner = athletes.get(rows[i].athlete_id);
    return {
      ...summary,
      athlete: owner ? summaryAthlete(owner, rel.get(rows[i].athlete_id)) : summary.athlete,
      guid: `activity-${rows[i].id}`,
    };
  });
}
