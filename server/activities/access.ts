import type { Queryable } from "../../events/db/types.ts";
import type { Auth } from "../http/auth.ts";
import type { Dialect } from "../http/dialect.ts";
import { forbidden, notFound } from "../http/errors.ts";
import { canSeeActivity, viewerOf } from "../privacy/engine.ts";
import type { ActivityContext } from "./extensions.ts";
import { type ActivityRow, findActivity } from "./read.ts";
import { activityOwnership } from "../../projections/activities/queries.ts";
import type { Platform } from "../platform.ts";

/**
 * An activity the caller may see, or the documented 404 (unknown, deleted, another's only_me one,
 * or another's followers-only one when the caller does not follow them).
 */
export async function visibleActivity(db: Queryable, id: number, auth: Auth | null): Promise<ActivityRow> {
  const row = await findActivity(db, id);
  if (!row || !(await canSeeActivity(db, row, viewerOf(auth)))) throw notFound("Activity");
  return row;
}

/**
 * That the caller may see an activity (the documented 404 otherwise), reading only its owner and
 * privacy: for writes about an activity (kudos, comments) that do not show it.
 */
export async function requireVisibleActivity(db: Queryable, id: number, auth: Auth | null): Promise<void> {
  const row = await activityOwnership(db, id);
  if (!row || !(await canSeeActivity(db, row, viewerOf(auth)))) throw notFound("Activity");
}

/** An activity the caller owns (and may see): 404 when not visible, 403 when visible but another's. */
export async function ownedActivity(db: Queryable, id: number, auth: Auth): Promise<ActivityRow> {
  const row = await visibleActivity(db, id, auth);
  if (row.athlete_id !== auth.athleteId) throw forbidden("Activity", "athlete", "forbidden");
  return row;
}

/** What an activity is represented with for this caller, in the dialect the request came in (HandlerInput.dialect). */
export function activityContext(
  platform: Platform,
  auth: Auth | null,
  dialect: Dialect,
  includeAllEfforts = false,
): ActivityContext {
  return {
    db: platform.db,
    viewer: viewerOf(auth),
    publicUrl: platform.config.publicUrl,
    dialect,
    includeAllEfforts,
    extensions: platform.activityExtensions,
  };
}
