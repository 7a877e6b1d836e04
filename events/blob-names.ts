/**
 * Which blobs an event names (server/blobs.ts keeps their bytes; events carry only the sha-256).
 *
 * A blob is named by these data fields, wherever they sit in an event's data:
 * - `originalSha256` (UploadReceived: the file as uploaded),
 * - `streamsSha256`, `polylineSha256` (an activity's facts: ActivityRecorded, ActivityReprocessed),
 * - `tracksSha256` (HeatmapTracksGathered),
 * - `sha256` (a photo's renditions: PhotoAdded),
 * - `large`, `medium` of AthletePictureChanged (the picture's renditions).
 * `contentSha256` (an upload's decompressed content, for duplicate checks) and the OAuth hashes
 * (`…Hash`) name no blob. tests/unit/blob-names.test.ts checks every catalogue field spelled like
 * a sha-256 is one or the other.
 */
export const BLOB_FIELDS = ["originalSha256", "streamsSha256", "polylineSha256", "tracksSha256", "sha256"] as const;

/** Fields spelled like a hash that are not blobs. */
export const NOT_BLOB_FIELDS = ["contentSha256"] as const;

/**
 * Fields (at the top of data) listing blobs that the event releases: blobs an earlier event named
 * that no read needs any more — a heatmap's superseded tracks (HeatmapTracksUpdated v2) and a
 * deleted map's (HeatmapDeleted v2). The store drops them; the log needs a blob only while some
 * event names it after its last release (`BlobLedger`).
 */
export const RELEASED_BLOB_FIELDS = ["releasedTracksSha256s"] as const;

/** Event types whose named fields (at the top of data) are blobs, beyond BLOB_FIELDS. */
export const BLOB_FIELDS_BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  AthletePictureChanged: ["large", "medium"],
};

const SHA256 = /^[0-9a-f]{64}$/;
const fieldSet = new Set<string>(BLOB_FIELDS);

/** The sha-256 of every blob the event names (each once, in the order met). */
export function blobsNamedBy(type: string, data: unknown): string[] {
  const found = new Set<string>();
  const walk = (value: unknown) => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item);
    } else if (value && typeof value === "object") {
      for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
        if (fieldSet.has(key) && typeof inner === "string" && SHA256.test(inner)) found.add(inner);
        else walk(inner);
      }
    }
  };
  walk(data);
  const extra = BLOB_FIELDS_BY_TYPE[type];
  if (extra && data && typeof data === "object") {
    for (const key of extra) {
      const value = (data as Record<string, unknown>)[key];
      if (typeof value === "string" && SHA256.test(value)) found.add(value);
    }
  }
  return [...found];
}

/** The sha-256 of every blob the event releases (RELEASED_BLOB_FIELDS). */
export function blobsReleasedBy(data: unknown): string[] {
  if (!data || typeof data !== "object") return [];
  const found: string[] = [];
  for (const field of RELEASED_BLOB_FIELDS) {
    const list = (data as Record<string, unknown>)[field];
    if (!Array.isArray(list)) continue;
    for (const sha of list) if (typeof sha === "string" && SHA256.test(sha)) found.push(sha);
  }
  return found;
}

/**
 * The blobs a log needs, fed its events in log order: each blob an event names, less those a
 * later event released (a blob named again after its release is needed again). `T` is what the
 * caller keeps per blob (e.g. the events naming it).
 */
export class BlobLedger<T> {
  readonly needed = new Map<string, T>();
  constructor(private readonly start: () => T) {}

  /** Takes one event in; answers the entries of the blobs it names (to note the event in). */
  add(type: string, data: unknown): T[] {
    for (const sha of blobsReleasedBy(data)) this.needed.delete(sha);
    return blobsNamedBy(type, data).map((sha) => {
      let entry = this.needed.get(sha);
      if (entry === undefined) this.needed.set(sha, entry = this.start());
      return entry;
    });
  }
}
