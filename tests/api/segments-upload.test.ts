// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSegment } from "../../server/segments/commands.ts";
import { systemActor } from "../../server/actor.ts";
import { startTestServer, type TestAthlete, type TestServer, uploadUntilReady } from "../helpers/server.ts";
import { DEVICES, slice, streamsOf } from "../segments/fixture-track.ts";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import { findEvent } from "../../events/index.ts";
import { segmentEffortsMatched } from "../../events/segment/events.ts";
import { receivedUpload } from "../../events/upload/received.ts";
import { recordProcessedActivity } from "../../server/activities/commands.ts";
import { getBlob } from "../../server/blobs.ts";
import { matchActivity } from "../../server/segments/efforts.ts";
import { processUpload } from "../../server/uploads/job.ts";
import { findUpload } from "../../server/uploads/status.ts";
import { submitUpload } from "../../server/uploads/submit.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { UPLOAD_STATUS } from "../../shared/upload-status.ts";

/**
 * "Done when": real device files uploaded over segments laid on their routes produce the expected
 * efforts — through POST /v3/uploads, the upload job and the segment-matching processor.
 */
let server: TestServer;
let ada: TestAthlete;
let eddy: TestAthlete;
const segments: Record<string, number> = {};
let rideStreams: Awaited<ReturnType<typeof streamsOf>>;

function upload(athlete: TestAthlete, file: string) {
  return uploadUntilReady(server, athlete.token, {
    bytes: readFileSync(join(DEVICES, file)),
    name: file.split("/").pop()!,
    dataType: file.split(".").pop()!,
  });
}

beforeAll(async () => {
  server = await startTestServer();
  ada = await server.athlete({ firstname: "Ada", lastname: "Lovelace", sex: "F" });
  eddy = await server.athlete({ firstname: "Eddy", lastname: "Merckx", sex: "M" });
  rideStreams = await streamsOf("fit/garmin-edge500-cycling-hr-cad-pauses.fit");
  const make = async (name: string, i: number, j: number, type: "Ride" | "Run" = "Ride", reverse = false) => {
    const { points, altitudes } = slice(rideStreams, i, j);
    if (reverse) {
      points.reverse();
      altitudes.reverse();
    }
    segments[name] = await createSegment(server.platform, {
      name,
      activityType: type,
      points,
      altitudes,
      athleteId: null,
      activityId: null,
    }, systemActor("test"));
  };
  await make("Early stretch", 2000, 2600);
  await make("Later stretch", 6000, 6800);
  await make("Wrong way", 2000, 2600, "Ride", true);
  await make("Run only", 2000, 2600, "Run");
}, 60_000);
afterAll(() => server.close());

describe("uploading a real FIT ride over segments laid on its route", () => {
  let activityId: number;
  let efforts: any[];

  it("matches the ride's segments, in its direction and sport only, with exact 64-bit effort ids", async () => {
    activityId = await upload(ada, "fit/garmin-edge500-cycling-hr-cad-pauses.fit");
    const res = await server.api("GET", `/v3/activities/${activityId}`, {
      token: ada.token,
      query: { include_all_efforts: true },
    });
    expect(res.status).toBe(200);
    efforts = res.body.segment_efforts;
    expect(efforts.map((e: any) => e.segment.id).sort()).toEqual(
      [segments["Early stretch"], segments["Later stretch"]].sort(),
    );
    for (const e of efforts) {
      expect(typeof e.id).toBe("bigint");
      expect(e.id > 2n ** 53n).toBe(true);
      expect(e.activity).toEqual({ id: activityId, resource_state: 1 });
      expect(e.athlete).toEqual({ id: ada.id, resource_state: 1 });
      expect(e.kom_rank).toBe(1);
      expect(e.pr_rank).toBe(1);
      expect(e.achievements).toEqual([{ type_id: 2, type: "overall", rank: 1 }, { type_id: 3, type: "pr", rank: 1 }]);
      expect(e.hidden).toBe(false);
    }
    expect(res.body.pr_count).toBe(2);
    expect(res.body.achievement_count).toBe(4);
  });

  it("starts and ends each effort at the recorded points nearest the segment's ends, timed from the streams", async () => {
    const streams = await server.api("GET", `/v3/activities/${activityId}/streams`, {
      token: ada.token,
      query: { keys: "latlng,time,distance", key_by_type: true },
    });
    expect(streams.status).toBe(200);
    const latlng = streams.body.latlng.data as [number, number][];
    const time = streams.body.time.data as number[];
    for (const e of efforts) {
      const segment = await server.api("GET", `/v3/segments/${e.segment.id}`, { token: ada.token });
      expect(latlng[e.start_index][0]).toBeCloseTo(segment.body.start_latlng[0], 5);
      expect(latlng[e.start_index][1]).toBeCloseTo(segment.body.start_latlng[1], 5);
      expect(latlng[e.end_index][0]).toBeCloseTo(segment.body.end_latlng[0], 5);
      expect(latlng[e.end_index][1]).toBeCloseTo(segment.body.end_latlng[1], 5);
      expect(e.elapsed_time).toBe(time[e.end_index] - time[e.start_index]);
      expect(e.moving_time).toBeLessThanOrEqual(e.elapsed_time);
      expect(Math.abs(e.distance - segment.body.distance) / segment.body.distance).toBeLessThan(0.05);
      expect(segment.body.effort_count).toBe(1);
      expect(segment.body.athlete_count).toBe(1);
    }
  });

  it("answers an effort by its 64-bit id exactly", async () => {
    const e = efforts[0];
    const res = await server.api("GET", `/v3/segment_efforts/${e.id}`, { token: ada.token });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(e.id);
    expect(res.text).toContain(`"id":${e.id.toString()}`);
    expect(res.body.segment.id).toBe(e.segment.id);
  });

  it("ranks a second athlete's identical ride as a tie (shared rank 1), frozen at upload", async () => {
    const second = await upload(eddy, "fit/garmin-edge500-cycling-hr-cad-pauses.fit");
    const res = await server.api("GET", `/v3/activities/${second}`, {
      token: eddy.token,
      query: { include_all_efforts: true },
    });
    expect(res.body.segment_efforts).toHaveLength(2);
    for (const e of res.body.segment_efforts) {
      expect(e.kom_rank).toBe(1);
      expect(e.achievements).toContainEqual({ type_id: 2, type: "overall", rank: 1 });
    }
    const board = await server.api("GET", `/v3/segments/${segments["Early stretch"]}/leaderboard`, {
      token: ada.token,
    });
    expect(board.body.entry_count).toBe(2);
    expect(board.body.entries.map((e: any) => e.rank)).toEqual([0, 0]);
    // Ada's achievements, awarded before Eddy's upload, are unchanged.
    const again = await server.api("GET", `/v3/segment_efforts/${efforts[0].id}`, { token: ada.token });
    expect(again.body.kom_rank).toBe(1);
  });

  it("matches nothing on an upload far from every segment", async () => {
    const run = await upload(ada, "tcx/garmin-fr410-running-hr.tcx");
    const res = await server.api("GET", `/v3/activities/${run}`, {
      token: ada.token,
      query: { include_all_efforts: true },
    });
    expect(res.body.segment_efforts).toEqual([]);
    expect(res.body.pr_count).toBeGreaterThanOrEqual(0);
  });
});

