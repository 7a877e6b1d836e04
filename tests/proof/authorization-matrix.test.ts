import { encode as encodePng } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { activityStream } from "../../events/activity/events.ts";
import { segmentEffortsMatched } from "../../events/segment/events.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createChallenge } from "../../server/challenges/commands.ts";
import { addGear } from "../../server/gear/commands.ts";
import { revokeAuthorization } from "../../server/oauth/commands.ts";
import type { Permission } from "../../server/http/auth.ts";
import { type AnyRoute, routePermission } from "../../server/http/route.ts";
import { nextId } from "../../server/ids.ts";
import { allRoutes } from "../../server/route-table.ts";
import { effortIdFor } from "../../server/segments/efforts.ts";
import type { CallOptions } from "../helpers/http.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { recordActivity } from "../api/activities-fixtures.ts";

/**
 * Every route of the route table × seven callers, against the status the route's declaration
 * (auth, permission) and its ownership rules give. The callers:
 * - none: no token; revoked: a token whose authorization was revoked;
 * - public / write / view_private: the owner's tokens with exactly that scope (plus read);
 * - other_athlete: another athlete with every scope, same application;
 * - other_app: the owner with every scope through an application that is not internal and has
 *   kudos and challenges disabled.
 * Path ids name real resources of the owner, created fresh for routes that change them.
 */
const ROLES = ["none", "revoked", "public", "write", "view_private", "other_athlete", "other_app"] as const;
type Role = (typeof ROLES)[number];

let server: TestServer;
let owner: TestAthlete;
let other: TestAthlete;
let third: TestAthlete;
const tokens = {} as Record<Role, string | undefined>;

interface Ctx {
  ownerActivity: number;
  thirdActivity: number;
  segmentId: number;
  effortId: string;
  gearId: string;
  clubId: number;
  challengeId: number;
  uploadId: number;
  mapId: string;
  routeId: number;
}
let ctx: Ctx;

