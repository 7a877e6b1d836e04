import { DomainError, handleCommand } from "../../events/decider.ts";
import { routeDecider } from "../../events/route/decide.ts";
import { routeStream } from "../../events/route/events.ts";
import { loadStreams } from "../activities/streams.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { type Actor, appendOptions } from "../actor.ts";
import { loadRelease, PUBLIC, releasedPositions, type Viewer, viewerAudience } from "../privacy/engine.ts";
import { findActivity } from "../activities/read.ts";
import { ESTIMATED_SPEED, type LatLng, routeGeometry } from "./geometry.ts";

/** Most points a drawn line may have. */
export const MAX_DRAWN_POINTS = 50_000;

const RUN_LIKE = new Set(["Run", "TrailRun", "VirtualRun", "Walk", "Hike", "Snowshoe"]);

export interface NewRoute {
  name: string;
  description?: string;
  /** 1 ride, 2 run (from the activity's sport when cut from one and not given; else 1). */
  type?: 1 | 2;
  subType?: number;
  private: boolean;
  /** Cut from an activity, or a drawn line (points, with altitudes when a source gave them). */
  source: { activityId: number } | { points: LatLng[]; altitudes: number[] | null; field?: "latlng" | "polyline" };
}

/**
 * The points of an activity a route may copy, through the privacy engine: the caller must see the
 * activity with this token (else 404 Activity), and only the positions their release lets through
 * are copied (another athlete's activity loses the points inside its owner's privacy zones). A
 * route others can read (not private) is never cut from a private activity (400 `private`), and
 * never keeps a point inside the activity owner's zones, whoever cuts it.
 */
async function pointsOfActivity(platform: Platform, viewer: Viewer, activityId: number, privateRoute: boolean) {
  const activity = await findActivity(platform.db, activityId);
  if (!activity) throw new DomainError("not_found", "Activity", "id", "invalid");
  const seen = await loadRelease(platform.db, activity, viewerAudience(viewer));
  if (!seen.visible) throw new DomainError("not_found", "Activity", "id", "invalid");
  const streams = await loadStreams(platform.db, activity.facts.streamsSha256 ?? null);
  const latlng = streams?.latlng;
  if (!latlng || latlng.length < 2) {
    throw new DomainError("invalid", "Route", "activity_id", "invalid", "the activity has no positions");
  }
  let keep = releasedPositions(seen, latlng);
  if (!privateRoute) {
    const published = await loadRelease(platform.db, activity, PUBLIC);
    if (!published.visible) {
      throw new DomainError(
        "invalid",
        "Route",
        "private",
        "invalid",
        "a route cut from a private activity must be private",
      );
    }
    const outsideZones = releasedPositions(published, latlng);
    keep = keep.map((k, i) => k && outsideZones[i]);
  }
  const points: LatLng[] = [];
  const altitudes: number[] = [];
  for (let i = 0; i < latlng.length; i++) {
    if (!keep[i] || !latlng[i]) continue;
    points.push([latlng[i][0], latlng[i][1]]);
    if (streams.altitude) altitudes.push(streams.altitude[i]);
  }
  return {
    points,
    altitudes: streams.altitude ? altitudes : null,
    type: (RUN_LIKE.has(activity.type) ? 2 : 1) as 1 | 2,
    pace: activity.distance > 0 && activity.moving_time > 0 ? activity.moving_time / activity.distance : null,
  };
}

function checkDrawn(points: LatLng[], altitudes: number[] | null, field: string) {
  if (points.length < 2 || points.length > MAX_DRAWN_POINTS) {
    throw new DomainError("invalid", "Route", field, "invalid");
  }
  for (const p of points) {
    if (
      !Array.isArray(p) || p.length !== 2 || !Number.isFinite(p[0]) || !Number.isFinite(p[1]) || Math.abs(p[0]) > 90 ||
      Math.abs(p[1]) > 180
    ) {
      throw new DomainError("invalid", "Route", field, "invalid");
    }
  }
  if (
    altitudes &&
    (altitudes.length !== points.length || !altitudes.every((a) => Number.isFinite(a) && Math.abs(a) < 10_000))
  ) {
    throw new DomainError("invalid", "Route", "altitude", "invalid");
  }
}

/**
 * Creates a route for `viewer.athleteId` (decide → append through handleCommand); returns its id.
 * Elevation: an activity's altitude stream where it has one; a drawn line has altitudes only when the
 * caller gives them (no elevation model is consulted), else no altitude stream and a gain of 0.
 * Estimated moving time: the activity's own pace over the route's distance; for a drawn line
 * ESTIMATED_SPEED (25 km/h riding, 10 km/h running).
 */
export async function createRoute(platform: Platform, viewer: Viewer, input: NewRoute, actor: Actor): Promise<number> {
  if (!input.name.trim()) throw new DomainError("invalid", "Route", "name", "missing");
  let points: LatLng[];
  let altitudes: number[] | null;
  let type: 1 | 2 = input.type ?? 1;
  let pace: number | null = null;
  let activityId: number | null = null;
  let field = "activity_id";
  if ("activityId" in input.source) {
    const cut = await pointsOfActivity(platform, viewer, input.source.activityId, input.private);
    ({ points, altitudes } = cut);
    type = input.type ?? cut.type;
    pace = cut.pace;
    activityId = input.source.activityId;
  } else {
    ({ points, altitudes } = input.source);
    field = input.source.field ?? "latlng";
    checkDrawn(points, altitudes, field);
  }
  const geometry = routeGeometry(points, altitudes);
  if (geometry.points.length < 2 || !(geometry.distance > 0)) {
    throw new DomainError("invalid", "Route", field, "invalid", "a route needs at least two distinct points");
  }
  const routeId = await nextId(platform.db, "route");
  await handleCommand(platform.store, routeStream(routeId), routeDecider, {
    type: "create",
    route: {
      routeId,
      athleteId: viewer.athleteId,
      name: input.name.trim(),
      description: input.description ?? "",
      type,
      subType: input.subType ?? 1,
      private: input.private,
      activityId,
      polyline: geometry.polyline,
      altitudes: geometry.altitudes,
      distance: geometry.distance,
      elevationGain: geometry.elevationGain,
      estimatedMovingTime: Math.round(geometry.distance * (pace ?? 1 / ESTIMATED_SPEED[type])),
    },
  }, appendOptions(actor));
  return routeId;
}

/** Deletes one of the athlete's routes (404 unknown, 403 another's). */
export async function deleteRoute(platform: Platform, athleteId: number, routeId: number, actor: Actor): Promise<void> {
  await handleCommand(
    platform.store,
    routeStream(routeId),
    routeDecider,
    { type: "delete", routeId, athleteId },
    appendOptions(actor),
  );
}
