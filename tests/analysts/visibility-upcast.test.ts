import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogue } from "../../events/index.ts";
import { EventStore } from "../../events/store.ts";
import { allProjections } from "../../projections/index.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/**
 * A log written before visibility existed (issue #47 item 1): version-1 events carry the spec's
 * `private` flag (activities, edits, uploads, efforts) and `defaultPrivate` (the athlete's setting),
 * stored exactly as an older server wrote them. Reads give today's shape through the upcasters
 * (true → only_me, false → everyone; absent stays absent) while the stored rows are untouched, and a
 * replay builds today's read models from them.
 */
let server: TestServer;
let store: EventStore;
let athleteId = 0;

const V1 = {
  created: (activityId: number, isPrivate: boolean) => ({
    activityId,
    athleteId,
    name: `Old ${activityId}`,
    type: "Run",
    startDate: "2019-05-01T07:00:00Z",
    startDateLocal: "2019-05-01T09:00:00Z",
    timezone: "(GMT+01:00) Europe/Paris",
    elapsedTime: 1800,
    distance: 5000,
    description: null,
    private: isPrivate,
    trainer: false,
    commute: false,
  }),
};

async function insertV1(streamId: string, version: number, type: string, data: unknown) {
  await server.platform.db.query(
    `insert into events (stream_id, stream_version, type, schema_version, data) values ($1, $2, $3, 1, $4::jsonb)`,
    [streamId, version, type, JSON.stringify(data)],
  );
}

beforeAll(async () => {
  server = await startTestServer();
  athleteId = (await server.athlete()).id;
  store = new EventStore(server.platform.db, catalogue);
  await insertV1("activity-900001", 1, "ActivityCreated", V1.created(900001, true));
  await insertV1("activity-900002", 1, "ActivityCreated", V1.created(900002, false));
  await insertV1("activity-900002", 2, "ActivityUpdated", { activityId: 900002, athleteId, private: true });
  await insertV1("activity-900002", 3, "ActivityUpdated", { activityId: 900002, athleteId, name: "Renamed" });
  await insertV1("activity-900001", 2, "SegmentEffortsMatched", {
    activityId: 900001,
    athleteId,
    activityType: "Run",
    private: false,
    efforts: [],
    prCount: 0,
    achievementCount: 0,
  });
  await insertV1(`athlete-settings-v1-${athleteId}`, 1, "AthleteProfileUpdated", { athleteId, defaultPrivate: true });
});
afterAll(() => server.close());

describe("version-1 events with `private` read and replay as visibility", () => {
  it("reads give today's shape; the stored rows stay as written", async () => {
    const [created] = await store.readStream("activity-900001");
    expect(created.schemaVersion).toBe(1);
    expect(created.data).toMatchObject({ visibility: "only_me" });
    expect(created.data).not.toHaveProperty("private");
    const edits = await store.readStream("activity-900002");
    expect(edits.map((e) => (e.data as Record<string, unknown>).visibility)).toEqual([
      "everyone",
      "only_me",
      undefined,
    ]);
    const [matched] = (await store.readStream("activity-900001")).slice(1);
    expect(matched.data).toMatchObject({ visibility: "everyone" });
    const [setting] = await store.readStream(`athlete-settings-v1-${athleteId}`);
    expect(setting.data).toEqual({ athleteId, defaultVisibility: "only_me" });
    const [row] = await server.platform.db.query<{ data: Record<string, unknown> }>(
      "select data from events where stream_id = 'activity-900001' and stream_version = 1",
    );
    expect(row.data.private).toBe(true);
    expect(row.data).not.toHaveProperty("visibility");
  });

  it("a replay builds the read models from them: only_me, everyone, the athlete's default", async () => {
    const runner = new ProjectionRunner(server.platform.db, store, allProjections);
    await runner.rebuild("rm_visibility_v1");
    const rows = await server.platform.db.query<{ id: number; visibility: string; name: string }>(
      "select id::int, visibility, name from rm_visibility_v1.activities where id in (900001, 900002) order by id",
    );
    expect(rows).toEqual([
      { id: 900001, visibility: "only_me", name: "Old 900001" },
      { id: 900002, visibility: "only_me", name: "Renamed" },
    ]);
    const [athlete] = await server.platform.db.query<{ default_visibility: string }>(
      "select default_visibility from rm_visibility_v1.athletes where id = $1",
      [athleteId],
    );
    expect(athlete.default_visibility).toBe("only_me");
    // The athlete's stats keep the only_me runs apart: what a follower sees counts neither.
    const buckets = await server.platform.db.query<{ visibility: string; count: number }>(
      "select visibility, count::int from rm_visibility_v1.athlete_stats_days where athlete_id = $1",
      [athleteId],
    );
    expect(buckets).toEqual([{ visibility: "only_me", count: 2 }]);
    await server.platform.db.exec("drop schema rm_visibility_v1 cascade");
  });
});
