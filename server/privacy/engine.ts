import type { Queryable } from "../../events/db/types.ts";
import type { PrivacyZoneCircle } from "../../shared/privacy-zones.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import type { VisibilityClass } from "../../shared/visibility.ts";
import {
  canSeeActivity,
  roundLatlng,
  seesPrivateData,
  type Viewer,
  viewerOf,
  visibilityClassesOf,
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
 * - The owner's token with view_private sees everything as recorded (`exact`).
 * - Anyone else — other athletes, the owner's token without view_private, and every object others
 *   can read (a public segment, a heatmap, a club feed, challenge progress) — sees nothing of a
 *   private activity (`visible` false), and of a public one no point inside the owner's privacy
 *   zones (`zones`) and start/end locations rounded to 2 decimal places.
 */
export { canSeeActivity, type Viewer, viewerOf, visibleActivities };
export type { ZoneSet };

/**
 * Which visibility classes of an athlete's activities (shared/visibility.ts) reach a viewer: what
 * read models kept per class (totals, calendars, records) add up for that viewer. Asynchronous: a
 * class may depend on the viewer's relation to the athlete (followers).
 */
export function visibilityClassesFor(
  _db: Queryable,
  viewer: Viewer | null,
  ownerId: number,
): Promise<VisibilityClass[]> {
  return Promise.resolve(visibilityClassesOf(viewer, ownerId));
}

/** Where data derived from an activity goes. */
export type Audience =
  /** An answer to one token (null: no token). */
  | { kind: "viewer"; viewer: Viewer | null }
  /** An object that others read: a segment, a heatmap, a club feed item, a challenge's progress. */
  | { kind: "public" };

/** The owner of an activity and whether it is private: all the engine needs of it. */
export interface ActivityOwnership {
  athlete_id: number | string;
  private: boolean;
}

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
 * whole page with `zonesOfOwnersFor`, or by `loadRelease`).
 */
export function releaseOf(activity: ActivityOwnership, audience: Audience, ownerZones: ZoneSet | undefined): Release {
  if (seesEverything(activity, audience)) return { visible: true, exact: true, zones: undefined };
  const visible = audience.kind === "public" ? !activity.private : canSeeActivity(activity, audience.viewer);
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

/** The release of one activity for an audience, reading the owner's zones when they apply. */
export async function loadRelease(db: Queryable, activity: ActivityOwnership, audience: Audience): Promise<Release> {
  const zones = await zonesOfOwnersFor(db, [activity], audience);
  return releaseOf(activity, audience, zones.get(Number(activity.athlete_id)));
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
 * athlete_id, private, shielded) with parameters from $firstParam: the activity's visibility, and
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
  // visibleActivities with view_private takes the viewer's id as its one parameter: reuse it.
  return {
    sql: `(${visible.sql} and (not ${alias}.shielded or ${alias}.athlete_id = $${firstParam}))`,
    params: visible.params,
  };
}

/** Whether a viewer may see one segment effort (same rule as effortsOthersSee). */
export function canSeeEffort(
  effort: { athlete_id: number | string; private: boolean; shielded?: boolean },
  viewer: Viewer | null,
): boolean {
  return canSeeActivity(effort, viewer) && (!effort.shielded || seesPrivateData(effort, viewer));
}

/** The zone set of circles (for callers that hold zones already, e.g. a preloaded detail). */
export { zoneSetOf };