beforeAll(async () => {
  server = await startTestServer({ rateLimitShort: 100_000_000, rateLimitLong: 100_000_000 });
  owner = await server.athlete({ firstname: "Owner", permissions: ["read"], premium: true });
  other = await server.athlete({ firstname: "Other" });
  third = await server.athlete({ firstname: "Third" });
  const p = server.platform;
  const full: Permission[] = ["read", "write", "view_private"];
  tokens.none = undefined;
  tokens.public = owner.token;
  tokens.write = await issueToken(p, {
    athleteId: owner.id,
    applicationId: owner.applicationId,
    permissions: ["read", "write"],
  });
  tokens.view_private = await issueToken(p, {
    athleteId: owner.id,
    applicationId: owner.applicationId,
    permissions: ["read", "view_private"],
  });
  tokens.other_athlete = other.token;
  const plain = await createApplication(p, { name: "Plain", ownerId: third.id, callbackDomain: "localhost" });
  tokens.other_app = await issueToken(p, { athleteId: owner.id, applicationId: plain.client_id, permissions: full });
  const revokedApp = await createApplication(p, {
    name: "Revoked",
    ownerId: third.id,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
    challengesEnabled: true,
  });
  tokens.revoked = await issueToken(p, { athleteId: owner.id, applicationId: revokedApp.client_id, permissions: full });
  await revokeAuthorization(p, owner.id, revokedApp.client_id, "test");

  const ownerActivity = (await recordActivity(server, owner.id)).activityId;
  const thirdActivity = (await recordActivity(server, third.id)).activityId;
  const segment = await server.api("POST", "/v3/segments", {
    token: tokens.write,
    form: { name: "Matrix climb", activity_id: ownerActivity, start_index: 100, end_index: 400 },
  });
  expect(segment.status).toBe(201);
  const effortActivity = await nextId(p.db, "activity");
  const effortId = effortIdFor(effortActivity, 0);
  await p.store.append(activityStream(effortActivity), "any", [segmentEffortsMatched.create({
    activityId: effortActivity,
    athleteId: owner.id,
    activityType: "Run",
    visibility: "everyone",
    prCount: 0,
    achievementCount: 0,
    efforts: [{
      effortId,
      segmentId: segment.body.id,
      name: "Matrix climb",
      startIndex: 0,
      endIndex: 10,
      startDate: "2024-03-10T09:00:00Z",
      startDateLocal: "2024-03-10T10:00:00Z",
      elapsedTime: 300,
      movingTime: 300,
      distance: 1000,
      averageHeartrate: null,
      maxHeartrate: null,
      averageWatts: null,
      averageCadence: null,
      komRank: null,
      prRank: null,
      achievements: [],
      hidden: false,
    }],
  })]);
  const gearId = await addGear(p, { athleteId: owner.id, kind: "bike", name: "Matrix bike" });
  const club = await server.api("POST", "/v3/clubs", {
    token: tokens.write,
    form: { name: "Matrix Club", sport_type: "cycling" },
  });
  const challengeId = await createChallenge(p, {
    name: "Matrix challenge",
    type: "CumulativeChallenge",
    dimension: "distance",
    goal: 100000,
    startDate: "2024-01-01",
    endDate: "2099-12-31",
  });
  const form = new FormData();
  form.set("file", new Blob([new TextEncoder().encode(gpxFile())]), "matrix.gpx");
  form.set("data_type", "gpx");
  const upload = await server.api("POST", "/v3/uploads", { token: tokens.write, multipart: form });
  expect(upload.status).toBe(201);
  const map = await server.api("POST", "/v3/athlete/heatmaps", {
    token: tokens.write,
    form: { activity_type_ids: "1" },
  });
  expect(map.status).toBe(201);
  const route = await server.api("POST", "/v3/routes", {
    token: tokens.write,
    json: { name: "Matrix route", latlng: ROUTE_LINE },
  });
  expect(route.status).toBe(201);
  ctx = {
    ownerActivity,
    thirdActivity,
    segmentId: segment.body.id,
    effortId: String(effortId),
    gearId,
    clubId: club.body.id,
    challengeId,
    uploadId: upload.body.id,
    mapId: String(map.body.id),
    routeId: route.body.id,
  };
}, 120_000);
afterAll(() => server.close());

const ROUTE_LINE = [[48.85, 2.35], [48.86, 2.36], [48.87, 2.35]];

function gpxFile() {
  const points = Array.from(
    { length: 30 },
    (_, i) =>
      `<trkpt lat="${48.85 + i * 0.0003}" lon="${2.35 + i * 0.0003}"><time>2024-04-0${1 + (Date.now() % 8)}T08:${
        String(i).padStart(2, "0")
      }:00Z</time></trkpt>`,
  );
  return `<?xml version="1.0"?><gpx version="1.1" creator="matrix"><trk><trkseg>${
    points.join("")
  }</trkseg></trk></gpx>`;
}

/** A 4 × 4 PNG profile picture. */
function pictureForm() {
  const form = new FormData();
  form.set(
    "file",
    new Blob([
      new Uint8Array(
        encodePng({ width: 4, height: 4, data: new Uint8Array(4 * 4 * 3).fill(128), channels: 3, depth: 8 }),
      ),
    ]),
    "me.png",
  );
  return form;
}

/** An "archive" that is not a zip: accepted (202), then refused by the import. */
function notAnArchive() {
  const form = new FormData();
  form.set("file", new Blob([new TextEncoder().encode("not a zip")]), "export.zip");
  return form;
}

type Request = CallOptions & { path: string };
interface Fixture {
  /** Builds the request (creating fresh resources for routes that change them). */
  request(role: Role): Promise<Request>;
  /** Status for the owner's tokens that pass the scope check (default: the route's success status). */
  owner?: number;
  /** Status for another athlete (default: as the owner). */
  otherAthlete?: number;
  /** Status for the owner through the plain application (default: as the owner). */
  otherApp?: number;
}

