import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

/**
 * Text PostgreSQL cannot store (U+0000, unpaired surrogates) in any input field is a 400 with the
 * field named — it used to reach the event store and answer 500.
 */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer({ runJobs: false });
  athlete = await server.athlete();
});
afterAll(() => server.close());

const activity = { type: "Ride", start_date_local: "2026-05-01T08:00:00Z", elapsed_time: 3600 };

describe("hostile input: unstorable text", () => {
  it("U+0000 in a form field, a JSON field or a club name → 400 naming the field", async () => {
    const form = await server.api("POST", "/v3/activities", {
      token: athlete.token,
      form: { ...activity, name: "a\u0000b" },
    });
    expect(form.status).toBe(400);
    expect(form.body.errors).toEqual([{ resource: "Activity", field: "name", code: "invalid" }]);
    const json = await server.api("POST", "/v3/activities", {
      token: athlete.token,
      json: { ...activity, name: "ok", description: "x\u0000" },
    });
    expect(json.status).toBe(400);
    expect(json.body.errors).toEqual([{ resource: "Activity", field: "description", code: "invalid" }]);
    const club = await server.api("POST", "/v3/clubs", { token: athlete.token, form: { name: "c\u0000" } });
    expect(club.status).toBe(400);
  });

  it("a lone surrogate in JSON → 400; a valid pair (emoji) is accepted", async () => {
    const res = await fetch(new URL("/v3/activities", server.url), {
      method: "POST",
      headers: { authorization: `Bearer ${athlete.token}`, "content-type": "application/json" },
      body: `{"name":"bad \\ud800 half","type":"Ride","start_date_local":"2026-05-01T08:00:00Z","elapsed_time":60}`,
    });
    expect(res.status).toBe(400);
    const ok = await server.api("POST", "/v3/activities", {
      token: athlete.token,
      json: { ...activity, name: "Sunny 🚴" },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.name).toBe("Sunny 🚴");
  });

  it("U+0000 in an upload's file name or name → 400, not a 500", async () => {
    const gpx =
      '<gpx><trk><trkseg><trkpt lat="1" lon="1"><time>2026-05-01T08:00:00Z</time></trkpt></trkseg></trk></gpx>';
    const named = new FormData();
    named.set("file", new Blob([gpx]), "ride\u0000.gpx");
    named.set("data_type", "gpx");
    expect((await server.api("POST", "/v3/uploads", { token: athlete.token, multipart: named })).status).toBe(400);
    const titled = new FormData();
    titled.set("file", new Blob([gpx]), "ride.gpx");
    titled.set("data_type", "gpx");
    titled.set("name", "n\u0000");
    const res = await server.api("POST", "/v3/uploads", { token: athlete.token, multipart: titled });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ resource: "Upload", field: "name", code: "invalid" }]);
  });
});
