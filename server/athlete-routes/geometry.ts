import polylineModule from "@mapbox/polyline";
import { hysteresisGain } from "../ingest/elevation.ts";
import { simplify } from "../ingest/geo.ts";
import { cumulativeDistances, type LatLng } from "../segments/geometry.ts";

// @mapbox/polyline ships no types.
const polyline = polylineModule as unknown as {
  encode(points: [number, number][], precision?: number): string;
  decode(encoded: string, precision?: number): [number, number][];
};

export type { LatLng };

/** Route types as Strava numbers them, and the pace a route's moving time is estimated at. */
export const ROUTE_TYPES = { ride: 1, run: 2 } as const;
export const ROUTE_SUB_TYPES = { road: 1, mountain_bike: 2, cross: 3, trail: 4, mixed: 5 } as const;
/** Estimated moving speed (m/s) of a drawn route: 25 km/h riding, 10 km/h running. */
export const ESTIMATED_SPEED: Record<1 | 2, number> = { 1: 25 / 3.6, 2: 10 / 3.6 };
/** A climb counts once the altitude rose this many metres above the last low (hysteresis). */
export const ROUTE_GAIN_THRESHOLD_M = 1;
/** Douglas–Peucker tolerance (degrees, ≈ 5 m) of a route's summary polyline. */
const SUMMARY_TOLERANCE = 0.00005;

export const encodePolyline = (points: LatLng[]) => polyline.encode(points, 5);
export const decodePolyline = (encoded: string): LatLng[] => polyline.decode(encoded, 5);

/** A route's summary polyline: its points simplified (≈ 5 m), encoded. */
export function summaryPolyline(points: LatLng[]): string {
  if (points.length === 0) return "";
  const track = { lat: Float64Array.from(points, (p) => p[0]), lng: Float64Array.from(points, (p) => p[1]) };
  return encodePolyline(simplify(track, SUMMARY_TOLERANCE).map((i) => points[i]));
}

/** Metres from the start at each point (great circle). */
export const distancesAlong = (points: LatLng[]): number[] => (points.length ? cumulativeDistances(points) : []);

/**
 * The geometry a route records: points rounded as the encoded polyline keeps them (5 decimals),
 * consecutive duplicates dropped, altitudes kept per point (rounded to 0.1 m), and the derived
 * distance and elevation gain (hysteresis of ROUTE_GAIN_THRESHOLD_M; 0 without altitudes).
 */
export function routeGeometry(points: LatLng[], altitudes: number[] | null) {
  const kept: LatLng[] = [];
  const alts: number[] = [];
  for (let i = 0; i < points.length; i++) {
    const p: LatLng = [Math.round(points[i][0] * 1e5) / 1e5, Math.round(points[i][1] * 1e5) / 1e5];
    const last = kept[kept.length - 1];
    if (last && last[0] === p[0] && last[1] === p[1]) continue;
    kept.push(p);
    if (altitudes) alts.push(Math.round(altitudes[i] * 10) / 10);
  }
  const along = distancesAlong(kept);
  const distance = along.length ? Math.round(along[along.length - 1] * 10) / 10 : 0;
  const gain = altitudes && alts.length > 1 ? hysteresisGain(alts, 0, alts.length, ROUTE_GAIN_THRESHOLD_M) : 0;
  return {
    points: kept,
    altitudes: altitudes ? alts : null,
    polyline: kept.length ? encodePolyline(kept) : "",
    distance,
    elevationGain: Math.round(gain * 10) / 10,
  };
}
