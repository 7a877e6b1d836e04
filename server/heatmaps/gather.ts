import type { Queryable } from "../../events/db/types.ts";
import { visibleHeatmapStreams } from "../../projections/heatmaps/queries.ts";
import { insidePrivacyZone, privacyZoneBounds, type PrivacyZoneCircle } from "../../shared/privacy-zones.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { blobRowBytes, blobRowLatlngTexts, blobRowTexts, deleteBlobs, fileBlobTexts } from "../blobs.ts";
import type { Platform } from "../platform.ts";
import { visibleActivities } from "../privacy/engine.ts";
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

/** MAX_GAP_M in degrees of a great circle, squared, with a margin for rounding. */
const SURELY_NO_GAP_DEG2 = (0.99 * MAX_GAP_M / EARTH_RADIUS_M / RAD) ** 2;

/**
 * Whether two positions are farther apart than MAX_GAP_M, as gapMeters says. Consecutive
 * positions are almost always metres apart: hypot(dLat, dLng) bounds the distance from above
 * (cos ≤ 1), so those are settled without the cosine.
 */
function longGap(a: readonly [number, number], b: readonly [number, number]): boolean {
  const dLat = b[0] - a[0], dLng = b[1] - a[1];
  if (dLat * dLat + dLng * dLng <= SURELY_NO_GAP_DEG2) return false;
  return gapMeters(a, b) > MAX_GAP_M;
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
    const near = boxed.length === 0
      ? NO_ZONES
      : boxed.filter((z) =>
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
      if (crossesZone || longGap(previous, p)) builder.endTrack();
    }
    builder.point(worldX(p[1]), worldY(p[0]));
    previous = p;
  }
  builder.finishActivity();
  return builder.pointCount - before;
}

/**
 * Reads the streams of the given activities (those still public) and builds the tracks blob, after
 * what `builder` already holds (an update's kept tracks). A referenced streams blob that cannot be
 * read fails the build with an English message.
 */
export async function gatherTracks(
  db: Queryable,
  mapId: number,
  activityIds: readonly number[],
  zones: readonly PrivacyZoneCircle[],
  builder = new TracksBuilder(),
): Promise<{ bytes: Uint8Array; activitiesCount: number; pointsCount: number }> {
  const rows = await visibleHeatmapStreams(db, visibleActivities(null, "h"), activityIds);
  const BATCH = 32;
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH).filter((r) => r.streams_sha256);
    const bySha = await latlngTexts(db, batch.map((r) => r.streams_sha256!));
    for (const row of batch) {
      const found = bySha.get(row.streams_sha256!);
      if (found === undefined) {
        throw new HeatmapBuildError(`The recorded positions of activity ${row.activity_id} could not be read.`);
      }
      let latlng = found.latlng === null ? undefined : parseLatlngArray(found.latlng);
      if (latlng === null || found.full !== null) {
        // Not the compact form JSON.stringify writes (or not UTF-8): parse the whole document.
        const text = found.full ?? (await streamsTexts(db, [row.streams_sha256!])).get(row.streams_sha256!);
        if (text === undefined) {
          throw new HeatmapBuildError(`The recorded positions of activity ${row.activity_id} could not be read.`);
        }
        let streams: Partial<ActivityStreams>;
        try {
          streams = JSON.parse(text);
        } catch {
          throw new HeatmapBuildError(`The recorded positions of activity ${row.activity_id} are damaged.`);
        }
        latlng = streams.latlng;
      }
      if (Array.isArray(latlng)) addActivityTrack(builder, Number(row.activity_id), latlng, zones);
    }
  }
  return { bytes: builder.encode(mapId), activitiesCount: builder.activityIds.length, pointsCount: builder.pointCount };
}

/**
 * The streams blobs (JSON) of a batch as text, by sha256. Read as text in the database
 * (convert_from): two to three times faster than moving the bytes as bytea (hex) and decoding
 * them here. A batch holding a blob that is not UTF-8 is read again as bytes (decoded as before).
 */
async function streamsTexts(db: Queryable, shas: string[]): Promise<Map<string, string>> {
  const inFiles = await fileBlobTexts(db, shas); // streams kept as files (server/blobs.ts)
  const texts = await streamsTextsInDb(db, shas);
  for (const [sha, text] of inFiles) texts.set(sha, text);
  return texts;
}

async function streamsTextsInDb(db: Queryable, shas: string[]): Promise<Map<string, string>> {
  try {
    const rows = await blobRowTexts(db, shas);
    return new Map(rows.map((r) => [r.sha256, r.text]));
  } catch {
    const rows = await blobRowBytes(db, shas);
    const decoder = new TextDecoder();
    return new Map(rows.map((r) => [r.sha256, decoder.decode(r.content)]));
  }
}

/**
 * The `latlng` part of each streams document, as text (by sha256): the database finds the key
 * (in the bytes: a text search would count characters) and returns the text from the array's
 * start on, so whatever precedes it is not moved and only the array itself is parsed. latlng null: the document has no positions. A batch
 * holding a blob that is not UTF-8 comes back whole (`full`), as streamsTexts reads it.
 */
async function latlngTexts(
  db: Queryable,
  shas: string[],
): Promise<Map<string, { latlng: string | null; full: string | null }>> {
  try {
    const rows = await blobRowLatlngTexts(db, shas);
    const texts = new Map(rows.map((r) => [r.sha256, { latlng: r.latlng, full: null as string | null }]));
    // Streams kept as files (server/blobs.ts): their rows are empty; the whole document is read.
    for (const [sha, text] of await fileBlobTexts(db, shas)) texts.set(sha, { latlng: null, full: text });
    return texts;
  } catch {
    const full = await streamsTexts(db, shas);
    return new Map([...full].map(([sha, text]) => [sha, { latlng: null, full: text }]));
  }
}

/**
 * Parses the latlng array at the start of `text` (as JSON.stringify writes it: no whitespace;
 * elements `[lat,lng]` or null, so the array ends at the first "]]", "null]" or at "[]").
 * Null when the text is not in that form (the caller then parses the whole document).
 */
export function parseLatlngArray(text: string): ([number, number] | null)[] | null {
  if (text.startsWith("[]")) return [];
  if (!text.startsWith("[")) return null;
  const a = text.indexOf("]]");
  const b = text.indexOf("null]");
  const ends = [a >= 0 ? a + 2 : Infinity, b >= 0 ? b + 5 : Infinity];
  const end = Math.min(...ends);
  if (!Number.isFinite(end)) return null;
  try {
    const value = JSON.parse(text.slice(0, end));
    return Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** Removes a map's tracks blob, its row and its file (unique to its map: the blob embeds the map id). */
export async function deleteTracksBlob(platform: Platform, sha256: string): Promise<void> {
  await deleteBlobs(platform.db, [sha256]);
}
