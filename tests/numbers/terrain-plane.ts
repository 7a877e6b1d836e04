import { greatCircle } from "./device-totals.ts";

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

/** A GPX's points and times (regular expressions over the text). */
export function gpxPoints(gpx: string): { points: [number, number][]; times: number[] } {
  const points = [...gpx.matchAll(/<trkpt lat="([^"]+)" lon="([^"]+)"/g)].map((m) =>
    [Number(m[1]), Number(m[2])] as [number, number]
  );
  const times = [...gpx.matchAll(/<time>([^<]+)<\/time>/g)].map((m) => Date.parse(m[1])).slice(-points.length);
  return { points, times };
}

/**
 * The gain of a height function along a track as docs/numbers.md defines it for non-barometric
 * altitude, computed here: jumps faster than 5 m/s taken out (the series after them shifted), the
 * heights resampled every metre of the way and averaged over ±20 m, then every rise of 2 m above the
 * last low.
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
  const along = [0];
  for (let i = 1; i < points.length; i++) along.push(along[i - 1] + greatCircle(points[i - 1], points[i]));
  const metres: number[] = [];
  for (let d = 0, j = 0; d <= along[along.length - 1]; d++) {
    while (j < along.length - 2 && along[j + 1] < d) j++;
    const span = along[j + 1] - along[j];
    const f = span > 0 ? Math.min(1, (d - along[j]) / span) : 0;
    metres.push(steady[j] + f * (steady[j + 1] - steady[j]));
  }
  let gain = 0, low = Infinity;
  for (let i = 0; i < metres.length; i++) {
    const window = metres.slice(Math.max(0, i - 20), i + 21);
    const mean = window.reduce((x, y) => x + y, 0) / window.length;
    if (low === Infinity) low = mean;
    else if (mean - low >= 2) gain += mean - low, low = mean;
    else if (mean < low) low = mean;
  }
  return gain;
}
