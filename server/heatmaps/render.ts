import { insidePrivacyZone, privacyZoneBounds, type PrivacyZoneCircle } from "../../shared/privacy-zones.ts";
import { latOf, lngOf, MAX_ZOOM, TILE_SIZE, unitsPerPixel, worldX, worldY } from "./mercator.ts";
import { encodeRgbaPng } from "../images/png.ts";
import type { Tracks } from "./tracks.ts";

/** Segments per chunk: the unit a tile query tests against its bounding box. */
const CHUNK = 32;
/** A position is kept at a zoom when it is this many pixels from the last kept one. */
const MIN_STEP_PX = 0.7;
const PIXELS = TILE_SIZE * TILE_SIZE;

/** The tracks simplified for one zoom, cut into chunks with bounding boxes. */
interface Level {
  xs: Uint32Array;
  ys: Uint32Array;
  /** Per chunk: first point, end (exclusive), activity index, and bbox minX, minY, maxX, maxY. */
  chunkStart: Uint32Array;
  chunkEnd: Uint32Array;
  chunkActivity: Uint32Array;
  bbox: Float64Array;
  chunks: number;
  /** Per tile of this zoom ("x/y"): the chunks (ascending) whose box, grown by the brush margin, meets it. */
  byTile: Map<string, Uint32Array>;
}

/** What must not be drawn right now: activities no longer public, current privacy zones. */
export interface PrivacyFilter {
  /** 1 for each activity index (in Tracks.activityIds) that must not be drawn. */
  excluded: Uint8Array;
  zones: readonly PrivacyZoneCircle[];
}

/**
 * Whether a position (world units) lies inside one of the zones, each tested against its box first;
 * null when there are no zones.
 */
export function zoneHider(zones: readonly PrivacyZoneCircle[]): ((x: number, y: number) => boolean) | null {
  if (zones.length === 0) return null;
  const boxes = zones.map((zone) => {
    const b = privacyZoneBounds(zone);
    return { zone: [zone], x0: worldX(b.west), x1: worldX(b.east), y0: worldY(b.north), y1: worldY(b.south) };
  });
  return (x, y) =>
    boxes.some((z) =>
      x >= z.x0 && x <= z.x1 && y >= z.y0 && y <= z.y1 && insidePrivacyZone([latOf(y), lngOf(x)], z.zone)
    );
}

/** Line width in pixels by zoom: thin overviews, bolder streets. */
export function brushWidth(z: number): number {
  return z >= 15 ? 3 : z >= 12 ? 2 : 1;
}

/**
 * Colour ramp of the density of passes (distinct activities through a pixel), log-scaled against
 * a cap derived from the map's activity count so neighbouring tiles agree: purple for one pass,
 * through red and orange to yellow and near-white for the most travelled pixels; transparent where
 * nothing passed.
 */
export function colourRamp(activitiesCount: number): Uint8Array {
  const cap = Math.max(2, Math.min(activitiesCount, 64));
  const stops: [number, number, number, number, number][] = [
    [0, 110, 30, 160, 170],
    [0.35, 225, 35, 75, 215],
    [0.65, 255, 140, 20, 240],
    [0.85, 255, 225, 70, 255],
    [1, 255, 255, 225, 255],
  ];
  const lut = new Uint8Array((cap + 1) * 4);
  for (let c = 1; c <= cap; c++) {
    const t = Math.log(c) / Math.log(cap);
    let i = 0;
    while (i < stops.length - 2 && t > stops[i + 1][0]) i++;
    const [t0, ...a] = stops[i];
    const [t1, ...b] = stops[i + 1];
    const f = Math.max(0, Math.min(1, (t - t0) / (t1 - t0)));
    for (let k = 0; k < 4; k++) lut[c * 4 + k] = Math.round(a[k] + (b[k] - a[k]) * f);
  }
  return lut;
}

/** A transparent 256 × 256 PNG (tiles with nothing drawn). */
export const EMPTY_TILE: Uint8Array = encodeRgbaPng(TILE_SIZE, TILE_SIZE, new Uint8Array(PIXELS * 4));

