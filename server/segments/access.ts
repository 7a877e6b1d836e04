import type { Queryable } from "../../events/db/types.ts";
import {
  type EffortRow,
  effortsOfActivity,
  type PrEffortRow,
  prEfforts,
  segmentById,
  type SegmentRow,
  segmentsByIds,
  starredBy,
} from "../../projections/segments/queries.ts";
import { canSeeOwnedObject, effortsOthersSee, type Viewer } from "../privacy/engine.ts";
import { athleteSegmentStats, prEffort, summaryEffort, summarySegment } from "./represent.ts";

/**
 * A segment as the viewer may see it: a private segment (possibly cut from a private activity) only
 * for its owner with view_private — the privacy engine's rule, as for the activities it comes from.
 */
export async function findSegment(db: Queryable, id: number, viewer: Viewer | null): Promise<SegmentRow | undefined> {
  const row = await segmentById(db, id);
  if (!row || !segmentVisible(row, viewer)) return undefined;
  return row;
}

/** Whether a viewer may see a segment: its creator's private segment is theirs alone (the privacy engine's rule). */
export function segmentVisible(
  row: { athlete_id: number | string | null; private: boolean },
  viewer: Viewer | null,
): boolean {
  return canSeeOwnedObject(row, viewer);
}

/**
 * An activity's important segment efforts as another athlete sees them on its web page (GET
 * /v3/activities/:id answers the owner only, as Strava's; Strava's activity page lists a followed
 * athlete's efforts): the privacy engine's effort rule (effortsOthersSee: nothing of an activity the
 * viewer may not see (only_me, or followers-only of someone the viewer does not follow)
 * activity, no effort starting or ending inside the owner's privacy zones) and only efforts on
 * segments the viewer may see (findSegment: no one else's private segment), each with its segment
 * summary as in the owner's detail.
 */
export async function activityEffortsSeenBy(db: Queryable, activityId: number, viewer: Viewer | null) {
  const rows = await effortsOfActivity(db, {
    activityId,
    includeHidden: false,
    visible: (alias, first) => effortsOthersSee(viewer, alias, first),
  });
  if (rows.length === 0) return [];
  const segments = await segmentsByIds(db, [...new Set(rows.map((r) => Number(r.segment_id)))]);
  const shown = new Set(segments.filter((s) => segmentVisible(s, viewer)).map((s) => Number(s.id)));
  return await effortsWithSegments(
    db,
    rows.filter((r) => shown.has(Number(r.segment_id))),
    viewer?.athleteId ?? null,
    viewer,
  );
}

/**
 * Summaries of effort rows, with their segments' summaries (starred relative to the viewer) and,
 * given the viewer, the viewer's PR and statistics on each segment (athlete_pr_effort,
 * athlete_segment_stats of Strava's SummarySegment), counted as on the segment itself (viewerPrs).
 */
export async function effortsWithSegments(
  db: Queryable,
  rows: EffortRow[],
  viewerId: number | null,
  viewer?: Viewer | null,
) {
  const ids = [...new Set(rows.map((r) => Number(r.segment_id)))];
  if (ids.length === 0) return [];
  const segments = await segmentsByIds(db, ids);
  const starred = viewerId === null ? new Set<number>() : await starredBy(db, viewerId, ids);
  const prs = viewer ? await viewerPrs(db, viewer, ids) : undefined;
  const byId = new Map(
    segments.map((s) => [Number(s.id), withViewerPr(summarySegment(s, starred.has(Number(s.id))), prs)]),
  );
  return rows.map((r) => summaryEffort(r, byId.get(Number(r.segment_id)) ?? null));
}

/** A segment summary with the viewer's PR and statistics on it, when the PRs were read (else as it is). */
export function withViewerPr<T extends { id: number }>(summary: T, prs: Map<number, PrEffortRow> | undefined) {
  if (!prs) return summary;
  const pr = prs.get(summary.id);
  return { ...summary, athlete_pr_effort: prEffort(pr), athlete_segment_stats: athleteSegmentStats(pr) };
}

/**
 * The viewer's own PR on each segment (athlete_pr_effort), counted over the efforts the privacy
 * engine shows this viewer (effortsOthersSee: a private effort only with view_private, an effort in
 * the viewer's own zones only with view_private — as on the leaderboard and effort lists).
 */
export function viewerPrs(db: Queryable, viewer: Viewer, segmentIds: number[]): Promise<Map<number, PrEffortRow>> {
  return prEfforts(db, {
    athleteId: viewer.athleteId,
    segmentIds,
    visible: (alias, first) => effortsOthersSee(viewer, alias, first),
  });
}
