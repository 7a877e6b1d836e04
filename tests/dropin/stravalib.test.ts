import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import type { ApiResponse } from "../helpers/http.ts";
import { type DropinServer, startDropinServer } from "./deno-server.ts";
import {
  DetailedActivity,
  DetailedAthlete,
  DetailedSegment,
  STRAVA_ACTIVITY_TYPES,
  SummaryActivity,
  SummaryClub,
  violations,
} from "./strava-model.ts";

/**
 * stravalib's requests (issue 31 items 1–5) over HTTP against the Deno server, built as its ApiV3
 * builds them (stravalib/protocol.py): URLs relative to the API base /api/v3 — oauth/deauthorize
 * too —, every parameter in the query string of GET, POST and PUT alike (requests' `params=`:
 * None dropped, booleans as Python prints them, True/False), the token as its access_token query
 * parameter, an upload's file the only multipart part. Answers are checked against the enums and
 * date formats of Strava's published model (tests/dropin/strava-model.ts), which stravalib's
 * pydantic models enforce.
 */
let s: DropinServer;
beforeAll(async () => {
  s = await startDropinServer(["Ann", "Bob", "Cy", "Di", "Ed"]);
}, 120_000);
afterAll(() => s?.close());

type Param = string | number | boolean | undefined;
const FIT = "fit/garmin-edge1000-cycling-short-3formats.fit";
const GPX = "gpx/garmin-connect-edge1000-cycling-short-3formats.gpx";

/** Python's str() of a parameter, as requests puts it in the query string. */
const py = (v: string | number | boolean) => (typeof v === "boolean" ? (v ? "True" : "False") : String(v));

/** One stravalib request: /api/v3/<path>?<params>&access_token=<token>, an upload's file as multipart. */
function stravalib(
  method: string,
  path: string,
  token: string,
  params: Record<string, Param> = {},
  file?: { bytes: Uint8Array; name: string },
): Promise<ApiResponse> {
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query[k] = py(v);
  query.access_token = token;
  let multipart: FormData | undefined;
  if (file) {
    multipart = new FormData();
    multipart.set("file", new Blob([new Uint8Array(file.bytes)]), file.name);
  }
  return s.call(method, `/api/v3/${path.replace(/^\//, "")}`, { query, multipart });
}

