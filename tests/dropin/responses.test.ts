import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsPlugin from "ajv-formats";
import { encode as encodePng } from "fast-png";
import jpeg from "jpeg-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantAuthorization } from "../../server/oauth/commands.ts";
import { addGear } from "../../server/gear/commands.ts";
import { createChallenge } from "../../server/challenges/commands.ts";
import type { CallOptions } from "../helpers/http.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { WebClient } from "../oauth/web-client.ts";
import { upload } from "./deno-server.ts";
import { extraKeys, generalPath, missingKeys, nullsOutsideModel, STRAVA_RULES, violations } from "./strava-model.ts";

/**
 * Issue #19: every operation of /v3/openapi.json driven over HTTP on the real server, each real
 * answer validated (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses, with formats) against the schema
 * the document declares for that operation's success status. The document is read from the server,
 * the fixtures are real device files, a real JPEG and a real OAuth code. An operation of the
 * document without a fixture, or a success answer without a schema, fails the test too.
 */
const addFormats = addFormatsPlugin as unknown as (ajv: InstanceType<typeof Ajv2020>) => void;

let server: TestServer;
let ann: TestAthlete;
let bob: TestAthlete;
let app: Awaited<ReturnType<TestServer["application"]>>;
let callback: Server;
let callbackUrl = "";
// deno-lint-ignore no-explicit-any
let doc: any;

interface Ids {
  ride: number;
  run: number;
  segment: number;
  effort: string;
  gear: string;
  club: number;
  challenge: number;
  upload: number;
  map: number;
  photo: string;
  route: number;
}
let ids: Ids;

