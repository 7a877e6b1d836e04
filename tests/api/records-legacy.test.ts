import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { activityReprocessed, reprocessedFacts } from "../../events/activity/reprocessed.ts";
import type { EventData } from "../../events/catalogue.ts";
import { putBlob } from "../../server/blobs.ts";
import { nextId } from "../../server/ids.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

/**
 * A ride recorded before power curves were derived with the facts (its ActivityRecorded has no
 * `powerCurve`) still counts in the records: its curve is read from its power stream until a
 * re-derivation (`cli reprocess`: ActivityReprocessed with the curve) records it, from which on the
 * read model's curve counts. A ride of 20 minutes at 210 W with 40 s at 400 W inside.
 */
let server: TestServer;
let a: TestAthlete;
let rideId = 0;
let recorded: EventData<typeof activityRecorded>;

beforeAll(async () => {
  server = await startTestServer();
  a = await server.athlete({ firstname: "Legacy" });
  const seconds = 1200;
  const time = Array.from({ length: seconds + 1 }, (_, i) => i);
  const watts = time.map((t) => (t >= 600 && t < 640 ? 400 : 210));
  const streams = { time, distance: time.map((t) => t * 8), watts, moving: time.map(() => true) };
  const sha = await putBlob(server.platform.db, new TextEncoder().encode(JSON.stringify(streams)));
  rideId = await nextId(server.platform.db, "activity");
  recorded = {
    activityId: rideId,
    athleteId: a.id,
    type: "Ride",
    name: "Old ride with power",
    description: null,
    externalId: "old.fit",
    uploadId: null,
    startDate: "2023-06-01T07:00:00Z",
    startDateLocal: "2023-06-01T09:00:00Z",
    timezone: "(GMT+02:00) Europe/Paris",
    distance: seconds * 8,
    movingTime: seconds,
    elapsedTime: seconds,
    totalElevationGain: 0,
    elevHigh: null,
    elevLow: null,
    startLatlng: null,
    endLatlng: null,
    averageSpeed: 8,
    maxSpeed: 8,
    averageCadence: null,
    averageTemp: null,
    averageWatts: 216,
    maxWatts: 400,
    weightedAverageWatts: 220,
    kilojoules: 259,
    deviceWatts: true,
    hasHeartrate: false,
    averageHeartrate: null,
    maxHeartrate: null,
    calories: null,
    sufferScore: null,
    visibility: "everyone",
    trainer: true,
    commute: false,
    deviceName: null,
    workoutType: null,
    polyline: null,
    summaryPolyline: null,
    streamsSha256: sha,
    laps: [],
    splitsMetric: [],
    splitsStandard: [],
    bestEfforts: [],
  };
  await server.platform.store.append(activityStream(rideId), 0, [activityRecorded.create(recorded)], {
    metadata: { athleteId: a.id, source: "test" },
  });
});
afterAll(() => server.close());

const curve = async () =>
  (await server.api("GET", `/v3/athletes/${a.id}/records`, { token: a.token })).body.power_curve as {
    duration: number;
    watts: number;
    activity: { id: number };
  }[];

describe("records of rides recorded before power curves were kept", () => {
  it("come from the ride's power stream", async () => {
    const points = new Map((await curve()).map((p) => [p.duration, p.watts]));
    // 30 s inside the 40 s at 400 W; 1 min: 40 s at 400 and 20 s at 210; 20 min: the whole ride.
    expect(points.get(30)).toBe(400);
    expect(points.get(60)).toBe(Math.round((40 * 400 + 20 * 210) / 60));
    expect(points.get(1200)).toBe(Math.round((40 * 400 + 1160 * 210) / 1200));
    expect(points.has(1800)).toBe(false);
  });

  it("once re-derived, the read model's curve counts (and the stream is no longer read)", async () => {
    const facts = reprocessedFacts.parse({
      ...recorded,
      powerCurve: [{ duration: 5, watts: 999 }, { duration: 30, watts: 401 }],
    });
    await server.platform.store.append(activityStream(rideId), 1, [
      activityReprocessed.create({ activityId: rideId, athleteId: a.id, facts }),
    ], { metadata: { athleteId: a.id, source: "test" } });
    expect((await curve()).map((p) => [p.duration, p.watts])).toEqual([[5, 999], [30, 401]]);
    const { differences } = await server.platform.projections.verify();
    expect(differences).toEqual([]);
  });
});
