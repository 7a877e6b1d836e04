import { deflateRawSync, inflateRawSync } from "node:zlib";

/**
 * The tracks of one heatmap: every drawn run of positions, per activity, in world coordinates,
 * already trimmed by the athlete's privacy zones. Stored once per map as a blob:
 * Uint32 words (little-endian) — magic, map id (hi, lo), activity count, track count, point count,
 * activity ids (hi, lo)…, tracks (activity index, point count)…, points (x, y)….
 * The map id makes the blob unique to its map, so deleting the map may delete the blob.
 *
 * Written compressed ("HMT2"): the magic word, then the same words deflated (raw deflate, native
 * zlib) with each point stored as the zigzag difference from the previous one, so the
 * 8 bytes per point shrink to about 2 and the blob is written and read several times faster.
 * Plain "HMT1" blobs (written before) are still read.
 */
export const TRACKS_MAGIC = 0x484d5431; // "HMT1"
export const TRACKS_MAGIC_DEFLATED = 0x484d5432; // "HMT2"
const HEADER_WORDS = 6;

/** Point words (x, y pairs) to zigzag deltas, in place. */
function toDeltas(words: Uint32Array, from: number): void {
  let px = 0, py = 0;
  for (let i = from; i < words.length; i += 2) {
    const x = words[i], y = words[i + 1];
    const dx = (x - px) | 0, dy = (y - py) | 0;
    words[i] = (dx << 1) ^ (dx >> 31);
    words[i + 1] = (dy << 1) ^ (dy >> 31);
    px = x;
    py = y;
  }
}

/** The inverse of toDeltas, in place. */
function fromDeltas(words: Uint32Array, from: number): void {
  let px = 0, py = 0;
  for (let i = from; i < words.length; i += 2) {
    const zx = words[i], zy = words[i + 1];
    px = (px + ((zx >>> 1) ^ -(zx & 1))) >>> 0;
    py = (py + ((zy >>> 1) ^ -(zy & 1))) >>> 0;
    words[i] = px;
    words[i + 1] = py;
  }
}

export interface Tracks {
  mapId: number;
  activityIds: number[];
  /** Per track: index into activityIds. Tracks of one activity are contiguous. */
  trackActivity: Uint32Array;
  /** Per track: index of its first point; trackStart[n] = point count. */
  trackStart: Uint32Array;
  xs: Uint32Array;
  ys: Uint32Array;
}

/** Accumulates tracks activity by activity. */
export class TracksBuilder {
  readonly activityIds: number[] = [];
  readonly #tracks: number[] = [];
  /** Points as (x, y) pairs in a growable typed array (millions of points for large maps). */
  #xy = new Uint32Array(1 << 16);
  #points = 0;
  #open = false;
  #activity = -1;

  beginActivity(activityId: number): void {
    this.endTrack();
    this.#activity = this.activityIds.length;
    this.activityIds.push(activityId);
  }

