import polylineModule from "@mapbox/polyline";
import { DomainError } from "../../events/decider.ts";
import type { CutFacts } from "../../events/segment/create.ts";
import { loadStreams } from "../activities/streams.ts";
import type { Platform } from "../platform.ts";
import {
  type ActivityOwnership,
  loadRelease,
  PUBLIC,
  publicStretch,
  type Release,
  type Viewer,
  viewerAudience,
} from "../privacy/engine.ts";
import { type LatLng, segmentFacts } from "./geometry.ts";

// @mapbox/polyline ships no types.
const polyline = polylineModule as unknown as { encode(points: [number, number][], precision?: number): string };

export interface NewSegment {
  name: string;
  activityType: "Ride" | "Run";
  points: LatLng[];
  altitudes: (number | null)[] | null;
  athleteId: number | null;
  activityId: number | null;
  city?: string | null;
  state?: string | null;
  country?: string | null;
  private?: boolean;
  hazardous?: boolean;
}

/** The SegmentCreated data of a new segment: its geometry's derived facts and its encoded polyline. */
export function segmentCreatedData(segmentId: number, s: NewSegment) {
  // Too few points have no facts: the decider refuses them (points invalid) before anything is recorded.
  const facts = s.points.length >= 2 ? segmentFacts(s.points, s.altitudes) : null;
  const altitudes = s.altitudes && s.altitudes.every((a) => typeof a === "number") ? s.altitudes as number[] : null;
  return {
    segmentId,
    athleteId: s.athleteId,
    activityId: s.activityId,
    name: s.name,
    activityType: s.activityType,
    points: s.points,
    altitudes,
    distance: facts?.distance ?? 0,
    averageGrade: facts?.averageGrade ?? 0,
    maximumGrade: facts?.maximumGrade ?? 0,
    elevationHigh: facts?.elevationHigh ?? null,
    elevationLow: facts?.elevationLow ?? null,
    totalElevationGain: facts?.totalElevationGain ?? 0,
    climbCategory: facts?.climbCategory ?? 0,
    startLatlng: facts?.startLatlng ?? s.points[0] ?? [0, 0],
    endLatlng: facts?.endLatlng ?? s.points[s.points.length - 1] ?? [0, 0],
    polyline: polyline.encode(s.points, 5),
    city: s.city ?? null,
    state: s.state ?? null,
    country: s.country ?? null,
    private: s.private ?? false,
    hazardous: s.hazardous ?? false,
  };
}

/**
 * The points (and altitudes) of an activity between two stream indexes, for a segment cut from it,
 * through the privacy engine: the caller must see the activity with this token (else 404) and the
 * indexes must lie in its streams (400 naming the index). Answers with them what the engine found
 * (`cut`) for the creation decider's rules: a public segment is never cut from a private activity
 * (400 `private`), and no point of the stretch may lie inside the owner's privacy zones (400
 * `start_index` when the stretch starts inside one, else `end_index`).
 */
export async function pointsFromActivity(
  platform: Platform,
  activity: ActivityOwnership & { type: string; facts: { streamsSha256?: string | null } },
  cut: { viewer: Viewer; startIndex: number; endIndex: number; privateSegment: boolean },
): Promise<{ activityType: "Ride" | "Run"; points: LatLng[]; altitudes: (number | null)[] | null; cut: CutFacts }> {
  const { startIndex, endIndex } = cut;
  const seen: Release = await loadRelease(platform.db, activity, viewerAudience(cut.viewer));
  if (!seen.visible) throw new DomainError("not_found", "Activity", "id", "invalid");
  if (activity.type !== "Ride" && activity.type !== "Run") {
    throw new DomainError("invalid", "Segment", "activity_id", "invalid");
  }
  const streams = await loadStreams(platform.db, activity.facts.streamsSha256 ?? null);
  if (!streams?.latlng) throw new DomainError("invalid", "Segment", "activity_id", "invalid");
  const length = streams.latlng.length;
  if (!Number.isInteger(startIndex) || startIndex < 0 || startIndex >= length) {
    throw new DomainError("invalid", "Segment", "start_index", "invalid");
  }
  if (!Number.isInteger(endIndex) || endIndex <= startIndex || endIndex >= length) {
    throw new DomainError("invalid", "Segment", "end_index", "invalid");
  }
  // What others would be shown: the decider refuses a public segment of a private activity and a stretch in the zones.
  const published = await loadRelease(platform.db, activity, PUBLIC);
  const stretch = publicStretch({ ...published, visible: true }, streams.latlng, startIndex, endIndex);
  const cutFacts: CutFacts = {
    fromPrivateActivity: !published.visible,
    stretch: stretch.ok ? "ok" : stretch.reason === "start_in_zone" ? "start_in_zone" : "end_in_zone",
  };
  const points: LatLng[] = [];
  const altitudes: (number | null)[] = [];
  for (let k = startIndex; k <= endIndex; k++) {
    const p = streams.latlng[k];
    if (!p) continue;
    points.push([p[0], p[1]]);
    altitudes.push(streams.altitude?.[k] ?? null);
  }
  if (points.length < 2 && cutFacts.stretch === "ok") {
    throw new DomainError("invalid", "Segment", "end_index", "invalid");
  }
  return {
    activityType: activity.type,
    points,
    altitudes: altitudes.every((a) => a !== null) ? altitudes : null,
    cut: cutFacts,
  };
}
