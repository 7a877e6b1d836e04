import { describe, expect, it } from "vitest";
import { compareAt, comparisonPoints, effortStretch, gapOf, MAX_POINTS } from "../../server/segments/compare.ts";

/** Comparing two efforts along a segment (server/segments/compare.ts), on hand-made stretches. */
describe("two efforts along a segment", () => {
  it("places points every metre on a short segment, at most MAX_POINTS on a long one, ending at its length", () => {
    expect(comparisonPoints(4)).toEqual([0, 1, 2, 3, 4]);
    const long = comparisonPoints(12_345.6);
    expect(long.length).toBe(MAX_POINTS);
    expect(long[0]).toBe(0);
    expect(long[long.length - 1]).toBe(12_345.6);
  });

  it("takes the first moment each point is reached, scales the effort to the segment and ends at its elapsed time", () => {
    // 10 m/s for 10 s, a stop of 5 s at 100 m, then 10 m/s to 200 m: 25 s; the recording says 202 m.
    const time = [0, 5, 10, 15, 20, 25].map((t) => 1000 + t);
    const distance = [0, 50, 101, 101, 151, 202].map((d) => 500 + d);
    const stretch = {
      time,
      distance,
      heartrate: [100, 110, 120, 120, 130, 140],
      velocity_smooth: [10, 10, 0, 0, 10, 10],
    };
    const out = compareAt(stretch, [0, 50, 100, 150, 200], 200, 26)!;
    // 202 m recorded stand for the segment's 200 m: 101 m (the stop) is its 100 m.
    expect(out.time).toEqual([0, 5, 10, 20, 26]);
    expect(out.heartrate).toEqual([100, 110, 120, 130, 140]);
    expect(out.watts).toBeNull();
  });

  it("the gap is the second's time minus the first's; at the finish, the difference of the elapsed times", () => {
    const steady = { time: [0, 10, 20], distance: [0, 100, 200] };
    const slow = { time: [0, 30, 40], distance: [0, 100, 200] };
    const a = compareAt(steady, [0, 100, 200], 200, 20)!;
    const b = compareAt(slow, [0, 100, 200], 200, 40)!;
    expect(gapOf(a, b)).toEqual([0, 20, 20]);
    expect(gapOf(b, a)).toEqual([0, -20, -20]);
  });

  it("cuts an effort's stretch out of its activity's streams, and refuses one that covers nothing", () => {
    const streams = {
      time: [0, 1, 2, 3, 4],
      distance: [0, 5, 10, 15, 20],
      moving: [true, true, true, true, true],
      velocity_smooth: [5, 5, 5, 5, 5],
      watts: [100, 200, 300, 400, 500],
    };
    expect(effortStretch(streams, 1, 3)).toEqual({
      time: [1, 2, 3],
      distance: [5, 10, 15],
      velocity_smooth: [5, 5, 5],
      heartrate: undefined,
      watts: [200, 300, 400],
    });
    expect(compareAt({ time: [0, 1], distance: [3, 3] }, [0, 1], 1, 1)).toBeNull();
    expect(compareAt({ time: [0], distance: [0] }, [0, 1], 1, 1)).toBeNull();
  });
});
