import type { Queryable } from "../../events/db/types.ts";
import type { Auth } from "../http/auth.ts";
import type { Dialect } from "../http/dialect.ts";
import { forbidden, notFound } from "../http/errors.ts";
import { canSeeActivity, viewerOf, visibleActivities } from "../privacy/engine.ts";
import type { ConditionSql } from "../../events/store.ts";
import type { ActivityContext } from "./extensions.ts";
import { type ActivityRow, findActivity } from "./read.ts";
import { activityOwnership, activityRowSql } from "../../projections/activities/queries.ts";
import { activityAccessChangedSince, activityAccessGeneration } from "../../projections/activities/access-changes.ts";
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
 * That the caller may see an activity (the documented 404 otherwise), from its owner and visibility
 * only (decided by the privacy engine): for writes about an activity (kudos, comments) that do not
 * show it. What it reads is kept in memory (below).
 */
export async function requireVisibleActivity(db: Queryable, id: number, auth: Auth | null): Promise<void> {
  const row = await ownershipOf(db, id);
  if (!row || !(await canSeeActivity(db, row, viewerOf(auth)))) throw notFound("Activity");
}

/**
 * `requireVisibleActivity` as SQL, for an append that checks it in its own statement (a kudos,
 * server/activities/commands.ts `giveKudosAtOnce`): the privacy engine's predicate over the
 * activity's row in the activities read model, read as the statement runs. `known`: the check
 * would read nothing now (owner and visibility kept in memory and no follow to read).
 */
export function visibleActivityCondition(
  db: Queryable,
  id: number,
  auth: Auth | null,
): { known: boolean; condition: (sql: ConditionSql) => string } {
  const viewer = viewerOf(auth);
  const hit = ownerships.get(db)?.get(id);
  const known = !!hit && hit.until > Date.now() && !activityAccessChangedSince(id, hit.generation) &&
    (!hit.row || hit.row.visibility !== "followers_only" || hit.row.athlete_id === viewer?.athleteId);
  return {
    known,
    condition(sql) {
      const placeholders = visibleActivities(viewer, "a", 1).params.map((value) => sql.param(value));
      const visible = visibleActivities(viewer, "a", placeholders.length ? Number(placeholders[0].slice(1)) : 1);
      return activityRowSql(sql.param(id), visible.sql);
    },
  };
}

type Ownership = Awaited<ReturnType<typeof activityOwnership>>;

/**
 * Activities' owner and visibility as read from the activities read model, per database. An entry
 * is forgotten as soon as this process applies an event that may change them (a creation, an edit,
 * a deletion, a rebuild: projections/activities/access-changes.ts), and a read that raced such a
 * change is not kept. One process owns an embedded database, so there an entry stands until then;
 * on PostgreSQL other servers' changes are not applied here, so an entry also expires after
 * ACCESS_CACHE_MS: a privacy change made through another server takes effect here within that
 * bound (docs/operators.md).
 */
export const ACCESS_CACHE_MS = 1000;
const ACCESS_CACHE_MAX = 100_000;
const ownerships = new WeakMap<Queryable, Map<number, { row: Ownership; generation: number; until: number }>>();

async function ownershipOf(db: Queryable, id: number): Promise<Ownership> {
  let cache = ownerships.get(db);
  if (!cache) ownerships.set(db, cache = new Map());
  const hit = cache.get(id);
  if (hit && hit.until > Date.now() && !activityAccessChangedSince(id, hit.generation)) return hit.row;
  const generation = activityAccessGeneration();
  const row = await activityOwnership(db, id);
  if (!activityAccessChangedSince(id, generation)) {
    if (cache.size >= ACCESS_CACHE_MAX) cache.delete(cache.keys().next().value!);
    const embedded = (db as { kind?: string }).kind === "pglite";
    cache.set(id, { row, generation, until: embedded ? Infinity : Date.now() + ACCESS_CACHE_MS });
  }
  return row;
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
