/**
 * Segment geometry: distances on the sphere, a local metric projection, and the facts derived once
 * when a segment is created (distance, grades, elevations, climb category).
 */

export type LatLng = [number, number];

const EARTH_RADIUS = 6_371_008.8;
const RAD = Math.PI / 180;

/** Great-circle distance in metres. */
export function haversine(a: LatLng, b: LatLng): number {
  const dLat = (b[0] - a[0]) * RAD;
  const dLng = (b[1] - a[1]) * RAD;
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * RAD) * Math.cos(b[0] * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS * Math.asin(Math.min(1, Math.sqrt(s)));
}

/** Equirectangular projection around a reference latitude: metres east (x) and north (y). */
export class LocalProjection {
  readonly #kx: number;
  readonly #ky = EARTH_RADIUS * RAD;
  constructor(readonly refLat: number, readonly refLng: number) {
    this.#kx = EARTH_RADIUS * RAD * Math.cos(refLat * RAD);
  }
  x(p: LatLng): number {
    return (p[1] - this.refLng) * this.#kx;
  }
  y(p: LatLng): number {
    return (p[0] - this.refLat) * this.#ky;
  }
}

/** Cumulative distances (metres) along a polyline, starting at 0. */
export function cumulativeDistances(points: LatLng[]): number[] {
  const out = [0];
  for (let i = 1; i < points.length; i++) out.push(out[i - 1] + haversine(points[i - 1], points[i]));
  return out;
}

/** Degrees of latitude / longitude that span `metres` near a latitude (for bounding boxes). */
export function degreesFor(metres: number, lat: number): { dLat: number; dLng: number } {
  const dLat = metres / (EARTH_RADIUS * RAD);
  const dLng = metres / (EARTH_RADIUS * RAD * Math.max(0.01, Math.cos(lat * RAD)));
  return { dLat, dLng };
}

/** A segment's facts: its length and ends, and the elevation facts of its profile. */
export interface SegmentFacts extends ElevationFacts {
  distance: number;
  startLatlng: LatLng;
  endLatlng: LatLng;
}

/** Climb categories by score = distance (m) × average grade (%): NC, 4, 3, 2, 1, HC. */
export const CLIMB_THRESHOLDS = [8_000, 16_000, 32_000, 64_000, 80_000] as const;
export const CLIMB_CATEGORY_DESC = ["NC", "4", "3", "2", "1", "HC"] as const;
/** Below this average grade (percent) a segment is never a categorized climb. */
export const CLIMB_MIN_GRADE = 3;

/**
 * climb_category 0–5 from distance × grade: score = distance in metres × average grade in percent;
 * below 8,000 → 0 (uncategorized), ≥ 8,000 → 1 (Cat 4), ≥ 16,000 → 2 (Cat 3), ≥ 32,000 → 3 (Cat 2),
 * ≥ 64,000 → 4 (Cat 1), ≥ 80,000 → 5 (HC). Segments averaging under 3 % (flats, descents) are 0
 * whatever their length.
 */
export function climbCategory(distance: number, averageGrade: number): number {
  if (!(averageGrade >= CLIMB_MIN_GRADE) || !(distance > 0)) return 0;
  const score = distance * averageGrade;
  let category = 0;
  for (const threshold of CLIMB_THRESHOLDS) if (score >= threshold) category++;
  return category;
}

/** Window over which maximum_grade is measured, so single noisy GPS points do not dominate. */
export const MAX_GRADE_WINDOW = 100;

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The elevation facts of a segment: measured from an altitude profile, or absent. */
export interface ElevationFacts {
  averageGrade: number;
  maximumGrade: number;
  elevationHigh: number | null;
  elevationLow: number | null;
  totalElevationGain: number;
  climbCategory: number;
}

/** What a segment without any altitudes holds: null elevations, flat grades, uncategorized. */
export const NO_ELEVATION: ElevationFacts = {
  averageGrade: 0,
  maximumGrade: 0,
  elevationHigh: null,
  elevationLow: null,
  totalElevationGain: 0,
  climbCategory: 0,
};

