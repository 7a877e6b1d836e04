import { latOf, lngOf, MAX_ZOOM, WORLD } from "./mercator.ts";
import type { Tracks } from "./tracks.ts";

/** The viewport center_zoom is chosen for (pixels). */
const VIEW_WIDTH = 960;
const VIEW_HEIGHT = 640;
/** center_zoom never goes beyond this (a single point would otherwise zoom to 18). */
const MAX_CENTER_ZOOM = 16;

export interface HeatmapStats {
  tilesCount: number;
  centerLatlng: [number, number] | null;
  centerZoom: number | null;
}

/**
 * tiles_count: the tiles, over every zoom 0–18, that a drawn track passes through;
 * center_latlng: the middle of the tracks' bounding box; center_zoom: the largest zoom at which
 * that box fits a 960 × 640 pixel view (at most 16).
 */
export function heatmapStats(tracks: Tracks): HeatmapStats {
  const { xs, ys, trackStart } = tracks;
  const n = xs.length;
  if (n === 0) return { tilesCount: 0, centerLatlng: null, centerZoom: null };
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = xs[i], y = ys[i];
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  const shift = 2 ** (32 - MAX_ZOOM);
  const side = 2 ** MAX_ZOOM;
  let tiles = new Set<number>();
  for (let t = 0; t + 1 < trackStart.length; t++) {
    let px = -1, py = -1;
    for (let i = trackStart[t]; i < trackStart[t + 1]; i++) {
      const tx = Math.floor(xs[i] / shift), ty = Math.floor(ys[i] / shift);
      if (tx === px && ty === py) continue;
      if (px >= 0 && (Math.abs(tx - px) > 1 || Math.abs(ty - py) > 1)) {
        // Walk the tiles between two distant positions.
        const fx0 = xs[i - 1] / shift, fy0 = ys[i - 1] / shift, fx1 = xs[i] / shift, fy1 = ys[i] / shift;
        const steps = Math.ceil(Math.max(Math.abs(fx1 - fx0), Math.abs(fy1 - fy0)) * 2);
        for (let s = 1; s < steps; s++) {
          tiles.add(Math.floor(fx0 + ((fx1 - fx0) * s) / steps) * side + Math.floor(fy0 + ((fy1 - fy0) * s) / steps));
        }
      }
      tiles.add(tx * side + ty);
      px = tx;
      py = ty;
    }
  }
  let count = tiles.size;
  for (let z = MAX_ZOOM - 1; z >= 0; z--) {
    const next = new Set<number>();
    const zSide = 2 ** (z + 1);
    for (const key of tiles) {
      const tx = Math.floor(key / zSide), ty = key % zSide;
      next.add((tx >> 1) * (zSide / 2) + (ty >> 1));
    }
    tiles = next;
    count += tiles.size;
  }
  const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2;
  let zoom = 0;
  for (let z = MAX_CENTER_ZOOM; z >= 0; z--) {
    const perPixel = WORLD / (256 * 2 ** z);
    if ((maxX - minX) / perPixel <= VIEW_WIDTH && (maxY - minY) / perPixel <= VIEW_HEIGHT) {
      zoom = z;
      break;
    }
  }
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return { tilesCount: count, centerLatlng: [round(latOf(cy)), round(lngOf(cx))], centerZoom: zoom };
}