/** A heatmap's tracks in memory with per-zoom simplified levels, rendering tiles on request. */
export class TileRenderer {
  readonly #levels: (Level | undefined)[] = [];
  readonly #counts = new Uint16Array(PIXELS);
  readonly #stamps = new Int32Array(PIXELS);
  readonly #rgba = new Uint8Array(PIXELS * 4);
  #stamp = 0;
  readonly lut: Uint8Array;

  constructor(readonly tracks: Tracks) {
    this.lut = colourRamp(tracks.activityIds.length);
  }

  level(z: number): Level {
    const cached = this.#levels[z];
    if (cached) return cached;
    const { xs, ys, trackStart, trackActivity } = this.tracks;
    const minStep = unitsPerPixel(z) * MIN_STEP_PX;
    const keptX: number[] = [], keptY: number[] = [];
    const cs: number[] = [], ce: number[] = [], ca: number[] = [], bb: number[] = [];
    for (let t = 0; t + 1 < trackStart.length; t++) {
      const first = keptX.length;
      const end = trackStart[t + 1];
      for (let i = trackStart[t]; i < end; i++) {
        const n = keptX.length;
        if (
          n > first && i < end - 1 && Math.abs(xs[i] - keptX[n - 1]) < minStep &&
          Math.abs(ys[i] - keptY[n - 1]) < minStep
        ) continue;
        keptX.push(xs[i]);
        keptY.push(ys[i]);
      }
      const last = keptX.length;
      for (let s = first; s < last; s += CHUNK) {
        const e = Math.min(last, s + CHUNK + 1);
        let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
        for (let i = s; i < e; i++) {
          if (keptX[i] < minX) minX = keptX[i];
          if (keptX[i] > maxX) maxX = keptX[i];
          if (keptY[i] < minY) minY = keptY[i];
          if (keptY[i] > maxY) maxY = keptY[i];
        }
        cs.push(s), ce.push(e), ca.push(trackActivity[t]), bb.push(minX, minY, maxX, maxY);
        if (e === last) break;
      }
    }
    // Bucket the chunks by tile, so a tile visits only the chunks near it (in the same order).
    const tileUnits = TILE_SIZE * unitsPerPixel(z);
    const margin = (brushWidth(z) + 1) * unitsPerPixel(z);
    const buckets = new Map<string, number[]>();
    for (let c = 0; c < cs.length; c++) {
      const b = c * 4;
      // Exactly the tiles counts() would not skip: x0 ≤ maxX + margin and x1 ≥ minX − margin (same for y).
      const tx0 = Math.ceil((bb[b] - margin) / tileUnits) - 1, tx1 = Math.floor((bb[b + 2] + margin) / tileUnits);
      const ty0 = Math.ceil((bb[b + 1] - margin) / tileUnits) - 1, ty1 = Math.floor((bb[b + 3] + margin) / tileUnits);
      for (let tx = tx0; tx <= tx1; tx++) {
        for (let ty = ty0; ty <= ty1; ty++) {
          const key = `${tx}/${ty}`;
          const list = buckets.get(key);
          if (list) list.push(c);
          else buckets.set(key, [c]);
        }
      }
    }
    const byTile = new Map<string, Uint32Array>();
    for (const [key, list] of buckets) byTile.set(key, Uint32Array.from(list));
    const level: Level = {
      xs: Uint32Array.from(keptX),
      ys: Uint32Array.from(keptY),
      chunkStart: Uint32Array.from(cs),
      chunkEnd: Uint32Array.from(ce),
      chunkActivity: Uint32Array.from(ca),
      bbox: Float64Array.from(bb),
      chunks: cs.length,
      byTile,
    };
    this.#levels[z] = level;
    return level;
  }

