import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode as encodePng } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { challengeCommands } from "../../server/challenges/cli.ts";
import { configFromEnv } from "../../server/config.ts";
import type { Permission } from "../../server/http/auth.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { allRoutes } from "../../server/route-table.ts";
import { segmentCommands } from "../../server/segments/cli.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { DEVICES } from "../helpers/fixtures.ts";
import { type Api, api, uploadUntilReady } from "../helpers/http.ts";
import { eventually, Receiver } from "../webhooks/receiver.ts";

/**
 * Followers-only visibility (issue #47 item 1), walked over HTTP on the server as `npm start` runs it,
 * in both dialects (/v3 and /api/v3).
 * Olive records a ride and a run for her followers only, a ride for herself only and a ride for
 * everyone; Finn follows her, Sam does not. Every GET route of the route table (each id filled with
 * every activity, effort and upload of the fixture), the writes that name an activity (kudos,
 * comments, routes and segments cut from it) and the webhooks to other athletes' applications are
 * read by each viewer — Olive with and without read_all, Finn and his read-only application, Sam
 * and his read-only application, and no token at all. A viewer who may not see an activity finds
 * nothing of it: not its name, not its efforts' ids, no `activity_id` naming it, and a 4xx for every
 * path naming it; totals, records, leaderboards, club feeds and challenges count only what the
 * viewer may see. The probes can see: Finn finds the followers-only ride on each read path that
 * shows an activity to another athlete. Then visibility changes, an unfollow and a follow take
 * effect at once, and `cli verify` finds replay equal to live.
 */

const EVERYONE_FILE = "gpx/strava-export-cycling-power-hr-cad-atemp.gpx";
const FOLLOWERS_FILE = "gpx/garmin-connect-edge1000-cycling-short-3formats.gpx";
const FOLLOWERS_RUN_FILE = "tcx/garmin-fr410-running-hr.tcx";
const ONLY_ME_FILE = "fit/garmin-edge1000-cycling-short-3formats.fit";

type Viewer =
  | "olive (read_all)"
  | "olive (read)"
  | "finn"
  | "finn's app (read)"
  | "sam"
  | "sam's app (read)"
  | "no token";
const VIEWERS: Viewer[] = [
  "olive (read_all)",
  "olive (read)",
  "finn",
  "finn's app (read)",
  "sam",
  "sam's app (read)",
  "no token",
];
const FOLLOWER_VIEWERS: Viewer[] = ["finn", "finn's app (read)"];

/** One of Olive's activities: what marks it in an answer, and who may see it. */
interface Marked {
  label: string;
  name: string;
  id: number;
  uploadId: number;
  effortIds: string[];
  /** Other strings only answers about it carry (its photos' ids). */
  marks: string[];
  seenBy: Set<Viewer>;
}

let server: DenoServer;
let call: Api;
const receiver = new Receiver();
const tokens = {} as Record<Exclude<Viewer, "no token">, string>;
const people = { olive: 0, finn: 0, sam: 0 };
const ids = { segment: 0, club: 0, challenge: 0, heatmap: 0, samRide: 0, finnsApp: 0, thirdApp: 0 };
const acts: Record<"everyone" | "followers" | "followersRun" | "onlyMe", Marked> = {} as never;

const tokenOf = (viewer: Viewer) => (viewer === "no token" ? undefined : tokens[viewer]);

function deviceFile(file: string) {
  return { bytes: readFileSync(join(DEVICES, file)), name: file.split("/").pop()!, dataType: file.split(".").pop()! };
}

