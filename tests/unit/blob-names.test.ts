import { describe, expect, it } from "vitest";
import {
  BLOB_FIELDS,
  BLOB_FIELDS_BY_TYPE,
  BlobLedger,
  blobsNamedBy,
  NOT_BLOB_FIELDS,
  RELEASED_BLOB_FIELDS,
} from "../../events/blob-names.ts";
import { catalogue } from "../../events/index.ts";

/** Every key of an event's schema, with its path, walking objects, arrays, tuples, optional and nullable. */
function keysOf(schema: unknown, path = ""): string[] {
  const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
  if (!def) return [];
  switch (def.type) {
    case "object":
      return Object.entries(def.shape as Record<string, unknown>).flatMap((
        [key, inner],
      ) => [`${path}${key}`, ...keysOf(inner, `${path}${key}.`)]);
    case "array":
      return keysOf(def.element, `${path}[].`);
    case "tuple":
      return (def.items as unknown[]).flatMap((item) => keysOf(item, `${path}[].`));
    case "optional":
    case "nullable":
    case "default":
      return keysOf(def.innerType, path);
    default:
      return [];
  }
}

describe("blobs named by events (events/blob-names.ts)", () => {
  it("knows every catalogue field spelled like a sha-256: a blob, or not one", () => {
    const known = new Set<string>([...BLOB_FIELDS, ...NOT_BLOB_FIELDS, ...RELEASED_BLOB_FIELDS]);
    const unknown: string[] = [];
    const seen = new Set<string>();
    for (const definition of catalogue.definitions) {
      for (const path of keysOf(definition.schema)) {
        const key = path.split(".").pop()!;
        if (/sha256/i.test(key)) seen.add(key);
        if (/sha256/i.test(key) && !known.has(key)) unknown.push(`${definition.type}: ${path}`);
      }
    }
    expect(unknown).toEqual([]);
    // The walk reaches nested fields (facts, renditions): every listed name is in the catalogue.
    expect([...seen].sort()).toEqual([...known].sort());
    // The per-type fields exist in their types' schemas.
    for (const [type, fields] of Object.entries(BLOB_FIELDS_BY_TYPE)) {
      const definition = catalogue.definition(type);
      expect(definition, type).toBeDefined();
      for (const field of fields) expect(keysOf(definition!.schema)).toContain(field);
    }
  });

  it("finds the blobs of uploads, activities, photos, pictures and heatmaps, and nothing else", () => {
    const a = "a".repeat(64), b = "b".repeat(64), c = "c".repeat(64), d = "d".repeat(64);
    expect(blobsNamedBy("UploadReceived", { originalSha256: a, contentSha256: b })).toEqual([a]);
    expect(blobsNamedBy("ActivityRecorded", { streamsSha256: a, polylineSha256: b, polyline: null })).toEqual([a, b]);
    expect(blobsNamedBy("ActivityReprocessed", { facts: { streamsSha256: c, polylineSha256: null } })).toEqual([c]);
    expect(blobsNamedBy("PhotoAdded", { renditions: [{ sha256: a }, { sha256: b }, { sha256: a }] })).toEqual([a, b]);
    expect(blobsNamedBy("AthletePictureChanged", { large: c, medium: d, contentType: "image/png" })).toEqual([c, d]);
    expect(blobsNamedBy("HeatmapTracksGathered", { tracksSha256: d })).toEqual([d]);
    // OAuth hashes, a `large` elsewhere and malformed names are not blobs.
    expect(blobsNamedBy("RefreshTokenIssued", { refreshTokenHash: a, accessTokenHash: b })).toEqual([]);
    expect(blobsNamedBy("SomethingElse", { large: a })).toEqual([]);
    expect(blobsNamedBy("ActivityRecorded", { streamsSha256: "not-a-hash" })).toEqual([]);
  });

  it("a blob released after its last naming is no longer needed; named again, it is", () => {
    const a = "a".repeat(64), b = "b".repeat(64), c = "c".repeat(64);
    const ledger = new BlobLedger(() => ({ n: 0 }));
    const feed = (type: string, data: unknown) => ledger.add(type, data).forEach((e) => e.n++);
    feed("HeatmapTracksGathered", { tracksSha256: a });
    feed("HeatmapTracksUpdated", { tracksSha256: b, releasedTracksSha256s: [a] });
    expect([...ledger.needed.keys()]).toEqual([b]);
    // The same bytes again (an activity hidden, then shown): named again after its release.
    feed("HeatmapTracksUpdated", { tracksSha256: a, releasedTracksSha256s: [b] });
    expect([...ledger.needed.keys()]).toEqual([a]);
    feed("HeatmapTracksUpdated", { tracksSha256: c, releasedTracksSha256s: ["not-a-hash", a] });
    feed("HeatmapDeleted", { releasedTracksSha256s: [c] });
    expect([...ledger.needed.keys()]).toEqual([]);
    feed("UploadReceived", { originalSha256: a });
    expect(ledger.needed.get(a)).toEqual({ n: 1 });
  });
});
