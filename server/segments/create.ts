import polylineModule from "@mapbox/polyline";
import { DomainError } from "../../events/decider.ts";
import { segmentCreated, segmentStream } from "../../events/segment/events.ts";
import { loadStreams } from "../activities/streams.ts";
import { nextId } from "../ids.ts";
import type { Platform } from "../platform.ts";
import { type ActivityOwnership, loadRelease, PUBLIC, publicStretch, type Release, type Viewer, viewerAudience } from "../privacy/engine.ts";
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

/** Checks a new segment and derives its facts (throws a DomainError naming the bad field). */
function validated(s: NewSegment): ReturnType<typeof segmentFacts> {
  if (!s.name.trim()) throw new DomainError("invalid", "Segment", "name", "missing");
  if (s.points.length < 2) throw new DomainError("invalid", "Segment", "points", "invalid");
  const facts = segmentFacts(s.points, s.altitudes);
  if (!(facts.distance > 0)) throw new DomainError("invalid", "Segment", "points", "invalid");
  return facts;
}

function createdEvent(segmentId: number, s: NewSegment, facts: ReturnType<typeof segmentFacts>) {
  const altitudes = s.altitudes && s.altitudes.every((a) => typeof a === "number") ? s.altitudes as number[] : null;
  return segmentCreated.create({
    segmentId,
    athleteId: s.athleteId,
    activityId: s.activityId,
    name: s.name.trim(),
    activityType: s.activityType,
    points: s.points,
    altitudes,
    ...facts,
    polyline: polyline.encode(s.points, 5),
    city: s.city ?? null,
    state: s.state ?? null,
    country: s.country ?? null,
    private: s.private ?? false,
    hazardous: s.hazardous ?? false,
  });
}

/** Records a new segment with its derived facts; returns its id. */
export async function createSegment(platform: Platform, s: NewSegment, source: string): Promise<number> {
  const facts = validated(s);
  const segmentId = await nextId(platform.db, "segment");
  await platform.store.append(segmentStream(segmentId), 0, [createdEvent(segmentId, s, facts)], {
    metadata: { athleteId: s.athleteId ?? undefined, source },
  });
  return segmentId;
}

/**
 * Records many segments at once (bulk loads: imports, benchmark setup): the same events as
 * createSegment, one per segment stream, written in a single transaction (all or nothing).
 * Returns their ids in order.
 */
export async function createSegments(platform: Platform, list: NewSegment[], source: string): Promise<number[]> {
  if (list.length === 0) return [];
  const facts = list.map(validated);
  const rows = await platform.db.query<{ id: number }>(
    "select nextval('public.ids_segment') as id from generate_series(1, $1::int)",
    [list.length],
  );
  const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  await platform.store.appendMany(
    list.map((s, i) => ({ streamId: segmentStream(ids[i]), expectedVersion: 0, events: [createdEvent(ids[i], s, facts[i])] })),
    { metadata: { athleteId: list.every((s) => s.athleteId === list[0].athleteId) ? list[0].athleteId ?? undefined : undefined, source } },
  );
  return ids;
}

/**
 * The points (and altitudes) of an activity between two stream indexes, for a segment cut from it,
 * through the privacy engine: the caller must see the activity with this token (else 404), the
 * segment is read by others, so a public segment is never cut from a private activity (400
 * `private`), and no point of the stretch may lie inside the owner's privacy zones (400
 * `start_index` when the stretch starts inside one, else `end_index`). Throws a DomainError naming
 * the bad field.
 */
export async function pointsFromActivity(
  platform: Platform,
  activity: ActivityOwnership & { type: string; facts: { streamsSha256?: string | null } },
  cut: { viewer: Viewer; startIndex: number; endIndex: number; privateSegment: boolean },
): Promise<{ activityType: "Ride" | "Run"; points: LatLng[]; altitudes: (number | null)[] | null }> {
  const { startIndex, endIndex } = cut;
  const seen: Release = await loadRelease(platform.db, activity, viewerAudience(cut.viewer));
  if (!seen.visible) throw new DomainError("not_found", "Activity", "id", "invalid");
  if (activity.type !== "Ride" && activity.type !== "Run") throw new DomainError("invalid", "Segment", "activity_id", "invalid");
  const streams = await loadStreams(platform.db, activity.facts.streamsSha256 ?? null);
  if (!streams?.latlng) throw new DomainError("invalid", "Segment", "activity_id", "invalid");
  const length = streams.latlng.length;
  if (!Number.isInteger(startIndex) || startIndex < 0 || startIndex >= length) throw new DomainError("invalid", "Segment", "start_index", "invalid");
  if (!Number.isInteger(endIndex) || endIndex <= startIndex || endIndex >= length) throw new DomainError("invalid", "Segment", "end_index", "invalid");
  const published = await loadRelease(platform.db, activity, PUBLIC);
  if (!published.visible && !cut.privateSegment) {
    throw new DomainError("invalid", "Segment", "private", "invalid", "a segment cut from a private activity must be private");
  }
  const stretch = publicStretch({ ...published, visible: true }, streams.latlng, startIndex, endIndex);
  if (!stretch.ok) {
    const field = stretch.reason === "start_in_zone" ? "start_index" : "end_index";
    throw new DomainError("invalid", "Segment", field, "invalid", "the stretch reaches into a privacy zone");
  }
  const points: LatLng[] = [];
  const altitudes: (number | null)[] = [];
  for (let k = startIndex; k <= endIndex; k++) {
    const p = streams.latlng[k];
    if (!p) continue;
    points.push([p[0], p[1]]);
    altitudes.push(streams.altitude?.[k] ?? null);
  }
  if (points.length < 2) throw new DomainError("invalid", "Segment", "end_index", "invalid");
  return { activityType: activity.type, points, altitudes: altitudes.every((a) => a !== null) ? altitudes : null };
}