/** Points of the GPX track (lat, lon), read here from the file. */
function gpxPoints(file: string): [number, number][] {
  const text = readFileSync(join(DEVICES, file), "utf8");
  return [...text.matchAll(/<trkpt lat="([-\d.]+)" lon="([-\d.]+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
}

async function ok(method: string, path: string, token: string, form?: Record<string, string | number>) {
  const res = await call(method, path, { token, form });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  await receiver.start();
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-followers-only-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const person = (firstname: string) =>
    createAthlete(setup, {
      firstname,
      lastname: "Walker",
      email: `${firstname.toLowerCase()}@example.com`,
      password: "password123",
    });
  people.olive = await person("Olive");
  people.finn = await person("Finn");
  people.sam = await person("Sam");
  const home = await createApplication(setup, {
    name: "Home",
    ownerId: people.olive,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
    challengesEnabled: true,
  });
  // A third-party application that every athlete authorized read-only (a subscriber of its own),
  // and one that only Finn authorized, with read_all (its subscriber must hear nothing of Olive).
  const third = await createApplication(setup, { name: "Third", ownerId: people.sam, callbackDomain: "localhost" });
  const finns = await createApplication(setup, { name: "Finn's", ownerId: people.finn, callbackDomain: "localhost" });
  ids.thirdApp = third.client_id;
  ids.finnsApp = finns.client_id;
  const issue = (athleteId: number, applicationId: number, permissions: Permission[]) =>
    issueToken(setup, { athleteId, applicationId, permissions });
  tokens["olive (read_all)"] = await issue(people.olive, home.client_id, ["read", "write", "view_private"]);
  tokens["olive (read)"] = await issue(people.olive, third.client_id, ["read"]);
  tokens.finn = await issue(people.finn, home.client_id, ["read", "write", "view_private"]);
  tokens["finn's app (read)"] = await issue(people.finn, third.client_id, ["read"]);
  await issue(people.finn, finns.client_id, ["read", "view_private"]);
  tokens.sam = await issue(people.sam, home.client_id, ["read", "write", "view_private"]);
  tokens["sam's app (read)"] = await issue(people.sam, third.client_id, ["read"]);
  // A public segment along the followers-only ride's middle (an operator's, from points).
  const track = gpxPoints(FOLLOWERS_FILE);
  const stretch = track.slice(Math.floor(track.length * 0.3), Math.floor(track.length * 0.6));
  ids.segment = (await segmentCommands[0].run(setup, {
    name: "Walk segment",
    "activity-type": "Ride",
    points: stretch.map(([lat, lng]) => `${lat},${lng}`).join(";"),
  }, { progress() {}, interactive: false }) as { id: number }).id;
  ids.challenge = (await challengeCommands[0].run(setup, {
    name: "Distance for everyone",
    type: "CumulativeChallenge",
    dimension: "distance",
    goal: "1000000",
    start: "2000-01-01",
    end: "2035-12-31",
    "activity-type": "Ride",
  }, { progress() {}, interactive: false }) as { id: number }).id;
  await setup.close();
  server = await startDenoServer({
    dataDir,
    env: { SEED_DEMO: "0", RATE_LIMIT_SHORT: "1000000", RATE_LIMIT_LONG: "1000000", WEBHOOKS_ALLOW_PRIVATE: "1" },
  });
  call = api(server.url);
  for (const [name, app] of [["third", third], ["finns", finns]] as const) {
    const sub = await call("POST", "/v3/push_subscriptions", {
      form: {
        client_id: app.client_id,
        client_secret: app.client_secret,
        callback_url: receiver.hook(name, app.client_secret),
        verify_token: "v",
      },
    });
    expect(sub.status, sub.text).toBe(201);
  }

  const olive = tokens["olive (read_all)"];
  await ok("PUT", `/v3/athletes/${people.olive}/follow`, tokens.finn);
  ids.club = (await ok("POST", "/v3/clubs", olive, { name: "Walkers", sport_type: "cycling" })).id;
  await ok("POST", `/v3/clubs/${ids.club}/join`, tokens.finn);
  await ok("POST", `/v3/clubs/${ids.club}/join`, tokens.sam);
  await ok("POST", `/v3/challenges/${ids.challenge}/athletes`, olive);

  const record = async (
    key: keyof typeof acts,
    file: string,
    name: string,
    visibility: string,
    seenBy: Viewer[],
    fields: Record<string, string> = {},
  ) => {
    const id = await uploadUntilReady(call, olive, deviceFile(file), { name, visibility, ...fields });
    const detail = await ok("GET", `/v3/activities/${id}`, olive);
    expect(detail.visibility).toBe(visibility);
    expect(detail.private).toBe(visibility === "only_me");
    acts[key] = {
      label: `${visibility} ${name}`,
      name,
      id,
      uploadId: detail.upload_id,
      effortIds: (detail.segment_efforts ?? []).map((e: { id: number | string }) => String(e.id)),
      marks: [],
      seenBy: new Set(seenBy),
    };
  };
  const all = [...VIEWERS];
  const followers: Viewer[] = ["olive (read_all)", "olive (read)", ...FOLLOWER_VIEWERS];
  await record("everyone", EVERYONE_FILE, "EVERYONE-RIDE-2K", "everyone", all.filter((v) => v !== "no token"));
  await record("followers", FOLLOWERS_FILE, "FOLLOWERS-ONLY-RIDE-7Q", "followers_only", followers);
  await record("followersRun", FOLLOWERS_RUN_FILE, "FOLLOWERS-ONLY-RUN-7Q", "followers_only", followers, {
    activity_type: "run",
  });
  await record("onlyMe", ONLY_ME_FILE, "ONLY-ME-RIDE-9X", "only_me", ["olive (read_all)"]);
  ids.samRide = await uploadUntilReady(call, tokens.sam, deviceFile(ONLY_ME_FILE), { name: "Sam's ride" });
  expect(acts.followers.effortIds.length, "the followers-only ride rides the segment").toBeGreaterThan(0);
  expect(acts.onlyMe.effortIds.length, "the only-me ride rides the segment").toBeGreaterThan(0);

  // A photo on the followers-only ride: its caption names the ride, its id marks it.
  const form = new FormData();
  const png = encodePng({ width: 64, height: 48, data: new Uint8Array(64 * 48 * 3).fill(120), channels: 3 });
  form.set("file", new Blob([new Uint8Array(png) as Uint8Array<ArrayBuffer>], { type: "image/png" }), "view.png");
  form.set("caption", `${acts.followers.name} view`);
  const photo = await call("POST", `/v3/activities/${acts.followers.id}/photos`, { token: olive, multipart: form });
  expect(photo.status, photo.text).toBe(201);
  acts.followers.marks.push(photo.body.unique_id);

  await ok("POST", `/v3/activities/${acts.followers.id}/kudos`, tokens.finn);
  await ok("POST", `/v3/activities/${acts.followers.id}/comments`, tokens.finn, { text: "Lovely loop" });
  ids.heatmap = (await ok("POST", "/v3/athlete/heatmaps", olive, { activity_type_ids: "1" })).id;
  const built = await eventually(async () => {
    const p = await call("GET", `/v3/athletes/${people.olive}/heatmaps/${ids.heatmap}/progress`, { token: olive });
    return p.body.status === "done" || p.body.status === "error" ? p.body : undefined;
  }, 120_000);
  expect(built.status, built.status_message).toBe("done");
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await receiver.stop();
});

/** Concrete paths for a route path: each parameter filled with every id of its kind in the fixture. */
function pathsFor(path: string): string[] {
  const activities = Object.values(acts).map((a) => a.id);
  const choices = (name: string): (string | number)[] => {
    if (path.startsWith("/v3/activities/")) return name === "activity_id" || name === "id" ? activities : [1];
    if (path.startsWith("/v3/athletes/") || path.startsWith("/v3/athlete/")) {
      if (name === "map_id") return [ids.heatmap];
      return name === "id" && path.includes("imports") ? [1] : [people.olive];
    }
    if (path.startsWith("/v3/clubs/")) return name === "athlete_id" ? [people.olive] : [ids.club];
    if (path.startsWith("/v3/segments/")) return [ids.segment];
    if (path.startsWith("/v3/segment_efforts/")) return Object.values(acts).flatMap((a) => a.effortIds);
    if (path.startsWith("/v3/challenges/")) return [ids.challenge];
    if (path.startsWith("/v3/uploads/")) return Object.values(acts).map((a) => a.uploadId);
    if (name === "types") return ["latlng"];
    return [1];
  };
  let out = [path];
  for (const m of path.matchAll(/:(\w+)/g)) {
    out = out.flatMap((p) => choices(m[1]).map((v) => p.replace(`:${m[1]}`, String(v))));
  }
  return out;
}

const QUERIES: Record<string, Record<string, string | number>> = {
  "/v3/segment_efforts": { segment_id: 0 },
  "/v3/segments/explore": { bounds: "" },
  "/v3/athletes/search": { q: "Olive" },
  "/v3/clubs/search": { q: "Walk" },
  "/v3/challenges/search": { q: "Distance" },
};

/** Whether an answer carries anything of one activity: its name, its efforts' ids, an activity_id naming it. */
function traces(activity: Marked, text: string, body: unknown): string[] {
  const found: string[] = [];
  if (text.includes(activity.name)) found.push("its name");
  for (const e of activity.effortIds) if (text.includes(e)) found.push(`effort ${e}`);
  for (const m of activity.marks) if (text.includes(m)) found.push(`mark ${m}`);
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        if ((k === "activity_id" || k === "object_id") && Number(v) === activity.id) found.push(`${k} ${v}`);
        else walk(v);
      }
    }
  };
  walk(body);
  return found;
}

