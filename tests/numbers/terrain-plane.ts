import { alongTrack, distanceSmoothedGain } from "./device-totals.ts";

/**
 * A generated SRTM tile for the tests of the terrain model: N45E013 (Istria) holding a plane rising
 * north-east, 20 m per 0.001° northwards and 8 m per 0.001° eastwards, 200 m near Karojba; a 3″ tile
 * (1201 × 1201 big-endian int16, rows north to south, as NASA documents the format), whole metres at
 * the grid points.
 */
export const SIZE = 1201;
export const istriaAt = (lat: number, lng: number) => 200 + 20_000 * (lat - 45.28) + 8_000 * (lng - 13.96);

export function istriaTile(): Buffer {
  const tile = Buffer.alloc(SIZE * SIZE * 2);
  for (let r = 0; r < SIZE; r++) {
    for (let c = 0; c < SIZE; c++) {
      tile.writeInt16BE(Math.round(istriaAt(46 - r / (SIZE - 1), 13 + c / (SIZE - 1))), (r * SIZE + c) * 2);
    }
  }
  return tile;
}

/**
 * The gain of a height function along a track as docs/numbers.md defines it for non-barometric
 * altitude, computed here: jumps faster than 5 m/s taken out (the series after them shifted), then
 * smoothed over ±20 m of the way and counted in climbs of 2 m (distanceSmoothedGain).
 */
export function definitionGain(
  points: [number, number][],
  times: number[],
  heightAt: (lat: number, lng: number) => number,
): number {
  const profile = points.map(([lat, lng]) => heightAt(lat, lng));
  const steady = [profile[0]];
  for (let i = 1, shift = 0; i < profile.length; i++) {
    const dz = profile[i] - shift - steady[i - 1];
    if (Math.abs(dz) > 5 * Math.max((times[i] - times[i - 1]) / 1000, 1)) shift += dz;
    steady.push(profile[i] - shift);
  }
  return distanceSmoothedGain(steady, alongTrack(points));
}
