import type { z } from "zod";
import type { activityFacts, bestEffortFacts, lapFacts, splitFacts } from "../../events/activity/events.ts";
import type { ActivityType } from "../../shared/activity-types.ts";
import { activityTypeOfSport, type SportType } from "../../shared/sport-types.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { maxOf, timeWeightedMean } from "./averages.ts";
import { estimateCalories } from "./calories.ts";
import { activityDistance } from "./activity-distance.ts";
import { bestEffort, courseOf, splitRanges } from "./efforts.ts";
import { elevationGain } from "./elevation.ts";
import { channel, held, HOLD_CADENCE_S, HOLD_HEARTRATE_S, HOLD_POWER_S, interpolated, latlngStream, streamOf } from "./gaps.ts";
import { encodePolyline, simplify, type Track } from "./geo.ts";
import { activityMoving } from "./moving-time.ts";
import { sportMask } from "./multisport.ts";
import { iso, round } from "./rounding.ts";
import { activitySpan, closeTrailingLaps } from "./span.ts";
import { averageSpeedOf, maxSpeedOf, velocityStream } from "./speed.ts";
import type { Terrain } from "./terrain.ts";
import { timezoneOf } from "./timezone.ts";
import type { DeviceLap, ParsedFile, Sample } from "./types.ts";

export type ActivityFacts = z.infer<typeof activityFacts>;
type LapFacts = z.infer<typeof lapFacts>;
type SplitFacts = z.infer<typeof splitFacts>;
type BestEffortFacts = z.infer<typeof bestEffortFacts>;

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
  private: boolean;
  /** 1 forces trainer; files without coordinates are trainer anyway. */
  trainer: boolean;
  commute: boolean;
  athlete: { premium: boolean; weight: number | null; birthdate: string | null; sex?: "M" | "F" | null };
}

export interface Derived {
  facts: ActivityFacts;
  streams: ActivityStreams;
}

/** Best-effort distances and names (reference §7.1, newer casing). */
export const BEST_EFFORTS: readonly [string, number][] = [
  ["400m", 400], ["1/2 mile", 805], ["1K", 1000], ["1 mile", 1609], ["2 mile", 3219], ["5K", 5000],
  ["10K", 10000], ["15K", 15000], ["10 mile", 16090], ["20K", 20000], ["Half-Marathon", 21097],
  ["30K", 30000], ["Marathon", 42195],
];

const RIDES: ReadonlySet<ActivityType> = new Set(["Ride", "VirtualRide", "EBikeRide"]);
/** Sports on water: no elevation gain. */
const WATER_SPORTS: ReadonlySet<ActivityType> = new Set([
  "Swim", "Canoeing", "Kayaking", "Rowing", "StandUpPaddling", "Surfing", "Kitesurf", "Windsurf",
]);

function partOfDay(hour: number): string {
  if (hour >= 5 && hour < 11) return "Morning";
  if (hour >= 11 && hour < 14) return "Lunch";
  if (hour >= 14 && hour < 17) return "Afternoon";
  if (hour >= 17 && hour < 21) return "Evening";
  return "Night";
}

const TYPE_WORDS: Partial<Record<ActivityType, string>> = {
  VirtualRide: "Virtual Ride", EBikeRide: "E-Bike Ride", NordicSki: "Nordic Ski", AlpineSki: "Alpine Ski",
  BackcountrySki: "Backcountry Ski", IceSkate: "Ice Skate", InlineSkate: "Inline Skate", RollerSki: "Roller Ski",
  StandUpPaddling: "Stand Up Paddling", WeightTraining: "Weight Training", RockClimbing: "Rock Climbing",
  StairStepper: "Stair Stepper",
};

/** "Morning Ride", "Afternoon Run"… from the local start time (no offline place names exist). */
export function defaultName(type: ActivityType, startDateLocal: string): string {
  const hour = Number(startDateLocal.slice(11, 13));
  return `${partOfDay(hour)} ${TYPE_WORDS[type] ?? type}`;
}

