import { createHash } from "node:crypto";
import type { Queryable } from "../../events/db/types.ts";
import { heatmapTileSource, visibleHeatmapActivities } from "../../projections/heatmaps/queries.ts";
import { getBlob } from "../blobs.ts";
import { publicZonesOf, visibleActivities } from "../privacy/engine.ts";
import { type PrivacyFilter, TileRenderer, zoneHider } from "./render.ts";
import { latOf, lngOf, unitsPerPixel, worldX, worldY } from "./mercator.ts";
import type { PrivacyZoneCircle } from "../../shared/privacy-zones.ts";
import { decodeTracks, type Tracks } from "./tracks.ts";

/** What a tile request needs to know of its map (null when there is no such done map). */
export interface TileSource {
  mapId: number;
  athleteId: number;
  status: string;
  tracksSha256: string | null;
  /** Position of the last event that changed what the athlete allows to be drawn. */
  privacyEpoch: number;
}

export async function findTileSource(db: Queryable, athleteId: number, mapId: number): Promise<TileSource | null> {
  const row = await heatmapTileSource(db, athleteId, mapId);
  if (!row) return null;
  return { mapId, athleteId, status: row.status, tracksSha256: row.tracks_sha256, privacyEpoch: Number(row.epoch) };
}

interface Loaded {
  sha256: string;
  renderer: TileRenderer;
  epoch: number;
  privacy: PrivacyFilter;
  /** The drawn tracks' bounds (computed on first use). */
  bounds?: ViewerBounds | null;
}

/** South-west and north-east corners, [[lat, lng], [lat, lng]]. */
export type HeatmapBounds = [[number, number], [number, number]];

/** About 150 km at the equator in world units: activities whose middles are this close form one area. */
const AREA = Math.round((2 ** 32 / 40_075) * 150);

/**
 * Each shown activity's box of drawn positions (world units: minX, minY, maxX, maxY): activities
 * excluded (no longer public) count nowhere, and positions inside a current privacy zone are left
 * out as the tiles leave them out (a zone added after the build is cleared at render time too), so
 * no corner of a box is a position the tiles hide.
 */
function shownBoxes(
  tracks: Tracks,
  excluded: Uint8Array,
  zones: readonly PrivacyZoneCircle[],
): [number, number, number, number][] {
  const hidden = zoneHider(zones);
  const boxes = new Map<number, [number, number, number, number]>();
  for (let t = 0; t + 1 < tracks.trackStart.length; t++) {
    const activity = tracks.trackActivity[t];
    if (excluded[activity]) continue;
    let box = boxes.get(activity);
    for (let i = tracks.trackStart[t]; i < tracks.trackStart[t + 1]; i++) {
      const x = tracks.xs[i], y = tracks.ys[i];
      if (hidden?.(x, y)) continue;
      if (!box) boxes.set(activity, box = [x, y, x, y]);
      if (x < box[0]) box[0] = x;
      if (y < box[1]) box[1] = y;
      if (x > box[2]) box[2] = x;
      if (y > box[3]) box[3] = y;
    }
  }
  return [...boxes.values()];
}

/** A box of world units as [[south, west], [north, east]] (world y grows southwards). */
function latLngBox(minX: number, minY: number, maxX: number, maxY: number): HeatmapBounds {
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return [[round(latOf(maxY)), round(lngOf(minX))], [round(latOf(minY)), round(lngOf(maxX))]];
}

/**
 * Where the viewer opens: the bounding box of the tracks of the activities still shown (not
 * excluded) in the area that holds the most of them — activities whose middles lie within ~150 km
 * of one activity's. Rides in two cities 1,000 km apart would otherwise open on a view where both
 * are dots; zooming out shows the rest. Null when no activity is shown.
 */
