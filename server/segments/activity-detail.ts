import {
  type ActivityRow, activityDetailContributors, activitySummaryContributors,
} from "../representations/activity.ts";
import { EFFORT_COLUMNS, type EffortRow, effortsWithSegments } from "../representations/segment.ts";
import type { Queryable } from "../../events/db/types.ts";

/**
 * The activity's segment parts, through the Activities extension point: segment_efforts (the
 * important ones — hidden false — unless include_all_efforts), pr_count and achievement_count.
 * Counts are those frozen at upload time; achievement_count also counts best-effort PRs of runs.
 */
function bestEffortAchievements(row: ActivityRow): { prs: number; achievements: number } {
  if (row.type !== "Run") return { prs: 0, achievements: 0 };
  const efforts = (row.facts as { bestEfforts?: { prRank: number | null }[] }).bestEfforts ?? [];
  return { prs: efforts.filter((e) => e.prRank === 1).length, achievements: efforts.filter((e) => e.prRank !== null).length };
}

async function facts(db: Queryable, ids: number[]) {
  if (ids.length === 0) return new Map<number, { pr_count: number; achievement_count: number }>();
  const rows = await db.query<{ activity_id: number; pr_count: number; achievement_count: number }>(
    "select activity_id, pr_count, achievement_count from segment_activity_facts where activity_id = any($1::bigint[])",
    [ids],
  );
  return new Map(rows.map((r) => [Number(r.activity_id), r]));
}

function counts(row: ActivityRow, f: { pr_count: number; achievement_count: number } | undefined) {
  const best = bestEffortAchievements(row);
  return { pr_count: (f?.pr_count ?? 0) + best.prs, achievement_count: (f?.achievement_count ?? 0) + best.achievements };
}

activitySummaryContributors.push(async (rows, context) => {
  const byId = await facts(context.db, rows.map((r) => r.id));
  return new Map(rows.map((r) => [r.id, counts(r, byId.get(r.id))]));
});

activityDetailContributors.push(async (row, context) => {
  const rows = await context.db.query<EffortRow>(
    `select ${EFFORT_COLUMNS} from segment_efforts e where e.activity_id = $1 ${context.includeAllEfforts ? "" : "and not e.hidden"}
      order by e.ord`,
    [row.id],
  );
  const byId = await facts(context.db, [row.id]);
  return {
    segment_efforts: await effortsWithSegments(context.db, rows, context.viewer?.athleteId ?? null),
    ...counts(row, byId.get(row.id)),
  };
});
