import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { type Api, uploadUntilReady } from "../helpers/http.ts";

/**
 * Two athletes' logs made over the API, for the MCP tests: Ann (the one who connects an
 * assistant) with a ride with power, a run, a segment, a club, a route and a private activity;
 * Bob, in Ann's club, with a public ride whose start is inside his privacy zone and a private
 * activity whose name and description are secrets no tool of Ann's may ever show.
 */
export interface World {
  ann: { id: number; token: string };
  bob: { id: number; token: string };
  ride: number;
  run: number;
  annPrivate: number;
  segment: number;
  club: number;
  route: number;
  bobRide: number;
  bobPrivate: number;
  /** Bob's privacy zone: no position within it may reach Ann. */
  bobZone: { lat: number; lng: number; radius: number };
  secret: string;
}

const file = (relative: string) => ({
  bytes: new Uint8Array(readFileSync(deviceFile(relative))),
  name: relative.split("/").pop()!,
  dataType: relative.split(".").pop()!,
});

export async function buildWorld(
  call: Api,
  ann: { id: number; token: string },
  bob: { id: number; token: string },
  kick?: () => void,
): Promise<World> {
  const secret = `BOBSECRET${Date.now()}`;
  const ride = await uploadUntilReady(call, ann.token, file("fit/garmin-edge1000-cycling-power-hr.fit"), {}, kick);
  const run = await uploadUntilReady(call, ann.token, file("fit/garmin-fr920xt-running-paused.fit"), {}, kick);
  const short = await uploadUntilReady(
    call,
    ann.token,
    file("fit/garmin-edge1000-cycling-short-3formats.fit"),
    {},
    kick,
  );
  const points = (await call("GET", `/v3/activities/${short}/streams`, {
    token: ann.token,
    query: { keys: "time", key_by_type: true },
  }))
    .body.time.original_size;
  const segment = await call("POST", "/v3/segments", {
    token: ann.token,
    form: {
      name: "MCP climb",
      activity_id: short,
      start_index: Math.floor(points * 0.2),
      end_index: Math.floor(points * 0.8),
    },
  });
  expect(segment.status, segment.text).toBe(201);
  const annPrivate = await call("POST", "/v3/activities", {
    token: ann.token,
    form: {
      name: "Ann private session",
      sport_type: "Workout",
      start_date_local: "2024-03-02T07:00:00Z",
      elapsed_time: "1800",
      private: "1",
    },
  });
  expect(annPrivate.status, annPrivate.text).toBe(201);
  const club = await call("POST", "/v3/clubs", {
    token: ann.token,
    form: { name: "MCP Club", sport_type: "cycling", city: "Utrecht", state: "Utrecht", country: "Netherlands" },
  });
  expect(club.status, club.text).toBe(201);
  expect((await call("POST", `/v3/clubs/${club.body.id}/join`, { token: bob.token })).status).toBeLessThan(300);
  const route = await call("POST", "/v3/routes", { token: ann.token, json: { activity_id: ride, name: "MCP route" } });
  expect(route.status, route.text).toBe(201);

  // Bob: the same short ride (it passes the segment), its start inside his privacy zone.
  const bobRide = await uploadUntilReady(
    call,
    bob.token,
    file("gpx/garmin-connect-edge1000-cycling-short-3formats.gpx"),
    {},
    kick,
  );
  const latlng = (await call("GET", `/v3/activities/${bobRide}/streams`, {
    token: bob.token,
    query: { keys: "latlng", key_by_type: true },
  })).body.latlng.data as [number, number][];
  const bobZone = { lat: latlng[0][0], lng: latlng[0][1], radius: 400 };
  const zone = await call("POST", "/v3/athlete/privacy_zones", { token: bob.token, form: bobZone });
  expect(zone.status, zone.text).toBe(201);
  const bobPrivate = await uploadUntilReady(
    call,
    bob.token,
    file("fit/garmin-edge500-cycling-hr-cad-pauses.fit"),
    { name: `${secret} ride`, description: `${secret} description` },
    kick,
  );
  const hidden = await call("PUT", `/v3/activities/${bobPrivate}`, { token: bob.token, form: { private: "1" } });
  expect(hidden.status, hidden.text).toBe(200);
  const manual = await call("POST", "/v3/activities", {
    token: bob.token,
    form: {
      name: `${secret} manual`,
      sport_type: "Run",
      start_date_local: "2024-04-01T06:00:00Z",
      elapsed_time: "3600",
      distance: "10000",
      private: "1",
    },
  });
  expect(manual.status, manual.text).toBe(201);
  return {
    ann,
    bob,
    ride,
    run,
    annPrivate: annPrivate.body.id,
    segment: segment.body.id,
    club: club.body.id,
    route: route.body.id,
    bobRide,
    bobPrivate,
    bobZone,
    secret,
  };
}

/** Metres between two positions (haversine). */
export function metres(a: [number, number], b: [number, number]): number {
  const rad = Math.PI / 180, R = 6_371_000;
  const dLat = (b[0] - a[0]) * rad, dLng = (b[1] - a[1]) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
}
