import { beforeAll, describe, expect, it } from "vitest";
import type { LatLng } from "../../server/segments/geometry.ts";
import {
  effortTimes,
  matchAll,
  matchSegment,
  PreparedTrack,
  prepareSegment,
  SegmentIndex,
} from "../../server/segments/matching.ts";
import { slice, streamsOf } from "../segments/fixture-track.ts";

type Streams = Awaited<ReturnType<typeof streamsOf>>;
let ride: Streams;
let track: PreparedTrack;

beforeAll(async () => {
  ride = await streamsOf("fit/garmin-edge500-cycling-hr-cad-pauses.fit");
  track = new PreparedTrack(ride.latlng);
});

const segmentOf = (id: number, points: LatLng[], activityType = "Ride") => prepareSegment({ id, activityType, points });

describe("matching a recorded ride against segments", () => {
  it("finds a segment laid on the ride's own points, at the nearest recorded points", () => {
    const { points } = slice(ride, 2000, 2600);
    const matches = matchSegment(track, segmentOf(1, points), ride.distance);
    expect(matches).toContainEqual({ segmentId: 1, startIndex: 2000, endIndex: 2600 });
  });

  it("matches a sparser drawing of the same path (every 15th point)", () => {
    const { points } = slice(ride, 4000, 4900);
    const sparse = points.filter((_, k) => k % 15 === 0 || k === points.length - 1);
    const matches = matchSegment(track, segmentOf(2, sparse), ride.distance);
    expect(matches).toContainEqual({ segmentId: 2, startIndex: 4000, endIndex: 4900 });
  });

  it("does not match the same path in the opposite direction", () => {
    const { points } = slice(ride, 2000, 2600);
    expect(matchSegment(track, segmentOf(3, [...points].reverse()), ride.distance)).toEqual([]);
  });

  it("does not match a path 150 m beside the ride", () => {
    const { points } = slice(ride, 2000, 2600);
    const beside = points.map(([lat, lng]) => [lat + 150 / 111_195, lng] as LatLng);
    expect(matchSegment(track, segmentOf(4, beside), ride.distance)).toEqual([]);
  });

  it("does not match when the ride leaves the path midway (a detour through a far point)", () => {
    const { points } = slice(ride, 2000, 2600);
    const detour = [...points.slice(0, 300), [points[300][0] + 0.01, points[300][1]] as LatLng, ...points.slice(301)];
    expect(matchSegment(track, segmentOf(5, detour), ride.distance)).toEqual([]);
  });

  it("matches every traversal of a track that covers the segment twice", () => {
    const { points } = slice(ride, 1000, 1400);
    const twice = new PreparedTrack([...ride.latlng.slice(900, 1500), ...ride.latlng.slice(900, 1500)]);
    const matches = matchSegment(twice, segmentOf(6, points));
    expect(matches.map((m) => [m.startIndex, m.endIndex])).toEqual([[100, 500], [700, 1100]]);
  });

  it("computes elapsed and moving time and distance from the streams (no interpolation)", () => {
    const times = effortTimes(ride, 2000, 2600);
    expect(times.elapsedTime).toBe(ride.time[2600] - ride.time[2000]);
    expect(times.distance).toBeCloseTo(ride.distance[2600] - ride.distance[2000], 0);
    expect(times.startOffset).toBe(ride.time[2000]);
    const paused = effortTimes({ ...ride, moving: ride.moving.map((_, k) => k % 2 === 0) }, 2000, 2600);
    expect(paused.movingTime).toBeLessThan(times.movingTime);
  });

  it("finds with the spatial index exactly what a scan of every segment finds", () => {
    const segments = [];
    let id = 100;
    for (let i = 500; i + 400 < ride.latlng.length; i += 700) {
      segments.push(segmentOf(id++, slice(ride, i, i + 400).points));
    }
    // Decoys: random short segments around the ride's area, some of them of the other sport.
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const laid = segments.length;
    id = 10_000;
    for (let k = 0; k < 3000; k++) {
      const lat = 43.6 + random() * 0.15, lng = -79.5 + random() * 0.2;
      segments.push(
        segmentOf(id++, [[lat, lng], [lat + random() * 0.01, lng + random() * 0.01]], random() < 0.5 ? "Ride" : "Run"),
      );
    }
    const index = new SegmentIndex({ rebuildThreshold: 1000 });
    index.add(segments.slice(0, 2500).map((s) => ({ id: s.id, activityType: s.activityType, points: s.points })));
    index.add(segments.slice(2500).map((s) => ({ id: s.id, activityType: s.activityType, points: s.points })));
    const indexed = index.match(track, ["Ride"], ride.distance);
    const scanned = matchAll(track, segments, ["Ride"]);
    expect(laid).toBeGreaterThan(10);
    for (const s of segments.slice(0, laid)) expect(indexed.some((m) => m.segmentId === s.id)).toBe(true);
    expect(indexed).toEqual(scanned);
    expect(index.match(track, ["Run"], ride.distance).every((m) => m.segmentId >= 10_000)).toBe(true);
  });
});
