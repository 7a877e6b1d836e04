import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Elevation from a terrain model: SRTM `.hgt` tiles in a folder the operator configures
 * (`ELEVATION_TILES_DIR`). A tile covers one degree: its name is the south-west corner
 * (`N37W123.hgt`), it holds a square grid of big-endian 16-bit metres (1201² at 3″, 3601² at 1″),
 * rows from north to south, −32768 where the survey has no value (NASA SRTM documentation).
 * Between grid points the elevation is interpolated bilinearly.
 */
export interface Terrain {
  /** Metres above sea level at a position, or null where no tile (or no value) covers it. */
  elevation(lat: number, lng: number): number | null;
}

interface Tile {
  size: number;
  data: DataView;
}

const VOID = -32768;

/** The tile file name for the one-degree square holding (lat, lng). */
export function tileName(lat: number, lng: number): string {
  const la = Math.floor(lat);
  const lo = Math.floor(lng);
  const ns = la >= 0 ? "N" : "S";
  const ew = lo >= 0 ? "E" : "W";
  return `${ns}${String(Math.abs(la)).padStart(2, "0")}${ew}${String(Math.abs(lo)).padStart(3, "0")}.hgt`;
}

const byDir = new Map<string, { terrain: Terrain; changed: number }>();
/** Tiles kept decoded per folder (a 1″ tile is 26 MB, a 3″ one 2.9 MB). */
const MAX_LOADED_TILES = 8;

/** The terrain of the tiles in `dir` (tiles read once, when first needed), or null when no folder is configured or it does not exist. */
export function terrainFrom(dir: string | null | undefined): Terrain | null {
  if (!dir || !existsSync(dir)) return null;
  // A tile written into the folder since (`elevation fetch`, by this process, a worker or another)
  // changes the folder's modification time: what was read of it, and known missing, is read again.
  const changed = statSync(dir).mtimeMs;
  const known = byDir.get(dir);
  if (known && known.changed === changed) return known.terrain;
  const tiles = new Map<string, Tile | null>();
  const tileOf = (name: string): Tile | null => {
    if (tiles.has(name)) {
      const known = tiles.get(name)!;
      tiles.delete(name);
      tiles.set(name, known); // most recently used last
      return known;
    }
    let tile: Tile | null = null;
    for (const candidate of [name, name.toLowerCase()]) {
      const path = join(dir, candidate);
      if (!existsSync(path)) continue;
      const bytes = readFileSync(path);
      const size = Math.round(Math.sqrt(bytes.byteLength / 2));
      if (size >= 2 && size * size * 2 === bytes.byteLength) {
        tile = { size, data: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength) };
      }
      break;
    }
    tiles.set(name, tile);
    // At most MAX_LOADED_TILES grids in memory (a 1″ tile is 26 MB): the least recently used goes.
    let loaded = 0;
    for (const t of tiles.values()) if (t) loaded++;
    for (const [key, t] of tiles) {
      if (loaded <= MAX_LOADED_TILES && tiles.size <= 4 * MAX_LOADED_TILES) break;
      tiles.delete(key);
      if (t) loaded--;
    }
    return tile;
  };
  const terrain: Terrain = {
    elevation(lat: number, lng: number): number | null {
      if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) return null;
      const tile = tileOf(tileName(lat, lng));
      if (!tile) return null;
      const n = tile.size - 1;
      const y = (Math.floor(lat) + 1 - lat) * n; // rows run north to south
      const x = (lng - Math.floor(lng)) * n;
      const r0 = Math.min(n, Math.floor(y));
      const c0 = Math.min(n, Math.floor(x));
      const r1 = Math.min(n, r0 + 1);
      const c1 = Math.min(n, c0 + 1);
      const at = (r: number, c: number) => tile.data.getInt16((r * tile.size + c) * 2, false);
      const v00 = at(r0, c0), v01 = at(r0, c1), v10 = at(r1, c0), v11 = at(r1, c1);
      if (v00 === VOID || v01 === VOID || v10 === VOID || v11 === VOID) return null;
      const fy = y - r0;
      const fx = x - c0;
      return (v00 * (1 - fx) + v01 * fx) * (1 - fy) + (v10 * (1 - fx) + v11 * fx) * fy;
    },
  };
  byDir.set(dir, { terrain, changed });
  return terrain;
}
