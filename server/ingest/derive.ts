import type { z } from "zod";
import type { activityFacts, bestEffortFacts, lapFacts, splitFacts } from "../../events/activity/events.ts";
import type { ActivityType } from "../../shared/activity-types.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { maxOf, minOf } from "./extent.ts";
import { encodePolyline, haversine, simplify } from "./geo.ts";
import { timezoneOf } from "./timezone.ts";
import type { ParsedFile, Sample } from "./types.ts";

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
  /** Athlete's default type when neither the file nor the form names one. */
  defaultType: ActivityType;
  name: string | null;
  description: string | null;
  private: boolean;
  /** 1 forces trainer; files without coordinates are trainer anyway. */
  trainer: boolean;
  commute: boolean;
  athlete: { premium: boolean; weight: number | null; birthdate: string | null };
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
const FOOT: ReadonlySet<ActivityType> = new Set(["Run", "Walk", "Hike"]);

/** Speed (m/s) under which an interval counts as stopped. */
function movingThreshold(type: ActivityType): number {
  if (type === "Run") return 0.894; // 30 min/mile (reference §7.2)
  if (type === "Walk" || type === "Hike" || type === "Snowshoe") return 0.4;
  if (type === "Swim") return 0.1;
  if (RIDES.has(type)) return 1.0;
  return 0.5;
}

/** Longest gap between records that still counts as continuous recording when no distance is known. */
const MAX_CONTINUOUS_GAP_S = 10;

const round = (n: number, digits = 1) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