const fixed = (path: string, extra: CallOptions = {}) => () => Promise.resolve({ path, ...extra });
/** Sports for goals the matrix sets (one goal per sport, period and dimension). */
const GOAL_TYPES = ["Ride", "Run", "Swim", "Walk", "Hike", "Rowing", "Yoga", "Workout", "Canoeing", "Kayaking"];
let goalsMade = 0;
const writeToken = () => tokens.write!;

async function freshActivity() {
  const res = await server.api("POST", "/v3/activities", {
    token: writeToken(),
    form: { name: "Fresh", type: "Ride", start_date_local: "2026-05-01T08:00:00Z", elapsed_time: 3600 },
  });
  return res.body.id as number;
}

async function freshPendingMember() {
  const club = await server.api("POST", "/v3/clubs", {
    token: writeToken(),
    form: { name: "Private", sport_type: "cycling", private: true },
  });
  const joiner = await server.athlete();
  await server.api("POST", `/v3/clubs/${club.body.id}/join`, { token: joiner.token });
  return { clubId: club.body.id as number, athleteId: joiner.id, joiner };
}

async function freshMember() {
  const club = await server.api("POST", "/v3/clubs", {
    token: writeToken(),
    form: { name: "Public", sport_type: "cycling" },
  });
  const joiner = await server.athlete();
  await server.api("POST", `/v3/clubs/${club.body.id}/join`, { token: joiner.token });
  return { clubId: club.body.id as number, athleteId: joiner.id, joiner };
}

