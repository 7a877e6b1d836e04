import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import type { Permission } from "../../server/http/auth.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { allRoutes } from "../../server/route-table.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { type Api, api } from "../helpers/http.ts";

/**
 * Other athletes' private attributes (issue #15, item 2), attacked over HTTP on the server as
 * `npm start` runs it: every GET route of the route table, plus the membership moves that answer
 * an athlete, is read by every kind of viewer — the athlete themself (four scope sets), another
 * athlete, another athlete's third-party application (four scope sets), a club member and a
 * non-member. Every athlete object in every answer that is not the viewer's own must carry only
 * the spec's summary fields (Athlete table: id … follower, plus the club membership fields), and
 * no answer may contain another athlete's email or birthdate.
 */
const SUMMARY_FIELDS = new Set([
  // spec/api-v3.md, "Athlete (summary representation, resource_state 2)"
  "id",
  "resource_state",
  "firstname",
  "lastname",
  "profile_medium",
  "profile",
  "city",
  "state",
  "country",
  "sex",
  "premium",
  "created_at",
  "updated_at",
  "friend",
  "follower",
  // Strava's SummaryAthlete: summit, the same subscription flag as premium (issue 31)
  "summit",
  // "membership, admin, owner … appended in club member and admin lists"; Strava's ClubAthlete names the status `member`
  "membership",
  "admin",
  "owner",
  "member",
]);
const SCOPES: Record<string, Permission[]> = {
  public: ["read"],
  write: ["read", "write"],
  view_private: ["read", "view_private"],
  "view_private,write": ["read", "write", "view_private"],
};

