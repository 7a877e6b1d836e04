import { z } from "zod";
import { defineEvent } from "../catalogue.ts";
import { activityFacts } from "./facts.ts";

/**
 * The measured facts `cli reprocess` re-derives from the stored original file with today's
 * algorithms. What the athlete chose (name, type, description, privacy, gear…) is not among them,
 * and the original ActivityRecorded stays in the log.
 */
export const reprocessedFacts = activityFacts.pick({
  distance: true,
  movingTime: true,
  elapsedTime: true,
  totalElevationGain: true,
  elevHigh: true,
  elevLow: true,
  startLatlng: true,
  endLatlng: true,
  averageSpeed: true,
  maxSpeed: true,
  averageCadence: true,
  averageTemp: true,
  averageWatts: true,
  maxWatts: true,
  weightedAverageWatts: true,
  kilojoules: true,
  deviceWatts: true,
  hasHeartrate: true,
  averageHeartrate: true,
  maxHeartrate: true,
  calories: true,
  sufferScore: true,
  deviceName: true,
  polyline: true,
  polylineSha256: true,
  summaryPolyline: true,
  streamsSha256: true,
  laps: true,
  splitsMetric: true,
  splitsStandard: true,
  bestEfforts: true,
  powerCurve: true,
});

export const activityReprocessed = defineEvent({
  type: "ActivityReprocessed",
  description:
    "An uploaded activity's measured facts were re-derived from its original file with the current algorithms (cli reprocess). Best-effort PR ranks awarded at upload time are kept.",
  schema: z.object({
    activityId: z.number().int().positive(),
    athleteId: z.number().int().positive(),
    facts: reprocessedFacts,
  }),
});