/** One fixture per route of the table, keyed "METHOD path". */
function fixtures(): Record<string, Fixture> {
  const c = ctx;
  return {
    "GET /v3/segments/explore": { request: fixed("/v3/segments/explore", { query: { bounds: "51.4,-0.3,51.6,0.0" } }) },
    "GET /v3/segments/starred": { request: fixed("/v3/segments/starred") },
    "GET /v3/athletes/:id/segments/starred": { request: fixed(`/v3/athletes/${owner.id}/segments/starred`) },
    "POST /v3/segments": {
      request: fixed("/v3/segments", {
        form: { name: "Another climb", activity_id: c.ownerActivity, start_index: 100, end_index: 400 },
      }),
      otherAthlete: 404,
    },
    "GET /v3/segments/:id": { request: fixed(`/v3/segments/${c.segmentId}`) },
    "PUT /v3/segments/:id/starred": {
      request: fixed(`/v3/segments/${c.segmentId}/starred`, { form: { starred: true } }),
    },
    "GET /v3/segments/:id/all_efforts": { request: fixed(`/v3/segments/${c.segmentId}/all_efforts`) },
    "GET /v3/segments/:id/leaderboard": { request: fixed(`/v3/segments/${c.segmentId}/leaderboard`) },
    "GET /v3/segments/:id/streams": {
      request: fixed(`/v3/segments/${c.segmentId}/streams`, { query: { keys: "latlng" } }),
    },
    "GET /v3/segment_efforts/:id": { request: fixed(`/v3/segment_efforts/${c.effortId}`) }, /* a public effort */
    "GET /v3/segment_efforts/:id/streams": {
      request: fixed(`/v3/segment_efforts/${c.effortId}/streams`, { query: { keys: "time" } }),
    },
    // Two efforts compared: both the owner's (a matched effort without a recording: 400 "no streams"); neither
    // another athlete's (403).
    "GET /v3/segments/:id/compare": {
      request: fixed(`/v3/segments/${c.segmentId}/compare`, { query: { effort_ids: `${c.effortId},${c.effortId}` } }),
      owner: 400,
      otherAthlete: 403,
    },
    "GET /v3/segment_efforts": { request: fixed("/v3/segment_efforts", { query: { segment_id: c.segmentId } }) },
    "GET /v3/athlete": { request: fixed("/v3/athlete") },
    "PUT /v3/athlete": { request: fixed("/v3/athlete", { form: { weight: 71 } }) }, // the caller's own profile
    "GET /v3/athletes/:id": { request: fixed(`/v3/athletes/${owner.id}`) },
    "GET /v3/athletes/:id/stats": { request: fixed(`/v3/athletes/${owner.id}/stats`), otherAthlete: 403 }, // own athlete only
    "GET /v3/athlete/zones": { request: fixed("/v3/athlete/zones") }, // the caller's own zones
    "POST /v3/activities": {
      request: fixed("/v3/activities", {
        form: { name: "New", type: "Ride", start_date_local: "2026-05-01T08:00:00Z", elapsed_time: 60 },
      }),
    },
    "GET /v3/activities/:id": { request: fixed(`/v3/activities/${c.ownerActivity}`), otherAthlete: 403 }, // owner only (reference)
    "PUT /v3/activities/:id": {
      request: fixed(`/v3/activities/${c.ownerActivity}`, { form: { name: "Renamed" } }),
      otherAthlete: 403,
    },
    "DELETE /v3/activities/:id": {
      request: async () => ({ path: `/v3/activities/${await freshActivity()}` }),
      otherAthlete: 403,
    },
    "GET /v3/athlete/activities": { request: fixed("/v3/athlete/activities") },
    // Crop, split and undo: the owner's activity only. The matrix's activity is recorded without an uploaded
    // file, so a crop or split has nothing to recompute from (400) and there is no edit to undo (404).
    "GET /v3/activities/:id/edits": { request: fixed(`/v3/activities/${c.ownerActivity}/edits`), otherAthlete: 403 },
    "POST /v3/activities/:id/crop": {
      request: fixed(`/v3/activities/${c.ownerActivity}/crop`, { form: { start_time: 10, end_time: 20 } }),
      owner: 400,
      otherAthlete: 403,
    },
    "POST /v3/activities/:id/split": {
      request: fixed(`/v3/activities/${c.ownerActivity}/split`, { form: { time: 10 } }),
      owner: 400,
      otherAthlete: 403,
    },
    "DELETE /v3/activities/:id/edits/:edit": {
      request: fixed(`/v3/activities/${c.ownerActivity}/edits/1`),
      owner: 404,
      otherAthlete: 403,
    },

    "GET /v3/activities/:id/comments": { request: fixed(`/v3/activities/${c.ownerActivity}/comments`) },
    "POST /v3/activities/:id/comments": {
      request: fixed(`/v3/activities/${c.ownerActivity}/comments`, { form: { text: "Nice" } }),
      otherApp: 403,
    },
    "DELETE /v3/activities/:activity_id/comments/:id": {
      async request() {
        const res = await server.api("POST", `/v3/activities/${c.ownerActivity}/comments`, {
          token: writeToken(),
          form: { text: "To delete" },
        });
        return { path: `/v3/activities/${c.ownerActivity}/comments/${res.body.id}` };
      },
      otherAthlete: 403,
      otherApp: 403,
    },
    "GET /v3/activities/:id/kudos": { request: fixed(`/v3/activities/${c.ownerActivity}/kudos`), otherAthlete: 403 },
    "POST /v3/activities/:id/kudos": {
      async request() {
        return { path: `/v3/activities/${(await recordActivity(server, third.id)).activityId}/kudos` };
      },
      otherApp: 403,
    },
    "GET /v3/activities/:id/photos": { request: fixed(`/v3/activities/${c.ownerActivity}/photos`), otherAthlete: 403 },
    "POST /v3/activities/:id/photos": {
      // A file that is not an image: the owner gets the 400, another athlete the 403 before it.
      request: async () => {
        const form = new FormData();
        form.set("file", new Blob([new TextEncoder().encode("not an image")], { type: "image/png" }), "x.png");
        return { path: `/v3/activities/${c.ownerActivity}/photos`, multipart: form };
      },
      owner: 400,
      otherAthlete: 403,
    },
    "GET /photos/:unique_id/:size": { request: fixed("/photos/00000000-0000-0000-0000-000000000000/100"), owner: 404 },
    "GET /v3/activities/:id/streams": {
      request: fixed(`/v3/activities/${c.ownerActivity}/streams`, { query: { keys: "time" } }),
    },
    "GET /v3/activities/:id/export_gpx": { request: fixed(`/v3/activities/${c.ownerActivity}/export_gpx`) },
    // A recorded activity without a stored upload: no original to give (404); another athlete is refused first.
    "GET /v3/activities/:id/export_original": {
      request: fixed(`/v3/activities/${c.ownerActivity}/export_original`),
      owner: 404,
      otherAthlete: 403,
    },
    "GET /v3/clubs/search": { request: fixed("/v3/clubs/search", { query: { q: "a" } }) },
    "GET /v3/athletes/search": { request: fixed("/v3/athletes/search", { query: { q: "a" } }) },
    "GET /v3/challenges/search": { request: fixed("/v3/challenges/search") },
    "GET /v3/activities/:id/streams/:types": { request: fixed(`/v3/activities/${c.ownerActivity}/streams/time`) },
    "GET /v3/activities/:id/laps": { request: fixed(`/v3/activities/${c.ownerActivity}/laps`) },
    "GET /v3/activities/:id/zones": { request: fixed(`/v3/activities/${c.ownerActivity}/zones`), otherAthlete: 403 }, // the owner is premium
    "GET /v3/gear/:id": { request: fixed(`/v3/gear/${c.gearId}`) },
    "PUT /v3/gear/:id": {
      request: fixed(`/v3/gear/${c.gearId}`, { form: { reminder_distance: 700000 } }),
      otherAthlete: 404,
    },
    "GET /v3/athlete/goals": { request: fixed("/v3/athlete/goals") }, // the caller's own
    "POST /v3/athlete/goals": {
      // Each call a goal of its own kind (a second of one kind is a 409), the caller's own.
      request: () =>
        Promise.resolve({
          path: "/v3/athlete/goals",
          form: { type: GOAL_TYPES[goalsMade++ % GOAL_TYPES.length], period: "year", dimension: "time", goal: 3600 },
        }),
    },
    "DELETE /v3/athlete/goals/:id": {
      request: async () => {
        const goal = await server.api("POST", "/v3/athlete/goals", {
          token: writeToken(),
          form: {
            type: GOAL_TYPES[goalsMade++ % GOAL_TYPES.length],
            period: "month",
            dimension: "distance",
            goal: 1000,
          },
        });
        return { path: `/v3/athlete/goals/${goal.body.id}` };
      },
      otherAthlete: 404,
    },
    "POST /v3/clubs": { request: fixed("/v3/clubs", { form: { name: "Another club", sport_type: "running" } }) },
    "GET /v3/clubs/:id": { request: fixed(`/v3/clubs/${c.clubId}`) },
    "GET /v3/athlete/clubs": { request: fixed("/v3/athlete/clubs") },
    "GET /v3/clubs/:id/members": { request: fixed(`/v3/clubs/${c.clubId}/members`) },
    "GET /v3/clubs/:id/admins": { request: fixed(`/v3/clubs/${c.clubId}/admins`) },
    "PUT /v3/clubs/:club_id/members/:athlete_id": {
      request: async () => {
        const m = await freshPendingMember();
        return { path: `/v3/clubs/${m.clubId}/members/${m.athleteId}` };
      },
      otherAthlete: 403,
    },
    "DELETE /v3/clubs/:club_id/members/:athlete_id": {
      request: async () => {
        const m = await freshPendingMember();
        return { path: `/v3/clubs/${m.clubId}/members/${m.athleteId}` };
      },
      otherAthlete: 403,
    },
    "PUT /v3/clubs/:club_id/admins/:athlete_id": {
      request: async () => {
        const m = await freshMember();
        return { path: `/v3/clubs/${m.clubId}/admins/${m.athleteId}` };
      },
      otherAthlete: 403,
    },
    "DELETE /v3/clubs/:club_id/admins/:athlete_id": {
      request: async () => {
        const m = await freshMember();
        await server.api("PUT", `/v3/clubs/${m.clubId}/admins/${m.athleteId}`, { token: writeToken() });
        return { path: `/v3/clubs/${m.clubId}/admins/${m.athleteId}` };
      },
      otherAthlete: 403,
    },
    "GET /v3/clubs/:id/activities": { request: fixed(`/v3/clubs/${c.clubId}/activities`), otherAthlete: 403 },
    "POST /v3/clubs/:id/join": {
      request: async () => {
        const club = await server.api("POST", "/v3/clubs", {
          token: tokens.other_athlete,
          form: { name: "Joinable", sport_type: "cycling" },
        });
        return { path: `/v3/clubs/${club.body.id}/join` };
      },
    },
    "POST /v3/clubs/:id/leave": {
      request: async (role) => {
        const club = await server.api("POST", "/v3/clubs", {
          token: third.token,
          form: { name: "Leavable", sport_type: "cycling" },
        });
        await server.api("POST", `/v3/clubs/${club.body.id}/join`, {
          token: role === "other_athlete" ? other.token : writeToken(),
        });
        return { path: `/v3/clubs/${club.body.id}/leave` };
      },
    },
    "GET /v3/challenges/joined": { request: fixed("/v3/challenges/joined"), otherApp: 403 },
    "GET /v3/challenges/:id": { request: fixed(`/v3/challenges/${c.challengeId}`), otherApp: 403 },
    "GET /v3/challenges/:id/leaderboard": {
      request: fixed(`/v3/challenges/${c.challengeId}/leaderboard`),
      otherApp: 403,
    },
    "POST /v3/challenges/:id/athletes": { request: fixed(`/v3/challenges/${c.challengeId}/athletes`), otherApp: 403 },
    "DELETE /v3/challenges/:id/athletes": { request: fixed(`/v3/challenges/${c.challengeId}/athletes`), otherApp: 403 },
    "POST /v3/uploads": {
      request: async () => {
        const form = new FormData();
        form.set("file", new Blob([new TextEncoder().encode("not a fit file at all")]), "x.fit");
        form.set("data_type", "fit");
        return { path: "/v3/uploads", multipart: form };
      },
      owner: 400, // refused at submission with an upload status (the scope and caller checks come first)
    },
    "GET /v3/uploads/:id": { request: fixed(`/v3/uploads/${c.uploadId}`), otherAthlete: 404, otherApp: 200 },
    "GET /v3/athlete/heatmaps": { request: fixed("/v3/athlete/heatmaps") },
    "POST /v3/athlete/heatmaps": { request: fixed("/v3/athlete/heatmaps", { form: { activity_type_ids: "1" } }) },
    "GET /v3/athletes/:athlete_id/heatmaps/:map_id/progress": {
      request: fixed(`/v3/athletes/${owner.id}/heatmaps/${c.mapId}/progress`), // heatmaps hold public activities only
    },
    "GET /v3/athletes/:athlete_id/heatmaps/:map_id": { request: fixed(`/v3/athletes/${owner.id}/heatmaps/${c.mapId}`) },
    "DELETE /v3/athletes/:athlete_id/heatmaps/:map_id": {
      request: async () => {
        const map = await server.api("POST", "/v3/athlete/heatmaps", {
          token: tokens.write,
          form: { activity_type_ids: "1" },
        });
        return { path: `/v3/athletes/${owner.id}/heatmaps/${map.body.id}` };
      },
      otherAthlete: 403,
    },
    "GET /v3/athlete/privacy_zones": { request: fixed("/v3/athlete/privacy_zones") },
    "POST /v3/athlete/privacy_zones": {
      request: fixed("/v3/athlete/privacy_zones", { form: { lat: 48.8, lng: 2.3, radius: 500 } }),
    },
    "DELETE /v3/athlete/privacy_zones/:id": {
      request: async () => {
        const zone = await server.api("POST", "/v3/athlete/privacy_zones", {
          token: writeToken(),
          form: { lat: 48.8, lng: 2.3, radius: 400 },
        });
        return { path: `/v3/athlete/privacy_zones/${zone.body.id}` };
      },
      otherAthlete: 404,
    },
    "POST /v3/athlete/imports": {
      request: async () => ({ path: "/v3/athlete/imports", multipart: notAnArchive() }),
      // 202 for every caller with write: each imports into its own account (this one is refused later: not a zip).
    },
    "GET /v3/athlete/imports/:id": {
      request: async () => {
        const started = await server.api("POST", "/v3/athlete/imports", {
          token: writeToken(),
          multipart: notAnArchive(),
        });
        return { path: `/v3/athlete/imports/${started.body.id}` };
      },
      otherAthlete: 404,
    },
    "POST /v3/push_subscriptions": {
      request: fixed("/v3/push_subscriptions", { form: { callback_url: "http://localhost:1/cb", verify_token: "x" } }),
    },
    "GET /v3/push_subscriptions": { request: fixed("/v3/push_subscriptions") },
    "DELETE /v3/push_subscriptions/:id": { request: fixed("/v3/push_subscriptions/1") },
    // Routes: the owner's public route; anyone creates their own; only the owner deletes (another: 403).
    "POST /v3/routes": { request: fixed("/v3/routes", { json: { name: "Matrix drawn", latlng: ROUTE_LINE } }) },
    "GET /v3/routes/:id": { request: fixed(`/v3/routes/${c.routeId}`) },
    "GET /v3/athletes/:id/routes": { request: fixed(`/v3/athletes/${owner.id}/routes`) },
    "GET /v3/athlete/routes": { request: fixed("/v3/athlete/routes") },
    "GET /v3/routes/:id/streams": { request: fixed(`/v3/routes/${c.routeId}/streams`) },
    "GET /v3/routes/:id/export_gpx": { request: fixed(`/v3/routes/${c.routeId}/export_gpx`) },
    "GET /v3/routes/:id/export_tcx": { request: fixed(`/v3/routes/${c.routeId}/export_tcx`) },
    "DELETE /v3/routes/:id": {
      request: async () => {
        const made = await server.api("POST", "/v3/routes", {
          token: writeToken(),
          json: { name: "Short-lived", latlng: ROUTE_LINE },
        });
        return { path: `/v3/routes/${made.body.id}` };
      },
      otherAthlete: 403,
    },
    // The web app's extensions (server/feeds/routes.ts, gear-create.ts, athlete-picture.ts).
    "GET /v3/activities/following": { request: fixed("/v3/activities/following") },
    "GET /v3/athletes/:id/activities": { request: fixed(`/v3/athletes/${owner.id}/activities`) },
    "GET /v3/athletes/:id/totals": { request: fixed(`/v3/athletes/${owner.id}/totals`) }, // anyone's public totals
    // Anyone's volume and searched list, over what the caller may see.
    "GET /v3/athletes/:id/volume": {
      request: fixed(`/v3/athletes/${owner.id}/volume`, {
        query: { period: "month", from: "2024-01-01", to: "2024-12-31" },
      }),
    },
    "GET /v3/athletes/:id/activities/search": { request: fixed(`/v3/athletes/${owner.id}/activities/search`) },
    "GET /v3/athletes/:id/records": { request: fixed(`/v3/athletes/${owner.id}/records`) }, // anyone's records over what the caller may see
    "GET /v3/athletes/:id/fitness": { request: fixed(`/v3/athletes/${owner.id}/fitness`), otherAthlete: 403 }, // own athlete only
    "GET /v3/athletes/:id/profile": { request: fixed(`/v3/athletes/${owner.id}/profile`) },
    "PUT /v3/athletes/:id/follow": { request: fixed(`/v3/athletes/${third.id}/follow`) }, // each caller follows the third athlete
    "DELETE /v3/athletes/:id/follow": { request: fixed(`/v3/athletes/${third.id}/follow`) },
    "POST /v3/gear": { request: fixed("/v3/gear", { form: { kind: "bike", name: "Matrix bike" } }) }, // the caller's own gear
    "PUT /v3/athlete/picture": { request: async () => ({ path: "/v3/athlete/picture", multipart: pictureForm() }) }, // the caller's own picture
    "DELETE /v3/athlete/picture": { request: fixed("/v3/athlete/picture") },
  };
}

