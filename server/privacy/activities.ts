import type { Queryable } from "../../events/db/types.ts";
import { followedAmong, followsSql, isFollowing } from "../../projections/follows/queries.ts";
import { everyoneSeesSql, type Relation, SEEN_BY, type Visibility } from "../../shared/visibility.ts";
import type { Auth } from "../http/auth.ts";

/**
 * Who may see which activity — the one place that says it. Every list or aggregate over activities
 * (athlete lists, feeds, club feeds, leaderboards, efforts, records, heatmaps, streams) uses
 * `visibleActivities`; single reads use `canSeeActivity` (or `mayView` when the follow is known).
 *
 * Rule (shared/visibility.ts `SEEN_BY`), from the activity's owner and visibility and whether the
 * viewer follows the owner today:
 * - `everyone`: anyone, with or without a token;
 * - `followers_only`: the owner's tokens, and athletes who follow the owner (their tokens and
 *   their applications'), whatever their scopes;
 * - `only_me`: the owner's token with view_private (activity:read_all) only.
 */
export interface Viewer {
  athleteId: number;
  viewPrivate: boolean;
}

/** The owner of an activity and who may see it: all the rule needs of the activity. */
export interface ActivityOwnership {
  athlete_id: number | string;
  visibility: Visibility;
}

export function viewerOf(auth: Auth | null): Viewer | null {
  return auth ? { athleteId: auth.athleteId, viewPrivate: auth.permissions.has("view_private") } : null;
}

/** How a viewer stands to an owner (`follows`: the viewer follows the owner today). */
export function relationOf(viewer: Viewer | null, ownerId: number | string, follows: boolean): Relation {
  if (viewer && viewer.athleteId === Number(ownerId)) return viewer.viewPrivate ? "owner_all" : "owner";
  return viewer && follows ? "follower" : "anyone";
}

/** The visibilities of an owner's activities this viewer sees (for read models keyed by visibility). */
export function visibilitiesSeen(viewer: Viewer | null, ownerId: number | string, follows: boolean): Visibility[] {
  return [...SEEN_BY[relationOf(viewer, ownerId, follows)]];
}

/** `visibilitiesSeen`, reading whether the viewer follows the owner (for another athlete's aggregates). */
export async function loadVisibilitiesSeen(
  db: Queryable,
  viewer: Viewer | null,
  ownerId: number,
): Promise<Visibility[]> {
  const follows = !!viewer && viewer.athleteId !== ownerId && await isFollowing(db, viewer.athleteId, ownerId);
  return visibilitiesSeen(viewer, ownerId, follows);
}

/** Whether a viewer may see one activity, the follow being known: "may viewer V see activity A". */
export function mayView(activity: ActivityOwnership, viewer: Viewer | null, follows: boolean): boolean {
  return SEEN_BY[relationOf(viewer, activity.athlete_id, follows)].includes(activity.visibility);
}

/** Whether the answer may depend on the follow (else `mayView` is decided without reading it). */
function dependsOnFollow(activity: ActivityOwnership, viewer: Viewer | null): viewer is Viewer {
  return !!viewer && activity.visibility === "followers_only" && viewer.athleteId !== Number(activity.athlete_id);
}

/** Whether a viewer may see one activity (reads the follow only for another's followers-only activity). */
export async function canSeeActivity(
  db: Queryable,
  activity: ActivityOwnership,
  viewer: Viewer | null,
): Promise<boolean> {
  const follows = dependsOnFollow(activity, viewer) &&
    await isFollowing(db, viewer.athleteId, Number(activity.athlete_id));
  return mayView(activity, viewer, follows);
}

/** The owners (among these activities') whom the viewer follows, when any answer depends on it. */
export async function followedOwners(
  db: Queryable,
  activities: readonly ActivityOwnership[],
  viewer: Viewer | null,
): Promise<Set<number>> {
  const owners = activities.filter((a) => dependsOnFollow(a, viewer)).map((a) => Number(a.athlete_id));
  return viewer && owners.length ? await followedAmong(db, viewer.athleteId, owners) : new Set();
}

/**
 * SQL predicate over an activities row alias (columns athlete_id, visibility), with its parameters
 * starting at placeholder $firstParam: the same rule as `mayView`, the follow read in the query.
 * Example:
 *   const v = visibleActivities(viewer, "a", 2);
 *   db.query(`select … from activities a where a.athlete_id = $1 and ${v.sql}`, [id, ...v.params])
 * A null viewer (no token) sees what everyone sees.
 */
export function visibleActivities(
  viewer: Viewer | null,
  alias = "a",
  firstParam = 1,
): { sql: string; params: unknown[] } {
  if (!viewer) return { sql: everyoneSeesSql(alias), params: [] };
  const me = `$${firstParam}::bigint`;
  const own = viewer.viewPrivate
    ? `${alias}.athlete_id = ${me}`
    : `(${alias}.athlete_id = ${me} and ${alias}.visibility <> 'only_me')`;
  return {
    sql: `(${alias}.visibility = 'everyone' or ${own}
           or (${alias}.visibility = 'followers_only' and ${followsSql(me, `${alias}.athlete_id`)}))`,
    params: [viewer.athleteId],
  };
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