/** Estimated cycling power (W) from speed, acceleration and grade for rides without a power meter. */
function estimatePower(v: number, accel: number, grade: number, mass: number): number {
  const g = 9.81;
  const crr = 0.005;
  const cda = 0.32;
  const rho = 1.2;
  const p = (mass * g * (crr + grade) * v + mass * accel * v + 0.5 * rho * cda * v * v * v) / 0.976;
  return Math.max(0, Math.min(2000, p));
}

/** Where a device lap ended by its own account: its end time (FIT timestamp), else start + elapsed; null when neither. */
function ownEnd(lap: DeviceLap): number | null {
  if (lap.endTime != null && lap.endTime > lap.startTime) return lap.endTime;
  if (lap.elapsedTime !== null && lap.elapsedTime > 0) return lap.startTime + lap.elapsedTime * 1000;
  return null;
}

/** Turns a parsed device file into every fact ActivityRecorded holds, and the streams. */
export function deriveActivity(parsed: ParsedFile, ctx: DeriveContext, options: { terrain?: Terrain | null } = {}): Derived {
  // Non-barometric altitude from the terrain model when the operator supplies one (SRTM tiles).
  if (options.terrain && !parsed.barometric) altitudeFromTerrain(parsed.samples, options.terrain);
  closeTrailingLaps(parsed);
  const samples = parsed.samples;
  const n = samples.length;
  const multisport = (parsed.sessions?.length ?? 0) > 1;
  // One session: the file's sport wins (spec: FIT session.sport, TCX Sport). Several: the form's
  // activity_type when given, else the sport with the most timer time. An upload whose type is
  // authoritative (an archive's activities.csv: the athlete's own choice) keeps it either way.
  const type: ActivityType = multisport || (ctx.activityTypeWins && ctx.activityType)
    ? ctx.activityType ?? parsed.sport ?? parsed.sportHint ?? ctx.defaultType
    : parsed.sport ?? ctx.activityType ?? parsed.sportHint ?? ctx.defaultType;
  const isRide = RIDES.has(type);
  const mask = sportMask(parsed, type);
  const inSport = (i: number) => !mask || mask[i] === 1;

  const span = activitySpan(parsed);
  const { startMs, endMs, times, time, elapsedTime } = span;
  const segmentStarts = parsed.segmentStarts;
  const distance = activityDistance(parsed, type, span);
  const { cum, measured, totalDistance } = distance;
  const movement = activityMoving(parsed, type, span, distance);
  const { moving, movSecs, movingTime } = movement;
  const velocity = velocityStream(samples, times, distance);
  const maxSpeed = maxSpeedOf(velocity, moving, distance, mask);
  const { sportMoving, averageSpeed } = averageSpeedOf(distance, movement, span, mask);

  // Elevation.
  // Nothing is climbed on water: an altimeter under water or at sea level reads noise.
  const onWater = WATER_SPORTS.has(type);
  let totalElevationGain = 0;
  if (onWater) totalElevationGain = 0;
  else if (parsed.deviceTotals.ascent !== null && parsed.barometric) totalElevationGain = parsed.deviceTotals.ascent;
  else totalElevationGain = elevationGain(samples, { segmentStarts, barometric: parsed.barometric, cum });
  let elevHigh: number | null = null;
  let elevLow: number | null = null;
  for (const s of samples) {
    if (s.altitude === null) continue;
    if (elevHigh === null || s.altitude > elevHigh) elevHigh = s.altitude;
    if (elevLow === null || s.altitude < elevLow) elevLow = s.altitude;
  }

  // Heart rate, cadence, temperature: weighted by each sample's duration over the moving time.
  const heartrate = (s: Sample) => s.heartrate;
  const cadence = (s: Sample) => s.cadence;
  // No record carries heart rate (a swim's strap stores it apart): the sessions' own summary.
  const sessionHr = parsed.sessionHeartrate ?? null;
  const recordedHrMax = maxOf(samples, heartrate);
  const hrMax = recordedHrMax ?? sessionHr?.max ?? null;
  const hasHeartrate = hrMax !== null || (sessionHr?.average ?? null) !== null;
  const hrAverage = recordedHrMax !== null ? timeWeightedMean(samples, heartrate, moving) : sessionHr?.average ?? null;
  const averageHeartrate = hrAverage === null ? null : round(hrAverage, 1);
  const maxHeartrate = hrMax === null ? null : Math.round(hrMax);
  const cadAverage = timeWeightedMean(samples, cadence, moving, { skipZero: true });
  const averageCadence = cadAverage === null ? null : round(cadAverage, 1);
  const tempAverage = timeWeightedMean(samples, (s) => s.temp, moving);
  const averageTemp = tempAverage === null ? null : Math.round(tempAverage);

  // Altitude filled across gaps (streams, grade, split elevation differences).
  const altitudeFilled = interpolated(channel(samples, (s) => s.altitude), times);

  // Grade (percent) from altitude over ±25 m of distance (two pointers: linear).
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

  // Power (rides; multisport: the ride sessions only).
  const deviceWattsPresent = samples.some((s) => s.watts !== null && s.watts > 0);
  let averageWatts: number | null = null;
  let maxWatts: number | null = null;
  let weightedAverageWatts: number | null = null;
  let kilojoules: number | null = null;
  let deviceWatts: boolean | null = null;
  if (isRide) {
    const series = new Float64Array(n);
    if (deviceWattsPresent) {
      deviceWatts = true;
      for (let i = 0; i < n; i++) series[i] = samples[i].watts ?? 0;
    } else {
      deviceWatts = false;
      const mass = (ctx.athlete.weight ?? 75) + 9;
      for (let i = 0; i < n; i++) {
        if (!moving[i] || type === "VirtualRide") continue;
        const dt = i > 0 ? (times[i] - times[i - 1]) / 1000 : 0;
        const accel = dt > 0 ? (velocity[i] - velocity[i - 1]) / dt : 0;
        series[i] = estimatePower(velocity[i], Math.max(-1, Math.min(1, accel)), grade[i] / 100, mass);
      }
    }
    const avg = weightedSeriesMean(samples, series, moving, mask) ?? 0;
    averageWatts = round(avg, 1);
    kilojoules = round((avg * sportMoving) / 1000, 1);
    if (deviceWatts) {
      let m = 0;
      for (let i = 0; i < n; i++) if (inSport(i) && series[i] > m) m = series[i];
      maxWatts = Math.round(m);
      weightedAverageWatts = normalizedPower(samples, series, mask ? moving.map((v, i) => (v && mask[i] ? 1 : 0)) : moving);
    }
  }

  // Calories: the device's own (FIT), else a published estimate (calories.ts).
  let calories: number | null = parsed.deviceTotals.calories || null;
  if (calories === null) {
    const birthYear = ctx.athlete.birthdate ? Number(ctx.athlete.birthdate.slice(0, 4)) : NaN;
    const estimate = estimateCalories({
      type,
      movingSeconds: movingTime,
      kilojoules: deviceWatts ? kilojoules : null,
      averageHeartrate: hrAverage,
      weightKg: ctx.athlete.weight,
      ageYears: Number.isFinite(birthYear) ? new Date(startMs).getUTCFullYear() - birthYear : null,
      sex: ctx.athlete.sex ?? null,
    });
    calories = estimate === null ? null : round(estimate, 1);
  }

  // Suffer score (premium only): time in heart-rate zones, weighted.
  let sufferScore: number | null = null;
  if (ctx.athlete.premium && hasHeartrate) {
    const age = ctx.athlete.birthdate ? Math.max(10, new Date(startMs).getUTCFullYear() - Number(ctx.athlete.birthdate.slice(0, 4))) : 35;
    const maxHr = 220 - age;
    const perHour = [12, 24, 45, 100, 120];
    let score = 0;
    for (let i = 1; i < n; i++) {
      const hr = samples[i].heartrate;
      if (!moving[i] || hr === null) continue;
      const pct = hr / maxHr;
      const zone = pct < 0.6 ? 0 : pct < 0.7 ? 1 : pct < 0.8 ? 2 : pct < 0.9 ? 3 : 4;
      score += (perHour[zone] * (times[i] - times[i - 1])) / 3_600_000;
    }
    sufferScore = Math.round(score);
  }

  // Time zone and names.
  const gps = positionsOf(samples);
  const gpsCount = gps.lat.length;
  const hasGps = gpsCount > 0;
  const firstGps: [number, number] | null = hasGps ? [gps.lat[0], gps.lng[0]] : null;
  const lastGps: [number, number] | null = hasGps ? [gps.lat[gpsCount - 1], gps.lng[gpsCount - 1]] : null;
  const timezone = timezoneOf(firstGps, startMs, parsed.utcOffsetSeconds);
  const startDate = iso(startMs);
  const startDateLocal = iso(startMs + timezone.offsetSeconds * 1000);
  const startIso = (i: number) => iso(samples[i].time);
  const hrMean = (a: number, b: number) => {
    const v = timeWeightedMean(samples, heartrate, moving, { from: a, to: b });
    return v === null ? null : round(v, 1);
  };

  // Laps: the device's, or one "Lap 1" over everything.
  const deviceLaps = parsed.laps.length ? parsed.laps : [{ startTime: startMs, elapsedTime: null, distance: null }];
  const starts: number[] = [];
  let pointer = 0;
  for (const lap of deviceLaps) {
    // A TCX lap starts at its own first trackpoint.
    const from = "firstPointTime" in lap && lap.firstPointTime != null ? lap.firstPointTime : lap.startTime;
    if (pointer > 0 && pointer < n && samples[pointer].time > from) pointer = 0;
    while (pointer < n && samples[pointer].time < from) pointer++;
    starts.push(pointer >= n ? n - 1 : pointer);
  }
  const laps: LapFacts[] = deviceLaps.map((lap, k) => {
    const a = starts[k];
    // A lap covers its own span (laps may overlap: a manual lap over autolaps): FIT from its start to
    // its timestamp (the moment it ended), else start + elapsed time; without either, up to the next
    // lap's start.
    let next = k + 1 < starts.length ? starts[k + 1] : n;
    if ("lastPointTime" in lap && lap.lastPointTime != null) {
      // TCX: up to the next lap's own first trackpoint, the last lap up to its own last one.
      if (!(k + 1 < starts.length && starts[k + 1] > a)) {
        let j = a;
        while (j < n && samples[j].time <= lap.lastPointTime) j++;
        next = j;
      }
    } else if (ownEnd(lap) !== null) {
      const end = ownEnd(lap)!;
      let j = a;
      while (j < n && samples[j].time < end) j++;
      next = j;
    }
    const b = Math.max(a, next - 1);
    const closing = Math.min(n - 1, next < n ? next : b);
    const elapsed = Math.round(lap.elapsedTime ?? (times[closing] - times[a]) / 1000);
    const distance = round(lap.distance ?? (cum[closing] - cum[a]), 2);
    const lapMoving = Math.min(Math.round(movSecs[closing] - movSecs[a]), elapsed);
    let lapMaxSpeed = 0;
    for (let i = a; i <= b; i++) if (velocity[i] > lapMaxSpeed) lapMaxSpeed = velocity[i];
    const cad = timeWeightedMean(samples, cadence, moving, { from: a, to: closing, skipZero: true });
    const lapWatts = deviceWattsPresent && isRide ? timeWeightedMean(samples, (s) => s.watts ?? 0, moving, { from: a, to: closing }) : null;
    const lapHrMax = recordedHrMax !== null ? maxOf(samples, heartrate, a, b) : lap.maxHeartrate ?? null;
    const lapHrAverage = recordedHrMax !== null ? hrMean(a, closing) : lap.averageHeartrate == null ? null : round(lap.averageHeartrate, 1);
    return {
      lapIndex: k + 1,
      name: `Lap ${k + 1}`,
      startIndex: a,
      endIndex: b,
      startDate: iso(Math.max("firstPointTime" in lap && lap.firstPointTime != null ? lap.firstPointTime : lap.startTime, startMs)),
      elapsedTime: elapsed,
      movingTime: lapMoving,
      distance,
      totalElevationGain: onWater ? 0 : round(elevationGain(samples, { from: a, to: b + 1, segmentStarts, barometric: parsed.barometric, cum }), 1),
      averageSpeed: round(lapMoving > 0 ? distance / lapMoving : elapsed > 0 ? distance / elapsed : 0, 3),
      maxSpeed: round(lapMaxSpeed, 2),
      averageCadence: cad === null ? null : round(cad, 1),
      averageWatts: lapWatts === null ? null : round(lapWatts, 1),
      averageHeartrate: lapHrAverage,
      maxHeartrate: lapHrMax,
    };
  });

  // Splits and best efforts (runs): from the distance stream of the run's own samples.
  const course = type === "Run" && measured
    ? courseOf(times, cum, movSecs, mask, mask ? undefined : {
      leadElapsed: (samples[0].time - startMs) / 1000,
      trailElapsed: (endMs - samples[n - 1].time) / 1000,
      trailMoving: movingTime - movSecs[n - 1],
    })
    : null;
  const splits = (unit: number): SplitFacts[] => {
    if (!course) return [];
    return splitRanges(course, unit).map((r) => {
      const altA = altitudeFilled ? altitudeFilled[r.startIndex] : null;
      const altB = altitudeFilled ? altitudeFilled[r.endIndex] : null;
      return {
        split: r.split,
        distance: round(r.distance, 1),
        elapsedTime: r.elapsedTime,
        movingTime: r.movingTime,
        elevationDifference: altA !== null && altB !== null ? round(altB - altA, 1) : null,
        averageSpeed: round(r.movingTime > 0 ? r.distance / r.movingTime : r.elapsedTime > 0 ? r.distance / r.elapsedTime : 0, 2),
        averageHeartrate: hrMean(r.startIndex, r.endIndex),
        paceZone: 0,
      };
    });
  };
  const bestEfforts: BestEffortFacts[] = [];
  // Strava's best-effort averages over the effort's samples (as a lap's).
  const effortAverages = (a: number, b: number) => {
    const cad = timeWeightedMean(samples, cadence, moving, { from: a, to: b, skipZero: true });
    const watts = deviceWattsPresent ? timeWeightedMean(samples, (s) => s.watts ?? 0, moving, { from: a, to: b }) : null;
    return {
      averageCadence: cad === null ? null : round(cad, 1),
      averageWatts: watts === null ? null : round(watts, 1),
      deviceWatts: deviceWattsPresent,
      averageHeartrate: hrMean(a, b),
      maxHeartrate: maxOf(samples, heartrate, a, b),
    };
  };
  if (course) {
    const courseDistance = course.distance[n - 1];
    for (const [name, distance] of BEST_EFFORTS) {
      if (distance > courseDistance) break;
      const best = bestEffort(course, distance);
      if (!best) continue;
      bestEfforts.push({
        name,
        distance,
        elapsedTime: best.elapsedTime,
        movingTime: best.movingTime,
        startIndex: best.startIndex,
        endIndex: best.endIndex,
        startDate: startIso(best.startIndex),
        prRank: null,
        ...effortAverages(best.startIndex, best.endIndex),
      });
    }
  }

  const polyline = hasGps ? encodePolyline(gps, { digits: 6 }) : null;
  const summaryPolyline = hasGps ? encodePolyline(gps, { indices: simplify(gps, 0.0001) }) : null;

  // Streams: numbers only (gaps filled by the rules of gaps.ts).
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
  const hrStream = held(channel(samples, heartrate), times, HOLD_HEARTRATE_S, "interpolate");
  if (hrStream) streams.heartrate = streamOf(hrStream, 0);
  const cadenceStream = held(channel(samples, cadence), times, HOLD_CADENCE_S, 0);
  if (cadenceStream) streams.cadence = streamOf(cadenceStream);
  if (deviceWattsPresent) {
    const watts = held(channel(samples, (s) => s.watts), times, HOLD_POWER_S, 0);
    if (watts) streams.watts = streamOf(watts);
  }
  const tempStream = interpolated(channel(samples, (s) => s.temp), times);
  if (tempStream) streams.temp = streamOf(tempStream, 1);

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
    distance: round(totalDistance, 1),
    movingTime,
    elapsedTime,
    totalElevationGain: round(totalElevationGain, 1),
    elevHigh: elevHigh === null ? null : round(elevHigh, 1),
    elevLow: elevLow === null ? null : round(elevLow, 1),
    barometric: parsed.barometric,
    startLatlng: firstGps ? [round(firstGps[0], 6), round(firstGps[1], 6)] : null,
    endLatlng: lastGps ? [round(lastGps[0], 6), round(lastGps[1], 6)] : null,
    averageSpeed: round(averageSpeed, 3),
    maxSpeed,
    averageCadence,
    averageTemp,
    averageWatts,
    maxWatts,
    weightedAverageWatts,
    kilojoules,
    deviceWatts,
    hasHeartrate,
    averageHeartrate,
    maxHeartrate,
    calories,
    sufferScore,
    private: ctx.private,
    trainer: ctx.trainer || !hasGps || parsed.indoor,
    commute: ctx.commute,
    deviceName: parsed.deviceName,
    workoutType: null,
    polyline,
    summaryPolyline,
    streamsSha256: null,
    laps,
    splitsMetric: splits(1000),
    splitsStandard: splits(1609.344),
    bestEfforts,
  };
  return { facts, streams };
}

