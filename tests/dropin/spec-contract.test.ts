import { existsSync, readFileSync } from "node:fs";
import jpegJs from "jpeg-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addGear } from "../../server/gear/commands.ts";
import { createChallenge } from "../../server/challenges/commands.ts";
import { grantAuthorization } from "../../server/oauth/commands.ts";
import { allRoutes } from "../../server/route-table.ts";
import type { ApiResponse, CallOptions } from "../helpers/http.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { WebClient } from "../oauth/web-client.ts";
import { startTestServer, type TestAthlete, type TestServer, uploadUntilReady } from "../helpers/server.ts";
import {
  type Endpoint,
  endpoints,
  exclusiveGroups,
  type Parameter,
  parameters,
  readSpec,
  SHARED_SPEC_PATH,
  SPEC_PATH,
} from "./spec-tables.ts";
import { outputFields, representations, typeOk, violations } from "./spec-representations.ts";

/**
 * Issue #42 item 3: the contract guards itself. The spec (docs/spec/api-v3.md, the project's copy of
 * ../shared/spec/api-v3.md) is read at test time — its endpoint tables (method, path, input, output)
 * and the fields of each representation — and every /v3 endpoint it lists is driven over HTTP on the
 * real server. Each answer is checked against the representation its Output names (fields present
 * with the spec's types and values, the fields a representation omits absent), and each parameter
 * rule of its Input (types, required, listed values, maxima, "cannot be combined", "must be sent
 * together", write scope) is tried. A failure quotes the spec's row. Nothing here lists a field or
 * a route of its own: a row added to the spec is checked, a row the test cannot drive fails it.
 */
const spec = readSpec();
const { reps, activityTypes } = representations(spec);
const ROWS = endpoints(spec);

let server: TestServer;
let ann: TestAthlete;
let bob: TestAthlete;
let cy: TestAthlete;
let lister: TestAthlete;
/** The athlete whose codes the OAuth rows exchange (deauthorize revokes every token of the pair). */
let dee: TestAthlete;
let readOnly: string;
/** Ann's signed-in browser session, after she approved the application once (the consent is remembered). */
let browserCookie = "";
let app: Awaited<ReturnType<TestServer["application"]>>;
const ids = {
  ride: 0,
  run: 0,
  bobRide: 0,
  segment: 0,
  club: 0,
  privateClub: 0,
  challenge: 0,
  upload: 0,
  map: 0,
};

beforeAll(async () => {
  server = await startTestServer({ rateLimitShort: 100_000_000, rateLimitLong: 100_000_000 });
  app = await server.application({ internal: true, kudos: true, challenges: true });
  ann = await server.athlete({
    firstname: "Ann",
    lastname: "Tester",
    sex: "F",
    premium: true,
    city: "Utrecht",
    state: "Utrecht",
    country: "Netherlands",
    applicationId: app.client_id,
  });
  bob = await server.athlete({ firstname: "Bob", lastname: "Rider", applicationId: app.client_id });
  cy = await server.athlete({ firstname: "Cy", lastname: "Walker", applicationId: app.client_id });
  lister = await server.athlete({ firstname: "Lee", lastname: "Lister", applicationId: app.client_id });
  dee = await server.athlete({ firstname: "Dee", lastname: "Granter", applicationId: app.client_id });
  readOnly = await server.token(ann.id, app.client_id, ["read", "view_private"]);
  const web = new WebClient(server.url);
  await web.signIn(ann.email, "password123");
  await web.authorize({ client_id: String(app.client_id), redirect_uri: "http://localhost/cb", response_type: "code" });
  browserCookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const file = (name: string) => ({
    bytes: readFileSync(deviceFile(name)),
    name: name.split("/").pop()!,
    dataType: name.split(".").pop()!,
  });
  ids.ride = await uploadUntilReady(server, ann.token, file("fit/garmin-edge1000-cycling-power-hr.fit"));
  ids.run = await uploadUntilReady(server, ann.token, file("gpx/strava-export-running-hr.gpx"));
  const short = await uploadUntilReady(server, ann.token, file("fit/garmin-edge1000-cycling-short-3formats.fit"));
  const points = (await server.api("GET", `/v3/activities/${short}/streams`, {
    token: ann.token,
    query: { keys: "time", key_by_type: true },
  })).body.time.original_size;
  const segment = await server.api("POST", "/v3/segments", {
    token: ann.token,
    form: {
      name: "Contract climb",
      activity_id: short,
      start_index: Math.floor(points * 0.2),
      end_index: Math.floor(points * 0.8),
    },
  });
  expect(segment.status, segment.text).toBe(201);
  ids.segment = segment.body.id;
  await uploadUntilReady(server, ann.token, file("gpx/garmin-connect-edge1000-cycling-short-3formats.gpx"));
  ids.bobRide = await uploadUntilReady(server, bob.token, file("fit/garmin-edge1000-cycling-short-3formats.fit"));
  await server.api("PUT", `/v3/segments/${ids.segment}/starred`, { token: ann.token, form: { starred: true } });
  const gear = await addGear(server.platform, { athleteId: ann.id, kind: "bike", name: "Contract bike" });
  await server.api("PUT", `/v3/activities/${ids.ride}`, { token: ann.token, form: { gear_id: gear } });
  const club = await server.api("POST", "/v3/clubs", {
    token: ann.token,
    form: { name: "Contract Club", sport_type: "cycling", city: "Utrecht", country: "Netherlands" },
  });
  ids.club = club.body.id;
  await server.api("POST", `/v3/clubs/${ids.club}/join`, { token: bob.token });
  await server.api("POST", `/v3/clubs/${ids.club}/join`, { token: cy.token });
  const privateClub = await server.api("POST", "/v3/clubs", {
    token: ann.token,
    form: { name: "Closed Club", sport_type: "running", private: true },
  });
  ids.privateClub = privateClub.body.id;
  ids.challenge = await createChallenge(server.platform, {
    name: "Contract challenge",
    type: "CumulativeChallenge",
    dimension: "distance",
    goal: 100000,
    startDate: "2000-01-01",
    endDate: "2099-12-31",
  });
  await server.api("POST", `/v3/challenges/${ids.challenge}/athletes`, { token: ann.token });
  await server.api("POST", `/v3/challenges/${ids.challenge}/athletes`, { token: bob.token });
  ids.map = (await server.api("POST", "/v3/athlete/heatmaps", { token: ann.token, form: { activity_type_ids: "1,2" } }))
    .body.id;
  const photo = await server.api("POST", `/v3/activities/${ids.run}/photos`, { token: ann.token, multipart: jpeg() });
  expect(photo.status, photo.text).toBe(201);
  await server.api("POST", `/v3/activities/${ids.run}/comments`, { token: bob.token, form: { text: "Strong finish" } });
  await server.api("POST", `/v3/activities/${ids.run}/kudos`, { token: bob.token });
  const upload = await server.api("POST", "/v3/uploads", { token: ann.token, multipart: deviceForm() });
  ids.upload = upload.body.id;
  // More activities than the default page holds (Limits: default page size 30).
  for (let day = 0; day < 31; day += 8) {
    await Promise.all(
      Array.from({ length: Math.min(8, 31 - day) }, (_, i) =>
        server.api("POST", "/v3/activities", {
          token: lister.token,
          form: {
            name: `Day ${day + i}`,
            type: "Run",
            start_date_local: new Date(Date.UTC(2024, 0, 1 + day + i, 7)).toISOString().replace(".000Z", "Z"),
            elapsed_time: 1800,
          },
        })),
    );
  }
}, 600_000);
afterAll(() => server?.close());