  /**
   * The tiles of zoom z that may hold heat: those whose chunk list (the chunks whose box, grown by
   * the brush, meets the tile: the lists counts() draws from) holds a chunk of a shown activity
   * with a position outside the privacy zones. A superset of the tiles drawn on (a chunk's box is
   * wider than its line); every other tile of z is empty. Keys x · 2^z + y, ascending; null when
   * there are more than `limit`.
   */
  occupiedTiles(z: number, privacy: PrivacyFilter, limit: number): number[] | null {
    if (z < 0 || z > MAX_ZOOM) return null;
    const level = this.level(z);
    if (level.byTile.size > limit * 4) return null;
    const hidden = zoneHider(privacy.zones);
    const shown = (c: number): boolean => {
      if (privacy.excluded[level.chunkActivity[c]]) return false;
      if (!hidden) return true;
      for (let i = level.chunkStart[c]; i < level.chunkEnd[c]; i++) if (!hidden(level.xs[i], level.ys[i])) return true;
      return false;
    };
    const keys: number[] = [];
    for (const [key, chunks] of level.byTile) {
      if (!chunks.some(shown)) continue;
      const slash = key.indexOf("/");
      const x = Number(key.slice(0, slash)), y = Number(key.slice(slash + 1));
      if (x < 0 || y < 0 || x >= 2 ** z || y >= 2 ** z) continue;
      keys.push(x * 2 ** z + y);
      if (keys.length > limit) return null;
    }
    return keys.sort((a, b) => a - b);
  }

  /** Pass counts of one tile (256 × 256, row-major); null when nothing is drawn on it. */
  counts(z: number, x: number, y: number, privacy: PrivacyFilter): Uint16Array | null {
    if (z < 0 || z > MAX_ZOOM) return null;
    const level = this.level(z);
    const unit = unitsPerPixel(z);
    const brush = brushWidth(z);
    const margin = (brush + 1) * unit;
    const x0 = x * TILE_SIZE * unit, y0 = y * TILE_SIZE * unit;
    const x1 = x0 + TILE_SIZE * unit, y1 = y0 + TILE_SIZE * unit;
    const counts = this.#counts, stamps = this.#stamps;
    counts.fill(0);
    if (this.#stamp > 2_000_000_000) {
      stamps.fill(0);
      this.#stamp = 0;
    }
    let drawn = false;
    let lastActivity = -1;
    const { xs, ys, bbox } = level;
    const half = brush >> 1;
    const stampAt = (px: number, py: number) => {
      const bx0 = Math.floor(px) - half, by0 = Math.floor(py) - half;
      for (let by = by0; by < by0 + brush; by++) {
        if (by < 0 || by >= TILE_SIZE) continue;
        for (let bx = bx0; bx < bx0 + brush; bx++) {
          if (bx < 0 || bx >= TILE_SIZE) continue;
          const idx = by * TILE_SIZE + bx;
          if (stamps[idx] !== this.#stamp) {
            stamps[idx] = this.#stamp;
            counts[idx]++;
            drawn = true;
          }
        }
      }
    };
    const near = level.byTile.get(`${x}/${y}`);
    if (!near) return null;
    for (let k = 0; k < near.length; k++) {
      const c = near[k];
      const b = c * 4;
      if (
        bbox[b] > x1 + margin || bbox[b + 2] < x0 - margin || bbox[b + 1] > y1 + margin || bbox[b + 3] < y0 - margin
      ) continue;
      const activity = level.chunkActivity[c];
      if (privacy.excluded[activity]) continue;
      if (activity !== lastActivity) {
        this.#stamp++;
        lastActivity = activity;
      }
      const start = level.chunkStart[c], end = level.chunkEnd[c];
      let ax = (xs[start] - x0) / unit, ay = (ys[start] - y0) / unit;
      if (end - start === 1) stampAt(ax, ay);
      for (let i = start + 1; i < end; i++) {
        const bx = (xs[i] - x0) / unit, by = (ys[i] - y0) / unit;
        drawSegment(ax, ay, bx, by, stampAt);
        ax = bx;
        ay = by;
      }
    }
    if (!drawn) return null;
    if (privacy.zones.length > 0) clearZones(counts, z, x, y, privacy.zones);
    return counts;
  }

