import type { ActivityType } from "../../shared/activity-types.ts";
import { sportWordType } from "./sports.ts";
import { type DeviceLap, emptySample, IngestError, num, type ParsedFile, type Sample } from "./types.ts";
import { collectExtension, emptyExtensionValues, type ExtensionValues, parseTime, streamXml } from "./xml.ts";

interface PointText {
  time: string | null;
  lat: string | null;
  lng: string | null;
  altitude: string | null;
  distance: string | null;
  heartrate: string | null;
  cadence: string | null;
  ext: ExtensionValues;
}

/**
 * Parses a TCX v2 activity file as a stream (TPX extensions with or without the wrapper, any
 * prefix), or a TCX v2 Course (its Track). Every Lap of an Activity with a StartTime becomes a
 * DeviceLap, whether or not it holds a Track.
 */
export function parseTcx(bytes: Uint8Array): ParsedFile {
  const samples: Sample[] = [];
  const laps: DeviceLap[] = [];
  let sawRoot = false;
  let activities = 0;
  let sport: ActivityType | null = null;
  let sportHint: ActivityType | null = null;
  let deviceName: string | null = null;
  let offset: number | null = null;
  let untimed = 0;
  let total = 0;
  let lap: DeviceLap | null = null;
  let point: PointText | null = null;
  let extensionsDepth = 0;

  streamXml(bytes, "TCX", {
    open(element, path) {
      if (!sawRoot) {
        sawRoot = true;
        if (element.name !== "TrainingCenterDatabase") {
          throw new IngestError("The file is not a TCX file (no TrainingCenterDatabase element).");
        }
        return;
      }
      const parent = path[path.length - 2];
      if (point) {
        if (element.name === "Extensions") extensionsDepth++;
        return;
      }
      if (element.name === "Activity" && parent === "Activities" && path.length === 3) {
        activities++;
        const word = element.attributes.Sport ?? "";
        sport ??= sportWordType(word);
        if (word.trim().toLowerCase() === "other") sportHint = "Workout";
      } else if (element.name === "Course" && parent === "Courses" && path.length === 3) {
        // A Course (a planned route, e.g. exported from a route) is read like an activity: its
        // Track's points, without a sport (the upload's own type or the default applies).
        activities++;
      } else if (element.name === "Lap" && parent === "Activity") {
        const start = parseTime(element.attributes.StartTime ?? "");
        lap = start
          ? {
            startTime: start.ms,
            elapsedTime: null,
            distance: null,
            calories: null,
            points: 0,
            firstPointTime: null,
            lastPointTime: null,
          }
          : null;
        if (lap) laps.push(lap);
      } else if (element.name === "Trackpoint" && parent === "Track") {
        point = {
          time: null,
          lat: null,
          lng: null,
          altitude: null,
          distance: null,
          heartrate: null,
          cadence: null,
          ext: emptyExtensionValues(),
        };
        extensionsDepth = 0;
      }
    },
    close(name, text, path) {
      const parent = path[path.length - 2];
      if (point && name !== "Trackpoint") {
        if (name === "Extensions") extensionsDepth--;
        else if (extensionsDepth > 0) collectExtension(point.ext, name, text, parent);
        else if (parent === "Trackpoint") {
          if (name === "Time") point.time = text;
          else if (name === "AltitudeMeters") point.altitude = text;
          else if (name === "DistanceMeters") point.distance = text;
          else if (name === "Cadence") point.cadence = text;
        } else if (parent === "Position") {
          if (name === "LatitudeDegrees") point.lat = text;
          else if (name === "LongitudeDegrees") point.lng = text;
        } else if (parent === "HeartRateBpm" && name === "Value") point.heartrate = text;
        return;
      }
      if (name === "Trackpoint" && point) {
        addPoint(point);
        point = null;
        return;
      }
      if (parent === "Lap" && lap) {
        if (name === "TotalTimeSeconds") lap.elapsedTime = num(text);
        else if (name === "DistanceMeters") lap.distance = num(text);
        else if (name === "Calories") lap.calories = num(text);
      } else if (name === "Lap") {
        lap = null;
      } else if (name === "Name" && parent === "Creator" && path[path.length - 3] === "Activity") {
        deviceName ??= text || null;
      }
    },
  });

  function addPoint(p: PointText) {
    total++;
    const time = parseTime(p.time);
    if (!time) {
      untimed++;
      return;
    }
    offset ??= time.offsetSeconds;
    if (lap) {
      lap.points = (lap.points ?? 0) + 1;
      lap.firstPointTime ??= time.ms;
      lap.lastPointTime = time.ms;
    }
    const s = emptySample(time.ms);
    const lat = num(p.lat);
    const lng = num(p.lng);
    if (lat !== null && lng !== null && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) {
      s.lat = lat;
      s.lng = lng;
    }
    s.altitude = num(p.altitude);
    s.distance = num(p.distance);
    const hr = num(p.heartrate);
    s.heartrate = hr !== null && hr > 0 ? hr : null;
    s.cadence = num(p.cadence);
    s.speed = p.ext.speed;
    s.watts = p.ext.watts;
    s.cadence ??= p.ext.cadence;
    s.temp = p.ext.temp;
    samples.push(s);
  }

  if (!sawRoot) throw new IngestError("The file is not a TCX file (no TrainingCenterDatabase element).");
  if (activities === 0) throw new IngestError("The TCX file holds no Activity and no Course.");
  if (untimed > 0) {
    throw new IngestError(
      `${untimed} of ${total} trackpoints in the TCX file have no time; every trackpoint must carry a time.`,
    );
  }
  // In the order of their own trackpoints (a lap's StartTime may run in timer time), else StartTime.
  laps.sort((a, b) => (a.firstPointTime ?? a.startTime) - (b.firstPointTime ?? b.startTime));
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
