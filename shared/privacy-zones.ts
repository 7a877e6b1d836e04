/**
 * Privacy zones: circles (centre and radius in metres) inside which an athlete's positions are hidden
 * from everyone else — trimmed from streams for other viewers and never drawn on heatmap tiles.
 * Rows of the `privacy_zones` read model have this shape, so they can be passed in directly.
 */
export interface PrivacyZoneCircle {
  lat: number;
  lng: number;
  radius_m: number;
}

const EARTH_RADIUS_M = 6_371_008.8;
const RAD = Math.PI / 180;

/** Great-circle distance in metres between two [lat, lng] points (haversine). */
export function distanceMeters(a: readonly [number, number], b: readonly [number, number]): number {
  const dLat = (b[0] - a[0]) * RAD;
  const dLng = (b[1] - a[1]) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * RAD) * Math.cos(b[0] * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Whether a [lat, lng] point lies inside (or on the edge of) any of the zones. */
export function insidePrivacyZone(point: readonly [number, number], zones: readonly PrivacyZoneCircle[]): boolean {
  for (const zone of zones) {
    if (distanceMeters(point, [zone.lat, zone.lng]) <= zone.radius_m) return true;
  }
  return false;
}

/** A lat/lng box that surely contains the zone (for cheap pre-filtering before insidePrivacyZone). */
export function privacyZoneBounds(
  zone: PrivacyZoneCircle,
): { south: number; north: number; west: number; east: number } {
  const dLat = (zone.radius_m / EARTH_RADIUS_M) / RAD * 1.01;
  const cos = Math.max(0.01, Math.cos(Math.min(89.9, Math.abs(zone.lat) + dLat) * RAD));
  const dLng = Math.min(180, dLat / cos);
  return { south: zone.lat - dLat, north: zone.lat + dLat, west: zone.lng - dLng, east: zone.lng + dLng };
}

/** Limits the privacy zone extension accepts (metres). */
export const PRIVACY_ZONE_MIN_RADIUS_M = 1;
export const PRIVACY_ZONE_MAX_RADIUS_M = 20_000;
/** Most zones one athlete may keep. */
export const PRIVACY_ZONE_MAX_PER_ATHLETE = 50;