interface Person {
  id: number;
  email: string;
  birthdate: string;
  weight: number;
  token: string;
}
let server: DenoServer;
let call: Api;
const people: Record<"ann" | "bob" | "meg" | "ned", Person> = {} as never;
const viewers: { kind: string; athlete: Person; token: string }[] = [];
const ids = { club: 0, club2: 0, annActivity: 0, bobActivity: 0 };

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-athlete-privacy-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const names = {
    ann: ["Ann", "Bell", 77.3, "1981-02-03"],
    bob: ["Bob", "Crane", 64.1, "1979-11-12"],
    meg: ["Meg", "Dale", 58.9, "1990-07-08"],
    ned: ["Ned", "Ford", 91.7, "1969-04-05"],
  } as const;
  const ownerId = await createAthlete(setup, {
    firstname: "Own",
    lastname: "Er",
    email: "app-owner@example.com",
    password: "password123",
  });
  const home = await createApplication(setup, {
    name: "Home",
    ownerId,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  const thirdParty = await createApplication(setup, {
    name: "Third party",
    ownerId,
    callbackDomain: "localhost",
    internal: false,
    kudosEnabled: false,
  });
  for (const [key, [firstname, lastname, weight, birthdate]] of Object.entries(names)) {
    const email = `${key}-secret-mail@example.com`;
    const id = await createAthlete(setup, {
      firstname,
      lastname,
      email,
      password: "password123",
      weight,
      birthdate,
      sex: "F",
    });
    const token = await issueToken(setup, {
      athleteId: id,
      applicationId: home.client_id,
      permissions: ["read", "write", "view_private"],
    });
    people[key as keyof typeof people] = { id, email, birthdate, weight, token };
  }
  for (const [scope, permissions] of Object.entries(SCOPES)) {
    viewers.push({
      kind: `self (${scope})`,
      athlete: people.ann,
      token: await issueToken(setup, { athleteId: people.ann.id, applicationId: home.client_id, permissions }),
    });
  }
  viewers.push({ kind: "other athlete", athlete: people.bob, token: people.bob.token });
  for (const [scope, permissions] of Object.entries(SCOPES)) {
    viewers.push({
      kind: `other athlete's app (${scope})`,
      athlete: people.bob,
      token: await issueToken(setup, { athleteId: people.bob.id, applicationId: thirdParty.client_id, permissions }),
    });
  }
  viewers.push({ kind: "club member", athlete: people.meg, token: people.meg.token });
  viewers.push({ kind: "non-member", athlete: people.ned, token: people.ned.token });
  await setup.close();
  server = await startDenoServer({
    dataDir,
    env: { SEED_DEMO: "0", RATE_LIMIT_SHORT: "1000000", RATE_LIMIT_LONG: "1000000" },
  });
  call = api(server.url);

  const { ann, bob, meg } = people;
  const ok = async (method: string, path: string, token: string, form?: Record<string, string | number>) => {
    const res = await call(method, path, { token, form });
    expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
    return res.body;
  };
  ids.club = (await ok("POST", "/v3/clubs", ann.token, { name: "Ann's club", sport_type: "running" })).id;
  await ok("POST", `/v3/clubs/${ids.club}/join`, meg.token);
  await ok("PUT", `/v3/clubs/${ids.club}/admins/${meg.id}`, ann.token);
  ids.club2 = (await ok("POST", "/v3/clubs", meg.token, { name: "Meg's club", sport_type: "running" })).id;
  await ok("POST", `/v3/clubs/${ids.club2}/join`, ann.token);
  const activity = (name: string) => ({
    name,
    type: "Run",
    start_date_local: "2026-05-02T07:00:00Z",
    elapsed_time: 1800,
    distance: 5000,
  });
  ids.annActivity = (await ok("POST", "/v3/activities", ann.token, activity("Ann's run"))).id;
  ids.bobActivity = (await ok("POST", "/v3/activities", bob.token, activity("Bob's run"))).id;
  await ok("POST", `/v3/activities/${ids.annActivity}/comments`, bob.token, { text: "Nice one" });
  await ok("POST", `/v3/activities/${ids.annActivity}/comments`, ann.token, { text: "Thanks" });
  await ok("POST", `/v3/activities/${ids.annActivity}/kudos`, meg.token);
  await ok("POST", `/v3/activities/${ids.bobActivity}/kudos`, ann.token);
  await ok("POST", `/v3/activities/${ids.bobActivity}/comments`, ann.token, { text: "Well run" });
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

/** Concrete paths for a route path: each parameter filled with every id of its kind. */
function pathsFor(path: string): string[] | undefined {
  const choices = (name: string): (string | number)[] | undefined => {
    if (name === "id" || name === "athlete_id" || name === "club_id" || name === "activity_id") {
      if (path.startsWith("/v3/athletes/")) return [people.ann.id];
      if (path.startsWith("/v3/activities/")) {
        return name === "id" && path.includes(":activity_id") ? [1] : [ids.annActivity, ids.bobActivity];
      }
      if (path.startsWith("/v3/clubs/")) return name === "athlete_id" ? [people.ann.id] : [ids.club, ids.club2];
      return [1];
    }
    if (["map_id", "unique_id", "size", "types"].includes(name)) return [name === "types" ? "latlng" : 1];
    return undefined;
  };
  let out = [path];
  for (const m of path.matchAll(/:(\w+)/g)) {
    const values = choices(m[1]);
    if (!values) return undefined;
    out = out.flatMap((p) => values.map((v) => p.replace(`:${m[1]}`, String(v))));
  }
  return out;
}

/** Every object in a JSON answer that represents an athlete (it carries a first name). */
function athletesIn(value: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(value)) { for (const v of value) athletesIn(v, out); }
  else if (value && typeof value === "object") {
    if ("firstname" in value) out.push(value as Record<string, unknown>);
    for (const v of Object.values(value)) athletesIn(v, out);
  }
  return out;
}

describe("an athlete seen by anyone else carries the spec's summary fields only", () => {
  it("scans every GET route and the membership answers for every viewer kind: 0 private attributes leave", async () => {
    const routes = allRoutes.filter((r) => r.method === "GET" && r.path.startsWith("/v3/"));
    const unfilled = routes.filter((r) => !pathsFor(r.path)).map((r) => r.path);
    expect(unfilled, "every GET route can be probed").toEqual([]);
    const leaks: string[] = [];
    let responses = 0, othersSeen = 0, ownSeen = 0;
    const scan = (kind: string, viewer: Person, label: string, text: string, body: unknown) => {
      responses++;
      for (const person of Object.values(people)) {
        if (person.id === viewer.id) continue;
        if (text.includes(person.email)) leaks.push(`${kind} ${label}: email of athlete ${person.id}`);
        if (text.includes(person.birthdate)) leaks.push(`${kind} ${label}: birthdate of athlete ${person.id}`);
      }
      for (const athlete of athletesIn(body)) {
        if (athlete.id === viewer.id) {
          ownSeen++;
          continue;
        }
        othersSeen++;
        const extra = Object.keys(athlete).filter((k) => !SUMMARY_FIELDS.has(k));
        if (extra.length > 0) {
          leaks.push(`${kind} ${label}: athlete ${athlete.id ?? athlete.firstname} carries ${extra.join(", ")}`);
        }
      }
    };
    // Both dialects: the spec's on /v3, Strava's on /api/v3 (whose club feed shows athletes its own way).
    for (const { kind, athlete, token } of viewers) {
      for (const route of routes) {
        for (const path of pathsFor(route.path)!.flatMap((p) => [p, `/api${p}`])) {
          const res = await call("GET", path, { token });
          expect(res.status, `${kind} GET ${path}: ${res.text}`).toBeLessThan(500);
          scan(kind, athlete, `GET ${path}`, res.text, res.body);
        }
      }
    }
    // The moves that answer an athlete: Meg (admin of her club) promotes and demotes Ann.
    for (const method of ["PUT", "DELETE"]) {
      const res = await call(method, `/v3/clubs/${ids.club2}/admins/${people.ann.id}`, { token: people.meg.token });
      expect(res.status, res.text).toBe(200);
      scan("club admin", people.meg, `${method} admins/${people.ann.id}`, res.text, res.body);
    }

    // The probes can see: the athlete's own token reads her weight, and others were seen at all.
    const self = await call("GET", "/v3/athlete", { token: people.ann.token });
    expect(self.body.weight).toBe(people.ann.weight);
    expect(othersSeen, "athlete objects of others were scanned").toBeGreaterThan(100);
    expect(ownSeen).toBeGreaterThan(0);
    // The club feed: on /v3 the athlete is the spec's summary athlete (as in the member list), on
    // /api/v3 the real service's first name and last initial.
    const feed = await call("GET", `/v3/clubs/${ids.club}/activities`, { token: people.meg.token });
    const summary = feed.body.find((a: { name: string }) => a.name === "Ann's run").athlete;
    expect(Object.keys(summary).every((k) => SUMMARY_FIELDS.has(k))).toBe(true);
    expect(summary).toMatchObject({ id: people.ann.id, firstname: "Ann", lastname: "Bell" });
    const strava = await call("GET", `/api/v3/clubs/${ids.club}/activities`, { token: people.meg.token });
    expect(strava.body.find((a: { name: string }) => a.name === "Ann's run").athlete).toEqual({
      resource_state: 2,
      firstname: "Ann",
      lastname: "B.",
    });

    expect(leaks).toEqual([]);
    console.log(
      `athlete privacy: ${leaks.length} leaks of ${othersSeen} athlete objects of others in ${responses} answers (${routes.length} GET routes + 2 membership moves, ${viewers.length} viewers of 5 kinds)`,
    );
  }, 600_000);
});
