/**
 * Deriving an activity from a device file, step by step: its type, span, distance, moving time,
 * speed, elevation, sensors, power, estimates, laps, splits and best efforts are each computed in
 * a file of their own (named for what they compute); this one runs them in order and assembles the
 * facts ActivityRecorded holds and the streams.
 */
import type { z } from "zod";
import type { Visibility } from "../../shared/visibility.ts";
import type { activityFacts } from "../../events/activity/events.ts";
import type { ActivityType } from "../../shared/activity-types.ts";
import { activityTypeOfSport, type SportType } from "../../shared/sport-types.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { activityDistance } from "./activity-distance.ts";
import {
  altitudeFromTerrain,
  elevationFigures,
  elevationSourceOf,
  filledAltitude,
  gradeStream,
  onWater,
} from "./altitude.ts";
import { bestEffortsOf } from "./best-efforts.ts";
import { activityCalories, type DeriveAthlete, sufferScore } from "./estimates.ts";
import { holdReadings, latlngStream, sensorStream, streamOf } from "./gaps.ts";
import { encodePolyline, simplify, type Track } from "./geo.ts";
import { lapsOf } from "./laps.ts";
import { activityMoving } from "./moving-time.ts";
import { sportMask } from "./multisport.ts";
import { defaultName, fileName } from "./names.ts";
import { isRide, powerFigures } from "./power.ts";
import { powerCurveFacts } from "./power-curve.ts";
import { iso, round } from "./rounding.ts";
import { sensorFigures } from "./sensors.ts";
import { activitySpan } from "./span.ts";
import { averageSpeedOf, maxSpeedOf, velocityStream } from "./speed.ts";
import { runCourse, splitsOf } from "./splits.ts";
import type { Terrain } from "./terrain.ts";
import { fillUnsampledLaps } from "./timeline.ts";
import { timezoneOf } from "./timezone.ts";
import type { ParsedFile, Sample } from "./types.ts";

export { BEST_EFFORTS } from "./best-efforts.ts";
export { defaultName } from "./names.ts";

export type ActivityFacts = z.infer<typeof activityFacts>;

/** What the uploader said (form fields) and who the athlete is. */
export interface DeriveContext {
  uploadId: number | null;
  externalId: string | null;
  /** activity_type field; a type detected from the file wins over it. */
  activityType: ActivityType | null;
  /** activityType wins over the file's sport too (an archive's activities.csv type, kept on the upload's event). */
  activityTypeWins?: boolean;
  /** sport_type field: the activity's sport type when the type it gives is the activity's. */
  sportType?: SportType | null;
  /** Athlete's default type when neither the file nor the form names one. */
  defaultType: ActivityType;
  name: string | null;
  description: string | null;
  /** Who may see the activity (chosen at upload). */
  visibility: Visibility;
  /** 1 forces trainer; files without coordinates are trainer anyway. */
  trainer: boolean;
  commute: boolean;
  athlete: DeriveAthlete;
}

export interface Derived {
  facts: ActivityFacts;
  streams: ActivityStreams;
}

/**
 * The activity's type. One session: the file's sport wins (spec: FIT session.sport, TCX Sport).
 * Several: the form's activity_type when given, else the sport with the most timer time. An upload
 * whose type is authoritative (an archive's activities.csv: the athlete's own choice) keeps it either way.
 */
function activityTypeOf(parsed: ParsedFile, ctx: DeriveContext): ActivityType {
  const multisport = (parsed.sessions?.length ?? 0) > 1;
  return multisport || (ctx.activityTypeWins && ctx.activityType)
    ? ctx.activityType ?? parsed.sport ?? parsed.sportHint ?? ctx.defaultType
    : parsed.sport ?? ctx.activityType ?? parsed.sportHint ?? ctx.defaultType;
}