  /** The tile as RGBA bytes through the colour ramp; null when nothing is drawn on it. */
  rgba(z: number, x: number, y: number, privacy: PrivacyFilter): Uint8Array | null {
    const counts = this.counts(z, x, y, privacy);
    if (!counts) return null;
    const rgba = this.#rgba, lut = this.lut;
    const cap = lut.length / 4 - 1;
    let any = false;
    for (let i = 0; i < PIXELS; i++) {
      const c = counts[i] > cap ? cap : counts[i];
      const o = i * 4, l = c * 4;
      rgba[o] = lut[l];
      rgba[o + 1] = lut[l + 1];
      rgba[o + 2] = lut[l + 2];
      rgba[o + 3] = lut[l + 3];
      if (c) any = true;
    }
    return any ? rgba : null;
  }

  /** The tile as a PNG (the shared transparent tile when nothing is drawn); native zlib. */
  png(z: number, x: number, y: number, privacy: PrivacyFilter): Uint8Array {
    const rgba = this.rgba(z, x, y, privacy);
    if (!rgba) return EMPTY_TILE;
    return encodeRgbaPng(TILE_SIZE, TILE_SIZE, rgba);
  }
}

/** Stamps every pixel along a segment (pixel coordinates of the tile), clipped to the tile. */
function drawSegment(ax: number, ay: number, bx: number, by: number, stamp: (x: number, y: number) => void): void {
  // Liang–Barsky clip to the tile plus a brush margin.
  const lo = -4, hi = TILE_SIZE + 4;
  const dx = bx - ax, dy = by - ay;
  let t0 = 0, t1 = 1;
  const clip = (p: number, q: number) => {
    if (p === 0) return q >= 0;
    const r = q / p;
    if (p < 0) {
      if (r > t1) return false;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return false;
      if (r < t1) t1 = r;
    }
    return true;
  };
  if (!clip(-dx, ax - lo) || !clip(dx, hi - ax) || !clip(-dy, ay - lo) || !clip(dy, hi - ay)) return;
  const sx = ax + t0 * dx, sy = ay + t0 * dy;
  const ex = ax + t1 * dx, ey = ay + t1 * dy;
  const steps = Math.ceil(Math.max(Math.abs(ex - sx), Math.abs(ey - sy)));
  if (steps === 0) {
    stamp(sx, sy);
    return;
  }
  const ix = (ex - sx) / steps, iy = (ey - sy) / steps;
  for (let s = 0; s <= steps; s++) stamp(sx + ix * s, sy + iy * s);
}

/** Empties every pixel whose centre lies inside a privacy zone. */
function clearZones(counts: Uint16Array, z: number, x: number, y: number, zones: readonly PrivacyZoneCircle[]): void {
  const unit = unitsPerPixel(z);
  const x0 = x * TILE_SIZE * unit, y0 = y * TILE_SIZE * unit;
  for (const zone of zones) {
    const b = privacyZoneBounds(zone);
    const px0 = Math.max(0, Math.floor((worldX(b.west) - x0) / unit) - 1);
    const px1 = Math.min(TILE_SIZE - 1, Math.ceil((worldX(b.east) - x0) / unit) + 1);
    const py0 = Math.max(0, Math.floor((worldY(b.north) - y0) / unit) - 1);
    const py1 = Math.min(TILE_SIZE - 1, Math.ceil((worldY(b.south) - y0) / unit) + 1);
    if (px0 > px1 || py0 > py1) continue;
    const one = [zone];
    for (let py = py0; py <= py1; py++) {
      const lat = latOf(y0 + (py + 0.5) * unit);
      for (let px = px0; px <= px1; px++) {
        const idx = py * TILE_SIZE + px;
        if (counts[idx] && insidePrivacyZone([lat, lngOf(x0 + (px + 0.5) * unit)], one)) counts[idx] = 0;
      }
    }
  }
}