/**
 * Elevation facts from an altitude profile: `along[i]` metres from the start (ascending) at
 * altitude `altitudes[i]`, over a segment `distance` metres long (its own length; the profile may
 * come from an effort's track, whose length differs a little).
 *
 * - elevation_high / elevation_low: the highest and lowest altitude of the profile.
 * - total_elevation_gain: the sum of every rise between consecutive points.
 * - average_grade: (last altitude − first altitude) / distance × 100.
 * - maximum_grade: the steepest grade between two profile points at least MAX_GRADE_WINDOW metres
 *   apart (the nearest such pair from each start point), never below the average grade.
 * - climb_category: climbCategory(distance, average_grade).
 */
export function elevationFacts(along: number[], altitudes: number[], distance: number): ElevationFacts {
  if (altitudes.length < 2 || altitudes.length !== along.length || !(distance > 0)) return NO_ELEVATION;
  let elevationHigh = -Infinity;
  let elevationLow = Infinity;
  let totalElevationGain = 0;
  for (let i = 0; i < altitudes.length; i++) {
    elevationHigh = Math.max(elevationHigh, altitudes[i]);
    elevationLow = Math.min(elevationLow, altitudes[i]);
    if (i > 0) totalElevationGain += Math.max(0, altitudes[i] - altitudes[i - 1]);
  }
  const averageGrade = ((altitudes[altitudes.length - 1] - altitudes[0]) / distance) * 100;
  // Steepest grade over any stretch of at least MAX_GRADE_WINDOW metres (or the whole profile).
  const span = along[along.length - 1] - along[0];
  const window = Math.min(MAX_GRADE_WINDOW, span);
  let maximumGrade = -Infinity;
  let j = 0;
  for (let i = 0; i < along.length; i++) {
    while (j < along.length && along[j] - along[i] < window) j++;
    if (j >= along.length) break;
    const run = along[j] - along[i];
    if (run > 0) maximumGrade = Math.max(maximumGrade, ((altitudes[j] - altitudes[i]) / run) * 100);
  }
  if (!Number.isFinite(maximumGrade)) maximumGrade = averageGrade;
  maximumGrade = Math.max(maximumGrade, averageGrade);
  return {
    averageGrade: round(averageGrade, 1),
    maximumGrade: round(maximumGrade, 1),
    elevationHigh: round(elevationHigh, 1),
    elevationLow: round(elevationLow, 1),
    totalElevationGain: round(totalElevationGain, 1),
    climbCategory: climbCategory(distance, averageGrade),
  };
}

/**
 * Derived facts of a segment from its points and (optional) altitudes. Without altitudes the
 * elevation facts are NO_ELEVATION until a matched effort measures them (SegmentProfileMeasured).
 */
export function segmentFacts(points: LatLng[], altitudes: (number | null)[] | null): SegmentFacts {
  if (points.length < 2) throw new Error("a segment needs at least two points");
  const cumulative = cumulativeDistances(points);
  const distance = cumulative[cumulative.length - 1];
  const alts = altitudes && altitudes.length === points.length &&
      altitudes.every((a) => typeof a === "number" && Number.isFinite(a))
    ? altitudes as number[]
    : null;
  return {
    distance: round(distance, 1),
    ...(alts ? elevationFacts(cumulative, alts, distance) : NO_ELEVATION),
    startLatlng: points[0],
    endLatlng: points[points.length - 1],
  };
}

/** Parses "lat,lng;lat,lng[,alt];…" (CLI). Throws with a message on bad input. */
export function parsePoints(text: string): { points: LatLng[]; altitudes: (number | null)[] | null } {
  const points: LatLng[] = [];
  const altitudes: (number | null)[] = [];
  for (const part of text.split(";").map((s) => s.trim()).filter(Boolean)) {
    const values = part.split(",").map((s) => Number(s.trim()));
    if ((values.length !== 2 && values.length !== 3) || values.some((v) => !Number.isFinite(v))) {
      throw new Error(`bad point "${part}" (expected lat,lng or lat,lng,altitude)`);
    }
    const [lat, lng, alt] = values;
    if (lat < -90 || lat > 90 || lng < -180 || lng > 180) throw new Error(`point "${part}" is out of range`);
    points.push([lat, lng]);
    altitudes.push(values.length === 3 ? alt : null);
  }
  if (points.length < 2) throw new Error("a segment needs at least two points");
  return { points, altitudes: altitudes.every((a) => a !== null) ? altitudes : null };
}
