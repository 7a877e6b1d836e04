import type { Queryable } from "../../events/db/types.ts";
import type { PrivacyZoneCircle } from "../../shared/privacy-zones.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { visibilityOfPrivate } from "../../shared/visibility.ts";
import type { VisibilityClass } from "../../shared/visibility.ts";
import {
  type ActivityOwnership,
  canSeeActivity,
  followedOwners,
  loadVisibilitiesSeen,
  mayView,
  relationOf,
  roundLatlng,
  seesPrivateData,
  type Viewer,
  viewerOf,
  visibilitiesSeen,
  visibleActivities,
} from "./activities.ts";
import { cropPolyline, insideZones, locationOutsideZones, type ZoneSet, zoneSetOf, zonesOfOwners } from "./maps.ts";

/**
 * The privacy engine: the one place that decides what of an activity may flow where. Everything
 * that copies activity data into an answer or into another object (activity representations,
 * streams, club feeds, segments cut from an activity, segment efforts, heatmaps, challenge
 * progress, webhooks, photos' locations) asks it; docs/privacy.md lists those paths, and
 * tests/proof/privacy-engine.test.ts fails when a file reads activity points without it.
 *
 * The rule, for an activity and an audience:
 * - Who sees it at all follows its visibility (activities.ts, shared/visibility.ts `SEEN_BY`):
 *   `everyone` — anyone; `followers_only` — the owner's tokens and the athletes who follow the
 *   owner today; `only_me` — the owner's token with view_private. Objects others read (a heatmap,
 *   challenge progress, a segment's counts) are the audience `PUBLIC`: what everyone sees.
 * - The owner's token with view_private sees everything as recorded (`exact`).
 * - Anyone else who may see it sees no point inside the owner's privacy zones (`zones`) and
 *   start/end locations rounded to 2 decimal places.
 */
export {
  type ActivityOwnership,
  canSeeActivity,
  followedOwners,
  loadVisibilitiesSeen,
  mayView,
  relationOf,
  type Viewer,
  viewerOf,
  visibilitiesSeen,
  visibleActivities,
};
export type { ZoneSet };

/**
 * Which visibility classes of an athlete's activities (shared/visibility.ts) reach a viewer: what
 * read models kept per class (totals, calendars, records) add up for that viewer. Asynchronous: a
 * class may depend on the viewer's relation to the athlete (followers).
 */
export function visibilityClassesFor(
  db: Queryable,
  viewer: Viewer | null,
  ownerId: number,
): Promise<VisibilityClass[]> {
  return loadVisibilitiesSeen(db, viewer, ownerId);
}

/** Where data derived from an activity goes. */
export type Audience =
  /** An answer to one token (null: no token). */
  | { kind: "viewer"; viewer: Viewer | null }
  /** An object that others read: a segment, a heatmap, a club feed item, a challenge's progress. */
  | { kind: "public" };

/** What of one activity may reach one audience. */
export interface Release {
  /** Whether anything of the activity may reach the audience at all. */
  visible: boolean;
  /** Everything as recorded: exact locations and every sample (the owner with view_private). */
  exact: boolean;
  /** The owner's zones whose points are withheld (undefined when exact or when there are none). */
  zones: ZoneSet | undefined;
}

/** An audience answering one token. */
export function viewerAudience(viewer: Viewer | null): Audience {
  return { kind: "viewer", viewer };
}

export const PUBLIC: Audience = { kind: "public" };

/** Whether the audience sees everything of the activity (so the owner's zones need not be read). */
export function seesEverything(activity: ActivityOwnership, audience: Audience): boolean {
  return audience.kind === "viewer" && seesPrivateData(activity, audience.viewer);
}

/**
 * The release of one activity for an audience, given the owner's zones (loaded by the caller for a
 * whole page with `zonesOfOwnersFor`, or by `loadRelease`) and whether the viewer follows the owner
 * (`followedOwners` for a page; false: the viewer is taken for a stranger).
 */
export function releaseOf(
  activity: ActivityOwnership,
  audience: Audience,
  ownerZones: ZoneSet | undefined,
  follows = false,
): Release {
  if (seesEverything(activity, audience)) return { visible: true, exact: true, zones: undefined };
  const visible = mayView(activity, audience.kind === "public" ? null : audience.viewer, follows);
  return { visible, exact: false, zones: ownerZones && ownerZones.zones.length > 0 ? ownerZones : undefined };
}

/** The privacy zones of the owners of these activities that the audience does not see through. */
export async function zonesOfOwnersFor(
  db: Queryable,
  activities: readonly ActivityOwnership[],
  audience: Audience,
): Promise<Map<number, ZoneSet>> {
  const owners = activities.filter((a) => !seesEverything(a, audience)).map((a) => Number(a.athlete_id));
  return owners.length === 0 ? new Map() : await zonesOfOwners(db, owners);
}

/** The release of one activity for an audience, reading the owner's zones and the follow when they apply. */
export async function loadRelease(db: Queryable, activity: ActivityOwnership, audience: Audience): Promise<Release> {
  const [zones, followed] = await Promise.all([
    zonesOfOwnersFor(db, [activity], audience),
    audience.kind === "viewer" ? followedOwners(db, [activity], audience.viewer) : Promise.resolve(new Set<number>()),
  ]);
  const owner = Number(activity.athlete_id);
  return releaseOf(activity, audience, zones.get(owner), followed.has(owner));
}