  /** Adds a point to the open track (a new track when none is open); repeated points are skipped. */
  point(x: number, y: number): void {
    const n = this.#points;
    if (this.#open && this.#xy[2 * n - 2] === x && this.#xy[2 * n - 1] === y) return;
    if (!this.#open) {
      this.#tracks.push(this.#activity, n);
      this.#open = true;
    }
    if (2 * n + 2 > this.#xy.length) {
      const grown = new Uint32Array(this.#xy.length * 2);
      grown.set(this.#xy);
      this.#xy = grown;
    }
    this.#xy[2 * n] = x;
    this.#xy[2 * n + 1] = y;
    this.#points = n + 1;
  }

  endTrack(): void {
    this.#open = false;
  }

  /** Drops an activity that contributed no point (keeps the activity list meaningful). */
  finishActivity(): void {
    this.endTrack();
    const last = this.#tracks.length - 2;
    if (this.#activity >= 0 && (last < 0 || this.#tracks[last] !== this.#activity)) {
      this.activityIds.pop();
      this.#activity = -1;
    }
  }

  get pointCount(): number {
    return this.#points;
  }

  /**
   * Copies the tracks of another map's activities that `keep` accepts, activity by activity in
   * their order (a map's update keeps what it had: nothing is gathered again from the streams).
   */
  addTracks(tracks: Tracks, keep: (activityId: number) => boolean): void {
    const { activityIds, trackActivity, trackStart, xs, ys } = tracks;
    let current = -1;
    for (let t = 0; t + 1 < trackStart.length; t++) {
      const activity = trackActivity[t];
      if (!keep(activityIds[activity])) continue;
      if (activity !== current) {
        if (current >= 0) this.finishActivity();
        this.beginActivity(activityIds[activity]);
        current = activity;
      }
      this.endTrack();
      for (let i = trackStart[t]; i < trackStart[t + 1]; i++) this.point(xs[i], ys[i]);
    }
    if (current >= 0) this.finishActivity();
  }

  encode(mapId: number): Uint8Array {
    this.endTrack();
    const trackCount = this.#tracks.length / 2;
    const points = this.#points;
    const words = new Uint32Array(HEADER_WORDS + this.activityIds.length * 2 + trackCount * 2 + points * 2);
    words.set([TRACKS_MAGIC, Math.floor(mapId / 2 ** 32), mapId >>> 0, this.activityIds.length, trackCount, points]);
    let o = HEADER_WORDS;
    for (const id of this.activityIds) {
      words[o++] = Math.floor(id / 2 ** 32);
      words[o++] = id >>> 0;
    }
    for (let t = 0; t < trackCount; t++) {
      const start = this.#tracks[t * 2 + 1];
      const end = t + 1 < trackCount ? this.#tracks[t * 2 + 3] : points;
      words[o++] = this.#tracks[t * 2];
      words[o++] = end - start;
    }
    words.set(this.#xy.subarray(0, points * 2), o);
    toDeltas(words, o);
    const deflated = deflateRawSync(new Uint8Array(words.buffer), { level: 1 });
    const out = new Uint8Array(4 + deflated.byteLength);
    new DataView(out.buffer).setUint32(0, TRACKS_MAGIC_DEFLATED, true);
    out.set(deflated, 4);
    return out;
  }
}

/** Reads a tracks blob; throws on anything that is not one. */
export function decodeTracks(bytes: Uint8Array): Tracks {
  let deflated = false;
  if (
    bytes.byteLength >= 4 &&
    new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true) === TRACKS_MAGIC_DEFLATED
  ) {
    try {
      bytes = new Uint8Array(inflateRawSync(bytes.subarray(4)));
    } catch {
      throw new Error("not a tracks blob");
    }
    deflated = true;
  }
  if (bytes.byteLength % 4 !== 0 || bytes.byteLength < HEADER_WORDS * 4) throw new Error("not a tracks blob");
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
  if (words[0] !== TRACKS_MAGIC) throw new Error("not a tracks blob");
  const mapId = words[1] * 2 ** 32 + words[2];
  const [activityCount, trackCount, points] = [words[3], words[4], words[5]];
  if (words.length !== HEADER_WORDS + activityCount * 2 + trackCount * 2 + points * 2) {
    throw new Error("truncated tracks blob");
  }
  let o = HEADER_WORDS;
  const activityIds: number[] = [];
  for (let i = 0; i < activityCount; i++, o += 2) activityIds.push(words[o] * 2 ** 32 + words[o + 1]);
  const trackActivity = new Uint32Array(trackCount);
  const trackStart = new Uint32Array(trackCount + 1);
  let start = 0;
  for (let t = 0; t < trackCount; t++, o += 2) {
    trackActivity[t] = words[o];
    trackStart[t] = start;
    start += words[o + 1];
  }
  trackStart[trackCount] = start;
  if (deflated) fromDeltas(words.subarray(o), 0);
  const xs = new Uint32Array(points);
  const ys = new Uint32Array(points);
  for (let i = 0; i < points; i++, o += 2) {
    xs[i] = words[o];
    ys[i] = words[o + 1];
  }
  return { mapId, activityIds, trackActivity, trackStart, xs, ys };
}
