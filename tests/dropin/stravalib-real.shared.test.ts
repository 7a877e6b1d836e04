import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { WebClient } from "../oauth/web-client.ts";
import { type DropinServer, startDropinServer } from "./deno-server.ts";
import { stravalibStep, stravaToolsPython } from "./python/tools.ts";
import { STRAVA_ACTIVITY_TYPES } from "./strava-model.ts";

/**
 * stravalib 2.5.0 itself (issue #42), unchanged, against the server as `npm start` runs it: every
 * call of tests/dropin/stravalib.test.ts's replay made by the real library (its Client, its
 * ApiV3 protocol building the URLs under /api/v3, its pydantic models parsing every answer, its
 * rate limiter reading our headers), through strava_here.py — a requests transport adapter that
 * sends what stravalib addresses to https://www.strava.com to this server. Plus the OAuth calls a
 * stravalib user makes: exchange_code_for_token and refresh_access_token.
 */
let s: DropinServer;
let python = "";
const FIT = deviceFile("fit/garmin-edge1000-cycling-short-3formats.fit");
const GPX = deviceFile("gpx/garmin-connect-edge1000-cycling-short-3formats.gpx");

beforeAll(async () => {
  [s, python] = await Promise.all([startDropinServer(["Ann", "Bob"]), stravaToolsPython()]);
}, 900_000);
afterAll(() => s?.close());

const call = (step: string, args: Record<string, unknown>) => stravalibStep(python, s.server.url, step, args);
// deno-lint-ignore no-explicit-any
const result = async (step: string, args: Record<string, unknown>): Promise<any> => (await call(step, args)).result;
let uploaded = 0;

