import { DEVICES } from "../helpers/fixtures.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function upload(athlete: TestAthlete, file: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.set("file", new Blob([readFileSync(join(DEVICES, file))]), file.split("/").pop()!);
  form.set("data_type", file.split(".").pop()!);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const created = await server.api("POST", "/v3/uploads", { token: athlete.token, multipart: form });
  expect(created.status, created.text).toBe(201);
  for (let i = 0; i < 600; i++) {
    const status = await server.api("GET", `/v3/uploads/${created.body.id}`, { token: athlete.token });
    expect(status.body.error).toBeNull();
    if (status.body.activity_id) {
      return (await server.api("GET", `/v3/activities/${status.body.activity_id}`, { token: athlete.token })).body;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${file} did not finish`);
}

describe("the athlete's defaults for new activities", () => {
  it("PUT /v3/athlete sets weight and the defaults; bad values are a 400", async () => {
    const a = await server.athlete();
    const res = await server.api("PUT", "/v3/athlete", {
      token: a.token,
      form: { weight: 61.5, default_private: 1, default_activity_type: "hike" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: a.id, resource_state: 3, weight: 61.5 });
    for (const form of [{ weight: -3 }, { default_activity_type: "Flying" }, { default_private: "maybe" }]) {
      const bad = await server.api("PUT", "/v3/athlete", { token: a.token, form });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe("Bad Request");
    }
    const readOnly = await server.athlete({ permissions: ["read"] });
    expect((await server.api("PUT", "/v3/athlete", { token: readOnly.token, form: { weight: 70 } })).status).toBe(401);
  });

  it("PUT /v3/athlete records the request's application and id with the profile change (issue 30)", async () => {
    const a = await server.athlete();
    const res = await server.api("PUT", "/v3/athlete", {
      token: a.token,
      form: { weight: 64 },
      headers: { "x-request-id": `profile-${a.id}` },
    });
    expect(res.status).toBe(200);
    const rows = await server.platform.db.query<{ metadata: Record<string, unknown> }>(
      "select metadata from events where type = 'AthleteProfileUpdated' and (data->>'athleteId')::bigint = $1",
      [a.id],
    );
    expect(rows.map((r) => r.metadata)).toEqual([{
      athleteId: a.id,
      applicationId: a.applicationId,
      requestId: `profile-${a.id}`,
      source: "api",
    }]);
  });

  it("makes new activities private by default, unless the request says otherwise", async () => {
    const a = await server.athlete();
    await server.api("PUT", "/v3/athlete", { token: a.token, form: { default_private: "true" } });
    const manual = (fields: Record<string, string | number>) =>
      server.api("POST", "/v3/activities", {
        token: a.token,
        form: { name: "x", type: "Run", start_date_local: "2026-03-01T07:00:00Z", elapsed_time: 600, ...fields },
      });
    expect((await manual({})).body.private).toBe(true);
    expect((await manual({ private: 0 })).body.private).toBe(false);
    expect((await upload(a, "tcx/garmin-fr410-running-hr.tcx")).private).toBe(true);
    expect((await upload(a, "tcx/polar-m400-running-hr-cadence.tcx", { private: "0" })).private).toBe(false);
  });

  it("gives a file that names no sport the athlete's default type; a type in the file or the request wins", async () => {
    const a = await server.athlete();
    await server.api("PUT", "/v3/athlete", { token: a.token, form: { default_activity_type: "Hike" } });
    expect((await upload(a, "gpx/garmin-oregon600-partial-hr-3seg.gpx")).type).toBe("Hike");
    const b = await server.athlete();
    expect((await upload(b, "gpx/garmin-oregon600-partial-hr-3seg.gpx")).type).toBe("Ride");
    expect((await upload(b, "tcx/garmin-fr410-running-hr.tcx")).type).toBe("Run");
  });
});

describe("best efforts of runs", () => {
  it("carry the PR rank of upload time as a pr achievement, ranked among the athlete's earlier runs", async () => {
    const a = await server.athlete();
    const first = await upload(a, "tcx/garmin-fr410-running-hr.tcx");
    expect(first.best_efforts.length).toBeGreaterThan(0);
    for (const e of first.best_efforts) {
      expect(e.pr_rank).toBeNull();
      expect(e.achievements).toEqual([{ type_id: 3, type: "pr", rank: 1 }]);
    }
    const second = await upload(a, "tcx/polar-m400-running-hr-cadence.tcx");
    const earlier = new Map(
      first.best_efforts.map((e: { name: string; elapsed_time: number }) => [e.name, e.elapsed_time]),
    );
    let compared = 0;
    for (const e of second.best_efforts) {
      const before = earlier.get(e.name) as number | undefined;
      const rank = before !== undefined && before < e.elapsed_time ? 2 : 1;
      expect(e.achievements, e.name).toEqual([{ type_id: 3, type: "pr", rank }]);
      if (before !== undefined) compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });
});