/** Which of Olive's activities each path names (its id, an effort's or its upload's). */
function namedIn(path: string): Marked[] {
  return Object.values(acts).filter((a) =>
    [`/activities/${a.id}/`, `/uploads/${a.uploadId}`].some((p) => `${path}/`.includes(p) || path.endsWith(p)) ||
    path.endsWith(`/activities/${a.id}`) || a.effortIds.some((e) => path.includes(`/segment_efforts/${e}`))
  );
}

describe("followers-only activities over every read path", () => {
  const leaks: string[] = [];
  /** Per viewer, the paths on which they found each activity (the probes can see). */
  const found = new Map<string, Set<string>>();
  let probes = 0;

  it("walks every GET route as each viewer: nothing of an activity reaches a viewer who may not see it", async () => {
    const segmentBox = await ok("GET", `/v3/segments/${ids.segment}`, tokens.sam);
    const [lat, lng] = segmentBox.start_latlng as [number, number];
    QUERIES["/v3/segment_efforts"].segment_id = ids.segment;
    QUERIES["/v3/segments/explore"].bounds = `${lat - 0.05},${lng - 0.05},${lat + 0.05},${lng + 0.05}`;
    const routes = allRoutes.filter((r) => r.method === "GET" && r.path.startsWith("/v3/"));
    for (const viewer of VIEWERS) {
      for (const route of routes) {
        // Each route in both dialects: the spec's on /v3, Strava's on /api/v3 (the same handlers,
        // other representations).
        for (const path of pathsFor(route.path).flatMap((p) => [p, `/api${p}`])) {
          const res = await call("GET", path, { token: tokenOf(viewer), query: QUERIES[route.path] });
          probes++;
          expect(res.status, `${viewer} GET ${path}: ${res.text}`).toBeLessThan(500);
          for (const activity of Object.values(acts)) {
            // An upload's status is the uploader's own: it names the activity it created (as Strava's
            // upload answers do) to any of the owner's tokens, whether or not the token may read it.
            if (route.path === "/v3/uploads/:id" && viewer.startsWith("olive")) continue;
            const seen = traces(activity, res.text, res.body);
            const named = namedIn(path).includes(activity);
            if (!activity.seenBy.has(viewer)) {
              if (seen.length) leaks.push(`${viewer} GET ${path}: ${activity.label} (${seen.join(", ")})`);
              if (named && res.status < 400) leaks.push(`${viewer} GET ${path}: ${res.status} for ${activity.label}`);
            } else if (seen.length || (named && res.status === 200)) {
              const key = `${viewer}|${activity.name}`;
              found.set(key, (found.get(key) ?? new Set()).add(route.path));
            }
          }
        }
      }
    }
    expect(leaks).toEqual([]);
  }, 900_000);

  it("Finn and his read-only application find the followers-only ride and run where another's activity shows", () => {
    const must = [
      "/v3/athletes/:id/activities",
      "/v3/activities/following",
      "/v3/clubs/:id/activities",
      "/v3/segments/:id/leaderboard",
      "/v3/segment_efforts/:id",
      "/v3/segment_efforts/:id/streams",
      "/v3/activities/:id/streams",
      "/v3/activities/:id/streams/:types",
      "/v3/activities/:id/laps",
      "/v3/activities/:id/comments",
      "/v3/activities/:id/export_gpx",
    ];
    // Routes that need view_private (an effort's streams) answer a read-only token 401 whoever it is.
    const needsReadAll = new Set(allRoutes.filter((r) => r.permission === "view_private").map((r) => r.path));
    for (const viewer of FOLLOWER_VIEWERS) {
      const paths = found.get(`${viewer}|${acts.followers.name}`) ?? new Set();
      const expected = must.filter((p) => viewer === "finn" || !needsReadAll.has(p));
      expect(expected.filter((p) => !paths.has(p)), `${viewer}: the followers-only ride`).toEqual([]);
      // The run holds best efforts: the records Finn reads come from it.
      expect(found.get(`${viewer}|${acts.followersRun.name}`)?.has("/v3/athletes/:id/records"), viewer).toBe(true);
    }
    // Olive's read-only token sees her followers-only ride, not her only-me one.
    expect(found.get(`olive (read)|${acts.followers.name}`)?.has("/v3/athlete/activities")).toBe(true);
    expect(found.get(`olive (read_all)|${acts.onlyMe.name}`)?.has("/v3/athlete/activities")).toBe(true);
  });

  it("counts what each viewer may see in totals, boards and challenges", async () => {
    const totals = async (viewer: Viewer) =>
      (await call("GET", `/v3/athletes/${people.olive}/totals`, { token: tokenOf(viewer) })).body;
    const [finn, sam, oliveAll, oliveRead] = await Promise.all(
      (["finn", "sam", "olive (read_all)", "olive (read)"] as Viewer[]).map(totals),
    );
    expect(sam.all_ride_totals.count).toBe(1);
    expect(sam.all_run_totals.count).toBe(0);
    expect(finn.all_ride_totals.count).toBe(2);
    expect(finn.all_run_totals.count).toBe(1);
    expect(oliveRead.all_ride_totals.count).toBe(2);
    expect(oliveAll.all_ride_totals.count).toBe(3);
    const detail = (a: Marked) => call("GET", `/v3/activities/${a.id}`, { token: tokens["olive (read_all)"] });
    const [everyone, followers] = [await detail(acts.everyone), await detail(acts.followers)];
    expect(finn.all_ride_totals.distance).toBeCloseTo(everyone.body.distance + followers.body.distance, 0);
    expect(sam.all_ride_totals.distance).toBeCloseTo(everyone.body.distance, 0);
    // The athlete's own stats: what her followers see (never only_me).
    const stats = await call("GET", `/v3/athletes/${people.olive}/stats`, { token: tokens["olive (read_all)"] });
    expect(stats.body.all_ride_totals.count).toBe(2);

    const board = async (viewer: Viewer) =>
      (await call("GET", `/v3/segments/${ids.segment}/leaderboard`, { token: tokenOf(viewer) })).body;
    const entries = (b: { entries: { athlete_id: number; activity_id: number }[] }) =>
      b.entries.map((e) => [e.athlete_id, e.activity_id]);
    expect(entries(await board("sam"))).toEqual([[people.sam, ids.samRide]]);
    expect((await board("finn")).entry_count).toBe(2);
    expect(entries(await board("finn"))).toContainEqual([people.olive, acts.followers.id]);
    expect(entries(await board("olive (read)"))).toContainEqual([people.olive, acts.followers.id]);

    // A challenge's board is read by everyone: only activities everyone may see count.
    for (const viewer of ["finn", "olive (read_all)", "sam"] as Viewer[]) {
      const challenge = await call("GET", `/v3/challenges/${ids.challenge}/leaderboard`, { token: tokenOf(viewer) });
      expect(challenge.status, challenge.text).toBe(200);
      const mine = challenge.body.find((e: { athlete_id: number }) => e.athlete_id === people.olive);
      expect([mine.activity_count, mine.activity_id], viewer).toEqual([1, acts.everyone.id]);
      expect(mine.total_dimension, viewer).toBeCloseTo(everyone.body.distance, 0);
    }

    // A heatmap is public: it draws only what everyone may see.
    const map = await call("GET", `/v3/athletes/${people.olive}/heatmaps/${ids.heatmap}`, {
      token: tokens["olive (read_all)"],
    });
    expect(map.body.activities_count).toBe(1);
  }, 120_000);

  it("refuses writes naming an activity the caller may not see, and lets a follower through", async () => {
    const f = acts.followers.id;
    for (const viewer of ["sam", "sam's app (read)"] as Viewer[]) {
      for (
        const [method, path, form] of [
          ["POST", `/v3/activities/${f}/kudos`, undefined],
          ["POST", `/v3/activities/${f}/comments`, { text: "hi" }],
          ["POST", "/v3/routes", { activity_id: f, name: "Copied", private: 1 }],
          ["POST", "/v3/segments", { activity_id: f, name: "Copied", start_index: 10, end_index: 40, private: 1 }],
        ] as const
      ) {
        const res = await call(method, path, { token: tokenOf(viewer), form });
        probes++;
        // A read-only token is refused for want of write (401) before anything is looked up.
        if (res.status < 400 || (res.status !== 404 && res.status !== 401)) {
          leaks.push(`${viewer} ${method} ${path}: ${res.status} ${res.text}`);
        }
        if (res.text.includes(acts.followers.name)) leaks.push(`${viewer} ${method} ${path}: its name`);
      }
    }
    // A follower copies what he may see into his own private route; never into a public one.
    const route = await call("POST", "/v3/routes", {
      token: tokens.finn,
      form: { activity_id: f, name: "Olive's loop", private: 1 },
    });
    expect(route.status, route.text).toBe(201);
    const open = await call("POST", "/v3/routes", { token: tokens.finn, form: { activity_id: f, name: "Open" } });
    expect(open.status).toBe(400);
    expect(leaks).toEqual([]);
  }, 120_000);

  it(
    "tells Olive's read-only application of her shared activities and no other athlete's application of any",
    async () => {
      const third = await eventually(() => {
        const got = receiver.received("third").filter((d) => d.json.owner_id === people.olive);
        return got.length >= 3 ? got : undefined;
      }, 30_000);
      const created = third.map((d) => d.json.object_id).sort();
      expect(created).toEqual([acts.everyone.id, acts.followers.id, acts.followersRun.id].sort());
      // Finn's own application (read_all, his authorization only) hears nothing of Olive's activities.
      await new Promise((r) => setTimeout(r, 1000));
      expect(receiver.received("finns").filter((d) => d.json.owner_id === people.olive)).toEqual([]);
    },
    60_000,
  );

  it("follows visibility changes, an unfollow and a follow at once", async () => {
    const olive = tokens["olive (read_all)"];
    const f = acts.followers;
    const finnSees = async () => {
      const list = await call("GET", `/v3/athletes/${people.olive}/activities`, { token: tokens.finn });
      const club = await call("GET", `/v3/clubs/${ids.club}/activities`, { token: tokens.finn });
      const board = await call("GET", `/v3/segments/${ids.segment}/leaderboard`, { token: tokens.finn });
      const one = await call("GET", `/v3/activities/${f.id}/laps`, { token: tokens.finn });
      const seen = [
        list.text.includes(f.name),
        club.text.includes(f.name),
        board.body.entries.some((e: { activity_id: number }) => e.activity_id === f.id),
        one.status === 200,
      ];
      return seen.every(Boolean) ? "all" : seen.some(Boolean) ? `some ${seen}` : "none";
    };
    expect(await finnSees()).toBe("all");
    const put = await call("PUT", `/v3/activities/${f.id}`, { token: olive, form: { visibility: "only_me" } });
    expect([put.body.visibility, put.body.private]).toEqual(["only_me", true]);
    expect(await finnSees()).toBe("none");
    // private=0 means "not only me": Olive's default (everyone) — then back to followers.
    const opened = await call("PUT", `/v3/activities/${f.id}`, { token: olive, form: { private: 0 } });
    expect(opened.body.visibility).toBe("everyone");
    const conflicting = await call("PUT", `/v3/activities/${f.id}`, {
      token: olive,
      form: { visibility: "followers_only", private: 1 },
    });
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.errors).toEqual([{ resource: "Activity", field: "private", code: "invalid" }]);
    await ok("PUT", `/v3/activities/${f.id}`, olive, { visibility: "followers_only" });
    expect(await finnSees()).toBe("all");
    await ok("DELETE", `/v3/athletes/${people.olive}/follow`, tokens.finn);
    expect(await finnSees()).toBe("none");
    const totals = await call("GET", `/v3/athletes/${people.olive}/totals`, { token: tokens.finn });
    expect(totals.body.all_ride_totals.count).toBe(1);
    await ok("PUT", `/v3/athletes/${people.olive}/follow`, tokens.finn);
    expect(await finnSees()).toBe("all");
  }, 120_000);

  it("filters a segment's board by club and by following with the same rule", async () => {
    // The walk reads the board unfiltered; the club and following filters rank from other queries.
    const board = async (viewer: Viewer, query: Record<string, string | number>) => {
      const res = await call("GET", `/v3/segments/${ids.segment}/leaderboard`, { token: tokenOf(viewer), query });
      probes++;
      expect(res.status, res.text).toBe(200);
      return (res.body.entries as { activity_id: number }[]).map((e) => e.activity_id);
    };
    const club = { club_id: ids.club }, following = { following: "true" };
    const f = acts.followers.id, hidden = acts.onlyMe.id;
    // Sam, a member who does not follow Olive: her followers-only effort is on neither board.
    expect(await board("sam", club)).toEqual([ids.samRide]);
    expect(await board("sam", following)).toEqual([ids.samRide]); // the board of those he follows holds him too
    // Finn, a member who follows her: on both; her only-me effort on neither.
    for (const q of [club, following]) {
      const seen = await board("finn", q);
      expect(seen, JSON.stringify(q)).toContain(f);
      expect(seen, JSON.stringify(q)).not.toContain(hidden);
    }
    expect(await board("finn's app (read)", club)).toContain(f);
  }, 60_000);

  it("compares an effort with a followers-only one only while its athlete is followed", async () => {
    // The walk reads /v3/segments/:id/compare without effort_ids (a 400): here with two efforts.
    const sams = await ok("GET", `/v3/activities/${ids.samRide}`, tokens.sam);
    const mine = String(sams.segment_efforts.find((e: { segment: { id: number } }) => e.segment.id === ids.segment).id);
    const compare = async (other: string) => {
      const res = await call("GET", `/v3/segments/${ids.segment}/compare`, {
        token: tokens.sam,
        query: { effort_ids: `${mine},${other}` },
      });
      probes++;
      if (res.text.includes(acts.followers.name)) leaks.push(`sam compare ${other}: its name`);
      return res.status;
    };
    const followers = acts.followers.effortIds[0], onlyMe = acts.onlyMe.effortIds[0];
    expect([await compare(followers), await compare(onlyMe)]).toEqual([404, 404]);
    await ok("PUT", `/v3/athletes/${people.olive}/follow`, tokens.sam);
    expect([await compare(followers), await compare(onlyMe)]).toEqual([200, 404]);
    await ok("DELETE", `/v3/athletes/${people.olive}/follow`, tokens.sam);
    expect([await compare(followers), await compare(onlyMe)]).toEqual([404, 404]);
    expect(leaks).toEqual([]);
  }, 60_000);

  it("replays to the same read models (cli verify)", async () => {
    const dataDir = server.dataDir;
    await server.stop();
    const verify = await runCli(["verify"], { DATA_DIR: dataDir });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/read-model tables rebuilt from \d+ events are equal to the live ones/);
    console.log(
      `followers-only: ${leaks.length} leaks of ${probes} probes (${VIEWERS.length} viewers over every GET route on /v3 and /api/v3 and 4 writes; ` +
        `${[...found.keys()].filter((k) => k.startsWith("finn|")).length} of Olive's activities found by her follower)`,
    );
  }, 300_000);
});
