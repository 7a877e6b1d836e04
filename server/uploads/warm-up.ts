import { activityRecorded } from "../../events/activity/events.ts";
import { segmentEffortsMatched } from "../../events/segment/events.ts";
import { turnByStatement } from "../../events/db/turns.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { effortBoardCounts, segmentMatchStats } from "../../projections/segments/queries.ts";
import { prepareTimezones } from "../ingest/timezone.ts";
import type { Platform } from "../platform.ts";
import { effortIdFor } from "../segments/efforts.ts";
import { segmentIndexFor } from "../segments/segment-index.ts";
import { derivePool } from "./derive-pool.ts";

/**
 * What the first upload after a start would otherwise find cold, warmed before /ready says ready
 * (server/start.ts): the in-memory segment index (every segment read once), a started derive
 * worker holding every segment and run on a synthetic track (derive-pool.ts), and the database
 * side of recording an activity — the inline projections' statements prepared, planned and run
 * (PGlite's WebAssembly tiers up as it runs) on a synthetic recording and matching against real
 * segments, in a transaction that is rolled back, so nothing of it remains.
 */
export async function warmUploads(platform: Platform): Promise<void> {
  prepareTimezones();
  const { source, entries } = await segmentIndexFor(platform.db);
  await derivePool(platform.config.deriveWorkers).prestart({ source, entries });
  await warmRecording(platform, entries.slice(0, 100).map((s) => s.id));
}

/** Thrown to roll the warm-up's transaction back. */
class RollBack extends Error {}

/** A recording and a matching of a synthetic activity, applied by the inline projections, then rolled back. */
async function warmRecording(platform: Platform, segmentIds: number[]): Promise<void> {
  // An id no activity gets (ids grow from 1; efforts' ids allow activities below 2^41).
  const activityId = 2 ** 41 - 1;
  const athleteId = 2 ** 41 - 1;
  const at = new Date().toISOString();
  // Dated an hour ago: an activity of years back would have the daily read models (training load)
  // fill every day since, one long statement holding the event loop while the server answers.
  const startDate = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19) + "Z";
  // At the event's current version, checked by its schema (what a real upload appends).
  const event = (
    position: number,
    definition: { type: string; version: number; schema: { parse(data: unknown): unknown } },
    data: Record<string, unknown>,
  ): RecordedEvent => ({
    position,
    streamId: `activity-${activityId}`,
    streamVersion: position,
    type: definition.type,
    schemaVersion: definition.version,
    data: definition.schema.parse(data) as Record<string, unknown>,
    metadata: {},
    recordedAt: at,
  });
  const efforts = segmentIds.map((segmentId, n) => ({
    effortId: effortIdFor(activityId, n),
    segmentId,
    name: "warm-up",
    startIndex: 0,
    endIndex: 1,
    startDate,
    startDateLocal: startDate,
    elapsedTime: 600,
    movingTime: 600,
    distance: 1000,
    averageHeartrate: null,
    maxHeartrate: null,
    averageWatts: null,
    averageCadence: null,
    komRank: null,
    prRank: null,
    achievements: [],
    hidden: true,
  }));
  try {
    await platform.db.transaction(async (held) => {
      const tx = turnByStatement(held);
      await effortBoardCounts(
        tx,
        athleteId,
        efforts.map((e) => ({ segmentId: e.segmentId, elapsedTime: 600, year: Number(startDate.slice(0, 4)) })),
      );
      await segmentMatchStats(tx, segmentIds, athleteId);
      await platform.projections.apply(tx, [
        event(1, activityRecorded, {
          activityId,
          athleteId,
          uploadId: activityId,
          externalId: null,
          name: "warm-up",
          type: "Ride",
          sportType: "Ride",
          description: null,
          startDate,
          startDateLocal: startDate,
          timezone: "(GMT+00:00) UTC",
          distance: 1000,
          movingTime: 600,
          elapsedTime: 600,
          totalElevationGain: 0,
          visibility: "everyone",
          trainer: false,
          commute: false,
          elevHigh: null,
          elevLow: null,
          startLatlng: null,
          endLatlng: null,
          averageSpeed: 1.6,
          maxSpeed: 2,
          averageCadence: null,
          averageTemp: null,
          averageWatts: null,
          maxWatts: null,
          weightedAverageWatts: null,
          kilojoules: null,
          deviceWatts: null,
          hasHeartrate: false,
          averageHeartrate: null,
          maxHeartrate: null,
          calories: null,
          sufferScore: null,
          deviceName: null,
          workoutType: null,
          polyline: null,
          summaryPolyline: null,
          streamsSha256: null,
          laps: [],
          splitsMetric: [],
          splitsStandard: [],
          bestEfforts: [],
        }),
        event(2, segmentEffortsMatched, {
          activityId,
          athleteId,
          activityType: "Ride",
          visibility: "everyone",
          efforts,
          prCount: 0,
          achievementCount: 0,
        }),
      ]);
      throw new RollBack();
    });
  } catch (error) {
    if (!(error instanceof RollBack)) throw error;
  }
}