function iso(ms: number): string {
  return new Date(Math.round(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** Whether distance comes from positions or a speed/distance sensor moving with the athlete. */
function hasGpsOrSpeed(samples: Sample[]): boolean {
  return samples.some((s) => s.lat !== null) || samples.some((s) => s.speed !== null && s.speed > 0);
}

/** Cumulative distance: the device's own where it has one, else positions, else speed × time. */
function cumulativeDistance(samples: Sample[]): number[] {
  const cum = new Array<number>(samples.length).fill(0);
  let lastDevice: number | null = samples[0].distance;
  let cumAtLastDevice = 0;
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1];
    const b = samples[i];
    let next: number;
    if (b.distance !== null && lastDevice !== null && b.distance >= lastDevice) {
      next = Math.max(cum[i - 1], cumAtLastDevice + (b.distance - lastDevice));
    } else if (a.lat !== null && b.lat !== null && a.lng !== null && b.lng !== null) {
      next = cum[i - 1] + haversine(a.lat, a.lng, b.lat, b.lng);
    } else if (b.speed !== null && b.speed > 0) {
      next = cum[i - 1] + b.speed * Math.min(10, (b.time - a.time) / 1000);
    } else {
      next = cum[i - 1];
    }
    cum[i] = next;
    if (b.distance !== null) {
      lastDevice = b.distance;
      cumAtLastDevice = next;
    }
  }
  return cum;
}

/** Gain with hysteresis: a climb counts once the altitude rose `threshold` metres above the last low. */
export function elevationGain(altitudes: number[], threshold: number): number {
  if (altitudes.length < 2) return 0;
  let gain = 0;
  let ref = altitudes[0];
  for (const alt of altitudes) {
    if (alt - ref >= threshold) {
      gain += alt - ref;
      ref = alt;
    } else if (alt < ref) {
      ref = alt;
    }
  }
  return gain;
}

/** GPS altitude noise filter: centred moving average over 7 samples, then 3 m hysteresis. */
function gpsGain(altitudes: number[]): number {
  const w = 3;
  const smooth = altitudes.map((_, i) => {
    let s = 0;
    let n = 0;
    for (let j = Math.max(0, i - w); j <= Math.min(altitudes.length - 1, i + w); j++) {
      s += altitudes[j];
      n++;
    }
    return s / n;
  });
  return elevationGain(smooth, 3);
}

function mean(values: number[]): number | null {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

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

/** Turns a parsed device file into every fact ActivityRecorded holds, and the streams. */
export function deriveActivity(parsed: ParsedFile, ctx: DeriveContext): Derived {
  const samples = parsed.samples;
  const n = samples.length;
  const t0 = samples[0].time;
  const time = samples.map((s) => Math.round((s.time - t0) / 1000));
  const cum = cumulativeDistance(samples);
  const type: ActivityType = parsed.sport ?? ctx.activityType ?? parsed.sportHint ?? ctx.defaultType;
  const isRide = RIDES.has(type);
  const gps = samples.map((s) => (s.lat !== null && s.lng !== null ? [s.lat, s.lng] as [number, number] : null));
  const gpsPoints = gps.filter((p): p is [number, number] => p !== null);
  const hasGps = gpsPoints.length > 0;
  const streamDistance = cum[n - 1];
  // FIT: the session's own total wins (it excludes distance covered while the timer was stopped).
  const totalDistance = parsed.format === "fit" && parsed.deviceTotals.distance ? parsed.deviceTotals.distance : streamDistance;
  const hasDistance = streamDistance > 0 && hasGpsOrSpeed(samples);

  // Moving: each interval (i-1, i) is moving unless the device paused, or it was too slow.
  const threshold = movingThreshold(type);
  const moving = new Array<boolean>(n).fill(false);
  const dts = new Array<number>(n).fill(0);
  const interval = new Array<number>(n).fill(0);
  let pauseIndex = 0;
  const pauses = parsed.pauses;
  for (let i = 1; i < n; i++) {
    const dt = (samples[i].time - samples[i - 1].time) / 1000;
    dts[i] = dt;
    const d = cum[i] - cum[i - 1];
    interval[i] = dt > 0 ? d / dt : 0;
    const mid = (samples[i].time + samples[i - 1].time) / 2;
    while (pauseIndex < pauses.length && pauses[pauseIndex].end < mid) pauseIndex++;
    const paused = pauseIndex < pauses.length && pauses[pauseIndex].start <= mid && mid <= pauses[pauseIndex].end;
    if (paused || dt <= 0) {
      moving[i] = !paused && moving[i - 1];
      continue;
    }
    if (hasDistance && hasGps && type !== "Swim") {
      const speed = samples[i].speed ?? interval[i];
      moving[i] = Math.max(speed, interval[i]) >= threshold && interval[i] >= threshold * 0.5;
    } else {
      moving[i] = dt <= MAX_CONTINUOUS_GAP_S;
    }
  }
  if (n > 1) moving[0] = moving[1];
  let movingTime = 0;
  for (let i = 1; i < n; i++) if (moving[i]) movingTime += dts[i];
  movingTime = Math.round(movingTime);
  const elapsedTime = time[n - 1];

  // Speeds.
  const rawSpeed = samples.map((s, i) => s.speed ?? interval[i]);
  const velocity = rawSpeed.map((_, i) => {
    let s = 0;
    let c = 0;
    for (let j = Math.max(0, i - 2); j <= Math.min(n - 1, i + 2); j++) {
      s += rawSpeed[j];
      c++;
    }
    return round(s / c, 2);
  });
  const maxSpeed = velocity.reduce((m, v, i) => (moving[i] && v > m ? v : m), 0);
  const raceTime = movingTime > 0 ? movingTime : elapsedTime;
  const averageSpeed = raceTime > 0 ? totalDistance / raceTime : 0;

  // Elevation.
  const altitudes = samples.map((s) => s.altitude).filter((a): a is number => a !== null);
  let totalElevationGain = 0;
  if (parsed.deviceTotals.ascent !== null && parsed.barometric) totalElevationGain = parsed.deviceTotals.ascent;
  else if (parsed.barometric) totalElevationGain = elevationGain(altitudes, 1);
  else totalElevationGain = gpsGain(altitudes);
  const elevHigh = altitudes.length ? maxOf(altitudes) : null;
  const elevLow = altitudes.length ? minOf(altitudes) : null;

  // Heart rate, cadence, temperature.
  const hrAll = samples.map((s) => s.heartrate).filter((h): h is number => h !== null);
  const hrMoving = samples.filter((s, i) => moving[i] && s.heartrate !== null).map((s) => s.heartrate as number);
  const hasHeartrate = hrAll.length > 0;
  const averageHeartrate = hasHeartrate ? round(mean(hrMoving.length ? hrMoving : hrAll)!, 1) : null;
  const maxHeartrate = hasHeartrate ? Math.round(maxOf(hrAll)) : null;
  const cadMoving = samples.filter((s, i) => moving[i] && s.cadence !== null && s.cadence > 0).map((s) => s.cadence as number);
  const averageCadence = cadMoving.length ? round(mean(cadMoving)!, 1) : null;
  const temps = samples.map((s) => s.temp).filter((t): t is number => t !== null);
  const averageTemp = temps.length ? Math.round(mean(temps)!) : null;

  // Grade (percent) from altitude over ~distance.
  const grade = new Array<number>(n).fill(0);
  if (altitudes.length) {
    for (let i = 0; i < n; i++) {
      let a = i;
      let b = i;
      while (a > 0 && cum[i] - cum[a] < 25) a--;
      while (b < n - 1 && cum[b] - cum[i] < 25) b++;
      const da = samples[a].altitude;
      const db = samples[b].altitude;
      const run = cum[b] - cum[a];
      grade[i] = da !== null && db !== null && run > 10 ? round(((db - da) / run) * 100, 1) : 0;
    }
  }

  // Power.
  const wattsValues = samples.map((s) => s.watts);
  // A power field that is always 0 is no power meter.
  const deviceWattsPresent = wattsValues.some((w) => w !== null && w > 0);
  let averageWatts: number | null = null;
  let maxWatts: number | null = null;
  let weightedAverageWatts: number | null = null;
  let kilojoules: number | null = null;
  let deviceWatts: boolean | null = null;
  if (isRide) {
    let series: number[];
    if (deviceWattsPresent) {
      deviceWatts = true;
      series = wattsValues.map((w) => w ?? 0);
    } else {
      deviceWatts = false;
      const mass = (ctx.athlete.weight ?? 75) + 9;
      series = samples.map((_, i) => {
        if (!moving[i] || type === "VirtualRide") return 0;
        const accel = i > 0 && dts[i] > 0 ? (velocity[i] - velocity[i - 1]) / dts[i] : 0;
        return estimatePower(velocity[i], Math.max(-1, Math.min(1, accel)), grade[i] / 100, mass);
      });
    }
    const movingWatts = series.filter((_, i) => moving[i]);
    const avg = mean(movingWatts.length ? movingWatts : series) ?? 0;
    averageWatts = round(avg, 1);
    kilojoules = round((avg * movingTime) / 1000, 1);
    if (deviceWatts) {
      maxWatts = Math.round(maxOf(series));
      weightedAverageWatts = normalizedPower(samples, series, moving);
    }
  }

  // Calories: the device's own, else from work (rides) or distance and weight (on foot).
  let calories: number | null = parsed.deviceTotals.calories || null;
  if (calories === null && kilojoules !== null) calories = round(kilojoules / (4.184 * 0.24), 1);
  if (calories === null && FOOT.has(type)) calories = round((ctx.athlete.weight ?? 75) * (totalDistance / 1000) * 1.036, 1);

  // Suffer score (premium only): time in heart-rate zones, weighted.
  let sufferScore: number | null = null;
  if (ctx.athlete.premium && hasHeartrate) {
    const age = ctx.athlete.birthdate ? Math.max(10, new Date(t0).getUTCFullYear() - Number(ctx.athlete.birthdate.slice(0, 4))) : 35;
    const maxHr = 220 - age;
    const perHour = [12, 24, 45, 100, 120];
    let score = 0;
    for (let i = 1; i < n; i++) {
      const hr = samples[i].heartrate;
      if (!moving[i] || hr === null) continue;
      const pct = hr / maxHr;
      const zone = pct < 0.6 ? 0 : pct < 0.7 ? 1 : pct < 0.8 ? 2 : pct < 0.9 ? 3 : 4;
      score += (perHour[zone] * dts[i]) / 3600;
    }
    sufferScore = Math.round(score);
  }

  // Time zone and names.
  const timezone = timezoneOf(gpsPoints[0] ?? null, t0, parsed.utcOffsetSeconds);
  const startDate = iso(t0);
  const startDateLocal = iso(t0 + timezone.offsetSeconds * 1000);
  const startIso = (i: number) => iso(samples[i].time);

  const range = (a: number, b: number) => {
    let mt = 0;
    for (let i = a + 1; i <= b; i++) if (moving[i]) mt += dts[i];
    const hr = samples.slice(a, b + 1).map((s) => s.heartrate).filter((h): h is number => h !== null);
    return { movingTime: Math.round(mt), hr };
  };

  // Laps: the device's, or one "Lap 1" over everything.
  const deviceLaps = parsed.laps.length ? parsed.laps : [{ startTime: t0, elapsedTime: null, distance: null }];
  const starts = deviceLaps.map((lap) => {
    const idx = samples.findIndex((s) => s.time >= lap.startTime);
    return idx === -1 ? n - 1 : idx;
  });
  const laps: LapFacts[] = deviceLaps.map((lap, k) => {
    const a = starts[k];
    const b = Math.max(a, k + 1 < starts.length ? starts[k + 1] - 1 : n - 1);
    const { movingTime: mt, hr } = range(a, b);
    const elapsed = Math.round(lap.elapsedTime ?? (time[b] - time[a] + (k + 1 < starts.length ? time[Math.min(n - 1, b + 1)] - time[b] : 0)));
    const distance = round(lap.distance ?? (cum[Math.min(n - 1, k + 1 < starts.length ? b + 1 : b)] - cum[a]), 2);
    const lapMoving = Math.min(mt, elapsed);
    const alts = samples.slice(a, b + 1).map((s) => s.altitude).filter((x): x is number => x !== null);
    const cads = samples.slice(a, b + 1).map((s) => s.cadence).filter((c): c is number => c !== null && c > 0);
    const watts = samples.slice(a, b + 1).map((s) => s.watts).filter((w): w is number => w !== null);
    return {
      lapIndex: k + 1,
      name: `Lap ${k + 1}`,
      startIndex: a,
      endIndex: b,
      startDate: iso(Math.max(lap.startTime, t0)),
      elapsedTime: elapsed,
      movingTime: lapMoving,
      distance,
      totalElevationGain: round(parsed.barometric ? elevationGain(alts, 1) : gpsGain(alts), 1),
      averageSpeed: round(lapMoving > 0 ? distance / lapMoving : elapsed > 0 ? distance / elapsed : 0, 3),
      maxSpeed: round(maxOf(velocity.slice(a, b + 1), 0), 2),
      averageCadence: cads.length ? round(mean(cads)!, 1) : null,
      averageWatts: deviceWattsPresent && isRide && watts.length ? round(mean(watts)!, 1) : null,
      averageHeartrate: hr.length ? round(mean(hr)!, 1) : null,
      maxHeartrate: hr.length ? maxOf(hr) : null,
    };
  });

  // Splits (runs).
  const splits = (unit: number): SplitFacts[] => {
    if (type !== "Run" || !hasDistance) return [];
    const out: SplitFacts[] = [];
    let a = 0;
    let k = 1;
    while (a < n - 1) {
      let b = a + 1;
      while (b < n - 1 && cum[b] - cum[a] < unit) b++;
      const distance = cum[b] - cum[a];
      if (distance <= 0) break;
      const { movingTime: mt, hr } = range(a, b);
      const elapsed = time[b] - time[a];
      const altA = samples[a].altitude;
      const altB = samples[b].altitude;
      out.push({
        split: k++,
        distance: round(distance, 1),
        elapsedTime: elapsed,
        movingTime: mt,
        elevationDifference: altA !== null && altB !== null ? round(altB - altA, 1) : null,
        averageSpeed: round(mt > 0 ? distance / mt : elapsed > 0 ? distance / elapsed : 0, 2),
        averageHeartrate: hr.length ? round(mean(hr)!, 1) : null,
        paceZone: 0,
      });
      a = b;
    }
    return out;
  };

  // Best efforts (runs): the fastest window (elapsed time) of each distance, anywhere in the run.
  const bestEfforts: BestEffortFacts[] = [];
  if (type === "Run") {
    for (const [name, distance] of BEST_EFFORTS) {
      if (distance > totalDistance) break;
      let best: { a: number; b: number; t: number } | null = null;
      let a = 0;
      for (let b = 1; b < n; b++) {
        while (a + 1 < b && cum[b] - cum[a + 1] >= distance) a++;
        if (cum[b] - cum[a] >= distance) {
          const t = time[b] - time[a];
          if (!best || t < best.t) best = { a, b, t };
        }
      }
      if (!best) continue;
      bestEfforts.push({
        name,
        distance,
        elapsedTime: best.t,
        movingTime: range(best.a, best.b).movingTime,
        startIndex: best.a,
        endIndex: best.b,
        startDate: startIso(best.a),
        prRank: null,
      });
    }
  }

  const polyline = hasGps ? encodePolyline(gpsPoints.map(([la, ln]) => [round(la, 6), round(ln, 6)])) : null;
  const summaryPolyline = hasGps ? encodePolyline(simplify(gpsPoints, 0.0001)) : null;
  const firstGps = gpsPoints[0] ?? null;
  const lastGps = gpsPoints[gpsPoints.length - 1] ?? null;

  const streams: ActivityStreams = {
    time,
    distance: cum.map((d) => round(d, 1)),
    moving,
    velocity_smooth: velocity,
  };
  if (hasGps) streams.latlng = gps;
  if (altitudes.length) {
    streams.altitude = samples.map((s) => (s.altitude === null ? null : round(s.altitude, 1)));
    streams.grade_smooth = grade;
  }
  if (hasHeartrate) streams.heartrate = samples.map((s) => s.heartrate);
  if (samples.some((s) => s.cadence !== null)) streams.cadence = samples.map((s) => s.cadence);
  if (deviceWattsPresent) streams.watts = wattsValues;
  if (temps.length) streams.temp = samples.map((s) => s.temp);

  const facts: ActivityFacts = {
    type,
    name: ctx.name?.trim() || defaultName(type, startDateLocal),
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

/** 30-second rolling average (1 Hz, moving time only), fourth-power mean, fourth root. */
function normalizedPower(samples: Sample[], watts: number[], moving: boolean[]): number | null {
  const perSecond: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    if (!moving[i]) continue;
    const dt = Math.min(10, Math.max(0, Math.round((samples[i].time - samples[i - 1].time) / 1000)));
    for (let k = 0; k < dt; k++) perSecond.push(watts[i]);
  }
  if (perSecond.length < 30) return perSecond.length ? Math.round(mean(perSecond)!) : null;
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
