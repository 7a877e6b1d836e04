import { sportWordType } from "./sports.ts";
import { emptySample, IngestError, num, type ParsedFile, type Sample } from "./types.ts";
import { collectExtension, emptyExtensionValues, type ExtensionValues, parseTime, streamXml } from "./xml.ts";

/**
 * Parses a GPX 1.1 (or 1.0) track as a stream: TrackPointExtension v1/v2 under any prefix, cluetrust
 * gpxdata, plain power/PowerInWatts, several extensions elements per point. Several trk and trkseg
 * stay separate, in file order: `segmentStarts` marks where each new one begins.
 */
export function parseGpx(bytes: Uint8Array): ParsedFile {
  const samples: Sample[] = [];
  const segmentStarts: number[] = [];
  let creator: string | null = null;
  let sawRoot = false;
  let sport = null;
  let trackName: string | null = null;
  let offset: number | null = null;
  let untimed = 0;
  let total = 0;
  /** A trk or trkseg opened since the last kept point: the next point starts a new segment. */
  let newSegment = false;
  let point: { lat: string; lon: string; time: string | null; ele: string | null; ext: ExtensionValues } | null = null;
  let extensionsDepth = 0;

  streamXml(bytes, "GPX", {
    open(element, path) {
      if (!sawRoot) {
        sawRoot = true;
        if (element.name !== "gpx") throw new IngestError("The file is not a GPX file (no gpx element).");
        creator = element.attributes.creator?.trim() ?? null;
        return;
      }
      if (point) {
        if (element.name === "extensions") extensionsDepth++;
        return;
      }
      if (element.name === "trkpt" && path[path.length - 2] === "trkseg") {
        point = {
          lat: element.attributes.lat ?? "",
          lon: element.attributes.lon ?? "",
          time: null,
          ele: null,
          ext: emptyExtensionValues(),
        };
        extensionsDepth = 0;
      } else if (element.name === "trk" || element.name === "trkseg") {
        newSegment = true;
      }
    },
    close(name, text, path) {
      const parent = path[path.length - 2];
      if (point && name !== "trkpt") {
        if (name === "extensions") extensionsDepth--;
        else if (extensionsDepth > 0) collectExtension(point.ext, name, text, parent);
        else if (parent === "trkpt" && name === "time") point.time = text;
        else if (parent === "trkpt" && name === "ele") point.ele = text;
        return;
      }
      if (name === "type" && parent === "trk") {
        sport ??= sportWordType(text);
        return;
      }
      if (name === "name" && parent === "trk") {
        trackName ??= text.trim() || null;
        return;
      }
      if (name !== "trkpt" || !point) return;
      total++;
      const p = point;
      point = null;
      const lat = num(p.lat);
      const lng = num(p.lon);
      if (lat === null || lng === null || Math.abs(lat) > 90 || Math.abs(lng) > 180) {
        throw new IngestError(
          `Trackpoint ${total} of the GPX file has an invalid position (lat "${p.lat}", lon "${p.lon}").`,
        );
      }
      const time = parseTime(p.time);
      if (!time) {
        untimed++;
        return;
      }
      offset ??= time.offsetSeconds;
      const s = emptySample(time.ms);
      s.lat = lat;
      s.lng = lng;
      s.altitude = num(p.ele);
      s.heartrate = p.ext.heartrate !== null && p.ext.heartrate > 0 ? p.ext.heartrate : null;
      s.cadence = p.ext.cadence;
      s.watts = p.ext.watts;
      s.temp = p.ext.temp;
      s.speed = p.ext.speed;
      if (newSegment && samples.length > 0) segmentStarts.push(samples.length);
      newSegment = false;
      samples.push(s);
    },
  });
  if (!sawRoot) throw new IngestError("The file is not a GPX file (no gpx element).");
  if (untimed > 0) {
    throw new IngestError(
      `${untimed} of ${total} trackpoints in the GPX file have no time; every trackpoint must carry a time.`,
    );
  }
  const deviceName: string | null = creator;
  return {
    format: "gpx",
    sport,
    name: trackName,
    indoor: false,
    deviceName,
    barometric: /with barometer/i.test(deviceName ?? ""),
    samples,
    laps: [],
    pauses: [],
    segmentStarts,
    deviceTotals: { ascent: null, calories: null, distance: null },
    utcOffsetSeconds: offset,
    notes: [],
  };
}