/** The status the declaration and the fixture give for a role. */
function expected(route: AnyRoute, fixture: Fixture, role: Role, noTokenStatus: number): number {
  if (route.auth === "none") return noTokenStatus; // a token changes nothing
  const success = fixture.owner ?? route.status ?? 200;
  const needed = routePermission(route);
  if (route.auth === "token") {
    if (role === "none") return 401;
    if (role === "revoked") return 401;
    const scopes: Record<Role, Permission[]> = {
      none: [],
      revoked: [],
      public: ["read"],
      write: ["read", "write"],
      view_private: ["read", "view_private"],
      other_athlete: ["read", "write", "view_private"],
      other_app: ["read", "write", "view_private"],
    };
    if (needed && !scopes[role].includes(needed)) return 401;
  }
  if (role === "other_athlete") return fixture.otherAthlete ?? success;
  if (role === "other_app") return fixture.otherApp ?? success;
  return success;
}

describe("authorization matrix: every route × seven callers", () => {
  it("declares the write scope on every token route that changes data (the spec: write is required by all write operations)", () => {
    // Independent of the declarations the matrix reads: any method other than GET changes data.
    const writes = allRoutes.filter((r) => r.auth === "token" && r.method !== "GET");
    const lacking = writes.filter((r) => routePermission(r) !== "write").map((r) => `${r.method} ${r.path}`);
    expect(writes.length).toBeGreaterThan(0);
    expect(lacking).toEqual([]);
    console.log(`write routes with a token: ${writes.length}; without the write scope: ${lacking.length}`);
  });

  it("answers each caller with the status its declaration and ownership give", async () => {
    const table = fixtures();
    const undeclared = allRoutes.map((r) => `${r.method} ${r.path}`).filter((k) => !table[k]);
    expect(undeclared, "routes without a matrix fixture").toEqual([]);
    const mismatches: string[] = [];
    const lines: string[] = [];
    let checked = 0;
    for (const route of allRoutes) {
      const key = `${route.method} ${route.path}`;
      const fixture = table[key];
      const row: string[] = [];
      let noTokenStatus = 0;
      for (const role of ROLES) {
        const request = await fixture.request(role);
        const res = await server.api(route.method, request.path, { ...request, token: tokens[role] });
        if (role === "none") noTokenStatus = res.status;
        const want = expected(route, fixture, role, noTokenStatus);
        checked++;
        row.push(`${role}=${res.status}`);
        if (res.status >= 500 || res.status !== want) {
          mismatches.push(`${key} as ${role}: ${res.status} (expected ${want}) ${res.text.slice(0, 160)}`);
        }
        if (res.status === 401 && route.auth === "token") {
          const field = role === "none"
            ? "access_token"
            : role === "revoked"
            ? "access_token"
            : `${routePermission(route)}_permission`;
          expect(res.body.errors[0].field, `${key} as ${role}`).toBe(field);
        }
      }
      lines.push(`${key}: ${row.join(" ")}`);
    }
    if (process.env.MATRIX_PRINT) console.log(lines.join("\n"));
    expect(mismatches).toEqual([]);
    console.log(
      `authorization matrix: ${allRoutes.length} routes × ${ROLES.length} callers = ${checked} requests; mismatches 0; 5xx 0`,
    );
  }, 300_000);
});
