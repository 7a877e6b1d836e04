// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { createChallenge } from "../../server/challenges/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { createSegment } from "../../server/segments/commands.ts";
import { systemActor } from "../../server/actor.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { type Api, api, uploadUntilReady } from "../helpers/http.ts";
import { DEVICES, slice, streamsOf } from "../segments/fixture-track.ts";
import { WebClient } from "../oauth/web-client.ts";
import { signInWith } from "./web-attacks.ts";

/**
 * The attack (docs/proof.md, trust): an athlete's privacy zone hides their home from their maps,
 * but the segment read models copied their efforts out of the activity — so another athlete could
 * read, from a public segment's leaderboard, all_efforts or the effort itself, that the owner
 * started or finished a segment inside the zone (and when). The rule (server/privacy/engine.ts):
 * anything copied out of an activity passes the same privacy rules as a read of the activity —
 * another viewer sees no effort whose start or end lies in the owner's zones; the owner still
 * does. It follows zone changes (a later zone hides old efforts, removing it shows them again) and
 * replay reproduces it (`cli verify`). Over HTTP against the Deno server, PGlite on disk.
 *
 * The activity's web page for another athlete (a follower) lists the efforts the same rule lets
 * through: GET /v3/activities/:id answers the owner only (spec), so the page embeds them
 * (server/web/app/index.ts, server/segments/access.ts `activityEffortsSeenBy`).
 */
const RIDE = "fit/garmin-edge500-cycling-hr-cad-pauses.fit";
const LIMITS = { SEED_DEMO: "0", RATE_LIMIT_SHORT: "1000000", RATE_LIMIT_LONG: "1000000" };

interface Person {
  id: number;
  token: string;
  /** The same athlete through a token without view_private. */
  publicToken: string;
  email: string;
}
let dataDir: string;
let server: DenoServer;
let call: Api;
const people = {} as Record<"ann" | "bob" | "cy", Person>;
const seg = { early: 0, later: 0 };
/** A segment challenge on the early stretch: its board is one more copy of the efforts. */
let challengeId = 0;
let earlyStart: [number, number];

function upload(person: Person): Promise<number> {
  return uploadUntilReady(call, person.token, {
    bytes: readFileSync(join(DEVICES, RIDE)),
    name: "ride.fit",
    dataType: "fit",
  });
}

/** What `viewer` can learn of `owner`'s efforts on a segment, through every read that copies them. */
async function seen(viewer: string, owner: Person, segmentId: number, activityId: number) {
  const board = await call("GET", `/v3/segments/${segmentId}/leaderboard`, { token: viewer });
  expect(board.status).toBe(200);
  const all = await call("GET", `/v3/segments/${segmentId}/all_efforts`, { token: viewer, query: { per_page: 200 } });
  expect(all.status).toBe(200);
  // GET /v3/segment_efforts lists the caller's own efforts only (for others it is always empty).
  const listed = await call("GET", "/v3/segment_efforts", {
    token: viewer,
    query: { segment_id: segmentId, per_page: 200 },
  });
  expect(listed.status).toBe(200);
  // Another athlete's activity detail answers 403 (spec); the owner's tokens read it.
  const detail = await call("GET", `/v3/activities/${activityId}`, {
    token: viewer,
    query: { include_all_efforts: true },
  });
  expect([200, 403]).toContain(detail.status);
  const ownerEfforts = detail.status === 200
    ? (detail.body.segment_efforts as any[]).filter((e) => e.segment.id === segmentId)
    : [];
  const effortIds = (all.body as any[]).filter((e) => e.athlete.id === owner.id).map((e) => String(e.id));
  return {
    board: (board.body.entries as any[]).filter((e) => e.athlete_id === owner.id).length,
    entryCount: board.body.entry_count as number,
    allEfforts: (all.body as any[]).filter((e) => e.athlete.id === owner.id).length,
    segmentEfforts: (listed.body as any[]).filter((e) => e.athlete.id === owner.id).length,
    detail: detail.status === 200 ? ownerEfforts.length : -1,
    effortIds,
  };
}

const webClients = new Map<Person, WebClient>();

/**
 * The segments of the efforts `viewer`'s web page of another athlete's activity lists (the segment
 * efforts the server embeds in the page; the owner's page reads them from the API instead: null).
 */
async function pageEffortSegments(viewer: Person, activityId: number): Promise<number[] | null> {
  let client = webClients.get(viewer);
  if (!client) {
    client = new WebClient(server.url);
    const signedIn = await signInWith(client, viewer.email, "password123");
    expect(signedIn.status, signedIn.text).toBe(303);
    webClients.set(viewer, client);
  }
  const page = await client.get(`/activities/${activityId}`);
  expect(page.status).toBe(200);
  const config = JSON.parse(/<script type="application\/json" id="app-config">(.*?)<\/script>/s.exec(page.text)![1]);
  return config.segmentEfforts ? (config.segmentEfforts as any[]).map((e) => e.segment.id) : null;
}