export function tracksBounds(
  tracks: Tracks,
  excluded: Uint8Array,
  zones: readonly PrivacyZoneCircle[] = [],
): HeatmapBounds | null {
  const list = shownBoxes(tracks, excluded, zones);
  if (list.length === 0) return null;
  const middles = list.map((b) => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]);
  // The activity with the most others near it (quadratic: fine for the thousands a heatmap holds;
  // beyond 2,000 a sample of them is tried as the area's centre).
  const step = Math.max(1, Math.floor(list.length / 2000));
  let best = 0, bestCount = -1;
  for (let a = 0; a < list.length; a += step) {
    let count = 0;
    for (let b = 0; b < list.length; b++) {
      if (Math.abs(middles[a][0] - middles[b][0]) <= AREA && Math.abs(middles[a][1] - middles[b][1]) <= AREA) count++;
    }
    if (count > bestCount) best = a, bestCount = count;
  }
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let b = 0; b < list.length; b++) {
    if (Math.abs(middles[best][0] - middles[b][0]) > AREA || Math.abs(middles[best][1] - middles[b][1]) > AREA) {
      continue;
    }
    minX = Math.min(minX, list[b][0]), minY = Math.min(minY, list[b][1]);
    maxX = Math.max(maxX, list[b][2]), maxY = Math.max(maxY, list[b][3]);
  }
  return latLngBox(minX, minY, maxX, maxY);
}

/** Where the viewer opens, and the tiles that may hold heat at one zoom (see TileRenderer.occupiedTiles). */
export interface ViewerBounds {
  open: HeatmapBounds;
  occupied: { z: number; tiles: number[] } | null;
}

/** At most this many tiles are listed as occupied (the page carries them, ~10 bytes each). */
const MAX_OCCUPIED = 4000;

/**
 * The zoom at which a box fits a 1280 × 900 window with the viewer's 24 px padding (at most 16, as
 * the viewer opens): the zoom of a desktop's first view, the one whose occupied tiles are listed.
 */
export function openingZoom(bounds: HeatmapBounds): number {
  const [[south, west], [north, east]] = bounds;
  const width = worldX(east) - worldX(west), height = worldY(south) - worldY(north);
  let z = 16;
  while (z > 0 && (width / unitsPerPixel(z) > 1280 - 48 || height / unitsPerPixel(z) > 900 - 48)) z--;
  return z;
}

export interface RenderedTile {
  png: Uint8Array;
  etag: string;
}

/**
 * Renders and caches tiles: decoded tracks per map (a few maps), rendered PNGs per tile (LRU by
 * count). Cache keys carry the map's tracks (an update) and the athlete's privacy epoch, so a new
 * privacy zone, an activity made private or deleted, changes every tile at once; a deleted map is
 * refused before the cache is read.
 */
export class TileService {
  readonly #maps = new Map<number, Loaded>();
  readonly #tiles = new Map<string, RenderedTile>();
  readonly #loading = new Map<number, Promise<Loaded>>();

  constructor(readonly options: { maxMaps?: number; maxTiles?: number } = {}) {}

