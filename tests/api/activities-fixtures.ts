import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import type { EventData } from "../../events/catalogue.ts";
import { putBlob } from "../../server/blobs.ts";
import { nextId } from "../../server/ids.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import type { TestServer } from "../helpers/server.ts";

/**
 * A realistic recorded run: 601 one-second samples heading north-east from a start point, with
 * heartrate, cadence, watts, altitude; two laps. Appended as the upload job would (ActivityRecorded
 * with a streams blob) — real code, until uploads land in these tests.
 */
export function buildStreams(start: [number, number] = [51.50123, -0.14212], n = 601): ActivityStreams {
  const time: number[] = [], distance: number[] = [], latlng: [number, number][] = [], altitude: number[] = [];
  const velocity: number[] = [], heartrate: number[] = [], cadence: number[] = [], watts: number[] = [];
  const temp: number[] = [], moving: boolean[] = [], grade: number[] = [];
  for (let i = 0; i < n; i++) {
    time.push(i);
    distance.push(Math.round(i * 3.5 * 10) / 10);
    latlng.push([start[0] + i * 0.00002, start[1] + i * 0.00002]);
    altitude.push(20 + Math.round(Math.sin(i / 50) * 50) / 10);
    velocity.push(3.5);
    heartrate.push(100 + Math.floor(i / 10));
    cadence.push(85);
    watts.push(150 + (i % 100));
    temp.push(18);
    moving.push(true);
    grade.push(0.5);
  }
  return {
    time,
    distance,
    latlng,
    altitude,
    velocity_smooth: velocity,
    heartrate,
    cadence,
    watts,
    temp,
    moving,
    grade_smooth: grade,
  };
}

export type RecordedData = EventData<typeof activityRecorded>;

export async function recordActivity(
  server: TestServer,
  athleteId: number,
  overrides: Partial<RecordedData> = {},
  streams: ActivityStreams | null = buildStreams(),
): Promise<RecordedData> {
  const activityId = await nextId(server.platform.db, "activity");
  const sha = streams ? await putBlob(server.platform.db, new TextEncoder().encode(JSON.stringify(streams))) : null;
  const data: RecordedData = {
    activityId,
    athleteId,
    type: "Run",
    name: "Recorded run",
    description: null,
    externalId: "run.fit",
    uploadId: null,
    startDate: "2024-03-10T09:00:00Z",
    startDateLocal: "2024-03-10T10:00:00Z",
    timezone: "(GMT+01:00) Europe/Paris",
    distance: 2100,
    movingTime: 600,
    elapsedTime: 600,
    totalElevationGain: 12.5,
    elevHigh: 25,
    elevLow: 15,
    startLatlng: [51.50123, -0.14212],
    endLatlng: [51.51323, -0.13012],
    averageSpeed: 3.5,
    maxSpeed: 3.5,
    averageCadence: 85,
    averageTemp: 18,
    averageWatts: 199.5,
    maxWatts: 249,
    weightedAverageWatts: 201,
    kilojoules: 119.7,
    deviceWatts: true,
    hasHeartrate: true,
    averageHeartrate: 130,
    maxHeartrate: 160,
    calories: 150,
    sufferScore: 12,
    visibility: "everyone",
    trainer: false,
    commute: false,
    deviceName: "Garmin Forerunner 945",
    workoutType: 0,
    polyline: "_p~iF~ps|U_ulLnnqC",
    summaryPolyline: "_p~iF~ps|U",
    streamsSha256: sha,
    laps: [
      {
        lapIndex: 1,
        name: "Lap 1",
        startIndex: 0,
        endIndex: 299,
        startDate: "2024-03-10T09:00:00Z",
        elapsedTime: 300,
        movingTime: 300,
        distance: 1046.5,
        totalElevationGain: 6,
        averageSpeed: 3.49,
        maxSpeed: 3.5,
        averageCadence: 85,
        averageWatts: 199,
        averageHeartrate: 115,
        maxHeartrate: 129,
      },
      {
        lapIndex: 2,
        name: "Lap 2",
        startIndex: 300,
        endIndex: 600,
        startDate: "2024-03-10T09:05:00Z",
        elapsedTime: 300,
        movingTime: 300,
        distance: 1053.5,
        totalElevationGain: 6.5,
        averageSpeed: 3.51,
        maxSpeed: 3.5,
        averageCadence: null,
        averageWatts: null,
        averageHeartrate: 145,
        maxHeartrate: 160,
      },
    ],
    splitsMetric: [
      {
        split: 1,
        distance: 1000,
        elapsedTime: 286,
        movingTime: 286,
        elevationDifference: 1.2,
        averageSpeed: 3.5,
        averageHeartrate: 114,
        paceZone: 0,
      },
      {
        split: 2,
        distance: 1000,
        elapsedTime: 286,
        movingTime: 286,
        elevationDifference: null,
        averageSpeed: 3.5,
        averageHeartrate: null,
        paceZone: 0,
      },
    ],
    splitsStandard: [
      {
        split: 1,
        distance: 1609.3,
        elapsedTime: 460,
        movingTime: 460,
        elevationDifference: -0.5,
        averageSpeed: 3.5,
        averageHeartrate: 122,
        paceZone: 0,
      },
    ],
    bestEfforts: [
      {
        name: "400m",
        distance: 400,
        elapsedTime: 114,
        movingTime: 114,
        startIndex: 10,
        endIndex: 124,
        startDate: "2024-03-10T09:00:10Z",
        prRank: 1,
      },
      {
        name: "1K",
        distance: 1000,
        elapsedTime: 286,
        movingTime: 286,
        startIndex: 0,
        endIndex: 286,
        startDate: "2024-03-10T09:00:00Z",
        prRank: null,
      },
    ],
    ...overrides,
  };
  await server.platform.store.append(activityStream(activityId), 0, [activityRecorded.create(data)], {
    metadata: { athleteId, source: "test" },
  });
  return data;
}