describe("stravalib 2.5.0, unchanged, against this server", () => {
  it(
    "upload_activity(...).wait(): the query-string upload, polled until its activity, read back with get_activity",
    async () => {
      const { result: activity, requests } = await call("upload", {
        token: s.people.Ann.token,
        file: FIT,
        params: {
          data_type: "fit",
          name: "Loop via stravalib",
          description: "query-string upload",
          activity_type: "Ride",
          private: false,
          external_id: "stravalib-real-1",
          trainer: false,
          commute: true,
        },
      });
      expect(activity).toMatchObject({
        name: "Loop via stravalib",
        description: "query-string upload",
        type: "Ride",
        private: false,
        trainer: false,
        commute: true,
        external_id: "stravalib-real-1",
      });
      uploaded = (activity as { id: number }).id;
      expect(requests[0]).toMatch(/^POST https:\/\/www\.strava\.com\/api\/v3\/uploads\?/);
      expect(requests.some((r) => /^GET https:\/\/www\.strava\.com\/api\/v3\/uploads\/\d+/.test(r))).toBe(true);
      // stravalib's ApiV3: the token as a query parameter, booleans as Python prints them.
      expect(requests.at(-1)).toBe(
        `GET https://www.strava.com/api/v3/activities/${uploaded}?include_all_efforts=False&access_token=***`,
      );
    },
    300_000,
  );

  it("an upload without data_type (its protocol's post) is refused, naming data_type", async () => {
    const refused = await result("upload_without_data_type", { token: s.people.Ann.token, file: FIT });
    expect(refused.refused).toBe(true);
    expect(refused.message).toMatch(/data_type/);
  });

  it("create_activity: sport_type, and the deprecated activity_type", async () => {
    const created = await result("create_activity", {
      token: s.people.Ann.token,
      params: {
        name: "Lunch MTB",
        start_date_local: "2024-05-01T12:00:00Z",
        elapsed_time: 3600,
        description: "Roots",
        distance: 20000.0,
        trainer: false,
        commute: true,
        sport_type: "MountainBikeRide",
      },
    });
    expect(created).toMatchObject({
      name: "Lunch MTB",
      description: "Roots",
      type: "Ride",
      sport_type: "MountainBikeRide",
      elapsed_time: 3600,
      distance: 20000,
      trainer: false,
      commute: true,
    });
    const legacy = await result("create_activity", {
      token: s.people.Ann.token,
      params: { name: "Swim", start_date_local: "2024-05-02T07:00:00Z", elapsed_time: 1800, activity_type: "Swim" },
    });
    expect(legacy).toMatchObject({ type: "Swim", sport_type: "Swim" });
  });

  it("get_activities(before, after): stravalib's own paging (page=1&per_page=200 on a date window) in Strava's dialect", async () => {
    const { result: listed, requests } = await call("get_activities", {
      token: s.people.Ann.token,
      before: Date.parse("2024-05-01T23:00:00Z") / 1000,
      after: Date.parse("2024-04-30T00:00:00Z") / 1000,
    });
    expect((listed as { name: string }[]).map((a) => a.name)).toEqual(["Lunch MTB"]);
    expect(requests[0]).toMatch(/\/api\/v3\/athlete\/activities\?.*before=\d+.*after=\d+|after=\d+.*before=\d+/);
    expect(requests[0]).toMatch(/page=1/);
    expect(requests[0]).toMatch(/per_page=200/);
  });

  it("update_athlete(weight=70.2) changes the weight that get_athlete reads", async () => {
    const weights = await result("update_athlete", { token: s.people.Ann.token, weight: 70.2 });
    expect(weights).toEqual({ returned: 70.2, read: 70.2 });
  });

  it("get_athlete embeds clubs whose activity_types are all Strava's; get_athlete_clubs and get_club parse them", async () => {
    const ann = s.people.Ann.token;
    const sports: [string, string][] = [["Wheels", "cycling"], ["Trails", "running"], ["Tri", "triathlon"], [
      "Misc",
      "other",
    ]];
    for (const [name, sport] of sports) {
      const club = await s.call("POST", "/v3/clubs", { token: ann, form: { name, sport_type: sport } });
      expect(club.status, club.text).toBe(201);
    }
    const athlete = await result("get_athlete", { token: ann });
    expect(athlete.clubs).toHaveLength(4);
    for (const club of athlete.clubs) {
      for (const t of club.activity_types) expect(STRAVA_ACTIVITY_TYPES).toContain(t);
      expect(club.cover_photo).toMatch(/^http:\/\/.*\/avatars\/clubs\/\d+\/cover\.png$/);
    }
    const clubs = await result("get_athlete_clubs", { token: ann });
    expect(clubs.map((c: { name: string }) => c.name).sort()).toEqual(["Misc", "Trails", "Tri", "Wheels"]);
    // Clubs with no place: strings, never null (Strava's model), as stravalib parses them.
    for (const club of clubs) expect([club.city, club.state, club.country]).toEqual(["", "", ""]);
    const wheels = clubs.find((c: { name: string }) => c.name === "Wheels");
    const one = await result("get_club", { token: ann, club_id: wheels.id });
    expect(one).toMatchObject({ id: wheels.id, name: "Wheels", membership: "member", admin: true, owner: true });
  });

  it(
    "get_segment on a segment ridden twice: athlete_segment_stats.pr_date a date; starring through its protocol",
    async () => {
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
      await result("upload", {
        token: ann,
        file: GPX,
        params: { data_type: "gpx", name: "Again", external_id: "stravalib-real-2" },
      });
      const segment = await result("get_segment", { token: ann, segment_id: created.body.id });
      expect(segment.athlete_segment_stats.effort_count).toBeGreaterThan(0);
      expect(segment.athlete_segment_stats.pr_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(segment.athlete_segment_stats.pr_date).toBe(segment.athlete_pr_effort.start_date_local.slice(0, 10));
      expect(await result("star_segment", { token: ann, segment_id: created.body.id })).toEqual({ starred: true });
    },
    300_000,
  );

  it("exchange_code_for_token and refresh_access_token: the OAuth calls, on /oauth/token as stravalib makes them", async () => {
    // Bob signs in and approves the application on the consent page, as its user would.
    const web = new WebClient(s.server.url);
    await web.signIn("bob@example.com", "password123");
    const redirect = await web.authorize({
      client_id: String(s.application.clientId),
      redirect_uri: "http://localhost/cb",
      response_type: "code",
      scope: "read,activity:read_all",
    });
    const code = redirect.searchParams.get("code");
    const tokens = await result("exchange_code", {
      client_id: s.application.clientId,
      client_secret: s.application.clientSecret,
      code,
    });
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.athlete).toMatchObject({ id: s.people.Bob.id, firstname: "Bob" });
    const refreshed = await result("refresh", {
      client_id: s.application.clientId,
      client_secret: s.application.clientSecret,
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.athlete_id).toBe(s.people.Bob.id);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  });

  it("deauthorize(): the token is revoked, the next call is refused", async () => {
    const gone = await result("deauthorize", { token: s.people.Bob.token });
    expect(gone.after).not.toBe("answered");
    expect(gone.message).toMatch(/401|Authorization/i);
    expect((await s.call("GET", "/v3/athlete", { token: s.people.Bob.token })).status).toBe(401);
  });
});
