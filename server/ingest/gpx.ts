import { sportWordType } from "./sports.ts";
import { emptySample, IngestError, num, type ParsedFile, type Sample } from "./types.ts";
import { child, children, extensionValues, parseTime, parseXml, textOf } from "./xml.ts";

/**
 * Parses a GPX 1.1 (or 1.0) track: TrackPointExtension v1/v2 under any prefix, cluetrust gpxdata,
 * plain power/PowerInWatts, several extensions elements per point, several trk and trkseg.
 */
export function parseGpx(bytes: Uint8Array): ParsedFile {
  const doc = parseXml(bytes, "GPX");
  const root = child(doc, "gpx") as Record<string, unknown> | undefined;
  if (!root || typeof root !== "object") throw new IngestError("The file is not a GPX file (no gpx element).");
  const creator = typeof root["@_creator"] === "string" ? (root["@_creator"] as string).trim() : null;
  const samples: Sample[] = [];
  let sport = null;
  let offset: number | null = null;
  let untimed = 0;
  let total = 0;
  for (const trk of children(root, "trk")) {
    sport ??= sportWordType(textOf(trk.type));
    for (const seg of children(trk, "trkseg")) {
      for (const point of children(seg, "trkpt")) {
        total++;
        const lat = num(point["@_lat"]);
        const lng = num(point["@_lon"]);
        if (lat === null || lng === null || Math.abs(lat) > 90 || Math.abs(lng) > 180) {
          throw new IngestError(
            `Trackpoint ${total} of the GPX file has an invalid position (lat "${String(point["@_lat"] ?? "")}", lon "${String(point["@_lon"] ?? "")}").`,
          );
        }
        const time = parseTime(textOf(point.time));
        if (!time) {
          untimed++;
          continue;
        }
        offset ??= time.offsetSeconds;
        const s = emptySample(time.ms);
        s.lat = lat;
        s.lng = lng;
        s.altitude = num(textOf(point.ele));
        const ext = extensionValues(children(point, "extensions"));
        s.heartrate = ext.heartrate !== null && ext.heartrate > 0 ? ext.heartrate : null;
        s.cadence = ext.cadence;
        s.watts = ext.watts;
        s.temp = ext.temp;
        s.speed = ext.speed;
        samples.push(s);
      }
    }
  }
  if (untimed > 0) {
    throw new IngestError(`${untimed} of ${total} trackpoints in the GPX file have no time; every trackpoint must carry a time.`);
  }
  samples.sort((a, b) => a.time - b.time);
  const deduped: Sample[] = [];
  for (const s of samples) {
    if (deduped.length && deduped[deduped.length - 1].time === s.time) continue;
    deduped.push(s);
  }
  return {
    format: "gpx",
    sport,
    indoor: false,
    deviceName: creator,
    barometric: /with barometer/i.test(creator ?? ""),
    samples: deduped,
    laps: [],
    pauses: [],
    deviceTotals: { ascent: null, calories: null, distance: null },
    utcOffsetSeconds: offset,
    notes: [],
  };
}