beforeAll(async () => {
  server = await startTestServer({
    rateLimitShort: 100_000_000,
    rateLimitLong: 100_000_000,
    webhooksAllowPrivate: true,
  });
  app = await server.application({ internal: true, kudos: true, challenges: true });
  ann = await server.athlete({
    firstname: "Ann",
    lastname: "Tester",
    sex: "F",
    premium: true,
    applicationId: app.client_id,
    city: "Utrecht",
    country: "Netherlands",
  });
  bob = await server.athlete({ firstname: "Bob", applicationId: app.client_id });
  callback = createServer((req, res) => {
    const challenge = new URL(req.url ?? "/", "http://x").searchParams.get("hub.challenge");
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ "hub.challenge": challenge }));
  });
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/webhook`;

  const call = server.api;
  const ride = await upload(call, ann.token, "fit/garmin-edge1000-cycling-power-hr.fit");
  const run = await upload(call, ann.token, "gpx/strava-export-running-hr.gpx");
  await upload(call, bob.token, "tcx/garmin-fr410-running-hr.tcx");
  const uploads = await call("POST", "/v3/uploads", {
    token: ann.token,
    multipart: deviceForm("fit/zwift-virtual-cycling-power.fit"),
  });
  expect(uploads.status).toBe(201);
  // A segment laid on one ride, then the same road ridden again (the device's GPX of that ride) and by Bob: real efforts.
  const short = await upload(call, ann.token, "fit/garmin-edge1000-cycling-short-3formats.fit");
  const points = (await call("GET", `/v3/activities/${short}/streams`, {
    token: ann.token,
    query: { keys: "time", key_by_type: true },
  })).body.time.original_size;
  const segment = await call("POST", "/v3/segments", {
    token: ann.token,
    form: {
      name: "Schema climb",
      activity_id: short,
      start_index: Math.floor(points * 0.2),
      end_index: Math.floor(points * 0.8),
    },
  });
  expect(segment.status, segment.text).toBe(201);
  await upload(call, ann.token, "gpx/garmin-connect-edge1000-cycling-short-3formats.gpx");
  await upload(call, bob.token, "fit/garmin-edge1000-cycling-short-3formats.fit");
  const efforts = await call("GET", `/v3/segments/${segment.body.id}/all_efforts`, { token: ann.token });
  expect(efforts.body.length, "the segment's own activity gives an effort").toBeGreaterThan(0);
  const gear = await addGear(server.platform, {
    athleteId: ann.id,
    kind: "bike",
    name: "Schema bike",
    brandName: "Koga",
    modelName: "Kimera",
    frameType: 3,
    weight: 8.2,
  });
  await call("PUT", `/v3/activities/${ride}`, { token: ann.token, form: { gear_id: gear } });
  const club = await call("POST", "/v3/clubs", {
    token: ann.token,
    form: { name: "Schema Club", sport_type: "cycling" },
  });
  await call("POST", `/v3/clubs/${club.body.id}/join`, { token: bob.token });
  const challenge = await createChallenge(server.platform, {
    name: "Schema challenge",
    type: "CumulativeChallenge",
    dimension: "distance",
    goal: 100000,
    startDate: "2000-01-01",
    endDate: "2099-12-31",
  });
  await call("POST", `/v3/challenges/${challenge}/athletes`, { token: ann.token });
  const map = await call("POST", "/v3/athlete/heatmaps", { token: ann.token, form: { activity_type_ids: "1,2" } });
  const photo = await call("POST", `/v3/activities/${run}/photos`, { token: ann.token, multipart: photoForm() });
  expect(photo.status, photo.text).toBe(201);
  await call("POST", `/v3/activities/${run}/comments`, { token: bob.token, form: { text: "Strong finish" } });
  await call("POST", `/v3/activities/${run}/kudos`, { token: bob.token });
  await call("PUT", `/v3/segments/${segment.body.id}/starred`, { token: ann.token, form: { starred: true } });
  await call("POST", "/v3/athlete/privacy_zones", { token: ann.token, form: { lat: 10, lng: 10, radius: 300 } });
  const route = await call("POST", "/v3/routes", {
    token: ann.token,
    json: { activity_id: ride, name: "Schema route" },
  });
  expect(route.status, route.text).toBe(201);
  ids = {
    route: route.body.id,
    ride,
    run,
    segment: segment.body.id,
    effort: String(efforts.body[0].id),
    gear,
    club: club.body.id,
    challenge,
    upload: uploads.body.id,
    map: map.body.id,
    photo: new URL(Object.values(photo.body.urls as Record<string, string>)[0]).pathname,
  };
  const res = await call("GET", "/v3/openapi.json");
  expect(res.status).toBe(200);
  doc = JSON.parse(res.text);
}, 600_000);
afterAll(async () => {
  await server?.close();
  callback?.close();
});

function deviceForm(file: string) {
  const form = new FormData();
  form.set(
    "file",
    new Blob([readFileSync(new URL(`../fixtures/devices/${file}`, import.meta.url))]),
    file.split("/").pop()!,
  );
  form.set("data_type", "fit");
  return form;
}

/** A real PNG (fast-png), 8×8 grey. */
function pictureForm() {
  const form = new FormData();
  form.set(
    "file",
    new Blob([
      new Uint8Array(
        encodePng({ width: 8, height: 8, data: new Uint8Array(8 * 8 * 3).fill(128), channels: 3, depth: 8 }),
      ),
    ]),
    "me.png",
  );
  return form;
}

/** A real JPEG (jpeg-js), 64×48. */
function photoForm() {
  const width = 64;
  const height = 48;
  const data = new Uint8Array(width * height * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 7) % 256));
  const bytes = new Uint8Array(jpeg.encode({ data, width, height }, 85).data);
  const form = new FormData();
  form.set("file", new Blob([bytes], { type: "image/jpeg" }), "finish.jpg");
  form.set("caption", "Finish line");
  return form;
}

type Request = CallOptions & { path: string };
interface Fixture {
  request(): Promise<Request> | Request;
  /** An array answer may be empty (default: it must hold at least one item, so its items are validated). */
  mayBeEmpty?: boolean;
}

/** One real request per operation of the document, keyed "METHOD /path/{template}". */
function fixtures(): Record<string, Fixture> {
  const token = ann.token;
  const at = (path: string, extra: CallOptions = {}): Fixture => ({ request: () => ({ path, token, ...extra }) });
  const fresh = async (f: () => Promise<string>): Promise<Request> => ({ path: await f(), token });
  const newClubWithMember = async (kind: "members" | "admins", pending: boolean) => {
    const club = await server.api("POST", "/v3/clubs", {
      token,
      form: { name: `Club ${Math.random()}`, sport_type: "running", private: pending },
    });
    const joiner = await server.athlete({ applicationId: app.client_id });
    await server.api("POST", `/v3/clubs/${club.body.id}/join`, { token: joiner.token });
    if (kind === "admins" && !pending) return { club: club.body.id, athlete: joiner.id };
    return { club: club.body.id, athlete: joiner.id };
  };
  // Crop and split (server/crop): one run of Ann's, uploaded once, cropped, split and undone.
  let croppable: Promise<number> | undefined;
  const ownRun = () => (croppable ??= upload(server.api, token, "tcx/garmin-fr410-running-hr.tcx"));
  return {
    "GET /v3/activities/{id}/edits": {
      request: async () => ({ path: `/v3/activities/${await ownRun()}/edits`, token }),
    },
    "POST /v3/activities/{id}/crop": {
      request: async () => ({
        path: `/v3/activities/${await ownRun()}/crop`,
        token,
        json: { start_time: 30, end_time: 1500 },
      }),
    },
    "POST /v3/activities/{id}/split": {
      request: async () => ({ path: `/v3/activities/${await ownRun()}/split`, token, json: { time: 300 } }),
    },
    "DELETE /v3/activities/{id}/edits/{edit}": {
      request: () =>
        fresh(async () => {
          const id = await ownRun();
          await server.api("POST", `/v3/activities/${id}/crop`, { token, json: { start_time: 10, end_time: 200 } });
          const edits = await server.api("GET", `/v3/activities/${id}/edits`, { token });
          return `/v3/activities/${id}/edits/${edits.body.edits.at(-1).edit}`;
        }),
    },
    "GET /v3/segments/{id}/compare": {
      request: async () => {
        const efforts = await server.api("GET", `/v3/segments/${ids.segment}/all_efforts`, { token });
        const ids2 = (efforts.body as { id: bigint | number }[]).slice(0, 2).map((e) => String(e.id)).join(",");
        return { path: `/v3/segments/${ids.segment}/compare`, token, query: { effort_ids: ids2 } };
      },
    },
    "POST /v3/routes": at("/v3/routes", {
      json: { name: "Drawn loop", latlng: [[52.09, 5.12], [52.1, 5.13], [52.11, 5.12]], type: 2 },
    }),
    "GET /v3/routes/{id}": at(`/v3/routes/${ids.route}`),
    "GET /v3/athletes/{id}/routes": at(`/v3/athletes/${ann.id}/routes`),
    "GET /v3/athlete/routes": at("/v3/athlete/routes", { query: { page: 1, per_page: 30 } }),
    "GET /v3/routes/{id}/streams": at(`/v3/routes/${ids.route}/streams`),
    "GET /v3/routes/{id}/export_gpx": at(`/v3/routes/${ids.route}/export_gpx`),
    "GET /v3/routes/{id}/export_tcx": at(`/v3/routes/${ids.route}/export_tcx`),
    "DELETE /v3/routes/{id}": {
      request: () =>
        fresh(async () => {
          const made = await server.api("POST", "/v3/routes", {
            token,
            json: { name: "Gone", latlng: [[52.09, 5.12], [52.1, 5.13]] },
          });
          return `/v3/routes/${made.body.id}`;
        }),
    },
    // The web app's extensions (server/feeds/routes.ts, gear-create.ts, athlete-picture.ts).
    "GET /v3/activities/following": at("/v3/activities/following"),
    "GET /v3/athletes/{id}/activities": at(`/v3/athletes/${ann.id}/activities`),
    "GET /v3/athletes/{id}/totals": at(`/v3/athletes/${ann.id}/totals`),
    "GET /v3/athletes/{id}/records": at(`/v3/athletes/${ann.id}/records`),
    "GET /v3/athletes/{id}/fitness": at(`/v3/athletes/${ann.id}/fitness`),
    "GET /v3/athletes/{id}/volume": at(`/v3/athletes/${ann.id}/volume`, {
      query: { period: "year", from: "1900-01-01", to: "2200-12-31" },
    }),
    "GET /v3/athletes/{id}/activities/search": at(`/v3/athletes/${ann.id}/activities/search`, {
      query: { per_page: 1 },
    }),
    "GET /v3/athletes/{id}/profile": at(`/v3/athletes/${bob.id}/profile`),
    "PUT /v3/athletes/{id}/follow": at(`/v3/athletes/${bob.id}/follow`),
    "DELETE /v3/athletes/{id}/follow": at(`/v3/athletes/${bob.id}/follow`),
    "POST /v3/gear": at("/v3/gear", { form: { kind: "shoe", name: "Schema shoes" } }),
    "PUT /v3/athlete/picture": { request: () => ({ path: "/v3/athlete/picture", token, multipart: pictureForm() }) },
    "DELETE /v3/athlete/picture": at("/v3/athlete/picture"),
    "GET /v3/segments/explore": at("/v3/segments/explore", { query: { bounds: "-90,-180,90,180" } }),
    "GET /v3/segments/starred": at("/v3/segments/starred"),
    "GET /v3/athletes/{id}/segments/starred": at(`/v3/athletes/${ann.id}/segments/starred`),
    "POST /v3/segments": at("/v3/segments", {
      form: { name: "Another climb", activity_id: ids.ride, start_index: 1000, end_index: 1500 },
    }),
    "GET /v3/segments/{id}": at(`/v3/segments/${ids.segment}`),
    "PUT /v3/segments/{id}/starred": at(`/v3/segments/${ids.segment}/starred`, { form: { starred: true } }),
    "GET /v3/segments/{id}/all_efforts": at(`/v3/segments/${ids.segment}/all_efforts`),
    "GET /v3/segments/{id}/leaderboard": at(`/v3/segments/${ids.segment}/leaderboard`),
    "GET /v3/segments/{id}/streams": at(`/v3/segments/${ids.segment}/streams`, {
      query: { keys: "latlng,distance,altitude" },
    }),
    "GET /v3/segment_efforts/{id}": at(`/v3/segment_efforts/${ids.effort}`),
    "GET /v3/segment_efforts/{id}/streams": at(`/v3/segment_efforts/${ids.effort}/streams`, {
      query: { keys: "time,heartrate,watts", key_by_type: true },
    }),
    "GET /v3/segment_efforts": at("/v3/segment_efforts", { query: { segment_id: ids.segment } }),
    "GET /v3/athlete": at("/v3/athlete"),
    "PUT /v3/athlete": at("/v3/athlete", { form: { weight: 61.5, ftp: 240 } }),
    "GET /v3/athletes/{id}": at(`/v3/athletes/${bob.id}`),
    "GET /v3/athletes/{id}/stats": at(`/v3/athletes/${ann.id}/stats`),
    "GET /v3/athlete/zones": at("/v3/athlete/zones"),
    "POST /v3/activities": at("/v3/activities", {
      form: {
        name: "Lunch swim",
        sport_type: "Swim",
        start_date_local: "2024-05-01T12:00:00Z",
        elapsed_time: 1800,
        distance: 1500,
      },
    }),
    "GET /v3/activities/{id}": at(`/v3/activities/${ids.run}`, { query: { include_all_efforts: true } }),
    "PUT /v3/activities/{id}": at(`/v3/activities/${ids.ride}`, { form: { name: "Renamed ride", commute: true } }),
    "DELETE /v3/activities/{id}": {
      request: () =>
        fresh(async () => {
          const made = await server.api("POST", "/v3/activities", {
            token,
            form: { name: "Gone", type: "Walk", start_date_local: "2024-05-02T08:00:00Z", elapsed_time: 600 },
          });
          return `/v3/activities/${made.body.id}`;
        }),
    },
    "GET /v3/athlete/activities": at("/v3/athlete/activities", { query: { per_page: 50 } }),
    "GET /v3/activities/{id}/comments": at(`/v3/activities/${ids.run}/comments`),
    "POST /v3/activities/{id}/comments": at(`/v3/activities/${ids.run}/comments`, { form: { text: "Thanks!" } }),
    "DELETE /v3/activities/{activity_id}/comments/{id}": {
      request: () =>
        fresh(async () => {
          const made = await server.api("POST", `/v3/activities/${ids.run}/comments`, {
            token,
            form: { text: "Typo" },
          });
          return `/v3/activities/${ids.run}/comments/${made.body.id}`;
        }),
    },
    "GET /v3/activities/{id}/kudos": at(`/v3/activities/${ids.run}/kudos`),
    "POST /v3/activities/{id}/kudos": {
      request: () => ({ path: `/v3/activities/${ids.ride}/kudos`, token: bob.token }),
    },
    "GET /v3/activities/{id}/photos": at(`/v3/activities/${ids.run}/photos`, {
      query: { size: 600, photo_sources: true },
    }),
    "POST /v3/activities/{id}/photos": {
      request: () => ({ path: `/v3/activities/${ids.ride}/photos`, token, multipart: photoForm() }),
    },
    "GET /photos/{unique_id}/{size}": at(ids.photo),
    "GET /v3/activities/{id}/streams": at(`/v3/activities/${ids.ride}/streams`, {
      query: { keys: "time,latlng,heartrate,watts,moving", key_by_type: true },
    }),
    "GET /v3/activities/{id}/streams/{types}": at(`/v3/activities/${ids.run}/streams/time,distance,heartrate`),
    "GET /v3/activities/{id}/laps": at(`/v3/activities/${ids.ride}/laps`),
    "GET /v3/activities/{id}/export_gpx": at(`/v3/activities/${ids.ride}/export_gpx`),
    "GET /v3/activities/{id}/export_original": at(`/v3/activities/${ids.ride}/export_original`),
    "GET /v3/clubs/search": at("/v3/clubs/search", { query: { q: "" } }),
    "GET /v3/athletes/search": at("/v3/athletes/search"),
    "GET /v3/challenges/search": at("/v3/challenges/search"),
    "GET /v3/activities/{id}/zones": at(`/v3/activities/${ids.ride}/zones`),
    "GET /v3/gear/{id}": at(`/v3/gear/${ids.gear}`),
    "PUT /v3/gear/{id}": at(`/v3/gear/${ids.gear}`, { form: { reminder_distance: 500000, nickname: "Schema bike" } }),
    "POST /v3/clubs": at("/v3/clubs", { form: { name: "Another club", sport_type: "running" } }),
    "GET /v3/clubs/{id}": at(`/v3/clubs/${ids.club}`),
    "GET /v3/athlete/clubs": at("/v3/athlete/clubs"),
    "GET /v3/clubs/{id}/members": at(`/v3/clubs/${ids.club}/members`),
    "GET /v3/clubs/{id}/admins": at(`/v3/clubs/${ids.club}/admins`),
    "PUT /v3/clubs/{club_id}/members/{athlete_id}": {
      request: () =>
        fresh(async () => {
          const m = await newClubWithMember("members", true);
          return `/v3/clubs/${m.club}/members/${m.athlete}`;
        }),
    },
    "DELETE /v3/clubs/{club_id}/members/{athlete_id}": {
      request: () =>
        fresh(async () => {
          const m = await newClubWithMember("members", true);
          return `/v3/clubs/${m.club}/members/${m.athlete}`;
        }),
    },
    "PUT /v3/clubs/{club_id}/admins/{athlete_id}": {
      request: () =>
        fresh(async () => {
          const m = await newClubWithMember("admins", false);
          return `/v3/clubs/${m.club}/admins/${m.athlete}`;
        }),
    },
    "DELETE /v3/clubs/{club_id}/admins/{athlete_id}": {
      request: () =>
        fresh(async () => {
          const m = await newClubWithMember("admins", false);
          await server.api("PUT", `/v3/clubs/${m.club}/admins/${m.athlete}`, { token });
          return `/v3/clubs/${m.club}/admins/${m.athlete}`;
        }),
    },
    "GET /v3/clubs/{id}/activities": at(`/v3/clubs/${ids.club}/activities`),
    "POST /v3/clubs/{id}/join": {
      request: async () => {
        const club = await server.api("POST", "/v3/clubs", {
          token: bob.token,
          form: { name: "Bob's club", sport_type: "triathlon" },
        });
        return { path: `/v3/clubs/${club.body.id}/join`, token };
      },
    },
    "POST /v3/clubs/{id}/leave": { request: () => ({ path: `/v3/clubs/${ids.club}/leave`, token: bob.token }) },
    "GET /v3/challenges/joined": at("/v3/challenges/joined"),
    "GET /v3/challenges/{id}": at(`/v3/challenges/${ids.challenge}`),
    "GET /v3/challenges/{id}/leaderboard": { ...at(`/v3/challenges/${ids.challenge}/leaderboard`) },
    "POST /v3/challenges/{id}/athletes": {
      request: () => ({ path: `/v3/challenges/${ids.challenge}/athletes`, token: bob.token }),
    },
    "DELETE /v3/challenges/{id}/athletes": {
      request: () => ({ path: `/v3/challenges/${ids.challenge}/athletes`, token: bob.token }),
    },
    "POST /v3/uploads": {
      request: () => ({
        path: "/v3/uploads",
        token,
        multipart: deviceForm("fit/wahoo-elemnt-cycling-power-hr-pauses.fit"),
      }),
    },
    "GET /v3/uploads/{id}": at(`/v3/uploads/${ids.upload}`),
    "GET /v3/athlete/heatmaps": at("/v3/athlete/heatmaps"),
    "POST /v3/athlete/heatmaps": at("/v3/athlete/heatmaps", { form: { activity_type_ids: "1" } }),
    "GET /v3/athletes/{athlete_id}/heatmaps/{map_id}/progress": at(
      `/v3/athletes/${ann.id}/heatmaps/${ids.map}/progress`,
    ),
    "GET /v3/athletes/{athlete_id}/heatmaps/{map_id}": at(`/v3/athletes/${ann.id}/heatmaps/${ids.map}`),
    "DELETE /v3/athletes/{athlete_id}/heatmaps/{map_id}": {
      request: () =>
        fresh(async () => {
          const map = await server.api("POST", "/v3/athlete/heatmaps", { token, form: { activity_type_ids: "2" } });
          return `/v3/athletes/${ann.id}/heatmaps/${map.body.id}`;
        }),
    },
    "GET /v3/athlete/goals": at("/v3/athlete/goals"),
    "POST /v3/athlete/goals": at("/v3/athlete/goals", {
      form: { type: "Ride", period: "month", dimension: "distance", goal: 500000 },
    }),
    "DELETE /v3/athlete/goals/{id}": {
      request: () =>
        fresh(async () => {
          const goal = await server.api("POST", "/v3/athlete/goals", {
            token,
            form: { type: "Swim", period: "year", dimension: "time", goal: 360000 },
          });
          return `/v3/athlete/goals/${goal.body.id}`;
        }),
    },
    "GET /v3/athlete/privacy_zones": at("/v3/athlete/privacy_zones"),
    "POST /v3/athlete/privacy_zones": at("/v3/athlete/privacy_zones", {
      form: { lat: -33.86, lng: 151.2, radius: 500 },
    }),
    "DELETE /v3/athlete/privacy_zones/{id}": {
      request: () =>
        fresh(async () => {
          const zone = await server.api("POST", "/v3/athlete/privacy_zones", {
            token,
            form: { lat: 1, lng: 1, radius: 400 },
          });
          return `/v3/athlete/privacy_zones/${zone.body.id}`;
        }),
    },
    "POST /v3/athlete/imports": { request: () => ({ path: "/v3/athlete/imports", token, multipart: archiveForm() }) },
    "GET /v3/athlete/imports/{id}": {
      request: async () => {
        const started = await server.api("POST", "/v3/athlete/imports", { token, multipart: archiveForm() });
        return { path: `/v3/athlete/imports/${started.body.id}`, token };
      },
    },
    "POST /v3/push_subscriptions": {
      request: () => ({
        path: "/v3/push_subscriptions",
        form: {
          client_id: app.client_id,
          client_secret: app.client_secret,
          callback_url: callbackUrl,
          verify_token: "v",
        },
      }),
    },
    "GET /v3/push_subscriptions": {
      request: () => ({
        path: "/v3/push_subscriptions",
        query: { client_id: app.client_id, client_secret: app.client_secret },
      }),
    },
    "DELETE /v3/push_subscriptions/{id}": {
      request: async () => {
        const [sub] = (await server.api("GET", "/v3/push_subscriptions", {
          query: { client_id: app.client_id, client_secret: app.client_secret },
        })).body;
        return {
          path: `/v3/push_subscriptions/${sub.id}`,
          query: { client_id: app.client_id, client_secret: app.client_secret },
        };
      },
    },
    "GET /oauth/authorize": {
      request: async () => {
        const web = new WebClient(server.url);
        await web.signIn(ann.email, "password123");
        const cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
        return {
          path: "/oauth/authorize",
          query: {
            client_id: app.client_id,
            redirect_uri: "http://localhost/cb",
            response_type: "code",
            scope: "read,activity:read_all",
            approval_prompt: "force",
          },
          headers: { cookie, accept: "text/html" },
        };
      },
    },
    "POST /oauth/token": {
      request: async () => ({
        path: "/oauth/token",
        form: {
          client_id: app.client_id,
          client_secret: app.client_secret,
          grant_type: "authorization_code",
          code: await code(),
        },
      }),
    },
    "POST /oauth/deauthorize": {
      request: async () => {
        const tokens = await server.api("POST", "/oauth/token", {
          form: { client_id: app.client_id, client_secret: app.client_secret, code: await code() },
        });
        return { path: "/oauth/deauthorize", form: { access_token: tokens.body.access_token } };
      },
    },
  };
}

async function code() {
  return await grantAuthorization(server.platform, {
    athleteId: bob.id,
    applicationId: app.client_id,
    permissions: ["read", "view_private"],
    scope: "read,activity:read_all",
    redirectUri: "http://localhost/cb",
    codeChallenge: null,
    prompted: true,
    audience: "api",
  });
}

/** An "archive" that is not a zip: accepted (202) and refused by the import itself. */
function archiveForm() {
  const form = new FormData();
  form.set("file", new Blob([new TextEncoder().encode("not a zip")]), "export.zip");
  return form;
}

/**
 * The operations Strava's API has, with the model of their answer (an array answer: of each item).
 * Each answer is checked against that model's enums and date formats, for the properties the model
 * declares and for null only where the model allows it (tests/dropin/strava-model.ts). Strava's model
 * is Strava's dialect: a GET is read again on /api/v3, where Strava's clients call (a write answers
 * the same object in both dialects but for "" where Strava answers null, which no check here minds).
 */
const STRAVA_OPERATIONS: Record<string, string> = {
  "GET /v3/athlete": "DetailedAthlete",
  "PUT /v3/athlete": "DetailedAthlete",
  "GET /v3/athletes/{id}/stats": "ActivityStats",
  "GET /v3/athlete/zones": "Zones",
  "GET /v3/athlete/activities": "SummaryActivity",
  "GET /v3/athlete/clubs": "SummaryClub",
  "GET /v3/athlete/routes": "Route",
  "POST /v3/activities": "DetailedActivity",
  "GET /v3/activities/{id}": "DetailedActivity",
  "PUT /v3/activities/{id}": "DetailedActivity",
  "GET /v3/activities/{id}/comments": "Comment",
  "GET /v3/activities/{id}/kudos": "SummaryAthlete",
  "GET /v3/activities/{id}/laps": "Lap",
  "GET /v3/activities/{id}/zones": "ActivityZone",
  "GET /v3/activities/{id}/streams": "StreamSet",
  "GET /v3/segment_efforts/{id}/streams": "StreamSet",
  "GET /v3/gear/{id}": "DetailedGear",
  "GET /v3/clubs/{id}": "DetailedClub",
  "GET /v3/clubs/{id}/members": "ClubAthlete",
  "GET /v3/clubs/{id}/admins": "SummaryAthlete",
  "GET /v3/clubs/{id}/activities": "ClubActivity",
  "POST /v3/clubs/{id}/join": "MembershipApplication",
  "POST /v3/clubs/{id}/leave": "MembershipApplication",
  "GET /v3/segments/explore": "ExplorerResponse",
  "GET /v3/segments/starred": "SummarySegment",
  "GET /v3/segments/{id}": "DetailedSegment",
  "PUT /v3/segments/{id}/starred": "DetailedSegment",
  "GET /v3/segment_efforts/{id}": "DetailedSegmentEffort",
  "GET /v3/segment_efforts": "DetailedSegmentEffort",
  "GET /v3/routes/{id}": "Route",
  "GET /v3/athletes/{id}/routes": "Route",
  "POST /v3/uploads": "Upload",
  "GET /v3/uploads/{id}": "Upload",
};

/**
 * Properties Strava's model declares that an answer may lack, each with the reason we have no data
 * for it. Anything else missing fails the test.
 */
const NO_DATA: Record<string, string> = {
  "*.map.polyline":
    "a summary's map: Strava's PolylineMap sends polyline only in detailed representations (summary_polyline is there)",
  "*.max":
    "power zones: no maximum defined for them (heart-rate zones carry the max heart rate their bounds come from)",
  "*.points": "power zones: no points or score defined for power (heart-rate zones carry them)",
  "*.score": "power zones: no points or score defined for power (heart-rate zones carry them)",
};

/** Creating before reading before deleting, so that lists hold what the fixtures made. */
const METHODS = ["post", "put", "get", "delete"] as const;

/** JSON pointer of a document path. */
const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

function operations() {
  const out: { key: string; path: string; method: string; status: string; media: string | null }[] = [];
  for (
    const [path, item] of Object.entries(doc.paths) as [
      string,
      Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>,
    ][]
  ) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const [status, success] = Object.entries(op.responses).find(([s]) => /^2\d\d$/.test(s))!;
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        path,
        method,
        status,
        media: success.content ? Object.keys(success.content)[0] : null,
      });
    }
  }
  return out;
}

describe("every operation of the OpenAPI document, answered by the real server", () => {
  it("declares a response schema for every success answer with a body (204 alone has none)", () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThanOrEqual(70);
    const missing = ops.filter((o) => o.status !== "204" && o.media === null).map((o) => `${o.key} ${o.status}`);
    expect(missing, "operations without a response schema").toEqual([]);
    const bodiless = ops.filter((o) => o.status === "204" && o.media !== null).map((o) => o.key);
    expect(bodiless).toEqual([]);
    // Strava's model names, referenced, not inlined.
    for (
      const name of [
        "SummaryActivity",
        "DetailedActivity",
        "SummaryAthlete",
        "DetailedAthlete",
        "DetailedSegment",
        "DetailedSegmentEffort",
        "SummaryClub",
        "DetailedClub",
        "Upload",
        "Comment",
        "Lap",
        "ActivityZone",
        "DetailedGear",
        "StreamSet",
        "ActivityStats",
      ]
    ) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    expect(doc.paths["/v3/athlete/activities"].get.responses["200"].content["application/json"].schema).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/SummaryActivity" },
    });
    const tags = new Set(doc.tags.map((t: { name: string }) => t.name));
    for (const o of ops) {
      for (const tag of doc.paths[o.path][o.method].tags) expect(tags.has(tag), `${o.key} tag ${tag}`).toBe(true);
    }
  });

  it("gives examples that validate against their own models, at least one per tag's answers", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, "openapi.json");
    const bad: string[] = [];
    const named: string[] = [];
    for (const [name, schema] of Object.entries(doc.components.schemas) as [string, { examples?: unknown[] }][]) {
      for (const example of schema.examples ?? []) {
        named.push(name);
        const validate = ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` });
        if (!validate(example)) bad.push(`${name}: ${JSON.stringify(validate.errors?.slice(0, 3))}`);
      }
    }
    expect(bad).toEqual([]);
    expect(named.length).toBeGreaterThanOrEqual(20);
    // Every tag's operations reach at least one model with an example (directly or through $ref).
    const reach = (value: unknown, seen = new Set<string>()): boolean => {
      if (Array.isArray(value)) return value.some((v) => reach(v, seen));
      if (!value || typeof value !== "object") return false;
      const ref = (value as { $ref?: string }).$ref;
      if (ref) {
        const name = ref.split("/").pop()!;
        if (seen.has(name)) return false;
        seen.add(name);
        return named.includes(name) || reach(doc.components.schemas[name], seen);
      }
      return Object.values(value).some((v) => reach(v, seen));
    };
    const tags = new Map<string, boolean>();
    for (const o of operations()) {
      const op = doc.paths[o.path][o.method];
      for (const tag of op.tags) tags.set(tag, (tags.get(tag) ?? false) || reach(op.responses));
    }
    expect([...tags].filter(([, has]) => !has).map(([tag]) => tag), "tags without an example").toEqual([]);
  });

  it("validates each real answer against its operation's schema (and the schemas reject a broken answer)", async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, "openapi.json");
    const table = fixtures();
    const ops = operations();
    const failures: string[] = [];
    const lines: string[] = [];
    let validated = 0;
    let items = 0;
    const missing = new Map<string, Set<string>>();
    let stravaChecked = 0;
    for (const op of ops) {
      const fixture = table[op.key];
      if (!fixture) continue;
      const { path, ...options } = await fixture.request();
      const res = await server.api(op.method.toUpperCase(), path, options);
      const type = res.headers.get("content-type") ?? "";
      if (String(res.status) !== op.status) {
        failures.push(`${op.key}: HTTP ${res.status}, the document says ${op.status}: ${res.text.slice(0, 200)}`);
        continue;
      }
      if (op.media === null) {
        if (res.text !== "") failures.push(`${op.key}: a body on ${res.status}`);
        lines.push(`${op.key} ${res.status} (no content)`);
        continue;
      }
      if (!type.startsWith(op.media)) {
        failures.push(`${op.key}: content-type ${type}, the document says ${op.media}`);
        continue;
      }
      if (op.media !== "application/json") {
        expect(res.text.length, op.key).toBeGreaterThan(0);
        lines.push(`${op.key} ${res.status} ${type}`);
        continue;
      }
      const validate = ajv.compile({
        $ref: `openapi.json#/${
          pointer("paths", op.path, op.method, "responses", op.status, "content", op.media, "schema")
        }`,
      });
      // What a JavaScript client sees: JSON.parse of the body.
      const body = JSON.parse(res.text);
      if (!validate(body)) {
        failures.push(`${op.key}: ${JSON.stringify(validate.errors?.slice(0, 4))}`);
        continue;
      }
      if (Array.isArray(body)) {
        if (body.length === 0 && !fixture.mayBeEmpty) {
          failures.push(`${op.key}: an empty list proves nothing; the fixture should fill it`);
        }
        items += body.length;
        // The schema can fail: an item with a wrongly typed member does not validate.
        if (body.length && typeof body[0] === "object" && body[0] !== null && !Array.isArray(body[0])) {
          const [first] = Object.keys(body[0]);
          if (validate([{ ...body[0], [first]: { wrong: true } }])) {
            failures.push(`${op.key}: accepts an item with ${first} = {wrong: true}`);
          }
        }
      } else if (body && typeof body === "object") {
        const [first] = Object.keys(body);
        if (first && validate({ ...body, [first]: { wrong: true } })) {
          failures.push(`${op.key}: accepts ${first} = {wrong: true}`);
        }
      }
      const model = STRAVA_OPERATIONS[op.key];
      if (model) {
        stravaChecked++;
        const strava = op.method === "get" && path.startsWith("/v3/")
          ? JSON.parse((await server.api("GET", path.replace(/^\/v3\//, "/api/v3/"), options)).text)
          : body;
        for (const item of Array.isArray(strava) ? strava : [strava]) {
          const wrong = violations(item, STRAVA_RULES[model]);
          if (wrong.length) failures.push(`${op.key}: outside Strava's model: ${wrong.slice(0, 4).join("; ")}`);
        }
        // Strava's reduced objects: nothing beyond their model (a club feed item is no summary activity).
        if (model === "ClubActivity" && extraKeys(strava, model).length) {
          failures.push(`${op.key}: beyond Strava's ClubActivity: ${extraKeys(strava, model)}`);
        }
        // Null only where Strava's model allows it, in both dialects (issue #42 item 4).
        for (const answer of [strava, body]) {
          const nulls = nullsOutsideModel(answer, model);
          if (nulls.length) failures.push(`${op.key}: ${nulls.slice(0, 6).join("; ")}`);
        }
        for (const path of missingKeys(strava, model)) {
          const general = generalPath(path);
          if (!missing.has(general)) missing.set(general, new Set());
          missing.get(general)!.add(op.key);
        }
      }
      validated++;
      lines.push(`${op.key} ${res.status} valid${Array.isArray(body) ? ` (${body.length} items)` : ""}`);
    }
    if (process.env.RESPONSES_PRINT) console.log(lines.join("\n"));
    const report = [...missing].map(([path, keys]) => `${path} (${[...keys].join(", ")})`);
    if (process.env.RESPONSES_PRINT) console.log(`Declared by Strava's model, absent:\n${report.join("\n")}`);
    expect(failures).toEqual([]);
    expect(ops.map((o) => o.key).filter((k) => !table[k]), "operations without a fixture").toEqual([]);
    expect(Object.keys(STRAVA_OPERATIONS).filter((k) => !table[k]), "Strava operations without a fixture").toEqual([]);
    const unexplained = [...missing.keys()].filter((path) => !(path in NO_DATA));
    expect(
      unexplained.map((p) => `${p} (${[...missing.get(p)!].join(", ")})`),
      "properties of Strava's model missing without a reason",
    ).toEqual([]);
    console.log(
      `Strava's model: ${stravaChecked} operations checked (enums, dates, declared keys); ${missing.size} declared paths absent, each for want of data`,
    );
    console.log(
      `OpenAPI responses: ${ops.length} operations driven; ${validated} JSON answers valid against their schema (${items} list items); 0 failures`,
    );
  }, 600_000);
});
