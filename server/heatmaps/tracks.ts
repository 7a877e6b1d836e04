/**
 * The tracks of one heatmap: every drawn run of positions, per activity, in world coordinates,
 * already trimmed by the athlete's privacy zones. Stored once per map as a blob:
 * Uint32 words (little-endian) — magic, map id (hi, lo), activity count, track count, point count,
 * activity ids (hi, lo)…, tracks (activity index, point count)…, points (x, y)….
 * The map id makes the blob unique to its map, so deleting the map may delete the blob.
 */
export const TRACKS_MAGIC = 0x484d5431; // "HMT1"
const HEADER_WORDS = 6;

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
  #xs: number[] = [];
  #ys: number[] = [];
  #open = false;
  #activity = -1;

  beginActivity(activityId: number): void {
    this.endTrack();
    this.#activity = this.activityIds.length;
    this.activityIds.push(activityId);
  }

  /** Adds a point to the open track (a new track when none is open); repeated points are skipped. */
  point(x: number, y: number): void {
    const n = this.#xs.length;
    if (this.#open && this.#xs[n - 1] === x && this.#ys[n - 1] === y) return;
    if (!this.#open) {
      this.#tracks.push(this.#activity, n);
      this.#open = true;
    }
    this.#xs.push(x);
    this.#ys.push(y);
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
    return this.#xs.length;
  }

  encode(mapId: number): Uint8Array {
    this.endTrack();
    const trackCount = this.#tracks.length / 2;
    const points = this.#xs.length;
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
    for (let i = 0; i < points; i++) {
      words[o++] = this.#xs[i];
      words[o++] = this.#ys[i];
    }
    return new Uint8Array(words.buffer);
  }
}

/** Reads a tracks blob; throws on anything that is not one. */
export function decodeTracks(bytes: Uint8Array): Tracks {
  if (bytes.byteLength % 4 !== 0 || bytes.byteLength < HEADER_WORDS * 4) throw new Error("not a tracks blob");
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  const words = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
  if (words[0] !== TRACKS_MAGIC) throw new Error("not a tracks blob");
  const mapId = words[1] * 2 ** 32 + words[2];
  const [activityCount, trackCount, points] = [words[3], words[4], words[5]];
  if (words.length !== HEADER_WORDS + activityCount * 2 + trackCount * 2 + points * 2) throw new Error("truncated tracks blob");
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
  const xs = new Uint32Array(points);
  const ys = new Uint32Array(points);
  for (let i = 0; i < points; i++, o += 2) {
    xs[i] = words[o];
    ys[i] = words[o + 1];
  }
  return { mapId, activityIds, trackActivity, trackStart, xs, ys };
}