describe("an upload stopped after its recording (a crash before UploadSucceeded)", () => {
  it("resumes to ready without matching again: the efforts were appended with the recording", async () => {
    // A server that runs no jobs: the upload job is run by hand, as the runner would after a restart.
    const quiet = await startTestServer({ runJobs: false });
    try {
      const { points, altitudes } = slice(rideStreams, 2000, 2600);
      await createSegment(quiet.platform, {
        name: "Early stretch",
        activityType: "Ride",
        points,
        altitudes,
        athleteId: null,
        activityId: null,
      }, systemActor("test"));
      const file = "fit/garmin-edge500-cycling-hr-cad-pauses.fit";
      const submit = async (athleteId: number) =>
        (await submitUpload(quiet.platform, {
          athleteId,
          fileName: "ride.fit",
          bytes: readFileSync(join(DEVICES, file)),
          dataType: "fit",
          activityType: null,
          name: null,
          description: null,
          private: false,
          trainer: false,
          commute: false,
          externalId: null,
        }, systemActor("test", athleteId))).id;
      // A first athlete's upload, processed whole: its recording and efforts are what the second one's
      // interrupted run had appended (the same file, so the same derivation).
      const first = await quiet.athlete({ firstname: "Fausto", lastname: "Coppi" });
      const firstId = await submit(first.id);
      await processUpload(quiet.platform, firstId);
      const firstReceived = (await receivedUpload(quiet.platform.store, firstId))!;
      const firstStream = await quiet.platform.store.readStream(activityStream(firstReceived.activityId));
      const recorded = findEvent(firstStream, activityRecorded.type)!.data;

      // The second athlete's upload stopped right after the recording's append (ActivityRecorded with
      // its SegmentEffortsMatched, one transaction), before UploadSucceeded.
      const second = await quiet.athlete({ firstname: "Gino", lastname: "Bartali" });
      const secondId = await submit(second.id);
      const received = (await receivedUpload(quiet.platform.store, secondId))!;
      const activity = { ...recorded, activityId: received.activityId, athleteId: second.id, uploadId: secondId };
      const streams = JSON.parse(
        new TextDecoder().decode((await getBlob(quiet.platform.db, recorded.streamsSha256!))!),
      ) as ActivityStreams;
      const efforts = await matchActivity(quiet.platform.db, activity, streams);
      expect(efforts.efforts.length).toBe(1);
      const actor = systemActor("job:upload", second.id);
      await recordProcessedActivity(
        quiet.platform,
        activity,
        [segmentEffortsMatched.create(efforts)],
        actor,
        `upload-${secondId}:recorded`,
      );

      // The run after the restart finishes the upload and appends no second set of efforts.
      await processUpload(quiet.platform, secondId);
      expect((await findUpload(quiet.platform.db, secondId))!.status).toBe(UPLOAD_STATUS.ready);
      const stream = await quiet.platform.store.readStream(activityStream(received.activityId));
      expect(stream.map((e) => e.type)).toEqual([activityRecorded.type, segmentEffortsMatched.type]);
      const listed = await quiet.api("GET", `/v3/activities/${received.activityId}?include_all_efforts=true`, {
        token: second.token,
      });
      expect(listed.body.segment_efforts.length).toBe(1);
    } finally {
      await quiet.close();
    }
  }, 60_000);
});
