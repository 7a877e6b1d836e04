import polylineModule from "@mapbox/polyline";
import { privacyZonesOfAthletes } from "../../projections/privacy-zones/queries.ts";
import type { Queryable } from "../../events/db/types.ts";
import { insidePrivacyZone, privacyZoneBounds, type PrivacyZoneCircle } from "../../shared/privacy-zones.ts";

// @mapbox/polyline ships no types.
const polyline = polylineModule as unknown as {
  decode(encoded: string, precision?: number): [number, number][];
  encode(points: [number, number][], precision?: number): string;
};

/**
 * Privacy zones applied to activity maps and locations, for everyone but the owner with
 * view_private (see `seesPrivateData`): polylines lose the points inside the owner's zones (the
 * remaining points are re-encoded in order, so the line jumps over the hidden part), and a start or
 * end location inside a zone is hidden (null). Representations call these for every list, with the
 * zones of a page's owners loaded once (`zonesOfOwners`).
 */
export interface ZoneSet {
  zones: readonly PrivacyZoneCircle[];
  /** Boxes around the zones, for a cheap test before the great-circle distance. */
  boxes: readonly { south: number; north: number; west: number; east: number }[];
}

/** A ZoneSet of circles (with their bounding boxes). */
export function zoneSetOf(zones: readonly PrivacyZoneCircle[]): ZoneSet {
  return { zones, boxes: zones.map(privacyZoneBounds) };
}

/** Whether a [lat, lng] lies inside one of the zones. */
export function insideZones(point: readonly [number, number], set: ZoneSet): boolean {
  for (let i = 0; i < set.boxes.length; i++) {
    const box = set.boxes[i];
    if (point[0] < box.south || point[0] > box.north || point[1] < box.west || point[1] > box.east) continue;
    if (insidePrivacyZone(point, [set.zones[i]])) return true;
  }
  return false;
}

/**
 * The privacy zones of each of the given athletes that has any, in one query. Athletes without
 * zones are absent from the map (callers then skip all work for their activities).
 */
export async function zonesOfOwners(db: Queryable, athleteIds: readonly number[]): Promise<Map<number, ZoneSet>> {
  const ids = [...new Set(athleteIds)];
  const result = new Map<number, ZoneSet>();
  if (ids.length === 0) return result;
  const rows = await privacyZonesOfAthletes(db, ids);
  const byAthlete = new Map<number, PrivacyZoneCircle[]>();
  for (const r of rows) {
    const id = Number(r.athlete_id);
    const list = byAthlete.get(id) ?? [];
    list.push({ lat: Number(r.lat), lng: Number(r.lng), radius_m: Number(r.radius_m) });
    byAthlete.set(id, list);
  }
  for (const [id, zones] of byAthlete) result.set(id, zoneSetOf(zones));
  return result;
}

/** An encoded polyline (precision 5) without its points inside the zones; null stays null. */
export function cropPolyline(encoded: string | null, set: ZoneSet | undefined): string | null {
  if (encoded === null || !set || set.zones.length === 0 || encoded === "") return encoded;
  const points = polyline.decode(encoded, 5);
  const kept = points.filter((p) => !insideZones(p, set));
  return kept.length === points.length ? encoded : polyline.encode(kept, 5);
}

/**
 * A start/end location as others see it: null when the recorded point or its shown (rounded) form
 * lies inside a zone, else the shown form.
 */
export function locationOutsideZones(
  recorded: [number, number] | null,
  shown: [number, number] | null,
  set: ZoneSet | undefined,
): [number, number] | null {
  if (!set || !recorded || !shown) return shown;
  return insideZones(recorded, set) || insideZones(shown, set) ? null : shown;
}
