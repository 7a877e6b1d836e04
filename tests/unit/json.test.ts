import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { parseJsonExact, toJson, toJsonMarked } from "../../shared/json.ts";
import { DENO, ROOT } from "../helpers/deno.ts";

describe("JSON with exact 64-bit integers", () => {
  it("writes bigints as bare digits and reads them back exactly", () => {
    const value = { id: 9223372036854775807n, small: 12, list: [18014398509481985n, -9007199254740993n], f: 1.5e300 };
    const text = toJson(value);
    expect(text).toBe(
      '{"id":9223372036854775807,"small":12,"list":[18014398509481985,-9007199254740993],"f":1.5e+300}',
    );
    expect(parseJsonExact(text)).toEqual(value);
  });

  it("writes the same text on Deno, where JSON.rawJSON writes the digits, as with the markers", () => {
    const value = {
      id: 9223372036854775807n,
      n: [1, -9007199254740993n, { e: 18014398509481985n, s: "\u0000x" }],
      f: 0.1,
    };
    const script = `import { toJson } from "${ROOT}/shared/json.ts";
      const v = { id: 9223372036854775807n, n: [1, -9007199254740993n, { e: 18014398509481985n, s: "\\u0000x" }], f: 0.1 };
      console.log(typeof JSON.rawJSON, toJson(v), toJson(v, 2).length);`;
    const out = execFileSync(DENO, ["eval", script], { encoding: "utf8" }).trim();
    expect(out).toBe(`function ${toJsonMarked(value)} ${toJsonMarked(value, 2).length}`);
    expect(toJsonMarked(value)).toBe(
      '{"id":9223372036854775807,"n":[1,-9007199254740993,{"e":18014398509481985,"s":"\\u0000x"}],"f":0.1}',
    );
  });

  it("never touches digits inside strings", () => {
    const text = '{"d":"time:12345678901234567890, \\"x\\":98765432109876543210","n":98765432109876543210}';
    expect(parseJsonExact(text)).toEqual({
      d: 'time:12345678901234567890, "x":98765432109876543210',
      n: 98765432109876543210n,
    });
  });

  it("reads a long integer wherever it stands, each text alone (the pre-check skips none)", () => {
    const cases: [string, unknown][] = [
      ["12345678901234567890", 12345678901234567890n],
      ["[12345678901234567890]", [12345678901234567890n]],
      ['{"x":9007199254740993}', { x: 9007199254740993n }],
      ['{"x": -9007199254740993}', { x: -9007199254740993n }],
      ["[0.12345678901234567,98765432109876543210]", [0.12345678901234567, 98765432109876543210n]],
      ['{"f":1.5,\n "n":\t12345678901234567890}', { f: 1.5, n: 12345678901234567890n }],
    ];
    for (const [text, value] of cases) expect(parseJsonExact(text)).toEqual(value);
    // Long fractions and exponents only: the same as JSON.parse.
    const floats = '{"speed":3.4567891234567891,"lat":[52.123456789012345,-4.1234567890123456],"e":1.25e-300}';
    expect(parseJsonExact(floats)).toEqual(JSON.parse(floats));
  });

  it("keeps safe integers as numbers", () => {
    expect(parseJsonExact("[9007199254740991, 1234567890123456]")).toEqual([9007199254740991, 1234567890123456]);
  });
});
