import polylineModule from "@mapbox/polyline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insidePrivacyZone, type PrivacyZoneCircle } from "../../shared/privacy-zones.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { buildStreams, recordActivity, type RecordedData } from "./activities-fixtures.ts";

// @mapbox/polyline ships no types.
const polyline = polylineModule as unknown as {
  decode(encoded: string, precision?: number): [number, number][];
  encode(points: [number, number][], precision?: number): string;
};

let server: TestServer;
let owner: TestAthlete;
let member: TestAthlete;
let clubId: number;
let run: RecordedData;
let bare: RecordedData;
const streams = buildStreams();
const route = streams.latlng!.filter((p): p is [number, number] => p !== null);
const full = polyline.encode(route, 5);
const summary = polyline.encode(route.filter((_, i) => i % 10 === 0 || i === route.length - 1), 5);
/** One zone around the start (hides start_latlng), one across the middle of the route. */
const zones: PrivacyZoneCircle[] = [
  { lat: 51.50123, lng: -0.14212, radius_m: 150 },
  { lat: 51.50723, lng: -0.13612, radius_m: 200 },
];

beforeAll(async () => {
  server = await startTestServer();
  owner = await server.athlete({ firstname: "Ada" });
  member = await server.athlete({ firstname: "Eddy" });
  run = await recordActivity(server, owner.id, { polyline: full, summaryPolyline: summary }, streams);
  for (const z of zones) {
    const res = await server.api("POST", "/v3/athlete/privacy_zones", {
      token: owner.token,
      form: { lat: z.lat, lng: z.lng, radius: z.radius_m },
    });
    expect(res.status, res.text).toBe(201);
  }
  // Eddy has no zones: his maps are served as recorded to everyone.
  bare = await recordActivity(server, member.id, { polyline: full, summaryPolyline: summary }, streams);
  const club = await server.api("POST", "/v3/clubs", { token: owner.token, form: { name: "Riders" } });
  expect(club.status, club.text).toBe(201);
  clubId = club.body.id;
  expect((await server.api("POST", `/v3/clubs/${clubId}/join`, { token: member.token })).status).toBe(200);
});
afterAll(() => server.close());

function pointsOf(encoded: string): [number, number][] {
  return polyline.decode(encoded, 5);
}

/** Checks a map as another viewer sees it: no point inside a zone, the rest of the route kept in order. */
function expectCropped(encoded: string, recorded: string) {
  const all = pointsOf(recorded);
  const outside = all.filter((p) => !insidePrivacyZone(p, zones));
  expect(outside.length).toBeGreaterThan(0);
  expect(outside.length).toBeLessThan(all.length);
  expect(pointsOf(encoded)).toEqual(outside);
}

describe("privacy zones on activity maps", () => {
  it("club feed on /v3: the spec's summaries through the privacy engine — another member gets the zones cut and the points rounded, the owner with view_private their own as recorded", async () => {
    const feed = await server.api("GET", `/v3/clubs/${clubId}/activities`, { token: member.token });
    expect(feed.status).toBe(200);
    const item = feed.body.find((a: { id: number }) => a.id === run.activityId);
    expectCropped(item.map.summary_polyline, summary);
    expect(item.map).not.toHaveProperty("polyline");
    expect(item.start_latlng).toBeNull();
    expect(item.end_latlng).toEqual([51.51, -0.13]);
    const own = await server.api("GET", `/v3/clubs/${clubId}/activities`, { token: owner.token });
    const mine = own.body.find((a: { id: number }) => a.id === run.activityId);
    expect(mine.map.summary_polyline).toBe(summary);
    expect(mine.start_latlng).toEqual(run.startLatlng);
  });

  it("club feed on /api/v3: Strava's ClubActivity carries no point at all (no map, no start or end), for members and the owner", async () => {
    for (const token of [member.token, owner.token]) {
      const feed = await server.api("GET", `/api/v3/clubs/${clubId}/activities`, { token });
      expect(feed.status).toBe(200);
      expect(feed.body.length).toBeGreaterThanOrEqual(2);
      for (const item of feed.body) {
        for (const key of ["map", "start_latlng", "end_latlng", "start_latitude", "start_longitude", "id"]) {
          expect(item, key).not.toHaveProperty(key);
        }
      }
    }
    // The same activities elsewhere carry their maps: the feed's absence is not for want of one.
    const his = await server.api("GET", "/v3/athlete/activities", { token: member.token });
    expect(his.body.find((a: { id: number }) => a.id === bare.activityId).map.summary_polyline).toBe(summary);
  });

  it("detail: the owner's token without view_private gets the cropped polylines; with view_private the full ones", async () => {
    const publicToken = await server.token(owner.id, owner.applicationId, ["read"]);
    const cropped = await server.api("GET", `/v3/activities/${run.activityId}`, { token: publicToken });
    expect(cropped.status).toBe(200);
    expect(cropped.body.map.id).toBe(`a${run.activityId}`);
    expect(cropped.body.map.resource_state).toBe(3);
    expectCropped(cropped.body.map.polyline, full);
    expectCropped(cropped.body.map.summary_polyline, summary);
    expect(cropped.body.start_latlng).toBeNull();
    expect(cropped.body.end_latlng).toEqual([51.51, -0.13]);

    const exact = await server.api("GET", `/v3/activities/${run.activityId}`, { token: owner.token });
    expect(exact.body.map).toEqual({
      id: `a${run.activityId}`,
      polyline: full,
      summary_polyline: summary,
      resource_state: 3,
    });
    expect(exact.body.start_latlng).toEqual(run.startLatlng);
    expect(exact.body.end_latlng).toEqual(run.endLatlng);
  });

  it("lists: the owner with view_private sees the full summary polyline, the same token without it the cropped one", async () => {
    const mine = await server.api("GET", "/v3/athlete/activities", { token: owner.token });
    const item = mine.body.find((a: { id: number }) => a.id === run.activityId);
    expect(item.map).toEqual({ id: `a${run.activityId}`, summary_polyline: summary, resource_state: 2 });
    expect(item.start_latlng).toEqual(run.startLatlng);
    const publicToken = await server.token(owner.id, owner.applicationId, ["read"]);
    const theirs = await server.api("GET", "/v3/athlete/activities", { token: publicToken });
    const cropped = theirs.body.find((a: { id: number }) => a.id === run.activityId);
    expectCropped(cropped.map.summary_polyline, summary);
    expect(cropped.start_latlng).toBeNull();
  });
});
