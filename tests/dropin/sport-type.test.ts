import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { SPORT_TYPES } from "../../shared/sport-types.ts";
import { type DropinServer, startDropinServer, upload } from "./deno-server.ts";

/**
 * sport_type (issue #19) over HTTP on the Deno server: Strava's SportType list accepted on create,
 * update and upload, kept consistent with type; upload_id_str and hide_from_home.
 */
let s: DropinServer;
beforeAll(async () => {
  s = await startDropinServer(["Ann", "Bob"]);
}, 120_000);
afterAll(() => s?.close());

const create = (form: Record<string, string | number>) =>
  s.call("POST", "/v3/activities", {
    token: s.people.Ann.token,
    form: { name: "Test", start_date_local: "2026-05-04T08:00:00Z", elapsed_time: 3600, distance: 20000, ...form },
  });

describe("sport_type", () => {
  it("is Strava's list of 50 sport types", () => {
    expect(SPORT_TYPES).toHaveLength(50);
    for (
      const t of [
        "MountainBikeRide",
        "GravelRide",
        "EMountainBikeRide",
        "TrailRun",
        "VirtualRow",
        "Pickleball",
        "Wheelchair",
      ]
    ) {
      expect(SPORT_TYPES).toContain(t);
    }
  });

  it("on create: sport_type gives type; type alone is its own sport type; they must agree; one is required", async () => {
    const mtb = await create({ sport_type: "mountainbikeride" });
    expect(mtb.status, mtb.text).toBe(201);
    expect(mtb.body).toMatchObject({ type: "Ride", sport_type: "MountainBikeRide" });
    const both = await create({ type: "Run", sport_type: "TrailRun" });
    expect(both.body).toMatchObject({ type: "Run", sport_type: "TrailRun" });
    const racket = await create({ sport_type: "Pickleball" });
    expect(racket.body).toMatchObject({ type: "Workout", sport_type: "Pickleball" });
    const legacy = await create({ type: "hike" });
    expect(legacy.body).toMatchObject({ type: "Hike", sport_type: "Hike" });
    const clash = await create({ type: "Swim", sport_type: "GravelRide" });
    expect(clash.status).toBe(400);
    expect(clash.body.errors).toEqual([{ resource: "Activity", field: "sport_type", code: "invalid" }]);
    const none = await create({});
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual([{ resource: "Activity", field: "type", code: "missing" }]);
    const unknown = await create({ sport_type: "Quidditch" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ resource: "Activity", field: "sport_type" });
    // The list and the read agree.
    const read = await s.call("GET", `/v3/activities/${mtb.body.id}`, { token: s.people.Ann.token });
    expect(read.body).toMatchObject({ type: "Ride", sport_type: "MountainBikeRide" });
    const list = await s.call("GET", "/v3/athlete/activities", { token: s.people.Ann.token });
    const listed = list.body.find((a: { id: number }) => a.id === mtb.body.id);
    expect(listed).toMatchObject({ type: "Ride", sport_type: "MountainBikeRide" });
  });

  it("on update: sport_type changes type; a type alone keeps a sport type of that type, else replaces it", async () => {
    const { body: a } = await create({ sport_type: "GravelRide" });
    const put = (form: Record<string, string | number>) =>
      s.call("PUT", `/v3/activities/${a.id}`, { token: s.people.Ann.token, form });
    expect((await put({ type: "Ride" })).body).toMatchObject({ type: "Ride", sport_type: "GravelRide" });
    expect((await put({ sport_type: "TrailRun" })).body).toMatchObject({ type: "Run", sport_type: "TrailRun" });
    expect((await put({ type: "Swim" })).body).toMatchObject({ type: "Swim", sport_type: "Swim" });
    expect((await put({ sport_type: "VirtualRow" })).body).toMatchObject({ type: "Rowing", sport_type: "VirtualRow" });
    const clash = await put({ type: "Run", sport_type: "Ride" });
    expect(clash.status).toBe(400);
    expect(clash.body.errors).toEqual([{ resource: "Activity", field: "sport_type", code: "invalid" }]);
    const after = await s.call("GET", `/v3/activities/${a.id}`, { token: s.people.Ann.token });
    expect(after.body).toMatchObject({ type: "Rowing", sport_type: "VirtualRow" });
  });

  it("on upload: sport_type is kept when the file's sport is its type, else the file's sport wins", async () => {
    const gravel = await upload(s.call, s.people.Ann.token, "fit/garmin-edge500-cycling-hr-cad-pauses.fit", {
      sport_type: "GravelRide",
    });
    const a = await s.call("GET", `/v3/activities/${gravel}`, { token: s.people.Ann.token });
    expect(a.body).toMatchObject({ type: "Ride", sport_type: "GravelRide" });
    const trail = await upload(s.call, s.people.Ann.token, "tcx/fitbit-versa-cycling-hr.tcx", {
      sport_type: "TrailRun",
    });
    const b = await s.call("GET", `/v3/activities/${trail}`, { token: s.people.Ann.token });
    expect(b.body).toMatchObject({ type: "Ride", sport_type: "Ride" });
    // upload_id_str: the upload id as a string, exactly.
    expect(a.body.upload_id_str).toBe(String(a.body.upload_id));
    expect(typeof a.body.upload_id).toBe("number");
    const bad = await upload(s.call, s.people.Ann.token, "gpx/strava-export-running-hr.gpx", {
      sport_type: "Quidditch",
    }).catch((e: Error) => e.message);
    expect(bad).toMatch(/upload answered 400/);
  });

  it("serves hide_from_home (false by default) and takes it on update", async () => {
    const { body: a } = await create({ sport_type: "Ride" });
    expect(a.hide_from_home).toBe(false);
    expect(a.upload_id_str).toBeNull();
    const put = await s.call("PUT", `/v3/activities/${a.id}`, {
      token: s.people.Ann.token,
      form: { hide_from_home: 1 },
    });
    expect(put.body.hide_from_home).toBe(true);
    const read = await s.call("GET", `/v3/activities/${a.id}`, { token: s.people.Ann.token });
    expect(read.body).toMatchObject({ hide_from_home: true, sport_type: "Ride" });
  });

  it("clubs carry activity_types, activity_types_icon and localized_sport_type from their sport", async () => {
    const res = await s.call("POST", "/v3/clubs", {
      token: s.people.Ann.token,
      form: { name: "Trail crew", sport_type: "running" },
    });
    expect(res.status, res.text).toBe(201);
    const club = await s.call("GET", `/v3/clubs/${res.body.id}`, { token: s.people.Ann.token });
    expect(club.body).toMatchObject({
      sport_type: "running",
      localized_sport_type: "Running",
      activity_types_icon: "sports_run_normal",
    });
    // activity_types hold Strava's ActivityType values only (issue 31 item 3): TrailRun is a sport type.
    expect(club.body.activity_types).toEqual(["Run"]);
    for (const t of club.body.activity_types) expect(ACTIVITY_TYPES).toContain(t);
    const mine = await s.call("GET", "/v3/athlete/clubs", { token: s.people.Ann.token });
    expect(mine.body[0]).toMatchObject({ localized_sport_type: "Running" });
  });
});
