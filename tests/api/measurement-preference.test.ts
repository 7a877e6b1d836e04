import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

/**
 * measurement_preference (Strava's DetailedAthlete field) is the athlete's choice: PUT /v3/athlete
 * takes "meters" or "feet" (through the athlete decider: AthleteProfileUpdated), GET answers it.
 */
let server: TestServer;
let ann: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  ann = await server.athlete({ firstname: "Ann" });
});
afterAll(() => server.close());

describe("measurement_preference", () => {
  it("is meters until the athlete chooses feet, then feet (an event), and back", async () => {
    expect((await server.api("GET", "/v3/athlete", { token: ann.token })).body.measurement_preference).toBe("meters");
    const put = await server.api("PUT", "/v3/athlete", { token: ann.token, form: { measurement_preference: "feet" } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.measurement_preference).toBe("feet");
    expect((await server.api("GET", "/v3/athlete", { token: ann.token })).body.measurement_preference).toBe("feet");
    const events = await server.platform.db.query<{ n: number }>(
      "select count(*)::int as n from events where type = 'AthleteProfileUpdated' and data->>'measurementPreference' = 'feet' and data->>'athleteId' = $1",
      [String(ann.id)],
    );
    expect(events[0].n).toBe(1);
    const back = await server.api("PUT", "/v3/athlete", {
      token: ann.token,
      json: { measurement_preference: "meters" },
    });
    expect(back.body.measurement_preference).toBe("meters");
  });

  it("refuses anything else (400) and is in the OpenAPI document's update body", async () => {
    const bad = await server.api("PUT", "/v3/athlete", { token: ann.token, form: { measurement_preference: "yards" } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]?.field).toBe("measurement_preference");
    const doc = (await server.api("GET", "/v3/openapi.json")).body;
    expect(JSON.stringify(doc.paths["/v3/athlete"].put)).toContain("measurement_preference");
  });
});
