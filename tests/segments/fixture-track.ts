import { DEVICES } from "../helpers/fixtures.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type DataType, parseDeviceFile } from "../../server/ingest/decode.ts";
import { haversine, type LatLng } from "../../server/segments/geometry.ts";
import type { ActivityStreams } from "../../shared/streams.ts";

export { DEVICES };

/** Streams built straight from a device file's records (time, positions, altitude, haversine distance). */
export async function streamsOf(
  file: string,
): Promise<Omit<ActivityStreams, "latlng" | "altitude"> & { latlng: (LatLng | null)[]; altitude: (number | null)[] }> {
  const bytes = new Uint8Array(readFileSync(join(DEVICES, file)));
  const parsed = await parseDeviceFile(bytes, file.split(".").pop() as DataType);
  const t0 = parsed.samples[0].time;
  const time: number[] = [];
  const distance: number[] = [];
  const latlng: (LatLng | null)[] = [];
  const altitude: (number | null)[] = [];
  let last: LatLng | null = null;
  let d = 0;
  for (const s of parsed.samples) {
    const p: LatLng | null = s.lat !== null && s.lng !== null ? [s.lat, s.lng] : null;
    if (p && last) d += haversine(last, p);
    if (p) last = p;
    time.push(Math.round((s.time - t0) / 1000));
    distance.push(d);
    latlng.push(p);
    altitude.push(s.altitude);
  }
  return { time, distance, latlng, altitude, moving: time.map(() => true) };
}

/** The recorded points i..j of a track (nulls skipped) as segment points, with altitudes. */
export function slice(streams: { latlng: (LatLng | null)[]; altitude?: (number | null)[] }, i: number, j: number) {
  const points: LatLng[] = [];
  const altitudes: (number | null)[] = [];
  for (let k = i; k <= j; k++) {
    const p = streams.latlng[k];
    if (!p) continue;
    points.push(p);
    altitudes.push(streams.altitude?.[k] ?? null);
  }
  return { points, altitudes };
}
