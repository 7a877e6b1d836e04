import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVICES } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer, uploadUntilReady } from "../helpers/server.ts";

/**
 * The web app's extension endpoints (server/feeds/routes.ts): follow / unfollow through the
 * follow decider, the following feed, another athlete's activities, totals and profile — each list
 * passing the privacy engine (private never, hidden-from-home kept out of others' feeds, privacy
 * zones cropped for the viewer).
 */
let server: TestServer;
let ann: TestAthlete, bob: TestAthlete, cyd: TestAthlete;
const ids: Record<string, number> = {};

async function manual(a: TestAthlete, name: string, day: string, extra: Record<string, string | number> = {}) {
  const res = await server.api("POST", "/v3/activities", {
    token: a.token,
    form: {
      name,
      type: "Ride",
      start_date_local: `2024-05-${day}T10:00:00Z`,
      elapsed_time: 600,
      distance: 1000,
      ...extra,
    },
  });
  expect(res.status, res.text).toBe(201);
  return (ids[name] = res.body.id as number);
}

/** Google's encoded polyline algorithm (as published), to check positions independently. */
function decode(text: string): [number, number][] {
  const out: [number, number][] = [];
  let i = 0, lat = 0, lng = 0;
  while (i < text.length) {
    for (const which of [0, 1]) {
      let shift = 0, result = 0, b: number;
      do {
        b = text.charCodeAt(i++) - 63;
        result |= (b & 0x1f) << shift;
        shift += 5;
      } while (b >= 0x20);
      const d = result & 1 ? ~(result >> 1) : result >> 1;
      if (which === 0) lat += d;
      else lng += d;
    }
    out.push([lat / 1e5, lng / 1e5]);
  }
  return out;
}

const metres = (a: [number, number], b: [number, number]) => {
  const rad = Math.PI / 180, dLat = (b[0] - a[0]) * rad, dLng = (b[1] - a[1]) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
};

beforeAll(async () => {
  server = await startTestServer();
  ann = await server.athlete({ firstname: "Ann", lastname: "Ash" });
  bob = await server.athlete({ firstname: "Bob", lastname: "Birch" });
  cyd = await server.athlete({ firstname: "Cyd", lastname: "Cedar" });
  await manual(ann, "ann-own", "01");
  await manual(bob, "bob-public", "03");
  await manual(bob, "bob-private", "04", { private: 1 });
  await manual(bob, "bob-hidden", "05");
  expect(
    (await server.api("PUT", `/v3/activities/${ids["bob-hidden"]}`, { token: bob.token, form: { hide_from_home: 1 } }))
      .status,
  ).toBe(200);
  await manual(cyd, "cyd-stranger", "06");
}, 120_000);
afterAll(() => server.close());

const names = (body: { name: string }[]) => body.map((a) => a.name);

describe("follow / unfollow", () => {
  it("follows through the decider (an AthleteFollowed event), idempotently, and answers the summary athlete", async () => {
    const before =
      (await server.platform.db.query("select count(*)::int as n from events where type = 'AthleteFollowed'"))[0] as {
        n: number;
      };
    const first = await server.api("PUT", `/v3/athletes/${bob.id}/follow`, { token: ann.token });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      id: bob.id,
      resource_state: 2,
      firstname: "Bob",
      friend: "accepted",
      follower: null,
    });
    expect((await server.api("PUT", `/v3/athletes/${bob.id}/follow`, { token: ann.token })).status).toBe(200);
    const after =
      (await server.platform.db.query("select count(*)::int as n from events where type = 'AthleteFollowed'"))[0] as {
        n: number;
      };
    expect(after.n - before.n).toBe(1);
    const profile = await server.api("GET", `/v3/athletes/${bob.id}/profile`, { token: ann.token });
    expect(profile.body).toMatchObject({
      athlete: { id: bob.id, friend: "accepted", follower: null },
      follower_count: 1,
      friend_count: 0,
    });
    const seenByBob = await server.api("GET", `/v3/athletes/${ann.id}/profile`, { token: bob.token });
    expect(seenByBob.body).toMatchObject({
      athlete: { friend: null, follower: "accepted" },
      follower_count: 0,
      friend_count: 1,
    });
  });

  it("refuses oneself (400), an unknown athlete (404), a token without write (401)", async () => {
    const self = await server.api("PUT", `/v3/athletes/${ann.id}/follow`, { token: ann.token });
    expect(self.status).toBe(400);
    expect(self.body.errors).toEqual([{ resource: "Athlete", field: "target", code: "invalid" }]);
    expect((await server.api("PUT", "/v3/athletes/999999/follow", { token: ann.token })).status).toBe(404);
    const reader = await server.token(ann.id, ann.applicationId, ["read"]);
    expect((await server.api("PUT", `/v3/athletes/${cyd.id}/follow`, { token: reader })).status).toBe(401);
    expect((await server.api("GET", `/v3/athletes/${cyd.id}/profile`, { token: ann.token })).body.athlete.friend)
      .toBeNull();
  });
});

