import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { TileRenderer } from "../../server/heatmaps/render.ts";
import { openingZoom, tracksBounds } from "../../server/heatmaps/tiles.ts";
import { TILE_SIZE, unitsPerPixel } from "../../server/heatmaps/mercator.ts";
import type { Tracks } from "../../server/heatmaps/tracks.ts";
import type { PrivacyZoneCircle } from "../../shared/privacy-zones.ts";
import { tracksOf } from "./heatmap-tracks.ts";

/**
 * The viewer asks only for tiles that may hold heat (server/web/heatmap-viewer/occupancy.js, run
 * here as the browser runs it, against TileRenderer.occupiedTiles): every tile the renderer draws
 * anything on, at every zoom from far out to closer than the opening view, must be asked for.
 */
type Coords = { z: number; x: number; y: number };
const script = readFileSync(new URL("../../server/web/heatmap-viewer/occupancy.js", import.meta.url), "utf8");
function ruleOf(occupied: { z: number; tiles: number[] } | null): (c: Coords) => boolean {
  const window: { heatmapMayHoldHeat?: (o: unknown) => (c: Coords) => boolean } = {};
  runInNewContext(script, { window });
  return window.heatmapMayHoldHeat!(occupied);
}

/** A wandering ride of `n` points around a start, ~8 m apart. */
function wander(start: [number, number], seed: number, n = 3000): [number, number][] {
  let [lat, lng] = start, heading = seed;
  const points: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    heading += Math.sin(seed * 7 + i / 37) * 0.25;
    lat += Math.cos(heading) * 0.00007;
    lng += Math.sin(heading) * 0.0001;
    points.push([lat, lng]);
  }
  return points;
}

const LYON: [number, number] = [45.76, 4.83];
const RIDES = [wander(LYON, 1), wander(LYON, 2), wander([45.70, 4.90], 3), wander([48.85, 2.35], 4, 800)];

/** Every tile of zoom z around the tracks (their box grown by two tiles). */
function tilesAround(tracks: Tracks, z: number): Coords[] {
  const span = TILE_SIZE * unitsPerPixel(z);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let i = 0; i < tracks.xs.length; i++) {
    minX = Math.min(minX, tracks.xs[i]), maxX = Math.max(maxX, tracks.xs[i]);
    minY = Math.min(minY, tracks.ys[i]), maxY = Math.max(maxY, tracks.ys[i]);
  }
  const out: Coords[] = [];
  const n = 2 ** z;
  for (let x = Math.max(0, Math.floor(minX / span) - 2); x <= Math.min(n - 1, Math.floor(maxX / span) + 2); x++) {
    for (let y = Math.max(0, Math.floor(minY / span) - 2); y <= Math.min(n - 1, Math.floor(maxY / span) + 2); y++) {
      out.push({ z, x, y });
    }
  }
  return out;
}

describe("the heat tiles the viewer asks for", () => {
  const tracks = tracksOf(RIDES);
  const renderer = new TileRenderer(tracks);

  it("every tile with heat, at every zoom; far fewer requests than tiles around the tracks", () => {
    const privacy = { excluded: new Uint8Array(RIDES.length), zones: [] };
    const open = tracksBounds(tracks, privacy.excluded)!;
    const z = openingZoom(open);
    expect(z).toBeGreaterThanOrEqual(10);
    expect(z).toBeLessThanOrEqual(16);
    const tiles = renderer.occupiedTiles(z, privacy, 4000)!;
    expect(tiles.length).toBeGreaterThan(0);
    const asks = ruleOf({ z, tiles });
    for (let zoom = Math.max(0, z - 8); zoom <= Math.min(18, z + 2); zoom++) {
      let drawn = 0, asked = 0, around = 0;
      for (const c of tilesAround(tracks, zoom)) {
        around++;
        const heat = renderer.counts(c.z, c.x, c.y, privacy) !== null;
        if (heat) drawn++;
        if (asks(c)) asked++;
        if (heat) expect(asks(c), `tile ${c.z}/${c.x}/${c.y} holds heat`).toBe(true);
      }
      expect(drawn).toBeGreaterThan(0);
      // Near the opening zoom, most tiles around the rides are empty and never asked for.
      if (zoom >= z - 1 && zoom <= z + 1) expect(asked).toBeLessThan(around / 2);
    }
  });

  it("an activity no longer public and positions inside a privacy zone make no tile ask", () => {
    const z = 13;
    const all = renderer.occupiedTiles(z, { excluded: new Uint8Array(RIDES.length), zones: [] }, 4000)!;
    // Paris (activity 3) made private: its tiles are no longer listed.
    const excluded = Uint8Array.from([0, 0, 0, 1]);
    const without = renderer.occupiedTiles(z, { excluded, zones: [] }, 4000)!;
    const paris = tracksOf([RIDES[3]]);
    const parisTiles = new Set(tilesAround(paris, z).map((c) => c.x * 2 ** z + c.y));
    expect(all.some((k) => parisTiles.has(k))).toBe(true);
    expect(without.some((k) => parisTiles.has(k))).toBe(false);
    // A zone over the whole Paris ride (added after the build): the same.
    const zones: PrivacyZoneCircle[] = [{ lat: 48.85, lng: 2.35, radius_m: 20_000 }];
    const zoned = renderer.occupiedTiles(z, { excluded: new Uint8Array(RIDES.length), zones }, 4000)!;
    expect(zoned.some((k) => parisTiles.has(k))).toBe(false);
    expect(zoned.length).toBe(without.length);
  });

  it("a tile the brush reaches from beyond its edge (listed at a closer zoom) is asked for", () => {
    // A north-south line half a pixel of zoom 12 east of a tile's east edge: zoom 12's 2 px brush
    // stamps the tile's last column, while at zoom 16 the line lies 8 px beyond the edge.
    const unit = unitsPerPixel(12), span = TILE_SIZE * unit;
    const x = 2108, y = 1460, edge = (x + 1) * span + unit / 2;
    const line: Tracks = {
      mapId: 1,
      activityIds: [1],
      trackActivity: Uint32Array.from([0]),
      trackStart: Uint32Array.from([0, 50]),
      xs: Uint32Array.from({ length: 50 }, () => edge),
      ys: Uint32Array.from({ length: 50 }, (_, i) => y * span + 20 * unit + i * unit * 4),
    };
    const lineRenderer = new TileRenderer(line);
    const privacy = { excluded: new Uint8Array(1), zones: [] };
    expect(lineRenderer.counts(12, x, y, privacy)).not.toBeNull();
    const tiles = lineRenderer.occupiedTiles(16, privacy, 4000)!;
    const n = 2 ** 16;
    expect(tiles.every((k) => Math.floor(k / n) >= (x + 1) * 16)).toBe(true);
    expect(ruleOf({ z: 16, tiles })({ z: 12, x, y })).toBe(true);
  });

  it("no list when there are more tiles than the limit: every tile is asked for", () => {
    const privacy = { excluded: new Uint8Array(RIDES.length), zones: [] };
    expect(renderer.occupiedTiles(16, privacy, 10)).toBeNull();
    expect(ruleOf(null)({ z: 3, x: 1, y: 1 })).toBe(true);
  });
});
