import type { Auth } from "../http/auth.ts";
import { VISIBILITY_CLASSES, type VisibilityClass } from "../../shared/visibility.ts";

/**
 * Who may see which activity — the one place that says it. Every list or aggregate over activities
 * (athlete lists, club feeds, leaderboards, efforts, challenge leaderboards, heatmaps, streams) uses
 * `visibleActivities`; single reads use `canSeeActivity`.
 *
 * Rule: an activity is visible when it is not private, or when it is the viewer's own and the
 * token has view_private (private activities are not returned to a token without view_private,
 * not even the owner's).
 */
export interface Viewer {
  athleteId: number;
  viewPrivate: boolean;
}

export function viewerOf(auth: Auth | null): Viewer | null {
  return auth ? { athleteId: auth.athleteId, viewPrivate: auth.permissions.has("view_private") } : null;
}

/**
 * SQL predicate over an activities row alias (columns athlete_id, private), with its parameters
 * starting at placeholder $firstParam. Example:
 *   const v = visibleActivities(viewer, "a", 2);
 *   db.query(`select … from activities a where a.athlete_id = $1 and ${v.sql}`, [id, ...v.params])
 * A null viewer (no token) sees public activities only.
 */
export function visibleActivities(
  viewer: Viewer | null,
  alias = "a",
  firstParam = 1,
): { sql: string; params: unknown[] } {
  if (!viewer || !viewer.viewPrivate) return { sql: `(not ${alias}.private)`, params: [] };
  return { sql: `(not ${alias}.private or ${alias}.athlete_id = $${firstParam})`, params: [viewer.athleteId] };
}

/** Whether a viewer may see one activity (same rule as visibleActivities). */
export function canSeeActivity(
  activity: { athlete_id: number | string; private: boolean },
  viewer: Viewer | null,
): boolean {
  if (!activity.private) return true;
  return !!viewer && viewer.viewPrivate && Number(activity.athlete_id) === viewer.athleteId;
}

/**
 * The visibility classes of one athlete's activities a viewer may see (same rule as
 * visibleActivities): every class for the owner with view_private, else what everyone may see.
 * Aggregates kept per class (totals, calendars, records) add up exactly these.
 */
export function visibilityClassesOf(viewer: Viewer | null, ownerId: number): VisibilityClass[] {
  if (viewer && viewer.viewPrivate && viewer.athleteId === ownerId) return [...VISIBILITY_CLASSES];
  return ["everyone"];
}

/** Exact start/end locations and full streams only for the owner with view_private. */
export function seesPrivateData(activity: { athlete_id: number | string }, viewer: Viewer | null): boolean {
  return !!viewer && viewer.viewPrivate && Number(activity.athlete_id) === viewer.athleteId;
}

/** A location as others see it: rounded to 2 decimal places. */
export function roundLatlng(latlng: [number, number] | null | undefined): [number, number] | null {
  if (!latlng) return null;
  return [Math.round(latlng[0] * 100) / 100, Math.round(latlng[1] * 100) / 100];
}
