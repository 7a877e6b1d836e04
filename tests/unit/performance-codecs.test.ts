import { decode } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPglite } from "../../events/db/pglite.ts";
import type { Db } from "../../events/db/types.ts";
import { catalogue } from "../../events/index.ts";
import { segmentStarred } from "../../events/segment/events.ts";
import { EventStore } from "../../events/store.ts";
import { ConcurrencyError } from "../../events/types.ts";
import { parseLatlngArray } from "../../server/heatmaps/gather.ts";
import { encodeRgbaPng } from "../../server/images/png.ts";
import { decodeTracks, TRACKS_MAGIC, TracksBuilder } from "../../server/heatmaps/tracks.ts";

let db: Db;
let store: EventStore;
beforeAll(async () => {
  db = await openPglite();
  store = await EventStore.open(db, catalogue);
});
afterAll(() => db.close());

describe("bytea through PGlite (native hex codec)", () => {
  it("stores and reads back every byte value exactly, empty and large", async () => {
    await db.exec("create table bytes_roundtrip (k int primary key, b bytea)");
    const all = Uint8Array.from({ length: 256 * 1024 }, (_, i) => (i * 7919) % 256);
    const offsetView = all.subarray(3, 1003); // a view that does not start its buffer
    await db.query("insert into bytes_roundtrip values (1, $1), (2, $2), (3, $3)", [
      all,
      new Uint8Array(0),
      offsetView,
    ]);
    const rows = await db.query<{ k: number; b: Uint8Array; n: number }>(
      "select k, b, length(b) as n from bytes_roundtrip order by k",
    );
    expect(rows.map((r) => r.n)).toEqual([all.length, 0, 1000]);
    expect(rows[0].b).toBeInstanceOf(Uint8Array);
    expect(Array.from(rows[0].b)).toEqual(Array.from(all));
    expect(Array.from(rows[2].b)).toEqual(Array.from(offsetView));
  });
});

describe("EventStore.appendMany", () => {
  const starred = (segmentId: number) => segmentStarred.create({ segmentId, athleteId: 1 });

  it("appends to several streams in one go, each at its next version", async () => {
    await store.append("bulk-a", 0, [starred(1)]);
    const results = await store.appendMany([
      { streamId: "bulk-a", expectedVersion: 1, events: [starred(2), starred(3)] },
      { streamId: "bulk-b", expectedVersion: 0, events: [starred(4)] },
    ]);
    expect(results.map((r) => [r.streamId, r.nextExpectedVersion, r.events.length])).toEqual([["bulk-a", 3, 2], [
      "bulk-b",
      1,
      1,
    ]]);
    expect(
      (await store.readStream("bulk-a")).map((e) => [e.streamVersion, (e.data as { segmentId: number }).segmentId]),
    ).toEqual([[1, 1], [2, 2], [3, 3]]);
    expect((await store.readStream("bulk-b")).map((e) => e.streamVersion)).toEqual([1]);
  });

  it("writes nothing when one stream's expected version does not match", async () => {
    await expect(store.appendMany([
      { streamId: "bulk-c", expectedVersion: 0, events: [starred(5)] },
      { streamId: "bulk-a", expectedVersion: 0, events: [starred(6)] },
    ])).rejects.toBeInstanceOf(ConcurrencyError);
    expect(await store.readStream("bulk-c")).toEqual([]);
  });
});

describe("heatmap codecs", () => {
  it("tracks blobs round-trip through the deflated form, and plain HMT1 blobs are still read", () => {
    const builder = new TracksBuilder();
    const expected: [number, number][] = [];
    let x = 2 ** 32 - 5000, y = 3000;
    for (let a = 0; a < 3; a++) {
      builder.beginActivity(2 ** 40 + a);
      for (let i = 0; i < 500; i++) {
        if (i === 250) builder.endTrack();
        x = (x + 37 * (i % 7) - 100) >>> 0; // wraps around 2^32 on purpose
        y = (y + 11 * (i % 5)) >>> 0;
        builder.point(x, y);
        expected.push([x, y]);
      }
      builder.finishActivity();
    }
    const bytes = builder.encode(123_456_789_012);
    expect(bytes.byteLength).toBeLessThan(expected.length * 8);
    const tracks = decodeTracks(bytes);
    expect(tracks.mapId).toBe(123_456_789_012);
    expect(tracks.activityIds).toEqual([2 ** 40, 2 ** 40 + 1, 2 ** 40 + 2]);
    expect(tracks.trackStart.length - 1).toBe(6);
    expect(Array.from(tracks.xs)).toEqual(expected.map((p) => p[0]));
    expect(Array.from(tracks.ys)).toEqual(expected.map((p) => p[1]));

    // An HMT1 blob as written before: plain words.
    const words = new Uint32Array([TRACKS_MAGIC, 0, 7, 1, 1, 2, 0, 42, 0, 2, 10, 20, 30, 40]);
    const legacy = decodeTracks(new Uint8Array(words.buffer));
    expect([legacy.mapId, legacy.activityIds, Array.from(legacy.xs), Array.from(legacy.ys)]).toEqual([
      7,
      [42],
      [10, 30],
      [20, 40],
    ]);
  });

  it("the latlng array is cut from a streams document exactly as JSON.parse reads it", () => {
    const cases: ([number, number] | null)[][] = [[], [[1.5, -2]], [[1, 2], null, [3, 4]], [[1, 2], null], [null], [
      null,
      null,
      [5e-7, 6],
    ]];
    for (const latlng of cases) {
      const text = JSON.stringify({ time: [0], latlng, altitude: [1, 2], moving: [true] });
      const from = text.indexOf('"latlng":') + 9;
      expect(parseLatlngArray(text.slice(from))).toEqual(latlng);
    }
    expect(parseLatlngArray(" [[1, 2]]")).toBeNull();
    expect(parseLatlngArray("[[1,2],[3,")).toBeNull();
  });

  it("PNG tiles decode to the exact RGBA pixels", () => {
    const rgba = new Uint8Array(256 * 256 * 4);
    for (let i = 0; i < 5000; i++) rgba.set([255, 140, 20, 240], ((i * 7919) % 65536) * 4);
    const png = decode(encodeRgbaPng(256, 256, rgba));
    expect([png.width, png.height, png.channels, png.depth]).toEqual([256, 256, 4, 8]);
    expect(Array.from(png.data as Uint8Array)).toEqual(Array.from(rgba));
  });
});
