import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SETTINGS } from "../../server/config.ts";
import { ROOT } from "../helpers/deno.ts";

/** docs/operators.md's settings table names every setting `npm start -- --help` lists (issue #41: DERIVE_WORKERS was missing). */
describe("docs/operators.md, Configuration", () => {
  it("has a row for every setting of server/config.ts", () => {
    const doc = readFileSync(join(ROOT, "docs/operators.md"), "utf8");
    const rows = doc.split("\n").filter((line) => line.startsWith("| `"));
    const missing = SETTINGS.map((s) => s.name).filter((name) => !rows.some((row) => row.includes(`\`${name}\``)));
    expect(SETTINGS.length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});
