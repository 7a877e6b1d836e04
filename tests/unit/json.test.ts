import { describe, expect, it } from "vitest";
import { parseJsonExact, toJson } from "../../shared/json.ts";

describe("JSON with exact 64-bit integers", () => {
  it("writes bigints as bare digits and reads them back exactly", () => {
    const value = { id: 9223372036854775807n, small: 12, list: [18014398509481985n, -9007199254740993n], f: 1.5e300 };
    const text = toJson(value);
    expect(text).toBe(
      '{"id":9223372036854775807,"small":12,"list":[18014398509481985,-9007199254740993],"f":1.5e+300}',
    );
    expect(parseJsonExact(text)).toEqual(value);
  });

  it("never touches digits inside strings", () => {
    const text = '{"d":"time:12345678901234567890, \\"x\\":98765432109876543210","n":98765432109876543210}';
    expect(parseJsonExact(text)).toEqual({
      d: 'time:12345678901234567890, "x":98765432109876543210',
      n: 98765432109876543210n,
    });
  });

  it("keeps safe integers as numbers", () => {
    expect(parseJsonExact("[9007199254740991, 1234567890123456]")).toEqual([9007199254740991, 1234567890123456]);
  });
});
