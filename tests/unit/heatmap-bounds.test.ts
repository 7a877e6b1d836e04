import { describe, expect, it } from "vitest";
import { tracksBounds } from "../../server/heatmaps/tiles.ts";
import { tracksOf } from "./heatmap-tracks.ts";

const LYON: [number, number][] = [[45.76, 4.83], [45.78, 4.86]];
const LYON2: [number, number][] = [[45.75, 4.84], [45.77, 4.88]];
const OSLO: [number, number][] = [[59.91, 10.75], [59.93, 10.78]];

describe("where the heatmap viewer opens (tracksBounds)", () => {
  it("the shown tracks' box, south-west then north-east", () => {
    const [[s, w], [n, e]] = tracksBounds(tracksOf([LYON, LYON2]), new Uint8Array(2))!;
    expect(s).toBeCloseTo(45.75, 4);
    expect(w).toBeCloseTo(4.83, 4);
    expect(n).toBeCloseTo(45.78, 4);
    expect(e).toBeCloseTo(4.88, 4);
  });

  it("the area with the most activities when they lie far apart; excluded activities count nowhere", () => {
    const [[s], [n]] = tracksBounds(tracksOf([OSLO, LYON, LYON2]), new Uint8Array(3))!;
    expect(s).toBeGreaterThan(45.7);
    expect(n).toBeLessThan(45.8);
    // The two Lyon rides made private: Oslo alone.
    const [[s2]] = tracksBounds(tracksOf([OSLO, LYON, LYON2]), Uint8Array.from([0, 1, 1]))!;
    expect(s2).toBeCloseTo(59.91, 4);
    expect(tracksBounds(tracksOf([OSLO]), Uint8Array.from([1]))).toBeNull();
  });

  it("positions inside a privacy zone (one added after the build too) are no corner of the box", () => {
    // The ride starts at home, its south-west corner; the zone hides it as the tiles do.
    const home: [number, number] = [45.70, 4.80];
    const ride: [number, number][] = [home, [45.7005, 4.8005], [45.76, 4.83], [45.78, 4.86]];
    const open = tracksBounds(tracksOf([ride]), new Uint8Array(1))!;
    expect(open[0][0]).toBeCloseTo(45.70, 4);
    const [[s, w]] = tracksBounds(tracksOf([ride]), new Uint8Array(1), [{ lat: 45.70, lng: 4.80, radius_m: 500 }])!;
    expect(s).toBeCloseTo(45.76, 4);
    expect(w).toBeCloseTo(4.83, 4);
  });
});
