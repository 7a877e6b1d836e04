const R = 6371008.8;

/** Great-circle distance in metres. */
export function haversine(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const toRad = Math.PI / 180;
  const dLat = (lat2 - lat1) * toRad;
  const dLng = (lng2 - lng1) * toRad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * toRad) * Math.cos(lat2 * toRad) * Math.sin(dLng / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Positions as two parallel arrays (no tuple per point). */
export interface Track {
  lat: Float64Array;
  lng: Float64Array;
}

/** Round half away from zero, as the published algorithm (and @mapbox/polyline) does. */
const roundAway = (v: number) => Math.floor(Math.abs(v) + 0.5) * (v >= 0 ? 1 : -1);

function encodeDelta(current: number, previous: number): string {
  let c = (current - previous) * 2;
  if (c < 0) c = -c - 1;
  let out = "";
  while (c >= 0x20) {
    out += String.fromCharCode((0x20 | (c & 0x1f)) + 63);
    c /= 32;
  }
  return out + String.fromCharCode((c | 0) + 63);
}

/**
 * Google's encoded polyline (precision 5) of the points at `indices` (all points when omitted), each
 * coordinate first rounded to `digits` decimals when given. Same output as @mapbox/polyline's
 * encode(points, 5), without building a tuple per point.
 */
export function encodePolyline(track: Track, options: { indices?: ArrayLike<number>; digits?: number } = {}): string {
  const count = options.indices ? options.indices.length : track.lat.length;
  if (count === 0) return "";
  const f = options.digits === undefined ? 1 : 10 ** options.digits;
  const rounded = (v: number) => (options.digits === undefined ? v : Math.round(v * f) / f);
  let out = "";
  let prevLat = 0;
  let prevLng = 0;
  for (let k = 0; k < count; k++) {
    const i = options.indices ? options.indices[k] : k;
    const lat = roundAway(rounded(track.lat[i]) * 1e5);
    const lng = roundAway(rounded(track.lng[i]) * 1e5);
    out += encodeDelta(lat, prevLat) + encodeDelta(lng, prevLng);
    prevLat = lat;
    prevLng = lng;
  }
  return out;
}

/** Douglas–Peucker simplification (tolerance in degrees), iterative: the indices of the points kept. */
export function simplify(track: Track, tolerance: number): number[] {
  const { lat, lng } = track;
  const n = lat.length;
  if (n <= 2) return Array.from({ length: n }, (_, i) => i);
  const keep = new Uint8Array(n);
  keep[0] = keep[n - 1] = 1;
  const stack: number[] = [0, n - 1];
  const t2 = tolerance * tolerance;
  while (stack.length) {
    const last = stack.pop()!;
    const first = stack.pop()!;
    let maxD = 0;
    let index = -1;
    const ax = lat[first];
    const ay = lng[first];
    const dx = lat[last] - ax;
    const dy = lng[last] - ay;
    const len = dx * dx + dy * dy;
    for (let i = first + 1; i < last; i++) {
      const px = lat[i];
      const py = lng[i];
      let t = len === 0 ? 0 : ((px - ax) * dx + (py - ay) * dy) / len;
      t = Math.max(0, Math.min(1, t));
      const ex = ax + t * dx - px;
      const ey = ay + t * dy - py;
      const d = ex * ex + ey * ey;
      if (d > maxD) {
        maxD = d;
        index = i;
      }
    }
    if (index !== -1 && maxD > t2) {
      keep[index] = 1;
      stack.push(first, index, index, last);
    }
  }
  const kept: number[] = [];
  for (let i = 0; i < n; i++) if (keep[i]) kept.push(i);
  return kept;
}
