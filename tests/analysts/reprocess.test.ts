import { DEVICES } from "../helpers/fixtures.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityStream } from "../../events/activity/events.ts";
import { activityReprocessed, reprocessedFacts } from "../../events/activity/reprocessed.ts";
import { dispatch } from "../../server/cli/dispatch.ts";
import { createSegment } from "../../server/segments/commands.ts";
import { systemActor } from "../../server/actor.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { slice, streamsOf } from "../segments/fixture-track.ts";

let server: TestServer;
let athlete: TestAthlete;
let activityId: number;
let manualId: number;

const cli = (...argv: string[]) =>
  dispatch([...argv, "--json"], (fn) => fn(server.platform), { interactive: false, progress: () => {} });

beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete({ premium: true });
  const form = new FormData();
  form.set("file", new Blob([readFileSync(join(DEVICES, "fit/garmin-edge500-cycling-hr-cad-pauses.fit"))]), "ride.fit");
  form.set("data_type", "fit");
  const created = await server.api("POST", "/v3/uploads", { token: athlete.token, multipart: form });
  for (let i = 0; i < 600; i++) {
    const status = await server.api("GET", `/v3/uploads/${created.body.id}`, { token: athlete.token });
    if (status.body.activity_id) {
      activityId = status.body.activity_id;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const manual = await server.api("POST", "/v3/activities", {
    token: athlete.token,
    form: { name: "Manual", type: "Run", start_date_local: "2026-01-02T10:00:00Z", elapsed_time: 600 },
  });
  manualId = manual.body.id;
}, 120_000);
afterAll(() => server.close());

describe("cli reprocess", () => {
  it("appends nothing when today's algorithms derive the same facts", async () => {
    const before = (await server.platform.store.readStream(activityStream(activityId))).length;
    const out = await cli("reprocess", "--activity", String(activityId));
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout), out.stdout).toMatchObject({ activities: 1, reprocessed: 0, unchanged: 1 });
    expect((await server.platform.store.readStream(activityStream(activityId))).length).toBe(before);
  });

  it("re-derives facts that an earlier algorithm got wrong, by appending, keeping the originals in the log", async () => {
    const good = await server.api("GET", `/v3/activities/${activityId}`, { token: athlete.token });
    // As an earlier version of the derivation would have recorded it.
    const events = await server.platform.store.readStream(activityStream(activityId));
    const recorded = events.find((e) => e.type === "ActivityRecorded")!.data as Record<string, unknown>;
    const { activityId: _a, athleteId: _b, ...all } = recorded;
    const facts = reprocessedFacts.parse(all);
    await server.platform.store.append(activityStream(activityId), "any", [
      activityReprocessed.create({
        activityId,
        athleteId: athlete.id,
        facts: { ...facts, distance: 1234.5, maxSpeed: 99, laps: [] },
      }),
    ]);
    const wrong = await server.api("GET", `/v3/activities/${activityId}`, { token: athlete.token });
    expect(wrong.body.distance).toBe(1234.5);
    expect(wrong.body.laps).toEqual([]);

    const out = await cli("reprocess", "--activity", String(activityId));
    expect(out.exitCode).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result.reprocessed).toBe(1);
    expect(result.outcomes[0].changed.sort()).toEqual(["distance", "laps", "maxSpeed"]);
    const fixed = await server.api("GET", `/v3/activities/${activityId}`, { token: athlete.token });
    expect(fixed.body.distance).toBe(good.body.distance);
    expect(fixed.body.max_speed).toBe(good.body.max_speed);
    expect(fixed.body.laps).toEqual(good.body.laps);
    expect(fixed.body.name).toBe(good.body.name);
    const types = (await server.platform.store.readStream(activityStream(activityId))).map((e) => e.type);
    expect(types.filter((t) => t === "ActivityRecorded").length).toBe(1);
    expect(types.filter((t) => t === "ActivityReprocessed").length).toBe(2);
    expect((await server.platform.projections.verify()).differences).toEqual([]);
  });

  it("matches segments laid after the upload; efforts found at upload keep their ids and awards", async () => {
    const rider = await server.athlete();
    const track = await streamsOf("fit/garmin-edge500-cycling-hr-cad-pauses.fit");
    const lay = (name: string, i: number, j: number) =>
      createSegment(server.platform, {
        name,
        activityType: "Ride",
        ...slice(track, i, j),
        athleteId: null,
        activityId: null,
      }, systemActor("test"));
    const before = await lay("Laid before", 2000, 2600);
    const form = new FormData();
    form.set(
      "file",
      new Blob([readFileSync(join(DEVICES, "fit/garmin-edge500-cycling-hr-cad-pauses.fit"))]),
      "again.fit",
    );
    form.set("data_type", "fit");
    const created = await server.api("POST", "/v3/uploads", { token: rider.token, multipart: form });
    let id = 0;
    for (let i = 0; i < 600 && !id; i++) {
      id = (await server.api("GET", `/v3/uploads/${created.body.id}`, { token: rider.token })).body.activity_id ?? 0;
      if (!id) await new Promise((r) => setTimeout(r, 100));
    }
    const efforts = async () =>
      (await server.api("GET", `/v3/activities/${id}`, { token: rider.token, query: { include_all_efforts: true } }))
        .body.segment_efforts;
    const atUpload = await efforts();
    expect(atUpload.map((e: { segment: { id: number } }) => e.segment.id)).toEqual([before]);
    expect(atUpload[0].achievements.length).toBeGreaterThan(0);

    const after = await lay("Laid after", 6000, 6800);
    const out = await cli("reprocess", "--activity", String(id));
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout).outcomes[0]).toMatchObject({ outcome: "reprocessed", changed: ["segment_efforts"] });
    const now = await efforts();
    expect(now.map((e: { segment: { id: number } }) => e.segment.id)).toEqual([before, after]);
    expect(now[0]).toEqual(atUpload[0]);
    expect(now[1]).toMatchObject({ kom_rank: null, pr_rank: null, achievements: [] });
    const board = await server.api("GET", `/v3/segments/${after}/leaderboard`, { token: rider.token });
    expect(board.body.entry_count).toBe(1);

    expect(JSON.parse((await cli("reprocess", "--activity", String(id))).stdout).unchanged).toBe(1);
    expect((await server.platform.projections.verify()).differences).toEqual([]);
  });

  it("--all goes over every uploaded activity and leaves manual ones alone", async () => {
    const out = await cli("reprocess", "--all");
    expect(out.exitCode).toBe(0);
    const result = JSON.parse(out.stdout);
    expect(result.activities).toBe(2);
    // The first ride was uploaded before any segment existed: it gains its efforts now.
    expect(result.outcomes.find((o: { activityId: number }) => o.activityId === activityId)).toMatchObject({
      outcome: "reprocessed",
      changed: ["segment_efforts"],
    });
    expect(result.unchanged).toBe(1);
    const manual = await cli("reprocess", "--activity", String(manualId));
    expect(manual.exitCode).toBe(1);
    expect(manual.stderr).toContain("not an uploaded activity");
  });

  it("refuses to run without exactly one of --activity and --all", async () => {
    expect((await cli("reprocess")).exitCode).toBe(2);
    expect((await cli("reprocess", "--all", "--activity", "1")).exitCode).toBe(2);
    expect((await cli("reprocess", "--activity", "x")).exitCode).toBe(2);
  });
});
