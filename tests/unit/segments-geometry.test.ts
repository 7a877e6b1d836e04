import { describe, expect, it } from "vitest";
import {
  climbCategory,
  cumulativeDistances,
  haversine,
  parsePoints,
  segmentFacts,
} from "../../server/segments/geometry.ts";

describe("segment geometry", () => {
  it("measures great-circle distances", () => {
    // One degree of latitude is about 111.2 km.
    expect(haversine([45, 7], [46, 7])).toBeGreaterThan(111_100);
    expect(haversine([45, 7], [46, 7])).toBeLessThan(111_300);
    expect(cumulativeDistances([[0, 0], [0, 0.001], [0, 0.002]])[2]).toBeCloseTo(2 * haversine([0, 0], [0, 0.001]), 6);
  });

  it("categorizes climbs by distance × average grade", () => {
    expect(climbCategory(1000, 7.9)).toBe(0);
    expect(climbCategory(1000, 8)).toBe(1);
    expect(climbCategory(2000, 8)).toBe(2);
    expect(climbCategory(4000, 8)).toBe(3);
    expect(climbCategory(8000, 8)).toBe(4);
    expect(climbCategory(10000, 8)).toBe(5);
    expect(climbCategory(20000, -5)).toBe(0);
    // The commonly cited rule also wants an average grade of at least 3 %: a long drag stays uncategorized.
    expect(climbCategory(10000, 2.9)).toBe(0);
    expect(climbCategory(10000, 3)).toBe(2); // score 30,000: Cat 3
  });

  it("derives distance, grades, elevations and gain", () => {
    // A 1 km climb due north, 50 m up in steps, one steep 100 m stretch (20 m).
    const points: [number, number][] = [];
    const altitudes: number[] = [];
    for (let i = 0; i <= 10; i++) {
      points.push([45 + (i * 100) / 111_195, 7]);
      altitudes.push(i <= 5 ? i * 3 : i === 6 ? 35 : 35 + (i - 6) * 3.75);
    }
    const facts = segmentFacts(points, altitudes);
    expect(facts.distance).toBeCloseTo(1000, -1);
    expect(facts.averageGrade).toBeCloseTo(5, 1);
    expect(facts.maximumGrade).toBeCloseTo(20, 0);
    expect(facts.elevationLow).toBe(0);
    expect(facts.elevationHigh).toBe(50);
    expect(facts.totalElevationGain).toBe(50);
    expect(facts.climbCategory).toBe(0);
    expect(facts.startLatlng).toEqual(points[0]);
    expect(facts.endLatlng).toEqual(points[10]);
  });

  it("has no elevation facts without altitudes", () => {
    const facts = segmentFacts([[45, 7], [45.01, 7]], null);
    expect(facts.elevationHigh).toBeNull();
    expect(facts.totalElevationGain).toBe(0);
    expect(facts.climbCategory).toBe(0);
  });

  it("parses CLI points and refuses bad ones", () => {
    expect(parsePoints("45,7; 45.01,7")).toEqual({ points: [[45, 7], [45.01, 7]], altitudes: null });
    expect(parsePoints("45,7,100;45.01,7,120").altitudes).toEqual([100, 120]);
    expect(() => parsePoints("45,7")).toThrow(/two points/);
    expect(() => parsePoints("95,7;45,7")).toThrow(/out of range/);
    expect(() => parsePoints("a,b;45,7")).toThrow(/bad point/);
  });
});