/** stravalib's upload_activity → ActivityUploader.wait(): POST /uploads with query parameters, then poll. */
async function uploadActivity(token: string, params: Record<string, Param>, file = FIT): Promise<number> {
  const res = await stravalib("POST", "/uploads", token, params, {
    bytes: readFileSync(deviceFile(file)),
    name: file.split("/").pop()!,
  });
  expect(res.status, res.text).toBe(201);
  for (let i = 0; i < 600; i++) {
    const status = await stravalib("GET", `/uploads/${res.body.id}`, token);
    expect(status.status).toBe(200);
    if (status.body.error) throw new Error(`upload failed: ${status.body.error}`);
    if (status.body.activity_id) return status.body.activity_id as number;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("upload did not finish");
}

let uploaded: number;

describe("stravalib", () => {
  it("upload_activity: data_type, name, description, activity_type, private, external_id, trainer, commute in the query string", async () => {
    const ann = s.people.Ann.token;
    uploaded = await uploadActivity(ann, {
      data_type: "fit",
      name: "Loop via stravalib",
      description: "query-string upload",
      activity_type: "ride",
      private: 0,
      external_id: "stravalib-upload-1",
      trainer: 0,
      commute: 1,
    });
    const activity = await stravalib("GET", `/activities/${uploaded}`, ann, { include_all_efforts: false });
    expect(activity.status, activity.text).toBe(200);
    expect(activity.body).toMatchObject({
      name: "Loop via stravalib",
      description: "query-string upload",
      type: "Ride",
      private: false,
      trainer: false,
      commute: true,
      external_id: "stravalib-upload-1",
    });
    expect(violations(activity.body, DetailedActivity)).toEqual([]);
  });

  it("upload_activity without data_type anywhere is still a 400 naming data_type", async () => {
    const res = await stravalib("POST", "/uploads", s.people.Ann.token, { name: "No type" }, {
      bytes: readFileSync(deviceFile(FIT)),
      name: "x.fit",
    });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain("data_type");
  });

  it("create_activity: every field in the query string of a POST without a body", async () => {
    const ann = s.people.Ann.token;
    const res = await stravalib("POST", "/activities", ann, {
      name: "Lunch MTB",
      start_date_local: "2024-05-01T12:00:00Z",
      elapsed_time: 3600,
      description: "Roots",
      distance: 20000.0,
      trainer: false,
      commute: true,
      sport_type: "MountainBikeRide",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({
      name: "Lunch MTB",
      description: "Roots",
      type: "Ride",
      sport_type: "MountainBikeRide",
      elapsed_time: 3600,
      distance: 20000,
      trainer: false,
      commute: true,
      start_date_local: "2024-05-01T12:00:00Z",
    });
    expect(violations(res.body, DetailedActivity)).toEqual([]);
    // The deprecated activity_type path: stravalib sends type lower-cased.
    const legacy = await stravalib("POST", "/activities", ann, {
      name: "Swim",
      start_date_local: "2024-05-02T07:00:00Z",
      elapsed_time: 1800,
      type: "swim",
    });
    expect(legacy.status, legacy.text).toBe(201);
    expect(legacy.body).toMatchObject({ type: "Swim", sport_type: "Swim" });
  });

  it("get_activities(before, after): both bounds and page=1&per_page=200 together", async () => {
    const res = await stravalib("GET", "/athlete/activities", s.people.Ann.token, {
      before: Date.parse("2024-05-01T23:00:00Z") / 1000,
      after: Date.parse("2024-04-30T00:00:00Z") / 1000,
      page: 1,
      per_page: 200,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.map((a: { name: string }) => a.name)).toEqual(["Lunch MTB"]);
    for (const activity of res.body) expect(violations(activity, SummaryActivity)).toEqual([]);
  });

  it("update_athlete(weight=…): PUT /athlete?weight=70.2 changes the weight", async () => {
    const ann = s.people.Ann.token;
    const res = await stravalib("PUT", "/athlete", ann, { weight: 70.2 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.weight).toBe(70.2);
    expect((await stravalib("GET", "/athlete", ann)).body.weight).toBe(70.2);
    // A body field wins over the query parameter of the same name; a bad value is a 400 naming it.
    const both = await s.call("PUT", "/api/v3/athlete", { token: ann, query: { weight: 99 }, form: { weight: 61.5 } });
    expect(both.body.weight).toBe(61.5);
    const bad = await stravalib("PUT", "/athlete", ann, { weight: "heavy" });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ resource: "Athlete", field: "weight", code: "invalid" }]);
    expect((await stravalib("GET", "/athlete", ann)).body.weight).toBe(61.5);
  });

  it("get_athlete embeds clubs whose activity_types are all Strava ActivityType values", async () => {
    const ann = s.people.Ann.token;
    for (
      const [name, sport] of [["Wheels", "cycling"], ["Trails", "running"], ["Tri", "triathlon"], ["Misc", "other"]]
    ) {
      const club = await s.call("POST", "/v3/clubs", { token: ann, form: { name, sport_type: sport } });
      expect(club.status, club.text).toBe(201);
    }
    const athlete = await stravalib("GET", "/athlete", ann);
    expect(athlete.status).toBe(200);
    expect(athlete.body.clubs).toHaveLength(4);
    expect(violations(athlete.body, DetailedAthlete)).toEqual([]);
    const cycling = athlete.body.clubs.find((c: { name: string }) => c.name === "Wheels");
    expect(cycling.activity_types).toContain("Ride");
    for (const club of athlete.body.clubs) {
      for (const t of club.activity_types) expect(STRAVA_ACTIVITY_TYPES).toContain(t);
    }
    // get_athlete_clubs pages with page=1&per_page=200.
    const clubs = await stravalib("GET", "/athlete/clubs", ann, { page: 1, per_page: 200 });
    expect(clubs.body).toHaveLength(4);
    for (const club of clubs.body) expect(violations(club, SummaryClub)).toEqual([]);
    const one = await stravalib("GET", `/clubs/${cycling.id}`, ann);
    expect(violations(one.body, SummaryClub)).toEqual([]);
  });

  it("get_segment on a segment the caller has ridden: athlete_segment_stats.pr_date is a date", async () => {
    const ann = s.people.Ann.token;
    const streams = await s.call("GET", `/v3/activities/${uploaded}/streams`, {
      token: ann,
      query: { keys: "time", key_by_type: true },
    });
    const points = streams.body.time.original_size as number;
    const created = await s.call("POST", "/v3/segments", {
      token: ann,
      form: {
        name: "Stravalib climb",
        activity_id: uploaded,
        start_index: Math.floor(points * 0.2),
        end_index: Math.floor(points * 0.8),
      },
    });
    expect(created.status, created.text).toBe(201);
    // Ride it: the same road again (the device's GPX of that ride), uploaded as stravalib does.
    await uploadActivity(ann, { data_type: "gpx", name: "Again", external_id: "stravalib-upload-2" }, GPX);
    const segment = await stravalib("GET", `/segments/${created.body.id}`, ann);
    expect(segment.status).toBe(200);
    expect(violations(segment.body, DetailedSegment)).toEqual([]);
    const stats = segment.body.athlete_segment_stats;
    expect(stats.effort_count).toBeGreaterThan(0);
    expect(stats.pr_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(stats.pr_date).toBe(segment.body.athlete_pr_effort.start_date_local.slice(0, 10));
    // Starring with the parameter in the query string, as clients send it.
    const star = await stravalib("PUT", `/segments/${created.body.id}/starred`, ann, { starred: true });
    expect(star.status, star.text).toBe(200);
    expect(star.body.starred).toBe(true);
  });

  it("deauthorize: POST /api/v3/oauth/deauthorize?access_token=… revokes the token", async () => {
    const bob = s.people.Bob.token;
    expect((await stravalib("GET", "/athlete", bob)).status).toBe(200);
    const res = await stravalib("POST", "oauth/deauthorize", bob);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ access_token: bob });
    const after = await stravalib("GET", "/athlete", bob);
    expect(after.status).toBe(401);
  });
});

describe("OAuth endpoints under every prefix the API answers under", () => {
  const PREFIXES = ["/oauth", "/v3/oauth", "/api/v3/oauth"];

  it("token: the same answer at /oauth/token, /v3/oauth/token and /api/v3/oauth/token", async () => {
    const answers = [];
    for (const prefix of PREFIXES) {
      const res = await s.call("POST", `${prefix}/token`, {
        query: {
          client_id: s.application.clientId,
          client_secret: s.application.clientSecret,
          grant_type: "refresh_token",
          refresh_token: "not-a-token",
        },
      });
      answers.push({ status: res.status, body: res.body });
    }
    expect(answers[0].status).toBeGreaterThanOrEqual(400);
    expect(answers[0].status).not.toBe(404);
    expect(answers[0].body.errors.length).toBeGreaterThan(0);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it("authorize: the consent flow starts at every prefix (sign-in first), never a 404", async () => {
    const query = {
      client_id: s.application.clientId,
      redirect_uri: "http://localhost/callback",
      response_type: "code",
      scope: "read",
    };
    const answers = [];
    for (const prefix of PREFIXES) {
      const res = await s.call("GET", `${prefix}/authorize`, { query, headers: { accept: "text/html" } });
      answers.push(res.status);
      expect(res.status, `${prefix}/authorize`).toBe(200);
      expect(res.text, `${prefix}/authorize`).toMatch(/sign in/i);
    }
    // A bad request is refused at every prefix alike.
    for (const prefix of PREFIXES) {
      const res = await s.call("GET", `${prefix}/authorize`, {
        query: { ...query, response_type: "token" },
        headers: { accept: "text/html" },
      });
      expect(res.status, `${prefix}/authorize`).toBe(400);
    }
  });

  it("deauthorize: every prefix revokes the athlete's access (the token then answers 401)", async () => {
    const people = [s.people.Cy, s.people.Di, s.people.Ed];
    for (const [i, prefix] of PREFIXES.entries()) {
      const { token } = people[i];
      expect((await s.call("GET", "/v3/athlete", { token })).status).toBe(200);
      const res = await s.call("POST", `${prefix}/deauthorize`, { query: { access_token: token } });
      expect(res.status, `${prefix}/deauthorize`).toBe(200);
      expect(res.body).toEqual({ access_token: token });
      expect((await s.call("GET", "/v3/athlete", { token })).status, prefix).toBe(401);
    }
  });
});
