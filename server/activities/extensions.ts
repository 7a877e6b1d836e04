import type { Queryable } from "../../events/db/types.ts";
import type { ActivityRow } from "../../projections/activities/queries.ts";
import type { ActivityDetailPart } from "../../projections/queries/activity-detail.ts";
import type { Viewer, ZoneSet } from "../privacy/engine.ts";
import type { Dialect } from "../http/dialect.ts";
import type { GearRow } from "../gear/represent.ts";
import type { PhotoRow } from "../../projections/activities/queries.ts";

/** What an activity's representation is read for (server/activities/access.ts `activityContext`). */
export interface ActivityContext {
  db: Queryable;
  viewer: Viewer | null;
  publicUrl: string;
  /** The contract the answer keeps to (server/http/dialect.ts): the spec's summary on /v3, Strava's on /api/v3. */
  dialect: Dialect;
  /** GET /v3/activities/:id?include_all_efforts=true */
  includeAllEfforts: boolean;
  /** What other families add to activities: the platform's list (server/wiring.ts). */
  extensions: readonly ActivityExtension[];
  /** Everything a detailed activity needs, read with its row in one statement (server/activities/detail.ts). */
  preload?: ActivityDetailPreload;
}

/**
 * The parts of a detailed activity read together with its row (one SQL statement instead of one
 * per part): has_kudoed, the privacy zones that apply for this viewer, gear, photos, and each
 * extension's detail part raw value (`parts[key]`), which its contributor reads instead of querying.
 */
export interface ActivityDetailPreload {
  hasKudoed: boolean;
  /** The owner's zones when they apply to this viewer (undefined: none, or the owner with view_private). */
  zones: ZoneSet | undefined;
  gear: GearRow | undefined;
  photos: PhotoRow[];
  parts: Record<string, unknown>;
}

/**
 * A SQL expression read with the activity row for its detail (alias `a` is the activities row,
 * $2 the viewer's athlete id or null, $3 include_all_efforts), under `key` in the preload's parts.
 */
export type { ActivityDetailPart };

/**
 * Extension point for other families (Segments: segment_efforts, pr_count, achievement_count).
 * A detail contributor returns fields merged over the defaults of the detailed activity
 * (segment_efforts: [], pr_count: 0, achievement_count: 0); a summary contributor answers, for a
 * page of activities at once, the fields to merge into each summary (pr_count, achievement_count).
 * Extensions are listed in server/wiring.ts; the platform carries that list into every ActivityContext.
 */
export type ActivityDetailContributor = (
  row: ActivityRow,
  context: ActivityContext,
) => Promise<Record<string, unknown>>;
export type ActivitySummaryContributor = (
  rows: readonly ActivityRow[],
  context: ActivityContext,
) => Promise<Map<number, Record<string, unknown>>>;

/** What one family adds to activities: a part read with the detail's row, detail and summary fields. */
export interface ActivityExtension {
  part?: ActivityDetailPart;
  detail?: ActivityDetailContributor;
  summary?: ActivitySummaryContributor;
  /**
   * True when its detail and summary for this context (with its preload) read nothing beyond the
   * preload, so the detail is a function of the detail statement's row and may be kept for it
   * (server/activities/detail-cache.ts). Absent: never kept.
   */
  preloadSuffices?: (context: ActivityContext) => boolean;
}
