import { sportWordType } from "./sports.ts";
import { type DeviceLap, emptySample, IngestError, num, type ParsedFile, type Sample } from "./types.ts";
import { child, children, extensionValues, parseTime, parseXml, textOf } from "./xml.ts";

/** Parses a TCX v2 activity file (TPX extensions with or without the wrapper, any prefix). */
export function parseTcx(bytes: Uint8Array): ParsedFile {
  const doc = parseXml(bytes, "TCX");
  const root = child(doc, "TrainingCenterDatabase");
  if (!root) throw new IngestError("The file is not a TCX file (no TrainingCenterDatabase element).");
  const activities = children(child(root, "Activities"), "Activity");
  if (activities.length === 0) throw new IngestError("The TCX file holds no Activity.");
  const samples: Sample[] = [];
  const laps: DeviceLap[] = [];
  let sport = null;
  let sportHint = null;
  let deviceName: string | null = null;
  let offset: number | null = null;
  let untimed = 0;
  let total = 0;
  for (const activity of activities) {
    sport ??= sportWordType(activity["@_Sport"]);
    if (String(activity["@_Sport"] ?? "").trim().toLowerCase() === "other") sportHint = "Workout" as const;
    deviceName ??= textOf(child(child(activity, "Creator"), "Name"))?.trim() || null;
    for (const lap of children(activity, "Lap")) {
      const lapStart = parseTime(String(lap["@_StartTime"] ?? ""));
      if (lapStart) {
        laps.push({
          startTime: lapStart.ms,
          elapsedTime: num(textOf(lap.TotalTimeSeconds)),
          distance: num(textOf(lap.DistanceMeters)),
        });
      }
      for (const track of children(lap, "Track")) {
        for (const point of children(track, "Trackpoint")) {
          total++;
          const time = parseTime(textOf(point.Time));
          if (!time) {
            untimed++;
            continue;
          }
          offset ??= time.offsetSeconds;
          const s = emptySample(time.ms);
          const position = child(point, "Position");
          const lat = num(textOf(child(position, "LatitudeDegrees")));
          const lng = num(textOf(child(position, "LongitudeDegrees")));
          if (lat !== null && lng !== null && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) {
            s.lat = lat;
            s.lng = lng;
          }
          s.altitude = num(textOf(point.AltitudeMeters));
          s.distance = num(textOf(point.DistanceMeters));
          const hr = num(textOf(child(point.HeartRateBpm, "Value")));
          s.heartrate = hr !== null && hr > 0 ? hr : null;
          s.cadence = num(textOf(point.Cadence));
          const ext = extensionValues(children(point, "Extensions"));
          s.speed = ext.speed;
          s.watts = ext.watts;
          s.cadence ??= ext.cadence;
          s.temp = ext.temp;
          const last = samples[samples.length - 1];
          if (last && last.time === s.time) {
            for (const key of Object.keys(s) as (keyof Sample)[]) {
              if (last[key] === null && s[key] !== null) (last as unknown as Record<string, unknown>)[key] = s[key];
            }
            continue;
          }
          samples.push(s);
        }
      }
    }
  }
  if (untimed > 0) {
    throw new IngestError(`${untimed} of ${total} trackpoints in the TCX file have no time; every trackpoint must carry a time.`);
  }
  samples.sort((a, b) => a.time - b.time);
  laps.sort((a, b) => a.startTime - b.startTime);
  return {
    format: "tcx",
    sport,
    sportHint,
    indoor: false,
    deviceName,
    barometric: /with barometer/i.test(deviceName ?? ""),
    samples,
    laps,
    pauses: [],
    deviceTotals: { ascent: null, calories: null, distance: null },
    utcOffsetSeconds: offset,
    notes: [],
  };
}
