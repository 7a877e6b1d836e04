import { describe, expect, it } from "vitest";
import { effortIdFor } from "../../server/segments/efforts.ts";

/**
 * Effort ids are above 2^53, where doubles are spaced 2 apart (from 2^53 to 2^54). An id is safe for
 * a client parsing JSON as doubles when the double it parses to is the id itself: then two ids never
 * share a double, and printing the double gives back the id's digits.
 */
function exactAsDouble(id: string): boolean {
  const d = JSON.parse(id) as number;
  return BigInt(d) === BigInt(id) && String(d) === id;
}

describe("effort ids", () => {
  it("are exact doubles above 2^53 for the first and last activities and every slot", () => {
    const activities = [1, 2, 3, 1000, 123_456_789, 2 ** 41 - 1];
    const ids = new Set<string>();
    for (const a of activities) {
      for (const n of [0, 1, 2, 511, 512, 1022, 1023]) {
        const id = effortIdFor(a, n);
        expect(BigInt(id) > 2n ** 53n).toBe(true);
        expect(BigInt(id) < 2n ** 54n).toBe(true);
        expect(exactAsDouble(id), id).toBe(true);
        ids.add(id);
      }
    }
    expect(ids.size).toBe(activities.length * 7);
  });

  it("never give two efforts of neighbouring activities the same double", () => {
    const doubles = new Set<number>();
    for (let a = 1; a <= 20; a++) for (let n = 0; n < 1024; n++) doubles.add(Number(effortIdFor(a, n)));
    expect(doubles.size).toBe(20 * 1024);
  });

  it("refuses a slot or activity id outside the range the scheme covers", () => {
    expect(() => effortIdFor(1, 1024)).toThrow(RangeError);
    expect(() => effortIdFor(1, -1)).toThrow(RangeError);
    expect(() => effortIdFor(2 ** 41, 0)).toThrow(RangeError);
  });
});
