import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { heatmapStream, STATUS_AFTER } from "../../events/heatmap/events.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { loopTrack, recordActivity, waitForBuild } from "./heatmaps-fixtures.ts";

/** The build is a durable job: a heatmap requested while no job runs is built after a restart. */
const dataDir = mkdtempSync(join(tmpdir(), "heatmap-resume-"));
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("heatmap build across a restart", () => {
  it("stays queued without a job runner, and is built by the next server", async () => {
    const first = await startTestServer({ dataDir, runJobs: false });
    servers.push(first);
    const athlete = await first.athlete();
    await recordActivity(first, {
      athleteId: athlete.id,
      type: "Hike",
      startDateLocal: "2024-07-01T09:00:00Z",
      latlng: loopTrack([46.5, 7.9], 800),
    });
    const res = await first.api("POST", "/v3/athlete/heatmaps", {
      token: athlete.token,
      form: { activity_type_ids: "4" },
    });
    expect(res.status).toBe(201);
    const queued = await first.api("GET", `/v3/athletes/${athlete.id}/heatmaps/${res.body.id}/progress`, {
      token: athlete.token,
    });
    expect(queued.body).toMatchObject({
      status: "queued",
      status_message: "Your heatmap is waiting to be built.",
      activities_count: 0,
      center_latlng: null,
    });
    const tile = await fetch(`${queued.body.tile_path}/0/0/0.png`);
    expect(tile.status).toBe(404);
    expect((await tile.json()).errors).toEqual([{ resource: "Heatmap", field: "status", code: "not ready" }]);
    await first.close();

    const second = await startTestServer({ dataDir, runJobs: true });
    servers.push(second);
    const done = await waitForBuild(second, athlete.id, res.body.id, athlete.token);
    expect(done).toMatchObject({ status: "done", activities_count: 1 });
    const events = await second.platform.store.readStream(heatmapStream(res.body.id));
    expect(events.map((e) => STATUS_AFTER[e.type])).toEqual(["queued", "building", "gathering", "generating", "done"]);
  });
});