describe("GET /v3/activities/following", () => {
  it("lists one's own and followed athletes' activities newest first; never another's private or hidden one, nor a stranger's", async () => {
    const feed = await server.api("GET", "/v3/activities/following", { token: ann.token });
    expect(feed.status, feed.text).toBe(200);
    expect(names(feed.body)).toEqual(["bob-public", "ann-own"]);
    expect(feed.body[0].athlete).toMatchObject({ id: bob.id, firstname: "Bob", lastname: "Birch", friend: "accepted" });
    expect(feed.body[0].resource_state).toBe(2);
    // Bob's own feed keeps his private and hidden activities (his own), and does not include Ann (he doesn't follow her).
    const bobs = await server.api("GET", "/v3/activities/following", { token: bob.token });
    expect(names(bobs.body)).toEqual(["bob-hidden", "bob-private", "bob-public"]);
  });

  it("pages (page/per_page, before) and stops listing an athlete once unfollowed", async () => {
    expect((await server.api("PUT", `/v3/athletes/${cyd.id}/follow`, { token: ann.token })).status).toBe(200);
    const p1 = await server.api("GET", "/v3/activities/following", {
      token: ann.token,
      query: { per_page: 2, page: 1 },
    });
    const p2 = await server.api("GET", "/v3/activities/following", {
      token: ann.token,
      query: { per_page: 2, page: 2 },
    });
    expect([...names(p1.body), ...names(p2.body)]).toEqual(["cyd-stranger", "bob-public", "ann-own"]);
    const before = Date.parse("2024-05-04T00:00:00Z") / 1000;
    expect(names((await server.api("GET", "/v3/activities/following", { token: ann.token, query: { before } })).body))
      .toEqual(["bob-public", "ann-own"]);
    expect((await server.api("DELETE", `/v3/athletes/${cyd.id}/follow`, { token: ann.token })).body.friend).toBeNull();
    expect(names((await server.api("GET", "/v3/activities/following", { token: ann.token })).body)).toEqual([
      "bob-public",
      "ann-own",
    ]);
  });

  it("crops the followed athlete's privacy zone out of the route the follower sees", async () => {
    const file = "fit/garmin-edge500-cycling-hr-cad-pauses.fit";
    const id = await uploadUntilReady(server, bob.token, {
      bytes: readFileSync(join(DEVICES, file)),
      name: "ride.fit",
      dataType: "fit",
    });
    const own = (await server.api("GET", "/v3/athlete/activities", { token: bob.token })).body.find((
      a: { id: number },
    ) => a.id === id);
    const start = own.start_latlng as [number, number];
    const full = decode(own.map.summary_polyline);
    expect(metres(full[0], start)).toBeLessThan(100);
    expect(
      (await server.api("POST", "/v3/athlete/privacy_zones", {
        token: bob.token,
        form: { lat: start[0], lng: start[1], radius: 400 },
      })).status,
    ).toBe(201);
    const feed = await server.api("GET", "/v3/activities/following", { token: ann.token });
    const seen = feed.body.find((a: { id: number }) => a.id === id);
    expect(seen).toBeDefined();
    const cropped = decode(seen.map.summary_polyline);
    expect(cropped.length).toBeGreaterThan(0);
    expect(cropped.length).toBeLessThan(full.length);
    for (const p of cropped) expect(metres(p, start)).toBeGreaterThan(390);
    const listed = await server.api("GET", `/v3/athletes/${bob.id}/activities`, { token: ann.token });
    for (const p of decode(listed.body.find((a: { id: number }) => a.id === id).map.summary_polyline)) {
      expect(metres(p, start)).toBeGreaterThan(390);
    }
  }, 120_000);
});

