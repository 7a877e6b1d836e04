import type {
  ActivityContext,
  ActivityDetailContributor,
  ActivityDetailPart,
  ActivityExtension,
  ActivitySummaryContributor,
} from "../activities/extensions.ts";
import type { ActivityRow } from "../activities/represent.ts";
import { type EffortRow, type SegmentRow, summaryEffort, summarySegment } from "./represent.ts";
import { ACTIVITY_SEGMENTS_PART_SQL, activityFacts, effortsOfActivity } from "../../projections/segments/queries.ts";
import { effortsOthersSee } from "../privacy/engine.ts";
import { effortsWithSegments, viewerPrs, withViewerPr } from "./access.ts";

/**
 * The activity's segment parts, through the Activities extension point: segment_efforts (the
 * important ones — hidden false — unless include_all_efforts), pr_count and achievement_count.
 * Counts are those frozen at upload time; achievement_count also counts best-effort PRs of runs.
 */
function bestEffortAchievements(row: ActivityRow): { prs: number; achievements: number } {
  if (row.type !== "Run") return { prs: 0, achievements: 0 };
  const efforts = (row.facts as { bestEfforts?: { prRank: number | null }[] }).bestEfforts ?? [];
  return {
    prs: efforts.filter((e) => e.prRank === 1).length,
    achievements: efforts.filter((e) => e.prRank !== null).length,
  };
}

function counts(row: ActivityRow, f: { pr_count: number; achievement_count: number } | undefined) {
  const best = bestEffortAchievements(row);
  return {
    pr_count: (f?.pr_count ?? 0) + best.prs,
    achievement_count: (f?.achievement_count ?? 0) + best.achievements,
  };
}

/**
 * Read with the activity row in GET /v3/activities/:id's single statement (server/activities/detail.ts):
 * the frozen counts and the efforts (hidden ones only with include_all_efforts), each with its segment
 * and whether the viewer ($2) starred it. Timestamps arrive as JSON text and are normalised below
 * to what the row-by-row reads return.
 */
interface SegmentsPart {
  facts: { pr_count: number; achievement_count: number } | null;
  efforts: (EffortRow & { segment: SegmentRow | null; starred: boolean })[] | null;
}

const segmentsPart: ActivityDetailPart = {
  key: "segments",
  sql: ACTIVITY_SEGMENTS_PART_SQL,
};

/** A timestamp as JSON text (with or without offset) → the ISO form the row reads return. */
function iso(text: string, local: boolean): string {
  return new Date(local && !/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? `${text}Z` : text).toISOString();
}

function preloaded(context: { preload?: { parts: Record<string, unknown> } }): SegmentsPart | undefined {
  return context.preload?.parts.segments as SegmentsPart | undefined;
}

const segmentsSummary: ActivitySummaryContributor = async (rows, context) => {
  const pre = preloaded(context);
  if (pre && rows.length === 1) return new Map([[rows[0].id, counts(rows[0], pre.facts ?? undefined)]]);
  const byId = await activityFacts(context.db, rows.map((r) => r.id));
  return new Map(rows.map((r) => [r.id, counts(r, byId.get(r.id))]));
};

const segmentsDetail: ActivityDetailContributor = async (row, context) => {
  const pre = preloaded(context);
  if (pre) {
    const efforts = pre.efforts ?? [];
    // The viewer's PR on each segment (athlete_pr_effort, athlete_segment_stats), one read for all of them.
    const prs = context.viewer && efforts.length
      ? await viewerPrs(context.db, context.viewer, [...new Set(efforts.map((e) => Number(e.segment_id)))])
      : undefined;
    return {
      segment_efforts: efforts.map((e) =>
        summaryEffort(
          { ...e, start_date: iso(e.start_date, false), start_date_local: iso(e.start_date_local, true) },
          e.segment ? withViewerPr(summarySegment(e.segment, e.starred), prs) : null,
        )
      ),
      ...counts(row, pre.facts ?? undefined),
    };
  }
  // Efforts starting or ending in the owner's zones only for the owner with view_private (engine).
  const viewer = context.viewer ?? null;
  const rows = await effortsOfActivity(context.db, {
    activityId: row.id,
    includeHidden: Boolean(context.includeAllEfforts),
    visible: (alias, first) => effortsOthersSee(viewer, alias, first),
  });
  const byId = await activityFacts(context.db, [row.id]);
  return {
    segment_efforts: await effortsWithSegments(context.db, rows, context.viewer?.athleteId ?? null, context.viewer),
    ...counts(row, byId.get(row.id)),
  };
};

/**
 * Whether the summary and detail above read only the preload: with it, they read nothing else
 * unless the activity has efforts and a viewer (whose PRs on those segments are a read of their own).
 */
const segmentsPreloadSuffices = (context: ActivityContext): boolean => {
  const pre = preloaded(context);
  return pre !== undefined && !(context.viewer && pre.efforts?.length);
};

/** The activity's segment parts (listed in server/wiring.ts). */
export const segmentsActivityExtension: ActivityExtension = {
  part: segmentsPart,
  detail: segmentsDetail,
  summary: segmentsSummary,
  preloadSuffices: segmentsPreloadSuffices,
};