let uploads = 0;
/** A small GPX 1.1 walk (20 points, one a second) at a time of its own, so that no upload is a duplicate of another. */
function deviceForm() {
  const start = Date.UTC(2023, 0, 1, 8) + ++uploads * 3_600_000;
  const points = Array.from(
    { length: 20 },
    (_, i) =>
      `<trkpt lat="${(52.09 + i * 0.0001).toFixed(5)}" lon="5.12"><ele>2</ele><time>${
        new Date(start + i * 1000).toISOString().replace(".000Z", "Z")
      }</time></trkpt>`,
  ).join("");
  const gpx =
    `<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="contract" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Walk ${uploads}</name><trkseg>${points}</trkseg></trk></gpx>`;
  const form = new FormData();
  form.set("file", new Blob([new TextEncoder().encode(gpx)]), `walk-${uploads}.gpx`);
  form.set("data_type", "gpx");
  return form;
}

/** A real JPEG (jpeg-js), 64×48. */
function jpeg() {
  const [width, height] = [64, 48];
  const data = new Uint8Array(width * height * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 7) % 256));
  const form = new FormData();
  form.set(
    "file",
    new Blob([new Uint8Array(jpegJs.encode({ data, width, height }, 85).data)], { type: "image/jpeg" }),
    "finish.jpg",
  );
  form.set("caption", "Finish line");
  return form;
}

interface Request extends CallOptions {
  path: string;
}