/** Turns a parsed device file into every fact ActivityRecorded holds, and the streams. */
export function deriveActivity(
  parsed: ParsedFile,
  ctx: DeriveContext,
  options: { terrain?: Terrain | null } = {},
): Derived {
  // Non-barometric altitude from the terrain model when the operator supplies one (SRTM tiles).
  const fromTerrain = !!options.terrain && !parsed.barometric && altitudeFromTerrain(parsed.samples, options.terrain);
  const elevationSource = elevationSourceOf(parsed, fromTerrain);
  // The samples span the activity (timeline.ts), and carry what the streams show (gaps.ts).
  fillUnsampledLaps(parsed);
  const span = activitySpan(parsed);
  const { startMs, times } = span;
  const samples = parsed.samples;
  holdReadings(samples, times);
  const type = activityTypeOf(parsed, ctx);
  const mask = sportMask(parsed, type);

  const distance = activityDistance(parsed, type, span);
  const { cum } = distance;
  const movement = activityMoving(parsed, type, span, distance);
  const { moving, movSecs, movingTime } = movement;
  const velocity = velocityStream(samples, times, distance);
  const maxSpeed = maxSpeedOf(velocity, moving, distance, mask);
  const { sportMoving, averageSpeed } = averageSpeedOf(distance, movement, span, mask);
  const elevation = elevationFigures(parsed, type, cum);
  const sensors = sensorFigures(parsed, moving);
  const altitudeFilled = filledAltitude(samples, times);
  const grade = gradeStream(cum, altitudeFilled);
  const power = powerFigures({
    samples,
    times,
    type,
    moving,
    mask,
    velocity,
    grade,
    sportMoving,
    weight: ctx.athlete.weight,
  });
  const calories = activityCalories(parsed, ctx.athlete, {
    type,
    movingTime,
    kilojoules: power.deviceWatts ? power.kilojoules : null,
    averageHeartrate: sensors.hrAverage,
    startMs,
  });

  // Time zone and names.
  const gps = positionsOf(samples);
  const gpsCount = gps.lat.length;
  const hasGps = gpsCount > 0;
  const firstGps: [number, number] | null = hasGps ? [gps.lat[0], gps.lng[0]] : null;
  const lastGps: [number, number] | null = hasGps ? [gps.lat[gpsCount - 1], gps.lng[gpsCount - 1]] : null;
  const timezone = timezoneOf(firstGps, startMs, parsed.utcOffsetSeconds);
  const startDate = iso(startMs);
  const startDateLocal = iso(startMs + timezone.offsetSeconds * 1000);

  const laps = lapsOf({
    parsed,
    startMs,
    times,
    cum,
    moving,
    movSecs,
    velocity,
    onWater: onWater(type),
    recordedHrMax: sensors.recordedHrMax,
    lapWatts: power.deviceWattsPresent && isRide(type),
    pool: distance.pool,
  });
  // Splits and best efforts (runs): from the distance stream of the run's own samples.
  const course = runCourse({ type, samples, span, cum, measured: distance.measured, movSecs, movingTime, mask });

  const polyline = hasGps ? encodePolyline(gps, { digits: 6 }) : null;
  const summaryPolyline = hasGps ? encodePolyline(gps, { indices: simplify(gps, 0.0001) }) : null;
  const streams = activityStreams(
    samples,
    span,
    cum,
    moving,
    velocity,
    altitudeFilled,
    grade,
    hasGps,
    power.deviceWattsPresent,
  );

  const facts: ActivityFacts = {
    type,
    ...(ctx.sportType && activityTypeOfSport(ctx.sportType) === type ? { sportType: ctx.sportType } : {}),
    name: ctx.name?.trim() || fileName(parsed.name) || defaultName(type, startDateLocal),
    description: ctx.description ?? null,
    externalId: ctx.externalId,
    uploadId: ctx.uploadId,
    startDate,
    startDateLocal,
    timezone: timezone.timezone,
    distance: round(distance.totalDistance, 1),
    movingTime,
    elapsedTime: span.elapsedTime,
    totalElevationGain: round(elevation.totalElevationGain, 1),
    elevHigh: elevation.elevHigh === null ? null : round(elevation.elevHigh, 1),
    elevLow: elevation.elevLow === null ? null : round(elevation.elevLow, 1),
    barometric: parsed.barometric,
    elevationSource,
    startLatlng: firstGps ? [round(firstGps[0], 6), round(firstGps[1], 6)] : null,
    endLatlng: lastGps ? [round(lastGps[0], 6), round(lastGps[1], 6)] : null,
    averageSpeed: round(averageSpeed, 3),
    maxSpeed,
    averageCadence: sensors.averageCadence,
    averageTemp: sensors.averageTemp,
    averageWatts: power.averageWatts,
    maxWatts: power.maxWatts,
    weightedAverageWatts: power.weightedAverageWatts,
    kilojoules: power.kilojoules,
    deviceWatts: power.deviceWatts,
    hasHeartrate: sensors.hasHeartrate,
    averageHeartrate: sensors.averageHeartrate,
    maxHeartrate: sensors.maxHeartrate,
    calories,
    sufferScore: sufferScore(samples, times, moving, ctx.athlete, sensors.hasHeartrate, startMs),
    visibility: ctx.visibility,
    trainer: ctx.trainer || !hasGps || parsed.indoor,
    commute: ctx.commute,
    deviceName: parsed.deviceName,
    workoutType: null,
    polyline,
    summaryPolyline,
    streamsSha256: null,
    laps,
    splitsMetric: splitsOf(course, 1000, samples, moving, altitudeFilled),
    splitsStandard: splitsOf(course, 1609.344, samples, moving, altitudeFilled),
    bestEfforts: bestEffortsOf(course, samples, moving, power.deviceWattsPresent),
    powerCurve: powerCurveFacts(streams),
  };
  return { facts, streams };
}