async function effortStatus(token: string, effortId: string): Promise<number> {
  return (await call("GET", `/v3/segment_efforts/${effortId}`, { token })).status;
}

const activities = { ann: 0, bob: 0, cy: 0 };
let annEarlyEffort = "";

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "fitness-effort-zones-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const ownerId = await createAthlete(setup, {
    firstname: "Own",
    lastname: "Er",
    email: "zones-owner@example.com",
    password: "password123",
  });
  const home = await createApplication(setup, {
    name: "Home",
    ownerId,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
    challengesEnabled: true,
  });
  for (const [key, name] of [["ann", "Ann"], ["bob", "Bob"], ["cy", "Cy"]] as const) {
    const id = await createAthlete(setup, {
      firstname: name,
      lastname: "Zone",
      email: `${key}-zones@example.com`,
      password: "password123",
      sex: "F",
    });
    people[key] = {
      id,
      email: `${key}-zones@example.com`,
      token: await issueToken(setup, {
        athleteId: id,
        applicationId: home.client_id,
        permissions: ["read", "write", "view_private"],
      }),
      publicToken: await issueToken(setup, {
        athleteId: id,
        applicationId: home.client_id,
        permissions: ["read", "write"],
      }),
    };
  }
  const ride = await streamsOf(RIDE);
  const make = async (name: string, i: number, j: number) => {
    const { points, altitudes } = slice(ride, i, j);
    return await createSegment(setup, {
      name,
      activityType: "Ride",
      points,
      altitudes,
      athleteId: null,
      activityId: null,
    }, systemActor("test"));
  };
  seg.early = await make("Early stretch", 2000, 2600);
  seg.later = await make("Later stretch", 6000, 6800);
  earlyStart = slice(ride, 2000, 2600).points[0];
  challengeId = await createChallenge(setup, {
    name: "Early stretch challenge",
    type: "SegmentChallenge",
    dimension: "time",
    goal: 0,
    startDate: "2000-01-01",
    endDate: "2030-12-31",
    segmentId: seg.early,
  }, systemActor("test"));
  await setup.close();
  server = await startDenoServer({ dataDir, env: LIMITS });
  call = api(server.url);
  for (const p of [people.ann, people.bob]) {
    const joined = await call("POST", `/v3/challenges/${challengeId}/athletes`, { token: p.token });
    expect(joined.status, joined.text).toBeLessThan(300);
  }
  activities.ann = await upload(people.ann);
  activities.bob = await upload(people.bob);
  // Bob follows Ann (her activities are visible to everyone: the follower's view is anyone's).
  const follow = await call("PUT", `/v3/athletes/${people.ann.id}/follow`, { token: people.bob.token });
  expect(follow.status, follow.text).toBe(200);
}, 240_000);

/** Whether `viewer` finds `owner` with a time on the segment challenge's leaderboard. */
async function onChallengeBoard(viewer: string, owner: Person): Promise<boolean> {
  const board = await call("GET", `/v3/challenges/${challengeId}/leaderboard`, {
    token: viewer,
    query: { per_page: 50 },
  });
  expect(board.status, board.text).toBe(200);
  return (board.body as { athlete_id: number }[]).some((e) => e.athlete_id === owner.id);
}

afterAll(async () => {
  await server?.stop();
});