/** The request that drives an endpoint row (valid input), keyed "METHOD path" as the spec writes them. */
function fixtures(): Record<string, () => Promise<Request> | Request> {
  const token = ann.token;
  const at = (path: string, extra: CallOptions = {}) => () => ({ path, token, ...extra });
  const newPending = async () => {
    const joiner = await server.athlete({ applicationId: app.client_id });
    await server.api("POST", `/v3/clubs/${ids.privateClub}/join`, { token: joiner.token });
    return joiner.id;
  };
  const newMember = async () => {
    const joiner = await server.athlete({ applicationId: app.client_id });
    await server.api("POST", `/v3/clubs/${ids.club}/join`, { token: joiner.token });
    return joiner.id;
  };
  return {
    "GET {auth_url}/oauth/authorize": at("/oauth/authorize", {
      token: undefined,
      headers: { cookie: browserCookie, accept: "text/html" },
      redirect: "manual",
      query: { client_id: app.client_id, redirect_uri: "http://localhost/cb", response_type: "code", state: "s1" },
    }),
    "POST {auth_url}/oauth/token": async () => ({
      path: "/oauth/token",
      form: { client_id: app.client_id, client_secret: app.client_secret, code: await code() },
    }),
    "POST {auth_url}/oauth/deauthorize": async () => {
      const tokens = await server.api("POST", "/oauth/token", {
        form: { client_id: app.client_id, client_secret: app.client_secret, code: await code() },
      });
      return { path: "/oauth/deauthorize", form: { access_token: tokens.body.access_token } };
    },
    "GET /v3/athlete": at("/v3/athlete"),
    "GET /v3/athletes/:id": at(`/v3/athletes/${bob.id}`),
    "POST /v3/activities": at("/v3/activities", {
      form: {
        name: "Lunch swim",
        type: "Swim",
        start_date_local: "2024-05-01T12:00:00Z",
        elapsed_time: 1800,
        distance: 1500,
      },
    }),
    "GET /v3/activities/:id": at(`/v3/activities/${ids.run}`, { query: { include_all_efforts: true } }),
    "PUT /v3/activities/:id": at(`/v3/activities/${ids.ride}`, { form: { name: "Renamed ride", commute: true } }),
    "GET /v3/athlete/activities": at("/v3/athlete/activities", { query: { per_page: 50 } }),
    "GET /v3/activities/:id/zones": at(`/v3/activities/${ids.ride}/zones`),
    "GET /v3/activities/:id/laps": at(`/v3/activities/${ids.ride}/laps`),
    "GET /v3/activities/:id/comments": at(`/v3/activities/${ids.run}/comments`),
    "POST /v3/activities/:id/comments": at(`/v3/activities/${ids.run}/comments`, { form: { text: "Thanks!" } }),
    "DELETE /v3/activities/:activity_id/comments/:id": async () => {
      const made = await server.api("POST", `/v3/activities/${ids.run}/comments`, { token, form: { text: "Typo" } });
      return { path: `/v3/activities/${ids.run}/comments/${made.body.id}`, token };
    },
    "GET /v3/activities/:id/kudos": at(`/v3/activities/${ids.run}/kudos`),
    "POST /v3/activities/:id/kudos": async () => {
      const giver = await server.athlete({ applicationId: app.client_id });
      return { path: `/v3/activities/${ids.ride}/kudos`, token: giver.token };
    },
    "GET /v3/activities/:id/photos": at(`/v3/activities/${ids.run}/photos`, {
      query: { photo_sources: true, size: 600 },
    }),
    "GET /v3/activities/:id/streams": at(`/v3/activities/${ids.ride}/streams`, { query: { keys: "time" } }),
    "POST /v3/uploads": () => ({ path: "/v3/uploads", token, multipart: deviceForm() }),
    "GET /v3/uploads/:id": at(`/v3/uploads/${ids.upload}`),
    "GET /v3/segments/:id": at(`/v3/segments/${ids.segment}`),
    "GET /v3/segments/starred": at("/v3/segments/starred"),
    "GET /v3/athletes/:id/segments/starred": at(`/v3/athletes/${ann.id}/segments/starred`),
    "PUT /v3/segments/:id/starred": at(`/v3/segments/${ids.segment}/starred`, { form: { starred: true } }),
    "GET /v3/segments/:id/all_efforts": at(`/v3/segments/${ids.segment}/all_efforts`),
    "GET /v3/segments/:id/leaderboard": at(`/v3/segments/${ids.segment}/leaderboard`, { query: { club_id: ids.club } }),
    "GET /v3/segments/explore": at("/v3/segments/explore", { query: { bounds: "-90,-180,90,180" } }),
    "GET /v3/clubs/:id": at(`/v3/clubs/${ids.club}`),
    "GET /v3/athlete/clubs": at("/v3/athlete/clubs"),
    "GET /v3/clubs/:id/members": at(`/v3/clubs/${ids.club}/members`),
    "PUT /v3/clubs/:club_id/members/:athlete_id": async () => ({
      path: `/v3/clubs/${ids.privateClub}/members/${await newPending()}`,
      token,
    }),
    "DELETE /v3/clubs/:club_id/members/:athlete_id": async () => ({
      path: `/v3/clubs/${ids.privateClub}/members/${await newPending()}`,
      token,
    }),
    "GET /v3/clubs/:id/admins": at(`/v3/clubs/${ids.club}/admins`),
    "PUT /v3/clubs/:club_id/admins/:athlete_id": async () => ({
      path: `/v3/clubs/${ids.club}/admins/${await newMember()}`,
      token,
    }),
    "DELETE /v3/clubs/:club_id/admins/:athlete_id": async () => {
      const member = await newMember();
      await server.api("PUT", `/v3/clubs/${ids.club}/admins/${member}`, { token });
      return { path: `/v3/clubs/${ids.club}/admins/${member}`, token };
    },
    "GET /v3/clubs/:id/activities": at(`/v3/clubs/${ids.club}/activities`),
    "POST /v3/clubs/:id/join": async () => {
      const other = await server.api("POST", "/v3/clubs", {
        token: bob.token,
        form: { name: `Bob club ${++uploads}` },
      });
      expect(other.status, other.text).toBe(201);
      return { path: `/v3/clubs/${other.body.id}/join`, token };
    },
    "POST /v3/clubs/:id/leave": async () => {
      const leaver = await server.athlete({ applicationId: app.client_id });
      await server.api("POST", `/v3/clubs/${ids.club}/join`, { token: leaver.token });
      return { path: `/v3/clubs/${ids.club}/leave`, token: leaver.token };
    },
    "GET /v3/athlete/heatmaps": at("/v3/athlete/heatmaps"),
    "POST /v3/athlete/heatmaps": at("/v3/athlete/heatmaps", { form: { activity_type_ids: "1" } }),
    "GET /v3/athletes/:athlete_id/heatmaps/:map_id/progress": at(`/v3/athletes/${ann.id}/heatmaps/${ids.map}/progress`),
    "GET /v3/athletes/:athlete_id/heatmaps/:map_id": at(`/v3/athletes/${ann.id}/heatmaps/${ids.map}`),
    "DELETE /v3/athletes/:athlete_id/heatmaps/:map_id": async () => {
      const made = await server.api("POST", "/v3/athlete/heatmaps", { token, form: { activity_type_ids: "2" } });
      return { path: `/v3/athletes/${ann.id}/heatmaps/${made.body.id}`, token };
    },
    "GET /v3/challenges/:id": at(`/v3/challenges/${ids.challenge}`),
    "GET /v3/challenges/:id/leaderboard": at(`/v3/challenges/${ids.challenge}/leaderboard`, {
      query: { club_id: ids.club },
    }),
    "POST /v3/challenges/:id/athletes": () => ({ path: `/v3/challenges/${ids.challenge}/athletes`, token: cy.token }),
    "DELETE /v3/challenges/:id/athletes": () => ({ path: `/v3/challenges/${ids.challenge}/athletes`, token: cy.token }),
    "GET /v3/challenges/joined": at("/v3/challenges/joined"),
  };
}