/** One athlete's zones as they apply to everything others see (heatmaps draw nothing inside them). */
export async function publicZonesOf(db: Queryable, athleteId: number): Promise<PrivacyZoneCircle[]> {
  return [...((await zonesOfOwners(db, [athleteId])).get(athleteId)?.zones ?? [])];
}

/** For each position, whether the release lets it through (positions without a fix are kept). */
export function releasedPositions(release: Release, latlng: readonly ([number, number] | null)[]): boolean[] {
  if (!release.visible) return latlng.map(() => false);
  const zones = release.zones;
  if (release.exact || !zones) return latlng.map(() => true);
  return latlng.map((p) => p === null || !insideZones(p, zones));
}

/** Streams as the release lets them through: samples at withheld positions removed, channels aligned. */
export function releasedStreams(release: Release, streams: ActivityStreams | null): ActivityStreams | null {
  if (!streams || !release.visible) return release.visible ? streams : null;
  if (!streams.latlng || release.exact || !release.zones) return streams;
  const keep = releasedPositions(release, streams.latlng);
  if (keep.every(Boolean)) return streams;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(streams)) {
    out[key] = Array.isArray(value) && value.length === keep.length ? value.filter((_, i) => keep[i]) : value;
  }
  return out as unknown as ActivityStreams;
}

/** An encoded polyline as the release lets it through (points inside zones cut out). */
export function releasedPolyline(release: Release, encoded: string | null): string | null {
  if (!release.visible) return null;
  return release.exact ? encoded : cropPolyline(encoded, release.zones);
}

/** A start/end location as the release lets it through: exact, or rounded and null inside a zone. */
export function releasedLocation(
  release: Release,
  recorded: [number, number] | null | undefined,
): [number, number] | null {
  if (!release.visible || !recorded) return null;
  return release.exact ? recorded : locationOutsideZones(recorded, roundLatlng(recorded), release.zones);
}

/**
 * Whether a stretch of an activity (stream indexes first..last) may be copied into an object that
 * others read, such as a segment: the activity must be public and no position in the stretch may
 * lie inside the owner's zones. Answers the reason when it may not.
 */
export function publicStretch(
  release: Release,
  latlng: readonly ([number, number] | null)[],
  first: number,
  last: number,
): { ok: true } | { ok: false; reason: "private" | "start_in_zone" | "stretch_in_zone" } {
  if (!release.visible) return { ok: false, reason: "private" };
  const zones = release.zones;
  if (!zones) return { ok: true };
  const start = latlng[first];
  if (start && insideZones(start, zones)) return { ok: false, reason: "start_in_zone" };
  for (let k = first; k <= last; k++) {
    const p = latlng[k];
    if (p && insideZones(p, zones)) return { ok: false, reason: "stretch_in_zone" };
  }
  return { ok: true };
}

/**
 * Segment efforts others may see, as an SQL predicate over a segment_efforts alias (columns
 * athlete_id, visibility, shielded) with parameters from $firstParam: the activity's visibility, and
 * no effort that starts or ends inside the owner's privacy zones (`shielded`, kept by the segments
 * projection from the zones) unless the viewer sees the activity exactly (the owner with view_private).
 */
export function effortsOthersSee(
  viewer: Viewer | null,
  alias = "e",
  firstParam = 1,
): { sql: string; params: unknown[] } {
  const visible = visibleActivities(viewer, alias, firstParam);
  if (!viewer || !viewer.viewPrivate) {
    return { sql: `(${visible.sql} and not ${alias}.shielded)`, params: visible.params };
  }
  // visibleActivities takes the viewer's id as its one parameter: reuse it.
  return {
    sql: `(${visible.sql} and (not ${alias}.shielded or ${alias}.athlete_id = $${firstParam}::bigint))`,
    params: visible.params,
  };
}

/** Whether a viewer may see one segment effort (same rule as effortsOthersSee). */
export async function canSeeEffort(
  db: Queryable,
  effort: ActivityOwnership & { shielded?: boolean },
  viewer: Viewer | null,
): Promise<boolean> {
  return (!effort.shielded || seesPrivateData(effort, viewer)) && await canSeeActivity(db, effort, viewer);
}

/** The zone set of circles (for callers that hold zones already, e.g. a preloaded detail). */
export { zoneSetOf };

/**
 * Objects with a private flag of their own (segments, routes): a private one is only_me, a public
 * one everyone's — the rule of activities with those visibilities.
 */
export function ownedObject(row: { athlete_id: number | string | null; private: boolean }): ActivityOwnership {
  return { athlete_id: row.athlete_id ?? 0, visibility: visibilityOfPrivate(row.private) };
}

/** Whether a viewer may see a segment or route (its own private flag, `ownedObject`). */
export function canSeeOwnedObject(
  row: { athlete_id: number | string | null; private: boolean },
  viewer: Viewer | null,
): boolean {
  return mayView(ownedObject(row), viewer, false);
}

/** SQL predicate over rows with athlete_id and a private flag (segments): the rule of `canSeeOwnedObject`. */
export function visibleOwnedObjects(
  viewer: Viewer | null,
  alias = "s",
  firstParam = 1,
): { sql: string; params: unknown[] } {
  if (!viewer || !viewer.viewPrivate) return { sql: `(not ${alias}.private)`, params: [] };
  return { sql: `(not ${alias}.private or ${alias}.athlete_id = $${firstParam}::bigint)`, params: [viewer.athleteId] };
}
