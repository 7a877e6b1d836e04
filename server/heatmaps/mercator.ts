/**
 * Web Mercator (EPSG:3857) in integer world coordinates: x and y in [0, 2^32), origin at the
 * north-west corner, so a point fits two Uint32 words and a pixel at zoom z (256-pixel tiles) is
 * 2^(24 − z) world units wide.
 */
export const WORLD = 2 ** 32;
export const MAX_ZOOM = 18;
export const TILE_SIZE = 256;
export const MAX_LATITUDE = 85.05112878;

const RAD = Math.PI / 180;

export function worldX(lng: number): number {
  const x = Math.floor(((lng + 180) / 360) * WORLD);
  return Math.min(WORLD - 1, Math.max(0, x));
}

export function worldY(lat: number): number {
  const clamped = Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, lat));
  const s = Math.sin(clamped * RAD);
  const y = Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * WORLD);
  return Math.min(WORLD - 1, Math.max(0, y));
}

export function lngOf(wx: number): number {
  return (wx / WORLD) * 360 - 180;
}

export function latOf(wy: number): number {
  const n = Math.PI - (2 * Math.PI * wy) / WORLD;
  return Math.atan(Math.sinh(n)) / RAD;
}

/** World units per pixel at a zoom. */
export function unitsPerPixel(z: number): number {
  return 2 ** (24 - z);
}

/** Whether z/x/y names a tile of the map (z 0–18, x and y within 0 … 2^z − 1). */
export function validTile(z: number, x: number, y: number): boolean {
  if (!Number.isInteger(z) || z < 0 || z > MAX_ZOOM) return false;
  const n = 2 ** z;
  return Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < n && y < n;
}
