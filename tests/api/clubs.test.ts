import { DEVICES } from "../helpers/fixtures.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatch } from "../../server/cli/dispatch.ts";
import { startTestServer, type TestAthlete, type TestServer, uploadUntilReady } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ rateLimitShort: 1_000_000, rateLimitLong: 10_000_000 });
});
afterAll(() => server.close());

const cli = (argv: string[]) =>
  dispatch([...argv, "--json"], (fn) => fn(server.platform), { interactive: false, progress: () => {} });

async function createClub(owner: TestAthlete, form: Record<string, string | boolean> = {}) {
  const res = await server.api("POST", "/v3/clubs", { token: owner.token, form: { name: "Club", ...form } });
  expect(res.status).toBe(201);
  return res.body.id as number;
}

async function follow(a: TestAthlete, b: TestAthlete) {
  const out = await cli(["follow", "--athlete", String(a.id), "--target", String(b.id)]);
  expect(out.exitCode).toBe(0);
}

/** A manual activity through POST /v3/activities. */
async function createActivity(
  athlete: TestAthlete,
  startDate: string,
  options: { private?: boolean; name?: string } = {},
) {
  const res = await server.api("POST", "/v3/activities", {
    token: athlete.token,
    form: {
      name: options.name ?? "Ride",
      type: "Ride",
      start_date_local: startDate,
      elapsed_time: 3600,
      distance: 30000,
      private: options.private ? 1 : 0,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

/** A recorded activity: a real device file through POST /v3/uploads and the upload job. */
async function uploadActivity(athlete: TestAthlete, file: string) {
  return uploadUntilReady(server, athlete.token, {
    bytes: readFileSync(join(DEVICES, file)),
    name: file.split("/").pop()!,
    dataType: file.split(".").pop()!,
  });
}

describe("creating clubs", () => {
  it("POST /v3/clubs creates a club owned by the caller, answered in the detailed representation", async () => {
    const owner = await server.athlete({ firstname: "Olga" });
    const res = await server.api("POST", "/v3/clubs", {
      token: owner.token,
      form: {
        name: "Ride Lovers Ghent",
        description: "Sunday rides",
        club_type: "racing_team",
        sport_type: "cycling",
        city: "Ghent",
        country: "Belgium",
        private: false,
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      resource_state: 3,
      name: "Ride Lovers Ghent",
      description: "Sunday rides",
      club_type: "racing_team",
      sport_type: "cycling",
      city: "Ghent",
      country: "Belgium",
      private: false,
      member_count: 1,
      featured: false,
      verified: false,
      owner_id: owner.id,
      following_count: 0,
      url: "ride-lovers-ghent",
      membership: "member",
      admin: true,
      owner: true,
    });
    expect(typeof res.body.profile).toBe("string");
    const again = await server.api("POST", "/v3/clubs", { token: owner.token, form: { name: "Ride Lovers Ghent" } });
    expect(again.body.url).toBe(`ride-lovers-ghent-${again.body.id}`);
  });

  it("refuses bad fields with 400 and a token without write with 401", async () => {
    const owner = await server.athlete();
    const missing = await server.api("POST", "/v3/clubs", { token: owner.token, form: { sport_type: "cycling" } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toContainEqual({ resource: "Club", field: "name", code: "missing" });
    const bad = await server.api("POST", "/v3/clubs", { token: owner.token, form: { name: "X", sport_type: "chess" } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toContainEqual({ resource: "Club", field: "sport_type", code: "invalid" });
    const reader = await server.athlete({ permissions: ["read"] });
    const denied = await server.api("POST", "/v3/clubs", { token: reader.token, form: { name: "X" } });
    expect(denied.status).toBe(401);
    expect(denied.body.errors).toEqual([{ resource: "AccessToken", field: "write_permission", code: "missing" }]);
  });

  it("the CLI creates clubs and invites athletes, printing JSON", async () => {
    const owner = await server.athlete();
    const created = await cli([
      "club",
      "create",
      "--name",
      "Track Club",
      "--owner",
      String(owner.id),
      "--private",
      "--sport-type",
      "running",
      "--club-type",
      "company",
      "--city",
      "Leuven",
      "--country",
      "Belgium",
    ]);
    expect(created.exitCode).toBe(0);
    const { id } = JSON.parse(created.stdout);
    expect(id).toBeGreaterThan(0);
    const detail = await server.api("GET", `/v3/clubs/${id}`, { token: owner.token });
    expect(detail.body).toMatchObject({
      id,
      private: true,
      sport_type: "running",
      club_type: "company",
      city: "Leuven",
      owner: true,
    });
    const guest = await server.athlete();
    const invited = await cli(["club", "invite", "--club", String(id), "--athlete", String(guest.id)]);
    expect(invited.exitCode).toBe(0);
    expect(JSON.parse(invited.stdout)).toMatchObject({ club: id, athlete: guest.id, invited: true });
    const bad = await cli(["club", "create", "--name", "X", "--owner", String(owner.id), "--sport-type", "chess"]);
    expect(bad.exitCode).toBe(1);
    const unknown = await cli(["club", "invite", "--club", "999999", "--athlete", String(guest.id)]);
    expect(unknown.exitCode).toBe(2);
  });

  it("GET /v3/clubs/:id answers 404 for an unknown club and 400 for a bad id", async () => {
    const a = await server.athlete();
    expect((await server.api("GET", "/v3/clubs/987654", { token: a.token })).status).toBe(404);
    const bad = await server.api("GET", "/v3/clubs/abc", { token: a.token });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ resource: "Club", field: "id" });
  });
});

describe("club membership state machine", () => {
  it("public club: join → member; joining again changes nothing; leave → not a member", async () => {
    const owner = await server.athlete();
    const clubId = await createClub(owner);
    const a = await server.athlete();
    const join = await server.api("POST", `/v3/clubs/${clubId}/join`, { token: a.token });
    expect(join.status).toBe(200);
    expect(join.body).toEqual({ success: true, active: true, membership: "member" });
    expect((await server.api("POST", `/v3/clubs/${clubId}/join`, { token: a.token })).body).toEqual({
      success: true,
      active: true,
      membership: "member",
    });
    const detail = await server.api("GET", `/v3/clubs/${clubId}`, { token: a.token });
    expect(detail.body).toMatchObject({ membership: "member", admin: false, owner: false, member_count: 2 });
    const leave = await server.api("POST", `/v3/clubs/${clubId}/leave`, { token: a.token });
    expect(leave.status).toBe(200);
    expect(leave.body).toEqual({ success: true, active: false, membership: null });
    const after = await server.api("GET", `/v3/clubs/${clubId}`, { token: a.token });
    expect(after.body).toMatchObject({ membership: null, admin: false, owner: false, member_count: 1 });
  });

  it("join and leave need write (401) and an existing club (404); the owner cannot leave (403)", async () => {
    const owner = await server.athlete();
    const clubId = await createClub(owner);
    const reader = await server.athlete({ permissions: ["read"] });
    expect((await server.api("POST", `/v3/clubs/${clubId}/join`, { token: reader.token })).status).toBe(401);
    expect((await server.api("POST", `/v3/clubs/${clubId}/leave`, { token: reader.token })).status).toBe(401);
    expect((await server.api("POST", `/v3/clubs/888888/join`, { token: owner.token })).status).toBe(404);
    const leave = await server.api("POST", `/v3/clubs/${clubId}/leave`, { token: owner.token });
    expect(leave.status).toBe(403);
    expect(leave.body.errors).toEqual([{ resource: "Club", field: "athlete", code: "owner" }]);
  });

  it("private club: join → pending; an admin approves (PUT) → member, or declines (DELETE) → not a member", async () => {
    const owner = await server.athlete();
    const clubId = await createClub(owner, { private: true });
    const a = await server.athlete();
    const b = await server.athlete();
    const join = await server.api("POST", `/v3/clubs/${clubId}/join`, { token: a.token });
    expect(join.body).toEqual({ success: true, active: false, membership: "pending" });
    expect((await server.api("GET", `/v3/clubs/${clubId}`, { token: a.token })).body.membership).toBe("pending");
    await server.api("POST", `/v3/clubs/${clubId}/join`, { token: b.token });

    // forbidden moves: a non-admin, a token without write, approving someone who did not ask
    const byStranger = await server.api("PUT", `/v3/clubs/${clubId}/members/${a.id}`, { token: b.token });
    expect(byStranger.status).toBe(403);
    expect(byStranger.body.errors).toEqual([{ resource: "Club", field: "athlete", code: "not admin" }]);
    const readOnly = await server.token(owner.id, owner.applicationId, ["read"]);
    expect((await server.api("PUT", `/v3/clubs/${clubId}/members/${a.id}`, { token: readOnly })).status).toBe(401);
    expect((await server.api("DELETE", `/v3/clubs/${clubId}/members/${a.id}`, { token: readOnly })).status).toBe(401);
    const stranger = await server.athlete();
    const noRequest = await server.api("PUT", `/v3/clubs/${clubId}/members/${stranger.id}`, { token: owner.token });
    expect(noRequest.status).toBe(404);
    expect(noRequest.body.errors).toEqual([{ resource: "Club", field: "athlete_id", code: "no request" }]);
    expect((await server.api("PUT", `/v3/clubs/${clubId}/members/777777`, { token: owner.token })).status).toBe(404);

    const approve = await server.api("PUT", `/v3/clubs/${clubId}/members/${a.id}`, { token: owner.token });
    expect(approve.status).toBe(200);
    expect(approve.body).toMatchObject({
      id: a.id,
      resource_state: 2,
      membership: "member",
      admin: false,
      owner: false,
    });
    expect((await server.api("GET", `/v3/clubs/${clubId}`, { token: a.token })).body).toMatchObject({
      membership: "member",
      member_count: 2,
    });

    const decline = await server.api("DELETE", `/v3/clubs/${clubId}/members/${b.id}`, { token: owner.token });
    expect(decline.status).toBe(200);
    expect(decline.body).toMatchObject({ id: b.id, membership: null });
    expect((await server.api("GET", `/v3/clubs/${clubId}`, { token: b.token })).body.membership).toBe(null);
    // the kept member count: a declined request was never a member (owner + a)
    expect((await server.api("GET", `/v3/clubs/${clubId}`, { token: owner.token })).body.member_count).toBe(2);
    // declined twice: no request any more
    expect((await server.api("DELETE", `/v3/clubs/${clubId}/members/${b.id}`, { token: owner.token })).status).toBe(
      404,
    );
  });

  it("approving in a public club is refused with 400", async () => {
    const owner = await server.athlete();
    const clubId = await createClub(owner);
    const a = await server.athlete();
    const res = await server.api("PUT", `/v3/clubs/${clubId}/members/${a.id}`, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ resource: "Club", field: "private", code: "not private" }]);
  });

  it("an invited athlete joins a private club directly", async () => {
    const owner = await server.athlete();
    const clubId = await createClub(owner, { private: true });
    const guest = await server.athlete();
    await cli(["club", "invite", "--club", String(clubId), "--athlete", String(guest.id)]);
    const join = await server.api("POST", `/v3/clubs/${clubId}/join`, { token: guest.token });
    expect(join.body).toEqual({ success: true, active: true, membership: "member" });
  });

  it("promote (PUT admins) needs an admin caller and a member target; demote never removes the owner", async () => {
    const owner = await server.athlete();
    const clubId = await createClub(owner);
    const a = await server.athlete();
    const b = await server.athlete();
    const outsider = await server.athlete();
    await server.api("POST", `/v3/clubs/${clubId}/join`, { token: a.token });
    await server.api("POST", `/v3/clubs/${clubId}/join`, { token: b.token });

    const notAdmin = await server.api("PUT", `/v3/clubs/${clubId}/admins/${b.id}`, { token: a.token });
    expect(notAdmin.status).toBe(403);
    const notMember = await server.api("PUT", `/v3/clubs/${clubId}/admins/${outsider.id}`, { token: owner.token });
    expect(notMember.status).toBe(400);
    expect(notMember.body.errors).toEqual([{ resource: "Club", field: "athlete_id", code: "not a member" }]);
    const readOnly = await server.token(owner.id, owner.applicationId, ["read"]);
    expect((await server.api("PUT", `/v3/clubs/${clubId}/admins/${a.id}`, { token: readOnly })).status).toBe(401);

    const promote = await server.api("PUT", `/v3/clubs/${clubId}/admins/${a.id}`, { token: owner.token });
    expect(promote.status).toBe(200);
    expect(promote.body).toMatchObject({ id: a.id, membership: "member", admin: true, owner: false });
    expect((await server.api("GET", `/v3/clubs/${clubId}`, { token: a.token })).body.admin).toBe(true);

    // the new admin may promote and demote others, but not the owner
    expect((await server.api("PUT", `/v3/clubs/${clubId}/admins/${b.id}`, { token: a.token })).body.admin).toBe(true);
    const demoteOwner = await server.api("DELETE", `/v3/clubs/${clubId}/admins/${owner.id}`, { token: a.token });
    expect(demoteOwner.status).toBe(403);
    expect(demoteOwner.body.errors).toEqual([{ resource: "Club", field: "athlete_id", code: "owner" }]);
    expect((await server.api("DELETE", `/v3/clubs/${clubId}/admins/${b.id}`, { token: readOnly })).status).toBe(401);
    const demote = await server.api("DELETE", `/v3/clubs/${clubId}/admins/${b.id}`, { token: a.token });
    expect(demote.status).toBe(200);
    expect(demote.body).toMatchObject({ id: b.id, membership: "member", admin: false });
    // a demoted admin can no longer promote
    expect((await server.api("PUT", `/v3/clubs/${clubId}/admins/${b.id}`, { token: b.token })).status).toBe(403);
    const demoteOutsider = await server.api("DELETE", `/v3/clubs/${clubId}/admins/${outsider.id}`, {
      token: owner.token,
    });
    expect(demoteOutsider.status).toBe(400);
  });
});

describe("member and admin lists", () => {
  it("members: those the caller follows first, then by first name; Enhanced Privacy members only for members", async () => {
    const owner = await server.athlete({ firstname: "Mia" });
    const clubId = await createClub(owner);
    const names = ["Zoe", "Bram", "Anna", "Yves", "Carl"];
    const people: Record<string, TestAthlete> = {};
    for (const n of names) {
      people[n] = await server.athlete({ firstname: n });
      await server.api("POST", `/v3/clubs/${clubId}/join`, { token: people[n].token });
    }
    await follow(people.Carl, people.Zoe);
    await follow(people.Carl, people.Yves);
    await follow(people.Zoe, people.Carl); // Zoe follows Carl: Carl's follower, not friend

    const res = await server.api("GET", `/v3/clubs/${clubId}/members`, { token: people.Carl.token });
    expect(res.status).toBe(200);
    expect(res.body.map((m: { firstname: string }) => m.firstname)).toEqual([
      "Yves",
      "Zoe",
      "Anna",
      "Bram",
      "Carl",
      "Mia",
    ]);
    const zoe = res.body.find((m: { id: number }) => m.id === people.Zoe.id);
    expect(zoe).toMatchObject({
      resource_state: 2,
      friend: "accepted",
      follower: "accepted",
      membership: "member",
      admin: false,
      owner: false,
    });
    expect(res.body.find((m: { id: number }) => m.id === owner.id)).toMatchObject({ admin: true, owner: true });

    const paged = await server.api("GET", `/v3/clubs/${clubId}/members`, {
      token: people.Carl.token,
      query: { page: 2, per_page: 4 },
    });
    expect(paged.body.map((m: { firstname: string }) => m.firstname)).toEqual(["Carl", "Mia"]);

    const hidden = await cli(["athlete", "enhanced-privacy", "--athlete", String(people.Anna.id)]);
    expect(hidden.exitCode).toBe(0);
    const outsider = await server.athlete();
    const seenByOutsider = await server.api("GET", `/v3/clubs/${clubId}/members`, { token: outsider.token });
    expect(seenByOutsider.body.map((m: { firstname: string }) => m.firstname)).toEqual([
      "Bram",
      "Carl",
      "Mia",
      "Yves",
      "Zoe",
    ]);
    const seenByMember = await server.api("GET", `/v3/clubs/${clubId}/members`, { token: people.Bram.token });
    expect(seenByMember.body.map((m: { firstname: string }) => m.firstname)).toContain("Anna");
    await cli(["athlete", "enhanced-privacy", "--athlete", String(people.Anna.id), "--off"]);
    const back = await server.api("GET", `/v3/clubs/${clubId}/members`, { token: outsider.token });
    expect(back.body.map((m: { firstname: string }) => m.firstname)).toContain("Anna");
  });

  it("pending requests appear in the member list for admins only", async () => {
    const owner = await server.athlete({ firstname: "Odile" });
    const clubId = await createClub(owner, { private: true });
    const p = await server.athlete({ firstname: "Pending" });
    await server.api("POST", `/v3/clubs/${clubId}/join`, { token: p.token });
    const forAdmin = await server.api("GET", `/v3/clubs/${clubId}/members`, { token: owner.token });
    expect(forAdmin.body).toContainEqual(expect.objectContaining({ id: p.id, membership: "pending" }));
    const forOther = await server.api("GET", `/v3/clubs/${clubId}/members`, { token: p.token });
    expect(forOther.body.map((m: { id: number }) => m.id)).toEqual([owner.id]);
  });

  it("admins: the owner first, then by first name", async () => {
    const owner = await server.athlete({ firstname: "Zeno" });
    const clubId = await createClub(owner);
    const ids: number[] = [];
    for (const n of ["Xavi", "Abel", "Nina"]) {
      const a = await server.athlete({ firstname: n });
      await server.api("POST", `/v3/clubs/${clubId}/join`, { token: a.token });
      if (n !== "Nina") await server.api("PUT", `/v3/clubs/${clubId}/admins/${a.id}`, { token: owner.token });
      ids.push(a.id);
    }
    const res = await server.api("GET", `/v3/clubs/${clubId}/admins`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.map((m: { firstname: string }) => m.firstname)).toEqual(["Zeno", "Abel", "Xavi"]);
    expect(res.body[0]).toMatchObject({ owner: true, admin: true, membership: "member" });
  });

  it("GET /v3/athlete/clubs and the detailed athlete list the clubs the athlete belongs to", async () => {
    const owner = await server.athlete();
    const a = await server.athlete();
    const c1 = await createClub(owner, { name: "Beta Riders" });
    const c2 = await createClub(owner, { name: "Alpha Runners", sport_type: "running" });
    const c3 = await createClub(owner, { name: "Gamma Private", private: true });
    await server.api("POST", `/v3/clubs/${c1}/join`, { token: a.token });
    await server.api("POST", `/v3/clubs/${c2}/join`, { token: a.token });
    await server.api("POST", `/v3/clubs/${c3}/join`, { token: a.token }); // pending: not listed
    const res = await server.api("GET", "/v3/athlete/clubs", { token: a.token });
    expect(res.status).toBe(200);
    expect(res.body.map((c: { id: number }) => c.id)).toEqual([c2, c1]);
    expect(res.body[0]).toMatchObject({
      resource_state: 2,
      name: "Alpha Runners",
      sport_type: "running",
      member_count: 2,
      featured: false,
    });
    expect(res.body[0].description).toBeUndefined();
    const me = await server.api("GET", "/v3/athlete", { token: owner.token });
    expect(me.body.clubs.map((c: { id: number }) => c.id).sort()).toEqual([c1, c2, c3].sort());
    expect(me.body.clubs[0]).toMatchObject({ membership: "member", admin: true, owner: true });
  });
});

describe("GET /v3/clubs/:id/activities", () => {
  it("is for members only; lists members' public activities, latest first; the last 200 only", async () => {
    const owner = await server.athlete({ firstname: "Feed" });
    const clubId = await createClub(owner);
    const member = await server.athlete({ firstname: "Member" });
    const outsider = await server.athlete();
    await server.api("POST", `/v3/clubs/${clubId}/join`, { token: member.token });

    const base = Date.parse("2024-01-01T08:00:00Z");
    const iso = (i: number) => new Date(base + i * 3600_000).toISOString().replace(/\.000Z$/, "Z");
    const ids: number[] = [];
    for (let i = 0; i < 205; i++) ids.push(await createActivity(i % 2 ? owner : member, iso(i), { name: `Ride ${i}` }));
    await createActivity(member, iso(300), { private: true, name: "Private ride" });
    await createActivity(outsider, iso(301), { name: "Outsider ride" });
    const names = ids.map((_, i) => `Ride ${i}`);

    const denied = await server.api("GET", `/v3/clubs/${clubId}/activities`, { token: outsider.token });
    expect(denied.status).toBe(403);
    expect(denied.body.errors).toEqual([{ resource: "Club", field: "membership", code: "not a member" }]);

    const first = await server.api("GET", `/v3/clubs/${clubId}/activities`, { token: member.token });
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(30);
    // The spec's: summary activities with a guid, the athlete a summary athlete.
    expect(first.body[0]).toMatchObject({
      id: ids[204],
      resource_state: 2,
      name: "Ride 204",
      guid: `activity-${ids[204]}`,
      athlete: { id: member.id, resource_state: 2, firstname: "Member", lastname: "Test" },
    });
    // Strava's dialect: its ClubActivity, no id, dates, places or map.
    const strava = await server.api("GET", `/api/v3/clubs/${clubId}/activities`, { token: member.token });
    expect(strava.body).toHaveLength(30);
    expect(strava.body[0]).toEqual({
      resource_state: 2,
      athlete: { resource_state: 2, firstname: "Member", lastname: "T." },
      name: "Ride 204",
      distance: 30000,
      moving_time: 3600,
      elapsed_time: 3600,
      total_elevation_gain: 0,
      type: "Ride",
      sport_type: "Ride",
      workout_type: null,
    });
    expect(first.body.map((a: { name: string }) => a.name)).not.toContain("Private ride");
    expect(first.body.map((a: { name: string }) => a.name)).not.toContain("Outsider ride");

    const all: number[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await server.api("GET", `/v3/clubs/${clubId}/activities`, {
        token: member.token,
        query: { page, per_page: 100 },
      });
      all.push(...res.body.map((a: { name: string }) => a.name));
    }
    expect(all).toHaveLength(200);
    expect(all).toEqual(names.slice(5).reverse());

    const before = await server.api("GET", `/v3/clubs/${clubId}/activities`, {
      token: member.token,
      query: { before: Math.floor(Date.parse(iso(10)) / 1000), per_page: 200 },
    });
    expect(before.body.map((a: { name: string }) => a.name)).toEqual(names.slice(5, 10).reverse());

    const both = await server.api("GET", `/v3/clubs/${clubId}/activities`, {
      token: member.token,
      query: { before: 1, page: 1 },
    });
    expect(both.status).toBe(400);
    expect(both.body.errors).toEqual([
      { resource: "Club", field: "before", code: "cannot be combined" },
      { resource: "Club", field: "page", code: "cannot be combined" },
    ]);
    // Strava's dialect combines them: the window first, then the page inside it.
    const combined = await server.api("GET", `/api/v3/clubs/${clubId}/activities`, {
      token: member.token,
      query: { before: Math.floor(Date.parse(iso(10)) / 1000), page: 2, per_page: 2 },
    });
    expect(combined.body.map((a: { name: string }) => a.name)).toEqual(["Ride 7", "Ride 6"]);

    // privacy changes, renames and deletions reach the feed
    expect(
      (await server.api("PUT", `/v3/activities/${ids[204]}`, { token: member.token, json: { private: true } })).status,
    ).toBe(200);
    expect((await server.api("DELETE", `/v3/activities/${ids[203]}`, { token: owner.token })).status).toBe(204);
    expect(
      (await server.api("PUT", `/v3/activities/${ids[202]}`, { token: member.token, json: { name: "Renamed" } }))
        .status,
    ).toBe(200);
    const after = await server.api("GET", `/v3/clubs/${clubId}/activities`, {
      token: member.token,
      query: { per_page: 2 },
    });
    expect(after.body.map((a: { name: string }) => a.name)).toEqual(["Renamed", "Ride 201"]);

    // leaving removes the member's activities from the feed
    await server.api("POST", `/v3/clubs/${clubId}/leave`, { token: member.token });
    const owners = await server.api("GET", `/v3/clubs/${clubId}/activities`, {
      token: owner.token,
      query: { per_page: 200 },
    });
    expect(owners.body.length).toBeGreaterThan(0);
    expect(owners.body.every((a: { athlete: { firstname: string } }) => a.athlete.firstname === "Feed")).toBe(true);
  }, 120_000);

  it(
    "answers the spec's summary activities (with guid and the summary athlete) on /v3 and Strava's ClubActivity on /api/v3: the summary's name, distance, times and types, the athlete by first name and initial, nothing else",
    async () => {
      const owner = await server.athlete({ firstname: "Shape" });
      const rider = await server.athlete({ firstname: "Rider" });
      const clubId = await createClub(owner);
      await server.api("POST", `/v3/clubs/${clubId}/join`, { token: rider.token });
      await follow(owner, rider);
      const recorded = await uploadActivity(rider, "fit/garmin-edge500-cycling-hr-cad-pauses.fit");
      const manual = await createActivity(rider, "2025-05-01T08:00:00Z", { name: "Manual" });

      const own = await server.api("GET", "/v3/athlete/activities", { token: rider.token, query: { per_page: 200 } });
      const KEYS = [
        "athlete",
        "distance",
        "elapsed_time",
        "moving_time",
        "name",
        "resource_state",
        "sport_type",
        "total_elevation_gain",
        "type",
        "workout_type",
      ];
      for (const token of [rider.token, owner.token]) {
        const spec = await server.api("GET", `/v3/clubs/${clubId}/activities`, { token, query: { per_page: 200 } });
        for (const id of [recorded, manual]) {
          const { athlete: _, ...summary } = own.body.find((a: { id: number }) => a.id === id);
          const { athlete, guid, ...item } = spec.body.find((a: { id: number }) => a.id === id);
          expect(guid).toBe(`activity-${id}`);
          expect(athlete).toMatchObject({ id: rider.id, resource_state: 2, firstname: "Rider" });
          // The same summary as the athlete's own list, but read as the public may see it: places rounded
          // to 2 decimals (the spec's location privacy), the polyline the engine releases to everyone.
          const PLACES = ["start_latlng", "end_latlng", "start_latitude", "start_longitude", "map"];
          expect(Object.keys(item).sort()).toEqual(Object.keys(summary).sort());
          for (const key of Object.keys(summary).filter((k) => !PLACES.includes(k))) {
            expect([key, item[key]]).toEqual([key, summary[key]]);
          }
        }
        const feed = await server.api("GET", `/api/v3/clubs/${clubId}/activities`, { token, query: { per_page: 200 } });
        expect(feed.status).toBe(200);
        expect(feed.body).toHaveLength(2);
        for (const id of [recorded, manual]) {
          const summary = own.body.find((a: { id: number }) => a.id === id);
          expect(summary).toBeDefined();
          const item = feed.body.find((a: { name: string }) => a.name === summary.name);
          expect(Object.keys(item).sort()).toEqual(KEYS);
          expect(item.athlete).toEqual({ resource_state: 2, firstname: "Rider", lastname: "T." });
          for (const key of KEYS.filter((k) => k !== "athlete")) expect([key, item[key]]).toEqual([key, summary[key]]);
        }
      }
      // The recorded ride has places and a map in its summary; the feed carries none of them.
      const recordedSummary = own.body.find((a: { id: number }) => a.id === recorded);
      expect(recordedSummary.start_latlng).toHaveLength(2);
      expect(recordedSummary.map.summary_polyline).toEqual(expect.any(String));
    },
    120_000,
  );
});

describe("replay", () => {
  it("rebuilds every read model identically (cli verify)", async () => {
    const { differences } = await server.platform.projections.verify();
    expect(differences).toEqual([]);
  });
});