describe("efforts starting or ending in the owner's privacy zone (Deno server)", () => {
  it("shows Ann's efforts to Bob before she has a zone (the attack has a target)", async () => {
    const early = await seen(people.bob.token, people.ann, seg.early, activities.ann);
    expect(early).toMatchObject({ board: 1, entryCount: 2, allEfforts: 1 });
    annEarlyEffort = early.effortIds[0];
    expect(await effortStatus(people.bob.token, annEarlyEffort)).toBe(200);
    expect(await onChallengeBoard(people.bob.token, people.ann)).toBe(true);
    // Her activity's page, for Bob who follows her, lists both efforts (the owner's page reads the API).
    expect(await pageEffortSegments(people.bob, activities.ann)).toEqual([seg.early, seg.later]);
    expect(await pageEffortSegments(people.ann, activities.ann)).toBeNull();
  }, 60_000);

  it("hides them from others once a zone covers the effort's start, and keeps showing them to Ann", async () => {
    const zone = await call("POST", "/v3/athlete/privacy_zones", {
      token: people.ann.token,
      form: { lat: earlyStart[0], lng: earlyStart[1], radius: 40 },
    });
    expect(zone.status, zone.text).toBe(201);
    const bob = await seen(people.bob.token, people.ann, seg.early, activities.ann);
    console.log(
      `effort zones: after Ann's zone Bob sees board entries ${bob.board}, all_efforts ${bob.allEfforts}, entry_count ${bob.entryCount}`,
    );
    expect(bob).toMatchObject({ board: 0, entryCount: 1, allEfforts: 0 });
    expect(await effortStatus(people.bob.token, annEarlyEffort)).toBe(404);
    // The segment challenge's board no longer carries Ann's time from that effort; Bob's stays.
    expect(await onChallengeBoard(people.bob.token, people.ann)).toBe(false);
    expect(await onChallengeBoard(people.bob.token, people.bob)).toBe(true);
    // Ann's own token without view_private is "anyone else" for the engine, like her cropped maps.
    expect(await effortStatus(people.ann.publicToken, annEarlyEffort)).toBe(404);
    // The effort whose ends lie outside the zone stays on its board.
    expect((await seen(people.bob.token, people.ann, seg.later, activities.ann)).board).toBe(1);
    // Her activity's page for Bob lists the later effort only.
    expect(await pageEffortSegments(people.bob, activities.ann)).toEqual([seg.later]);
    // The owner with view_private still sees her effort.
    const ann = await seen(people.ann.token, people.ann, seg.early, activities.ann);
    expect(ann).toMatchObject({ allEfforts: 1, segmentEfforts: 1, detail: 1 });
    // Her activity read through a token without view_private omits it, as it crops her map.
    expect(await seen(people.ann.publicToken, people.ann, seg.early, activities.ann)).toMatchObject({
      allEfforts: 0,
      segmentEfforts: 0,
      detail: 0,
    });
    expect(await effortStatus(people.ann.token, annEarlyEffort)).toBe(200);
    // The segment's counters drop the hidden effort too (effort_count / athlete_count).
    const segment = await call("GET", `/v3/segments/${seg.early}`, { token: people.bob.token });
    expect(segment.body.athlete_count).toBe(1);
    expect(segment.body.effort_count).toBe(1);
  }, 60_000);

  it("never shows an effort recorded after the zone exists", async () => {
    const zone = await call("POST", "/v3/athlete/privacy_zones", {
      token: people.cy.token,
      form: { lat: earlyStart[0], lng: earlyStart[1], radius: 40 },
    });
    expect(zone.status).toBe(201);
    activities.cy = await upload(people.cy);
    const bob = await seen(people.bob.token, people.cy, seg.early, activities.cy);
    expect(bob).toMatchObject({ board: 0, entryCount: 1, allEfforts: 0 });
    expect((await seen(people.cy.token, people.cy, seg.early, activities.cy)).allEfforts).toBe(1);
    expect((await seen(people.bob.token, people.cy, seg.later, activities.cy)).board).toBe(1);
  }, 120_000);

  it("shows Ann's effort again when she removes the zone", async () => {
    const zones = await call("GET", "/v3/athlete/privacy_zones", { token: people.ann.token });
    expect(zones.body).toHaveLength(1);
    expect((await call("DELETE", `/v3/athlete/privacy_zones/${zones.body[0].id}`, { token: people.ann.token })).status)
      .toBe(204);
    const bob = await seen(people.bob.token, people.ann, seg.early, activities.ann);
    expect(bob).toMatchObject({ board: 1, entryCount: 2, allEfforts: 1 });
    expect(await effortStatus(people.bob.token, annEarlyEffort)).toBe(200);
    expect(await pageEffortSegments(people.bob, activities.ann)).toEqual([seg.early, seg.later]);
  }, 60_000);

  it("replay reproduces the hidden efforts (cli verify), and a restarted server still hides them", async () => {
    expect(
      (await call("POST", "/v3/athlete/privacy_zones", {
        token: people.ann.token,
        form: { lat: earlyStart[0], lng: earlyStart[1], radius: 40 },
      })).status,
    ).toBe(201);
    await server.stop();
    const verify = await runCli(["verify"], { DATA_DIR: dataDir });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    const replay = await runCli(["replay"], { DATA_DIR: dataDir });
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    server = await startDenoServer({ dataDir, env: LIMITS });
    call = api(server.url);
    for (const owner of [people.ann, people.cy]) {
      const activity = owner === people.ann ? activities.ann : activities.cy;
      expect(await seen(people.bob.token, owner, seg.early, activity)).toMatchObject({ board: 0, allEfforts: 0 });
      expect(await seen(owner.token, owner, seg.early, activity)).toMatchObject({
        allEfforts: 1,
        segmentEfforts: 1,
        detail: 1,
      });
    }
    expect((await seen(people.bob.token, people.ann, seg.early, activities.ann)).entryCount).toBe(1);
  }, 240_000);
});