async function code() {
  return await grantAuthorization(server.platform, {
    athleteId: dee.id,
    applicationId: app.client_id,
    permissions: ["read"],
    scope: "read",
    audience: "api",
    redirectUri: "http://localhost/cb",
    codeChallenge: null,
    prompted: true,
  });
}

const key = (e: Endpoint) => `${e.method} ${e.path}`;
type Check = (res: ApiResponse, e: Endpoint) => string[];

const each = (name: string | ((item: Record<string, unknown>) => string)): Check => (res) =>
  Array.isArray(res.body)
    ? res.body.length === 0
      ? ["an empty list proves nothing: the fixture should fill it"]
      : res.body.flatMap((item, i) =>
        violations(item, typeof name === "string" ? name : name(item), reps, activityTypes, String(i))
      )
    : ["not an array"];
const one = (name: string): Check => (res) => violations(res.body, name, reps, activityTypes);
const fieldsOf = (res: ApiResponse, e: Endpoint) => {
  const fields = outputFields(e.output, e.source);
  return fields.flatMap((f) => {
    const v = (res.body ?? {})[f.name];
    if (v === undefined) return [`${f.name} is missing — ${f.source}`];
    return f.type && typeOk(v, f.type) === false
      ? [`${f.name} = ${JSON.stringify(v)} is not ${f.type} — ${f.source}`]
      : [];
  });
};
const ordered = (list: unknown[], by: string, direction: 1 | -1, source: string) => {
  const values = list.map((x) => String((x as Record<string, unknown>)[by]));
  const sorted = [...values].sort((a, b) => direction * a.localeCompare(b));
  return values.join() === sorted.join()
    ? []
    : [`not ordered by ${by} ${direction > 0 ? "ascending" : "descending"} — ${source}`];
};

/**
 * The check each Output cell asks for, by its words. An Output no entry matches fails the test
 * (a new row of the spec needs its check here).
 */
