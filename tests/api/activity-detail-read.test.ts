import { readFileSync } from "node:fs";
import { join } from "node:path";
import { encode as encodePng } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addGear } from "../../server/gear/commands.ts";
import { createSegment } from "../../server/segments/commands.ts";
import { systemActor } from "../../server/actor.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { DEVICES, slice, streamsOf } from "../segments/fixture-track.ts";

/**
 * GET /v3/activities/:id reads the activity and everything its detail needs in one statement
 * (server/activities/detail.ts). PUT /v3/activities/:id still builds the same representation from
 * the separate reads, so the two bodies must be identical byte for byte — for an activity that has
 * segment efforts (one segment starred), gear, a photo and privacy zones, for a token with and one
 * without view_private. Also: the in-process token cache forgets a revoked token at once.
 */
const FILE = "fit/garmin-edge500-cycling-hr-cad-pauses.fit";
let server: TestServer;
let ada: TestAthlete;
let activityId: number;
let bike: string;
const segmentIds: number[] = [];

function png(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 3).map((_, i) => (i * 7) % 256);
  return encodePng({ width, height, data, channels: 3, depth: 8 });
}

beforeAll(async () => {
  server = await startTestServer();
  ada = await server.athlete({ firstname: "Ada", lastname: "Lovelace" });
  const streams = await streamsOf(FILE);
  for (const [name, i, j] of [["Early stretch", 2000, 2600], ["Later stretch", 6000, 6800]] as const) {
    const { points, altitudes } = slice(streams, i, j);
    segmentIds.push(
      await createSegment(server.platform, {
        name,
        activityType: "Ride",
        points,
        altitudes,
        athleteId: null,
        activityId: null,
      }, systemActor("test")),
    );
  }
  const form = new FormData();
  form.set("file", new Blob([readFileSync(join(DEVICES, FILE))]), "ride.fit");
  form.set("data_type", "fit");
  const upload = await server.api("POST", "/v3/uploads", { token: ada.token, multipart: form });
  expect(upload.status, upload.text).toBe(201);
  for (let i = 0; i < 300 && !activityId; i++) {
    const status = await server.api("GET", `/v3/uploads/${upload.body.id}`, { token: ada.token });
    expect(status.body.error ?? null).toBeNull();
    if (status.body.activity_id) activityId = status.body.activity_id;
    else {
      server.platform.jobs.kick();
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  expect(activityId).toBeGreaterThan(0);
  const starred = await server.api("PUT", `/v3/segments/${segmentIds[0]}/starred`, {
    token: ada.token,
    form: { starred: "true" },
  });
  expect(starred.status, starred.text).toBe(200);
  bike = await addGear(server.platform, { athleteId: ada.id, kind: "bike", name: "Steel", primary: true });
  const photo = new FormData();
  photo.set(
    "file",
    new Blob([new Uint8Array(png(320, 200)) as Uint8Array<ArrayBuffer>], { type: "image/png" }),
    "photo.png",
  );
  photo.set("caption", "Summit");
  expect(
    (await server.api("POST", `/v3/activities/${activityId}/photos`, { token: ada.token, multipart: photo })).status,
  ).toBe(201);
  // A zone over the middle of the route: others (and the owner without view_private) see it cut out.
  const [lat, lng] = slice(streams, 4000, 4001).points[0];
  const zone = await server.api("POST", "/v3/athlete/privacy_zones", {
    token: ada.token,
    form: { lat, lng, radius: 300 },
  });
  expect(zone.status, zone.text).toBe(201);
}, 120_000);
afterAll(() => server.close());

describe("GET /v3/activities/:id in one statement", () => {
  it("answers byte for byte what the representation built from separate reads gives (with and without view_private)", async () => {
    const withoutViewPrivate = await server.token(ada.id, ada.applicationId, ["read", "write"]);
    const bodies: string[] = [];
    for (const token of [ada.token, withoutViewPrivate]) {
      const put = await server.api("PUT", `/v3/activities/${activityId}`, { token, form: { gear_id: bike } });
      expect(put.status, put.text).toBe(200);
      const get = await server.api("GET", `/v3/activities/${activityId}`, { token });
      expect(get.status, get.text).toBe(200);
      expect(get.text).toBe(put.text);
      bodies.push(get.text);
      const body = get.body;
      expect(
        body.segment_efforts.map((
          e: { segment: { id: number; starred: boolean } },
        ) => [e.segment.id, e.segment.starred]),
      )
        .toEqual([[segmentIds[0], true], [segmentIds[1], false]]);
      expect(body.segment_efforts[0].start_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(body.gear).toMatchObject({ id: bike, name: "Steel", resource_state: 2 });
      expect(body.photos.count).toBe(1);
      expect(body.photos.primary.urls["100"]).toContain("/photos/");
      expect(body.has_kudoed).toBe(false);
    }
    // The zone applies only without view_private: the polylines differ.
    const [exact, cropped] = bodies.map((b) => JSON.parse(b));
    expect(cropped.map.polyline.length).toBeLessThan(exact.map.polyline.length);
  });

  it("include_all_efforts and unknown ids still answer as before", async () => {
    const all = await server.api("GET", `/v3/activities/${activityId}`, {
      token: ada.token,
      query: { include_all_efforts: true },
    });
    expect(all.status).toBe(200);
    expect(all.body.segment_efforts.length).toBeGreaterThanOrEqual(2);
    const missing = await server.api("GET", "/v3/activities/987654321", { token: ada.token });
    expect(missing.status).toBe(404);
  });
});

describe("token lookups remembered in process", () => {
  it("a token used a moment ago gets 401 at once after it is revoked", async () => {
    const cy = await server.athlete({ firstname: "Cy" });
    for (let i = 0; i < 3; i++) expect((await server.api("GET", "/v3/athlete", { token: cy.token })).status).toBe(200);
    const revoked = await server.api("POST", "/oauth/deauthorize", { token: cy.token });
    expect(revoked.status, revoked.text).toBe(200);
    const after = await server.api("GET", "/v3/athlete", { token: cy.token });
    expect(after.status).toBe(401);
  });
});
