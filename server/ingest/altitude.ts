import type { ActivityType } from "../../shared/activity-types.ts";
import { elevationGain } from "./elevation.ts";
import { channel, interpolated } from "./gaps.ts";
import { round } from "./rounding.ts";
import type { Terrain } from "./terrain.ts";
import type { ParsedFile, Sample } from "./types.ts";

/** Sports on water: no elevation gain. */
const WATER_SPORTS: ReadonlySet<ActivityType> = new Set([
  "Swim",
  "Canoeing",
  "Kayaking",
  "Rowing",
  "StandUpPaddling",
  "Surfing",
  "Kitesurf",
  "Windsurf",
]);

/** Whether the activity is on water, where nothing is climbed (an altimeter under water or at sea level reads noise). */
export const onWater = (type: ActivityType) => WATER_SPORTS.has(type);

/** The activity's elevation figures. */
export interface ElevationFigures {
  totalElevationGain: number;
  elevHigh: number | null;
  elevLow: number | null;
}

/**
 * Replaces recorded altitudes with the terrain model's at each position when the model covers at
 * least half the positioned records (records without a position, or outside the tiles, lose their
 * altitude and are filled across like any gap): true. Otherwise the recorded altitude stays: false.
 */
export function altitudeFromTerrain(samples: Sample[], terrain: Terrain): boolean {
  let positioned = 0;
  const values = new Array<number | null>(samples.length).fill(null);
  let covered = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    if (s.lat === null || s.lng === null) continue;
    positioned++;
    values[i] = terrain.elevation(s.lat, s.lng);
    if (values[i] !== null) covered++;
  }
  if (positioned === 0 || covered * 2 < positioned) return false;
  for (let i = 0; i < samples.length; i++) samples[i].altitude = values[i];
  return true;
}

/** Where the altitudes come from (activityFacts.elevationSource); null without any. */
export function elevationSourceOf(
  parsed: ParsedFile,
  fromTerrain: boolean,
): "barometric" | "terrain" | "gps" | null {
  if (!parsed.samples.some((s) => s.altitude !== null)) return null;
  return parsed.barometric ? "barometric" : fromTerrain ? "terrain" : "gps";
}

/** Elevation gain (none on water; a barometric device's own ascent; else from the altitudes), highest and lowest altitude. */
export function elevationFigures(parsed: ParsedFile, type: ActivityType, cum: Float64Array): ElevationFigures {
  const samples = parsed.samples;
  let totalElevationGain = 0;
  if (onWater(type)) totalElevationGain = 0;
  else if (parsed.deviceTotals.ascent !== null && parsed.barometric) totalElevationGain = parsed.deviceTotals.ascent;
  else {totalElevationGain = elevationGain(samples, {
      segmentStarts: parsed.segmentStarts,
      barometric: parsed.barometric,
      cum,
    });}
  let elevHigh: number | null = null;
  let elevLow: number | null = null;
  for (const s of samples) {
    if (s.altitude === null) continue;
    if (elevHigh === null || s.altitude > elevHigh) elevHigh = s.altitude;
    if (elevLow === null || s.altitude < elevLow) elevLow = s.altitude;
  }
  return { totalElevationGain, elevHigh, elevLow };
}

/** Altitude filled across gaps (streams, grade, split elevation differences); null without any altitude. */
export function filledAltitude(samples: readonly Sample[], times: Float64Array): Float64Array | null {
  return interpolated(channel(samples, (s) => s.altitude), times);
}

/** Grade (percent) from altitude over ±25 m of distance (two pointers: linear); zeros without altitude. */
export function gradeStream(cum: Float64Array, altitudeFilled: Float64Array | null): number[] {
  const n = cum.length;
  const grade = new Array<number>(n).fill(0);
  if (altitudeFilled) {
    let a = 0;
    let b = 0;
    for (let i = 0; i < n; i++) {
      while (a < i && cum[i] - cum[a + 1] >= 25) a++;
      if (b < i) b = i;
      while (b < n - 1 && cum[b] - cum[i] < 25) b++;
      const run = cum[b] - cum[a];
      grade[i] = run > 10 ? round(((altitudeFilled[b] - altitudeFilled[a]) / run) * 100, 1) : 0;
    }
  }
  return grade;
}