const OUTPUTS: [RegExp, Check][] = [
  [/^Browser redirect to redirect_uri with code and state/, (res) => {
    const location = res.headers.get("location") ?? "";
    const url = location ? new URL(location, "http://x") : null;
    return res.status === 302 && url?.searchParams.get("state") === "s1" ? [] : [`HTTP ${res.status} ${location}`];
  }],
  [/^object: access_token string, athlete \(summary athlete\)$/, (res, e) => [
    ...(typeof res.body?.access_token === "string" ? [] : [`access_token missing — ${e.source}`]),
    ...violations(res.body?.athlete, "Athlete", reps, activityTypes, "athlete"),
    ...(typeof res.body?.athlete?.email === "string"
      ? []
      : [`athlete.email missing — ${reps.get("Athlete")!.fields.find((f) => f.name === "email")!.source}`]),
  ]],
  [
    /^object: access_token \(the submitted token\)$/,
    (res, e) => (typeof res.body?.access_token === "string" ? [] : [`access_token — ${e.source}`]),
  ],
  [
    /response shape: not shown$|response body: not shown$|parameters and output: not shown$|^promotes to admin$|^demotes admin to member$/,
    () => [],
  ],
  [/^(201 with a )?detailed activity/, one("Activity detailed")],
  [/^array of summary activities, newest first, oldest first when after is used$/, (res, e) => [
    ...each("Activity summary")(res, e),
    ...ordered(res.body, "start_date", -1, e.source),
  ]],
  [/^array of summary activities; only the last 200/, each("Club activity")],
  [/^array of zone objects/, each((z) => (z.type === "power" ? "Power zone" : "Heart-rate zone"))],
  [/^array of lap summaries$/, each("Lap")],
  [
    /^array of comments, oldest first$/,
    (res, e) => [...each("Comment")(res, e), ...ordered(res.body, "created_at", 1, e.source)],
  ],
  [/^array of summary athletes$/, each("Athlete")],
  [/^array of photo objects of both kinds$/, each((p) => (p.source === 2 ? "External photo" : "Native photo"))],
  [/^201 with an upload status/, one("Upload status")],
  [/^upload status$/, one("Upload status")],
  [/^detailed segment$/, one("Segment detailed")],
  [/^array of summary segments starred by the authenticated athlete$/, each("Segment summary")],
  [/^array of summary segments with starred-segment extras$/, each("Starred segment")],
  [/^array of segment effort summaries ascending by start_date_local/, (res, e) => [
    ...each("Segment effort")(res, e),
    ...ordered(res.body, "start_date_local", 1, e.source),
  ]],
  [/^leaderboard response$/, one("Leaderboard response")],
  [/^object with segments: up to (\d+) explore items$/, (res, e) => {
    const max = Number(/up to (\d+)/.exec(e.output)![1]);
    const list = res.body?.segments;
    if (!Array.isArray(list) || list.length === 0) return [`segments: none — ${e.source}`];
    return [
      ...(list.length <= max ? [] : [`${list.length} segments — ${e.source}`]),
      ...list.flatMap((s: unknown, i: number) => violations(s, "Explore item", reps, activityTypes, `segments.${i}`)),
    ];
  }],
  [/^detailed club$/, one("Club detail")],
  [/^array of summary clubs/, each("Club summary")],
  [/^array of summary athletes with membership fields/, (res, e) => [
    ...each("Athlete")(res, e),
    ...each("Club membership")(res, e),
  ]],
  [/^array of summary athletes, owner first/, (res, e) => [
    ...each("Athlete")(res, e),
    ...(res.body?.[0]?.owner === true ? [] : [`the first admin is not the owner — ${e.source}`]),
  ]],
  [/^object: success boolean, active boolean/, (res, e) => fieldsOf(res, e)],
  [/^array of heatmap summaries$/, each("Heatmap summary")],
  [/^subset of the heatmap summary: (.*)$/, (res, e) => {
    const named = /subset of the heatmap summary: (.*)$/.exec(e.output)![1].split(", ");
    const heatmap = reps.get("Heatmap progress")!.fields;
    return [
      ...named.filter((n) => !(n in (res.body ?? {}))).map((n) => `${n} is missing — ${e.source}`),
      ...heatmap.filter((f) => !named.includes(f.name) && f.name in (res.body ?? {})).map((f) =>
        `${f.name} is beyond the subset — ${e.source}`
      ),
    ];
  }],
  [/^heatmap with status and status_message$/, (res, e) => [
    ...one("Heatmap progress")(res, e),
    ...["status", "status_message"].filter((k) => typeof res.body?.[k] !== "string").map((k) => `${k} — ${e.source}`),
  ]],
  [/^heatmap summary$/, one("Heatmap summary")],
  [/^204 No Content$/, (res, e) => (res.status === 204 && res.text === "" ? [] : [`HTTP ${res.status} — ${e.source}`])],
  [/^detailed challenge$/, one("Challenge detailed")],
  [/^array of entries in descending order/, each("Challenge leaderboard entry")],
  [/^join on behalf of the athlete|^leave; response body/, () => []],
  [/^array of summary challenges joined$/, each("Challenge summary")],
];

/** The status an Output names ("201 with …", "204 No Content", "(HTTP 302)"), else any 2xx. */
function statusOk(e: Endpoint, status: number): boolean {
  const named = /^(\d{3}) |\(HTTP (\d{3})\)/.exec(e.output);
  return named ? status === Number(named[1] ?? named[2]) : status >= 200 && status < 300;
}

