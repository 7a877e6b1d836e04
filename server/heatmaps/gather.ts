import type { Queryable } from "../../events/db/types.ts";
import { insidePrivacyZone, type PrivacyZoneCircle, privacyZoneBounds } from "../../shared/privacy-zones.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { worldX, worldY } from "./mercator.ts";
import { TracksBuilder } from "./tracks.ts";

/** A build failure whose message is fit to show the athlete (status_message). */
export class HeatmapBuildError extends Error {}

/** Consecutive positions farther apart than this are not joined by a line (GPS gaps, pauses). */
export const MAX_GAP_M = 1000;
const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

const NO_ZONES: Zone[] = [];

interface Zone extends PrivacyZoneCircle {
  south: number;
  north: number;
  west: number;
  east: number;
  cos: number;
}

/** Distance in metres from a zone's centre to the segment a–b (local flat approximation). */
function segmentDistance(zone: Zone, a: readonly [number, number], b: readonly [number, number]): number {
  const k = EARTH_RADIUS_M * RAD;
  const ax = (a[1] - zone.lng) * zone.cos * k, ay = (a[0] - zone.lat) * k;
  const bx = (b[1] - zone.lng) * zone.cos * k, by = (b[0] - zone.lat) * k;
  const dx = bx - ax, dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
  return Math.hypot(ax + t * dx, ay + t * dy);
}

function gapMeters(a: readonly [number, number], b: readonly [number, number]): number {
  const cos = Math.cos(((a[0] + b[0]) / 2) * RAD);
  return Math.hypot((b[0] - a[0]) * RAD, (b[1] - a[1]) * RAD * cos) * EARTH_RADIUS_M;
}

/**
 * Adds one activity's positions to the builder: positions inside a privacy zone are dropped, and a
 * track is cut wherever a position is missing, a zone lies between two positions, or a gap is
 * longer than MAX_GAP_M. Returns the number of points kept.
 */
export function addActivityTrack(
  builder: TracksBuilder,
  activityId: number,
  latlng: readonly ([number, number] | null)[],
  zones: readonly PrivacyZoneCircle[],
): number {
  const boxed: Zone[] = zones.map((z) => ({ ...z, ...privacyZoneBounds(z), cos: Math.cos(z.lat * RAD) }));
  const before = builder.pointCount;
  builder.beginActivity(activityId);
  let previous: readonly [number, number] | null = null;
  for (const p of latlng) {
    if (!p || !Number.isFinite(p[0]) || !Number.isFinite(p[1]) || Math.abs(p[0]) > 90 || Math.abs(p[1]) > 180) {
      builder.endTrack();
      previous = null;
      continue;
    }
    const near = boxed.length === 0 ? NO_ZONES : boxed.filter((z) =>
      (p[0] >= z.south && p[0] <= z.north && p[1] >= z.west && p[1] <= z.east) ||
      (previous !== null && Math.max(p[0], previous[0]) >= z.south && Math.min(p[0], previous[0]) <= z.north &&
        Math.max(p[1], previous[1]) >= z.west && Math.min(p[1], previous[1]) <= z.east)
    );
    if (near.length > 0 && insidePrivacyZone(p, near)) {
      builder.endTrack();
      previous = null;
      continue;
    }
    if (previous !== null) {
      const crossesZone = near.some((z) => segmentDistance(z, previous!, p) <= z.radius_m);
      if (crossesZone || gapMeters(previous, p) > MAX_GAP_M) builder.endTrack();
    }
    builder.point(worldX(p[1]), worldY(p[0]));
    previous = p;
  }
  builder.finishActivity();
  return builder.pointCount - before;
}

/**
 * Reads the streams of the given activities (those still public) and builds the tracks blob.
 * A referenced streams blob that cannot be read fails the build with an English message.
 */
export async function gatherTracks(
  db: Queryable,
  mapId: number,
  activityIds: readonly number[],
  zones: readonly PrivacyZoneCircle[],
): Promise<{ bytes: Uint8Array; activitiesCount: number; pointsCount: number }> {
  const rows = activityIds.length === 0 ? [] : await db.query<{ activity_id: number; streams_sha256: string | null }>(
    `select activity_id, streams_sha256 from heatmap_activities
      where activity_id = any($1::bigint[]) and not private order by activity_id`,
    [activityIds],
  );
  const builder = new TracksBuilder();
  const decoder = new TextDecoder();
  const BATCH = 32;
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH).filter((r) => r.streams_sha256);
    const blobs = await db.query<{ sha256: string; content: Uint8Array }>(
      "select sha256, content from public.blobs where sha256 = any($1::text[])",
      [batch.map((r) => r.streams_sha256)],
    );
    const bySha = new Map(blobs.map((b) => [b.sha256, b.content]));
    for (const row of batch) {
      const content = bySha.get(row.streams_sha256!);
      if (!content) throw new HeatmapBuildError(`The recorded positions of activity ${row.activity_id} could not be read.`);
      let streams: Partial<ActivityStreams>;
      try {
        streams = JSON.parse(decoder.decode(content));
      } catch {
        throw new HeatmapBuildError(`The recorded positions of activity ${row.activity_id} are damaged.`);
      }
      if (Array.isArray(streams.latlng)) addActivityTrack(builder, Number(row.activity_id), streams.latlng, zones);
    }
  }
  return { bytes: builder.encode(mapId), activitiesCount: builder.activityIds.length, pointsCount: builder.pointCount };
}
