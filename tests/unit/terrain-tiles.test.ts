import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { terrainFrom, tileName } from "../../server/ingest/terrain.ts";
import { squaresOf, tileUrl } from "../../server/elevation/tile-squares.ts";

/** A 2 × 2 tile of one height (big-endian int16): the smallest grid the reader accepts. */
const flat = (metres: number) => {
  const b = Buffer.alloc(8);
  for (let i = 0; i < 4; i++) b.writeInt16BE(metres, i * 2);
  return b;
};

describe("the terrain tiles a track needs, and how they are read", () => {
  it("squares of the points and of the stretches between them; none for bad positions", () => {
    // Karojba, then a stretch across the corner of N46E014 without a point in it.
    const squares = squaresOf([[45.29, 13.96], [45.9, 14.5], [46.2, 15.1], [Number.NaN, 3], [91, 0]]);
    expect([...squares].sort()).toEqual([
      "N45E013.hgt",
      "N45E014.hgt",
      "N45E015.hgt",
      "N46E014.hgt",
      "N46E015.hgt",
    ]);
    // South and west, the antimeridian's east edge.
    expect([...squaresOf([[-33.9, -70.6], [-0.5, 180]])].sort()).toEqual(["S01E179.hgt", "S34W071.hgt"]);
    expect(tileName(-33.9, -70.6)).toBe("S34W071.hgt");
    expect(tileUrl("https://x/skadi/{band}/{tile}.hgt.gz", "S34W071.hgt")).toBe("https://x/skadi/S34/S34W071.hgt.gz");
  });

  it("reads many tiles through a bounded cache, and a tile written later once the folder changed", () => {
    const dir = mkdtempSync(join(tmpdir(), "terrain-"));
    try {
      for (let lat = 0; lat < 12; lat++) writeFileSync(join(dir, tileName(lat + 0.5, 0.5)), flat(100 + lat));
      const terrain = terrainFrom(dir)!;
      // Twelve tiles, eight at most kept: each still answers, again and again.
      for (let round = 0; round < 2; round++) {
        for (let lat = 0; lat < 12; lat++) expect(terrain.elevation(lat + 0.5, 0.5)).toBe(100 + lat);
      }
      expect(terrain.elevation(20.5, 0.5)).toBeNull();
      writeFileSync(join(dir, tileName(20.5, 0.5)), flat(420));
      const later = new Date(Date.now() + 5000);
      utimesSync(dir, later, later); // the folder's modification time moves (coarse clocks)
      expect(terrainFrom(dir)!.elevation(20.5, 0.5)).toBe(420);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