/**
 * Replaces recorded altitudes with the terrain model's at each position when the model covers at
 * least half the positioned records (records without a position, or outside the tiles, lose their
 * altitude and are filled across like any gap). Otherwise the recorded altitude stays.
 */
function altitudeFromTerrain(samples: Sample[], terrain: Terrain): void {
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
  if (positioned === 0 || covered * 2 < positioned) return;
  for (let i = 0; i < samples.length; i++) samples[i].altitude = values[i];
}

/** The file's own activity name (GPX <trk><name>), made storable and kept to 255 characters. */
function fileName(name: string | null | undefined): string | null {
  const clean = (name ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").replace(/\s+/g, " ").trim();
  return clean ? clean.slice(0, 255) : null;
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

/** Duration-weighted mean of a per-sample series over moving intervals (and the sport mask). */
function weightedSeriesMean(samples: readonly Sample[], series: ArrayLike<number>, moving: Uint8Array, mask?: Uint8Array): number | null {
  let sum = 0;
  let weight = 0;
  for (let i = 1; i < samples.length; i++) {
    if (!moving[i] || (mask && !mask[i])) continue;
    const dt = (samples[i].time - samples[i - 1].time) / 1000;
    if (dt <= 0) continue;
    sum += series[i] * dt;
    weight += dt;
  }
  if (weight > 0) return sum / weight;
  let plain = 0;
  for (let i = 0; i < series.length; i++) plain += series[i];
  return series.length ? plain / series.length : null;
}

/** 30-second rolling average (1 Hz, moving time only), fourth-power mean, fourth root. */
function normalizedPower(samples: readonly Sample[], watts: ArrayLike<number>, moving: Uint8Array): number | null {
  const seconds = (i: number) => Math.min(10, Math.max(0, Math.round((samples[i].time - samples[i - 1].time) / 1000)));
  let total = 0;
  for (let i = 1; i < samples.length; i++) if (moving[i]) total += seconds(i);
  const perSecond = new Float64Array(total);
  let at = 0;
  for (let i = 1; i < samples.length; i++) {
    if (!moving[i]) continue;
    for (let k = seconds(i); k > 0; k--) perSecond[at++] = watts[i];
  }
  if (perSecond.length < 30) return perSecond.length ? Math.round(perSecond.reduce((a, b) => a + b, 0) / perSecond.length) : null;
  let sum = 0;
  let acc = 0;
  let count = 0;
  for (let i = 0; i < perSecond.length; i++) {
    sum += perSecond[i];
    if (i >= 30) sum -= perSecond[i - 30];
    if (i >= 29) {
      acc += (sum / 30) ** 4;
      count++;
    }
  }
  return Math.round((acc / count) ** 0.25);
}