  async tile(db: Queryable, source: TileSource, z: number, x: number, y: number): Promise<RenderedTile> {
    // The tracks' hash too: an update of the map (new tracks) changes every tile, on every server.
    const key = `${source.mapId}/${source.tracksSha256}/${source.privacyEpoch}/${z}/${x}/${y}`;
    const hit = this.#tiles.get(key);
    if (hit) {
      this.#tiles.delete(key);
      this.#tiles.set(key, hit);
      return hit;
    }
    const loaded = await this.#load(db, source);
    const png = loaded.renderer.png(z, x, y, loaded.privacy);
    const etag = `"${createHash("sha256").update(key).digest("hex").slice(0, 32)}"`;
    const tile = { png, etag };
    this.#tiles.set(key, tile);
    const maxTiles = this.options.maxTiles ?? 4096;
    while (this.#tiles.size > maxTiles) this.#tiles.delete(this.#tiles.keys().next().value!);
    return tile;
  }

  /**
   * The bounds of what the map draws now (its public activities' tracks), for the viewer to open on;
   * the same decoded tracks the tiles are drawn from (loaded once, cached).
   */
  async bounds(db: Queryable, source: TileSource): Promise<ViewerBounds | null> {
    const loaded = await this.#load(db, source);
    if (loaded.bounds === undefined) {
      const { tracks } = loaded.renderer, { excluded, zones } = loaded.privacy;
      const open = tracksBounds(tracks, excluded, zones);
      if (!open) loaded.bounds = null;
      else {
        const z = openingZoom(open);
        const tiles = loaded.renderer.occupiedTiles(z, loaded.privacy, MAX_OCCUPIED);
        loaded.bounds = { open, occupied: tiles ? { z, tiles } : null };
      }
    }
    return loaded.bounds;
  }

  /**
   * Renders the tiles of the viewer's opening views into the cache: the tiles that may hold heat at
   * the desktop's opening zoom and their parents one and two zooms out (a phone opens a zoom or two
   * further out), at most `limit` of them — so a first visit finds its tiles drawn.
   */
  async prerender(db: Queryable, source: TileSource, limit = 96): Promise<number> {
    const bounds = await this.bounds(db, source);
    if (!bounds?.occupied) return 0;
    const { z, tiles } = bounds.occupied;
    const wanted = new Set<string>();
    for (const key of tiles) {
      const x = Math.floor(key / 2 ** z), y = key % 2 ** z;
      for (let up = 0; up <= 2 && z - up >= 0; up++) wanted.add(`${z - up}/${x >> up}/${y >> up}`);
    }
    if (wanted.size > limit) return 0;
    for (const tile of wanted) {
      const [tz, tx, ty] = tile.split("/").map(Number);
      await this.tile(db, source, tz, tx, ty);
    }
    return wanted.size;
  }

  /** Forgets a map (deleted): its decoded tracks and rendered tiles. */
  forget(mapId: number): void {
    this.#maps.delete(mapId);
    for (const key of [...this.#tiles.keys()]) if (key.startsWith(`${mapId}/`)) this.#tiles.delete(key);
  }

  async #load(db: Queryable, source: TileSource): Promise<Loaded> {
    const current = this.#maps.get(source.mapId);
    if (current && current.sha256 === source.tracksSha256 && current.epoch === source.privacyEpoch) return current;
    const pending = this.#loading.get(source.mapId);
    if (pending) return pending;
    const promise = (async () => {
      let renderer = current?.sha256 === source.tracksSha256 ? current.renderer : undefined;
      if (!renderer) {
        let bytes = source.tracksSha256 ? await getBlob(db, source.tracksSha256) : undefined;
        if (!bytes) {
          // An update superseded the blob since the source was read, and released it (the store
          // dropped it): the map's current blob is the one to draw.
          const now = await findTileSource(db, source.athleteId, source.mapId).catch(() => null);
          if (now?.tracksSha256 && now.tracksSha256 !== source.tracksSha256) {
            source = now;
            bytes = await getBlob(db, now.tracksSha256);
          }
        }
        if (!bytes) throw new Error(`tracks of heatmap ${source.mapId} are missing`);
        renderer = new TileRenderer(decodeTracks(bytes));
      }
      const privacy = await privacyFilter(db, source.athleteId, renderer.tracks.activityIds);
      const loaded: Loaded = { sha256: source.tracksSha256!, renderer, epoch: source.privacyEpoch, privacy };
      if (current && current.epoch !== source.privacyEpoch) this.forget(source.mapId);
      this.#maps.set(source.mapId, loaded);
      const maxMaps = this.options.maxMaps ?? 8;
      while (this.#maps.size > maxMaps) this.forget(this.#maps.keys().next().value!);
      return loaded;
    })();
    this.#loading.set(source.mapId, promise);
    try {
      return await promise;
    } finally {
      this.#loading.delete(source.mapId);
    }
  }
}

/** The athlete's current zones, and the map's activities that are no longer public (or deleted). */
export async function privacyFilter(
  db: Queryable,
  athleteId: number,
  activityIds: readonly number[],
): Promise<PrivacyFilter> {
  const zones = await publicZonesOf(db, athleteId);
  const shown = new Set(await visibleHeatmapActivities(db, visibleActivities(null, "h"), activityIds));
  const excluded = new Uint8Array(activityIds.length);
  activityIds.forEach((id, i) => (excluded[i] = shown.has(id) ? 0 : 1));
  return { excluded, zones };
}

const services = new WeakMap<object, TileService>();

/** The tile service of a platform (one per running server). */
export function tileServiceOf(platform: object): TileService {
  let service = services.get(platform);
  if (!service) services.set(platform, service = new TileService());
  return service;
}
