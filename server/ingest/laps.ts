import type { z } from "zod";
import type { lapFacts } from "../../events/activity/events.ts";
import type { PoolSwim } from "./activity-distance.ts";
import { maxOf, timeWeightedMean } from "./averages.ts";
import { elevationGain } from "./elevation.ts";
import { sessionSportAt } from "./multisport.ts";
import { iso, round } from "./rounding.ts";
import { cadence, heartrate, heartRateMean } from "./sensors.ts";
import type { DeviceLap, ParsedFile } from "./types.ts";

type LapFacts = z.infer<typeof lapFacts>;

/** What the laps' figures are cut from. */
export interface LapsInput {
  parsed: ParsedFile;
  startMs: number;
  times: Float64Array;
  cum: Float64Array;
  moving: Uint8Array;
  movSecs: Float64Array;
  velocity: readonly number[];
  /** On water nothing is climbed. */
  onWater: boolean;
  /** The highest heart rate a record carries: null when none does (then the device's lap summaries count). */
  recordedHrMax: number | null;
  /** Lap power: a ride's power meter only. */
  lapWatts: boolean;
  /** A pool swim: a lap's maximum is its fastest active length. */
  pool: PoolSwim | null;
}

/** Where a device lap ended by its own account: its end time (FIT timestamp), else start + elapsed; null when neither. */
function ownEnd(lap: DeviceLap): number | null {
  if (lap.endTime != null && lap.endTime > lap.startTime) return lap.endTime;
  if (lap.elapsedTime !== null && lap.elapsedTime > 0) return lap.startTime + lap.elapsedTime * 1000;
  return null;
}

/** Laps: the device's, or one "Lap 1" over everything; each with its own span's figures. */
export function lapsOf(input: LapsInput): LapFacts[] {
  const { parsed, startMs, times, cum, moving, movSecs, velocity, onWater, recordedHrMax } = input;
  const samples = parsed.samples;
  const n = samples.length;
  const segmentStarts = parsed.segmentStarts;
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
  return deviceLaps.map((lap, k) => {
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
    let movingSeconds = movSecs[closing] - movSecs[a];
    let lapMaxSpeed = 0;
    if (input.pool) {
      // A pool swim's lap, as the activity: it moves in its active lengths, its maximum is the
      // fastest of them (pool length over its time).
      const from = lap.startTime;
      const to = ownEnd(lap) ?? (k + 1 < deviceLaps.length ? deviceLaps[k + 1].startTime : Infinity);
      let swum = 0;
      for (const l of input.pool.active) {
        if (l.startTime < from || l.startTime >= to) continue;
        const secs = l.elapsedTime > 0 ? l.elapsedTime : l.timerTime ?? 0;
        swum += l.timerTime ?? l.elapsedTime;
        if (secs > 0) lapMaxSpeed = Math.max(lapMaxSpeed, input.pool.poolLength / secs);
      }
      movingSeconds = swum;
    } else for (let i = a; i <= b; i++) if (velocity[i] > lapMaxSpeed) lapMaxSpeed = velocity[i];
    const lapMoving = Math.min(Math.round(movingSeconds), elapsed);
    const cad = timeWeightedMean(samples, cadence, moving, { from: a, to: closing, skipZero: true });
    const lapWatts = input.lapWatts
      ? timeWeightedMean(samples, (s) => s.watts ?? 0, moving, { from: a, to: closing })
      : null;
    const lapHrMax = recordedHrMax !== null ? maxOf(samples, heartrate, a, b) : lap.maxHeartrate ?? null;
    const lapHrAverage = recordedHrMax !== null
      ? heartRateMean(samples, moving, a, closing)
      : lap.averageHeartrate == null
      ? null
      : round(lap.averageHeartrate, 1);
    const leg = sessionSportAt(parsed, lap.startTime);
    const averageSpeed = input.pool
      ? (movingSeconds > 0 ? distance / movingSeconds : 0)
      : lapMoving > 0
      ? distance / lapMoving
      : elapsed > 0
      ? distance / elapsed
      : 0;
    return {
      lapIndex: k + 1,
      name: `Lap ${k + 1}`,
      ...(leg === undefined ? {} : { sportType: leg }),
      startIndex: a,
      endIndex: b,
      startDate: iso(
        Math.max("firstPointTime" in lap && lap.firstPointTime != null ? lap.firstPointTime : lap.startTime, startMs),
      ),
      elapsedTime: elapsed,
      movingTime: lapMoving,
      distance,
      totalElevationGain: onWater
        ? 0
        : round(elevationGain(samples, { from: a, to: b + 1, segmentStarts, barometric: parsed.barometric, cum }), 1),
      averageSpeed: round(averageSpeed, 3),
      // Never below the average: somewhere in the lap the athlete went at least that fast.
      maxSpeed: Math.max(round(lapMaxSpeed, 2), round(averageSpeed, 3)),
      averageCadence: cad === null ? null : round(cad, 1),
      averageWatts: lapWatts === null ? null : round(lapWatts, 1),
      averageHeartrate: lapHrAverage,
      maxHeartrate: lapHrMax,
    };
  });
}