async function send(e: Endpoint, request: Request, prefix = ""): Promise<ApiResponse> {
  const { path, ...options } = request;
  const method = e.method;
  return await server.api(method, prefix ? path.replace(/^\/v3\//, `${prefix}/`) : path, options);
}

const driven = () => ROWS.filter((e) => e.path.startsWith("/v3/") || e.path.startsWith("{auth_url}/"));
const rowOf = (heading: string, first: string) => {
  const row = spec.sections.find((s) => s.heading === heading)!.tables[0].rows.find((r) => r.cells[0] === first);
  if (!row) throw new Error(`the spec's ${heading} table has no row "${first}"`);
  return row;
};
const conventions = (topic: string) => rowOf("Conventions that apply to every endpoint", topic);
const limit = (name: string) => rowOf("Limits", name);

describe("the spec's tables, read at test time", () => {
  it("the project's copy of the spec is the spec beside the project, word for word", () => {
    // On a clean clone (no ../shared beside it) the copy is what the contract test reads.
    const copy = readFileSync(SPEC_PATH, "utf8");
    expect(copy).toMatch(/^# Fitness Activity Platform API v3 Specification/);
    if (existsSync(SHARED_SPEC_PATH)) expect(copy).toBe(readFileSync(SHARED_SPEC_PATH, "utf8"));
  });

  it("reads every endpoint row, every representation and their parameter rules", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(45);
    expect(reps.get("Activity summary")!.absent.map((a) => a.name)).toContain("device_name");
    expect(parameters(ROWS.find((e) => e.path === "/v3/athlete/activities")!.input).map((p) => p.name))
      .toEqual(["before", "after", "page", "per_page"]);
    expect(exclusiveGroups(ROWS.find((e) => e.path === "/v3/athlete/activities")!.input)).toEqual([
      ["before", "after", "page"],
    ]);
  });
});

describe("every /v3 row of the spec's Endpoints, on the server", () => {
  it("has a route for every row (method and path, as the route table declares them)", () => {
    const declared = new Set(allRoutes.map((r) => `${r.method} ${r.path}`));
    const missing = ROWS.filter((e) => e.path.startsWith("/v3/") && !declared.has(key(e))).map((e) => e.source);
    expect(missing).toEqual([]);
  });

  it("answers each row as its Output says, in the representation the spec's fields give", async () => {
    const table = fixtures();
    const failures: string[] = [];
    const order = ["POST", "PUT", "GET", "DELETE"];
    const rows = driven().sort((a, b) => order.indexOf(a.method) - order.indexOf(b.method));
    for (const e of rows) {
      const fixture = table[key(e)];
      if (!fixture) {
        failures.push(`no request drives ${e.source}`);
        continue;
      }
      const res = await send(e, await fixture());
      if (!statusOk(e, res.status)) {
        failures.push(`${key(e)}: HTTP ${res.status} ${res.text.slice(0, 160)} — ${e.source}`);
        continue;
      }
      const check = OUTPUTS.find(([re]) => re.test(e.output || e.input));
      if (!check) {
        failures.push(`no check for the Output of ${e.source}`);
        continue;
      }
      failures.push(...check[1](res, e).map((f) => `${key(e)}: ${f}`));
      const type = res.headers.get("content-type") ?? "";
      if (res.text && e.path.startsWith("/v3/") && type !== "application/json; charset=utf-8") {
        failures.push(`${key(e)}: content type ${type} — ${conventions("Format").text}`);
      }
      // Limits: "Headers on every response" — two comma-separated integers each.
      for (const header of ["X-RateLimit-Limit", "X-RateLimit-Usage"]) {
        if (e.path.startsWith("/v3/") && !/^\d+,\d+$/.test(res.headers.get(header) ?? "")) {
          failures.push(`${key(e)}: ${header} ${res.headers.get(header)} — ${limit("Headers on every response").text}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});

/** A request with one parameter set (or, with `undefined`, removed) where the fixture carries its inputs. */
async function withParam(e: Endpoint, name: string, value: string | undefined): Promise<Request> {
  const request = await fixtures()[key(e)]();
  const path = request.path;
  if (e.method === "GET" || e.method === "DELETE") {
    const query = { ...request.query };
    if (value === undefined) delete query[name];
    else query[name] = value;
    return { ...request, path, query };
  }
  if (request.multipart) {
    if (value === undefined) request.multipart.delete(name);
    else request.multipart.set(name, value);
    return request;
  }
  const form = { ...request.form };
  if (value === undefined) delete form[name];
  else form[name] = value;
  return { ...request, form };
}

const names = (res: ApiResponse): string[] => (res.body?.errors ?? []).map((x: { field: string }) => x.field);
const pathParam = (e: Endpoint, p: Parameter) => e.path.includes(`:${p.name}`);
const WRONG: Record<string, string> = { integer: "eleven", float: "far", boolean: "perhaps", datetime: "yesterday" };

describe("every parameter rule of the spec's Input cells, on /v3", () => {
  it(
    "refuses a value of the wrong type, a missing required one, an unlisted value and one over its maximum, naming it",
    async () => {
      const failures: string[] = [];
      for (const e of driven().filter((r) => r.path.startsWith("/v3/"))) {
        for (const p of parameters(e.input)) {
          if (pathParam(e, p)) continue;
          const tries: [string | undefined, string][] = [];
          if (WRONG[p.type]) tries.push([WRONG[p.type], `${p.type}: ${p.text}`]);
          if (p.required) tries.push([undefined, `required: ${p.text}`]);
          if (p.values) tries.push(["no_such_value", `one of ${p.values.join(", ")}: ${p.text}`]);
          if (p.max !== undefined) tries.push([String(p.max + 1), `max ${p.max}: ${p.text}`]);
          for (const [value, rule] of tries) {
            const res = await send(e, await withParam(e, p.name, value));
            if (res.status !== 400 || !names(res).includes(p.name)) {
              failures.push(
                `${key(e)} ${p.name}=${value ?? "(left out)"}: HTTP ${res.status} ${
                  res.text.slice(0, 100)
                } — rule "${rule}" of ${e.source}`,
              );
            }
          }
        }
      }
      expect(failures).toEqual([]);
    },
    300_000,
  );

  it("accepts every value an Input lists (GET), and per_page up to the Limits' maximum but not beyond", async () => {
    const failures: string[] = [];
    const limits = spec.sections.find((s) => s.heading === "Limits")!.tables[0].rows;
    const maxRow = limits.find((r) => r.cells[0] === "Maximum per_page")!;
    const max = Number(maxRow.cells[1]);
    for (const e of driven().filter((r) => r.method === "GET" && r.path.startsWith("/v3/"))) {
      for (const p of parameters(e.input)) {
        for (const value of p.values ?? []) {
          const res = await send(e, await withParam(e, p.name, value));
          if (res.status !== 200) {
            failures.push(`${key(e)} ${p.name}=${value}: HTTP ${res.status} ${res.text.slice(0, 100)} — ${e.source}`);
          }
        }
        if (p.name === "per_page") {
          const ok = await send(e, await withParam(e, "per_page", String(max)));
          const over = await send(e, await withParam(e, "per_page", String(max + 1)));
          if (ok.status !== 200) {
            failures.push(`${key(e)} per_page=${max}: HTTP ${ok.status} — spec line ${maxRow.line}: ${maxRow.text}`);
          }
          if (over.status !== 400 || !names(over).includes("per_page")) {
            failures.push(
              `${key(e)} per_page=${max + 1}: HTTP ${over.status} — spec line ${maxRow.line}: ${maxRow.text}`,
            );
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it("holds the Limits' default page size", async () => {
    const row = spec.sections.find((s) => s.heading === "Limits")!.tables[0].rows.find((r) =>
      r.cells[0] === "Default page size"
    )!;
    const size = Number(/^(\d+)/.exec(row.cells[1])![1]);
    const res = await server.api("GET", "/v3/athlete/activities", { token: lister.token });
    expect(res.body.length, row.text).toBe(size);
  });

  it(
    "refuses the parameters the spec says cannot be combined, naming each; Strava's dialect (/api/v3) combines them",
    async () => {
      const failures: string[] = [];
      let groups = 0;
      for (const e of driven()) {
        for (const group of exclusiveGroups(e.input)) {
          groups++;
          for (let i = 0; i < group.length; i++) {
            for (let j = i + 1; j < group.length; j++) {
              const pair = [group[i], group[j]];
              const value = (
                name: string,
              ) => (name === "page"
                ? "1"
                : String(Math.floor(Date.now() / 1000) - (name === "after" ? 10 * 365 * 86400 : 0)));
              let request = await withParam(e, pair[0], value(pair[0]));
              request = { ...request, query: { ...request.query, [pair[1]]: value(pair[1]) } };
              const res = await send(e, request);
              if (
                res.status !== 400 || pair.some((n) => !names(res).includes(n))
              ) {
                failures.push(
                  `${key(e)} ${pair.join(" + ")}: HTTP ${res.status} ${res.text.slice(0, 100)} — ${e.source}`,
                );
              }
              const strava = await send(e, request, "/api/v3");
              if (strava.status !== 200) {
                failures.push(
                  `/api${e.path} ${pair.join(" + ")}: HTTP ${strava.status} (Strava's dialect combines them)`,
                );
              }
            }
          }
        }
      }
      expect(groups).toBeGreaterThanOrEqual(2);
      expect(failures).toEqual([]);
    },
    120_000,
  );

  it("refuses one of two parameters the spec says must be sent together", async () => {
    const failures: string[] = [];
    let pairs = 0;
    for (const e of driven()) {
      for (const m of e.input.matchAll(/([a-z_]+) and ([a-z_]+) (\w+) [^;]*must be sent together/g)) {
        pairs++;
        for (const alone of [m[1], m[2]]) {
          const res = await send(e, await withParam(e, alone, "2024-01-01T00:00:00Z"));
          if (res.status !== 400) failures.push(`${key(e)} ${alone} alone: HTTP ${res.status} — ${e.source}`);
        }
      }
    }
    expect(pairs).toBeGreaterThanOrEqual(1);
    expect(failures).toEqual([]);
  });

  it("refuses a token without the write scope on every row the spec marks write", async () => {
    const failures: string[] = [];
    const writes = driven().filter((e) => /^write\b/.test(e.input) && e.path.startsWith("/v3/"));
    expect(writes.length).toBeGreaterThanOrEqual(10);
    for (const e of writes) {
      const request = await fixtures()[key(e)]();
      const res = await send(e, { ...request, token: readOnly });
      if (res.status !== 401 && res.status !== 403) {
        failures.push(`${key(e)} with a read token: HTTP ${res.status} — ${e.source}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe("the spec's 'Who may do what' table, on /v3", () => {
  /**
   * Each row's restriction tried from the side it forbids (an answer of 2xx fails, naming the row),
   * and, where the row grants something, from the side it allows. Keyed by the row's Operation cell:
   * a row added to the table without a probe here fails the test.
   */
  it("refuses every operation to those its row excludes, and allows it to those it names", async () => {
    const plain = await server.application({ internal: false, kudos: false, challenges: false });
    const outsider = await server.token(bob.id, plain.client_id);
    const refused = (res: ApiResponse) => res.status >= 400 && res.status < 500;
    const comment = await server.api("POST", `/v3/activities/${ids.run}/comments`, {
      token: bob.token,
      form: { text: "Mine" },
    });
    expect(comment.status, comment.text).toBeLessThan(300);
    const probes: Record<string, () => Promise<string[]>> = {
      "Read an activity detail, its photos, kudos list": async () => {
        const out: string[] = [];
        for (
          const path of [
            `/v3/activities/${ids.run}`,
            `/v3/activities/${ids.run}/photos`,
            `/v3/activities/${ids.run}/kudos`,
          ]
        ) {
          const other = await server.api("GET", path, { token: bob.token, query: { photo_sources: true } });
          if (!refused(other)) out.push(`another athlete: GET ${path} answered ${other.status}`);
          const own = await server.api("GET", path, { token: ann.token, query: { photo_sources: true } });
          if (own.status !== 200) out.push(`the owner: GET ${path} answered ${own.status}`);
        }
        return out;
      },
      "Activity zones": async () => {
        const other = await server.api("GET", `/v3/activities/${ids.ride}/zones`, { token: bob.token });
        const notPremium = await server.api("GET", `/v3/activities/${ids.bobRide}/zones`, { token: bob.token });
        const premiumOwner = await server.api("GET", `/v3/activities/${ids.ride}/zones`, { token: ann.token });
        return [
          ...(refused(other) ? [] : [`another athlete: ${other.status}`]),
          ...(refused(notPremium) ? [] : [`an owner who is not premium: ${notPremium.status}`]),
          ...(premiumOwner.status === 200 ? [] : [`the premium owner: ${premiumOwner.status}`]),
        ];
      },
      "Leaderboard age_group and weight_class filters": async () => {
        const out: string[] = [];
        for (const query of [{ age_group: "25_34" }, { weight_class: "65_74" }]) {
          const res = await server.api("GET", `/v3/segments/${ids.segment}/leaderboard`, { token: bob.token, query });
          if (!refused(res)) out.push(`${Object.keys(query)[0]} for an athlete who is not premium: ${res.status}`);
        }
        return out;
      },
      "Club member approve/decline, promote/demote admins": async () => {
        const out: string[] = [];
        for (const method of ["PUT", "DELETE"]) {
          const res = await server.api(method, `/v3/clubs/${ids.club}/admins/${cy.id}`, { token: bob.token });
          if (!refused(res)) out.push(`${method} admins by a member who is no admin: ${res.status}`);
        }
        const pending = await server.athlete({ applicationId: app.client_id });
        await server.api("POST", `/v3/clubs/${ids.privateClub}/join`, { token: pending.token });
        const approve = await server.api("PUT", `/v3/clubs/${ids.privateClub}/members/${pending.id}`, {
          token: bob.token,
        });
        if (!refused(approve)) out.push(`approval by someone who is no admin: ${approve.status}`);
        return out;
      },
      "Club activities": async () => {
        const res = await server.api("GET", `/v3/clubs/${ids.club}/activities`, { token: lister.token });
        return refused(res) ? [] : [`a non-member: ${res.status}`];
      },
      "Create or delete comments": async () => {
        const external = await server.api("POST", `/v3/activities/${ids.run}/comments`, {
          token: outsider,
          form: { text: "Hi" },
        });
        const stranger = await server.api("DELETE", `/v3/activities/${ids.run}/comments/${comment.body.id}`, {
          token: cy.token,
        });
        const author = await server.api("DELETE", `/v3/activities/${ids.run}/comments/${comment.body.id}`, {
          token: bob.token,
        });
        return [
          ...(refused(external) ? [] : [`an application that is not internal creates one: ${external.status}`]),
          ...(refused(stranger) ? [] : [`neither owner nor author deletes one: ${stranger.status}`]),
          ...(author.status < 300 ? [] : [`the author deletes theirs: ${author.status}`]),
        ];
      },
      "Kudos": async () => {
        const own = await server.api("POST", `/v3/activities/${ids.ride}/kudos`, { token: ann.token });
        const twice = await server.api("POST", `/v3/activities/${ids.run}/kudos`, { token: bob.token });
        const disabled = await server.api("POST", `/v3/activities/${ids.ride}/kudos`, { token: outsider });
        return [
          ...(refused(own) ? [] : [`on one's own activity: ${own.status}`]),
          ...(refused(twice) ? [] : [`twice: ${twice.status}`]),
          ...(refused(disabled) ? [] : [`by an application without kudos: ${disabled.status}`]),
        ];
      },
      "Challenges": async () => {
        const res = await server.api("GET", `/v3/challenges/${ids.challenge}`, { token: outsider });
        return refused(res) ? [] : [`an application without challenges: ${res.status}`];
      },
      "Segments and leaderboards": async () => {
        const segment = await server.api("GET", `/v3/segments/${ids.segment}`, { token: outsider });
        const board = await server.api("GET", `/v3/segments/${ids.segment}/leaderboard`, { token: outsider });
        return segment.status === 200 && board.status === 200
          ? []
          : [`any application: ${segment.status}, ${board.status}`];
      },
    };
    const table = spec.sections.find((s) => s.heading === "Authentication")!.tables.find((t) =>
      t.header[0] === "Operation"
    )!;
    expect(table.rows.length).toBeGreaterThanOrEqual(9);
    const failures: string[] = [];
    for (const row of table.rows) {
      const probe = probes[row.cells[0]];
      if (!probe) {
        failures.push(`no probe for spec line ${row.line}: ${row.text}`);
        continue;
      }
      failures.push(...(await probe()).map((f) => `${f} — spec line ${row.line}: ${row.text}`));
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
