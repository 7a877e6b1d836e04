import { tileName } from "../ingest/terrain.ts";

/**
 * The one-degree squares (SRTM tile names, `N45E013.hgt`) a track passes through: each point's, and
 * for each stretch between two points every square its box spans (a summary polyline keeps few
 * points, so a stretch may cut a square's corner without a point in it).
 */
export function squaresOf(points: readonly (readonly [number, number])[], into = new Set<string>()): Set<string> {
  const valid = (p: readonly [number, number]) =>
    Number.isFinite(p[0]) && Number.isFinite(p[1]) && Math.abs(p[0]) < 90 && Math.abs(p[1]) <= 180;
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (!valid(p)) continue;
    into.add(tileName(p[0], Math.min(p[1], 179.999999)));
    const q = points[i + 1];
    if (!q || !valid(q) || Math.abs(q[1] - p[1]) > 180) continue;
    const south = Math.floor(Math.min(p[0], q[0])), north = Math.floor(Math.max(p[0], q[0]));
    const west = Math.floor(Math.min(p[1], q[1])), east = Math.floor(Math.min(Math.max(p[1], q[1]), 179.999999));
    // A stretch spans at most a few squares (a gap in a recording can be long: cap the box).
    if ((north - south + 1) * (east - west + 1) > 16) continue;
    for (let lat = south; lat <= north; lat++) for (let lng = west; lng <= east; lng++) into.add(tileName(lat, lng));
  }
  return into;
}

/** `N45E013.hgt` → the URL of the source template (`{band}` N45, `{tile}` N45E013). */
export function tileUrl(template: string, name: string): string {
  const tile = name.replace(/\.hgt$/, "");
  return template.replaceAll("{band}", tile.slice(0, 3)).replaceAll("{tile}", tile);
}