describe("another athlete's activities, totals", () => {
  it("lists what the viewer may see: others never get private activities; the owner (view_private) does", async () => {
    const byAnn = await server.api("GET", `/v3/athletes/${bob.id}/activities`, { token: ann.token });
    expect(byAnn.status).toBe(200);
    expect(names(byAnn.body)).not.toContain("bob-private");
    expect(names(byAnn.body)).toEqual(expect.arrayContaining(["bob-public", "bob-hidden"]));
    const byBob = await server.api("GET", `/v3/athletes/${bob.id}/activities`, { token: bob.token });
    expect(names(byBob.body)).toContain("bob-private");
    expect((await server.api("GET", "/v3/athletes/999999/activities", { token: ann.token })).status).toBe(404);
  });

  it("totals count only activities that are not private, for any athlete; /stats stays the athlete's own", async () => {
    const totals = await server.api("GET", `/v3/athletes/${cyd.id}/totals`, { token: ann.token });
    expect(totals.status).toBe(200);
    expect(totals.body.all_ride_totals).toMatchObject({ count: 1, distance: 1000 });
    const bobs = await server.api("GET", `/v3/athletes/${bob.id}/totals`, { token: ann.token });
    // bob-public, bob-hidden and the uploaded ride; bob-private is left out.
    expect(bobs.body.all_ride_totals.count).toBe(3);
    expect((await server.api("GET", `/v3/athletes/${bob.id}/stats`, { token: ann.token })).status).toBe(403);
  });
});

describe("the OpenAPI document", () => {
  it("describes the extensions' answers: the real answers validate against their response schemas, and the schemas can fail", async () => {
    const doc = (await server.api("GET", "/v3/openapi.json")).body;
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema(doc, "openapi.json");
    // The operation's schema by its place in the document, so that its $refs to named models resolve there.
    const schemaOf = (path: string, method: string) => {
      expect(doc.paths[path][method].responses["200"].content["application/json"].schema).toBeDefined();
      const pointer = ["paths", path, method, "responses", "200", "content", "application/json", "schema"]
        .map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
      return { $ref: `openapi.json#/${pointer}` };
    };
    const cases: [string, string, string][] = [
      ["/v3/activities/following", "get", "/v3/activities/following"],
      ["/v3/athletes/{id}/activities", "get", `/v3/athletes/${bob.id}/activities`],
      ["/v3/athletes/{id}/totals", "get", `/v3/athletes/${bob.id}/totals`],
      ["/v3/athletes/{id}/profile", "get", `/v3/athletes/${bob.id}/profile`],
      ["/v3/athletes/{id}/follow", "put", `/v3/athletes/${bob.id}/follow`],
    ];
    for (const [template, method, path] of cases) {
      const validate = ajv.compile(schemaOf(template, method));
      const res = await server.api(method.toUpperCase(), path, { token: ann.token });
      expect(res.status).toBe(200);
      expect(validate(res.body), `${path}: ${JSON.stringify(validate.errors)}`).toBe(true);
      const one = Array.isArray(res.body) ? { ...res.body[0] } : { ...res.body };
      delete one[Object.keys(one).find((k) => k === "id" || k === "athlete" || k.endsWith("_totals"))!];
      expect(validate(Array.isArray(res.body) ? [one] : one), `${path} without a required member`).toBe(false);
    }
    expect(doc.paths["/v3/athletes/{id}/follow"].delete.operationId).toMatch(/^[a-z][A-Za-z]+$/);
  });
});