/** The streams: numbers only (gaps filled by the rules of gaps.ts). */
function activityStreams(
  samples: readonly Sample[],
  span: { times: Float64Array; time: number[] },
  cum: Float64Array,
  moving: Uint8Array,
  velocity: number[],
  altitudeFilled: Float64Array | null,
  grade: number[],
  hasGps: boolean,
  deviceWattsPresent: boolean,
): ActivityStreams {
  const { times, time } = span;
  const n = samples.length;
  const movingStream: boolean[] = [];
  for (let i = 0; i < n; i++) movingStream.push(moving[i] === 1);
  const streams: ActivityStreams = {
    time,
    distance: streamOf(cum, 1),
    moving: movingStream,
    velocity_smooth: velocity,
  };
  const latlng = hasGps ? latlngStream(samples, times, 7) : null;
  if (latlng) streams.latlng = latlng;
  if (altitudeFilled) {
    streams.altitude = streamOf(altitudeFilled, 1);
    streams.grade_smooth = grade;
  }
  const hrStream = sensorStream(samples, "heartrate", 0);
  if (hrStream) streams.heartrate = hrStream;
  const cadenceStream = sensorStream(samples, "cadence");
  if (cadenceStream) streams.cadence = cadenceStream;
  if (deviceWattsPresent) {
    const watts = sensorStream(samples, "watts");
    if (watts) streams.watts = watts;
  }
  // Temperature is filled across gaps already (holdReadings).
  const tempStream = sensorStream(samples, "temp", 1);
  if (tempStream) streams.temp = tempStream;
  return streams;
}

/** Positions of the samples that have one, in order. */
function positionsOf(samples: readonly Sample[]): Track {
  let count = 0;
  for (const s of samples) if (s.lat !== null && s.lng !== null) count++;
  const lat = new Float64Array(count);
  const lng = new Float64Array(count);
  let k = 0;
  for (const s of samples) {
    if (s.lat === null || s.lng === null) continue;
    lat[k] = s.lat;
    lng[k++] = s.lng;
  }
  return { lat, lng };
}
