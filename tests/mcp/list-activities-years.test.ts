// deno-lint-ignore-file no-explicit-any
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualActivity } from "../../server/activities/commands.ts";
import { parseStartDateLocal } from "../../server/activities/input.ts";
import { requestActor } from "../../server/actor.ts";
import type { Visibility } from "../../shared/visibility.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { mcpClient, mcpGrant, rawMcp } from "./helpers.ts";

/**
 * Issue 43: list_activities at a real athlete's size. Ann has 1,100 activities over five years
 * (more than the 800 the tool used to read per call); an assistant asking for "my runs in 2022" or
 * paging her whole log gets every one, with exact counts — from the searched list read model, over
 * HTTP on /mcp with tokens from the OAuth consent, through the privacy engine: her only_me
 * activities only with activity:read_all on her own token, her followers-only ones to Bob only
 * while he follows her. Every expectation is computed from what the test created, not from the
 * server's answers.
 */

type Kind = { sport: string; trainer?: boolean; commute?: boolean };
const KINDS: Kind[] = [
  { sport: "Run" },
  { sport: "Ride" },
  { sport: "Ride", commute: true },
  { sport: "Swim" },
  { sport: "Walk" },
  { sport: "VirtualRide", trainer: true },
  { sport: "Run", trainer: true },
];

interface Made {
  id: number;
  sport: string;
  name: string;
  localDay: string;
  epoch: number;
  visibility: Visibility;
  commute: boolean;
  trainer: boolean;
}

const COUNT = 1_100;
let server: TestServer;
let ann: TestAthlete, bob: TestAthlete;
let annFull: Client, annRead: Client, bobClient: Client;
let bobToken = "";
const made: Made[] = [];

async function make(local: string, kind: Kind, name: string, visibility: Visibility) {
  const start = parseStartDateLocal(local)!;
  const id = await createManualActivity(server.platform, {
    athleteId: ann.id,
    name,
    sportType: kind.sport as never,
    start,
    elapsedTime: 1800 + made.length,
    distance: 1000 + made.length,
    visibility,
    trainer: kind.trainer ?? false,
    commute: kind.commute ?? false,
  }, requestActor({ athleteId: ann.id, applicationId: ann.applicationId }, `seed-${made.length}`));
  made.push({
    id,
    sport: kind.sport,
    name,
    localDay: local.slice(0, 10),
    epoch: Date.parse(start.startDate) / 1000,
    visibility,
    commute: kind.commute ?? false,
    trainer: kind.trainer ?? false,
  });
}

beforeAll(async () => {
  server = await startTestServer();
  ann = await server.athlete({ firstname: "Ann", lastname: "Years", password: "ann password" });
  bob = await server.athlete({ firstname: "Bob", password: "bob password" });
  // Five years from 2021-01-01, one every ~40 hours, at changing hours; every 13th only_me,
  // every 7th followers_only.
  const first = Date.UTC(2021, 0, 1, 6);
  for (let i = 0; i < COUNT; i++) {
    const at = new Date(first + i * 39.7 * 3600_000).toISOString().slice(0, 19);
    const kind = KINDS[i % KINDS.length];
    const visibility: Visibility = i % 13 === 5 ? "only_me" : i % 7 === 3 ? "followers_only" : "everyone";
    await make(`${at}+01:00`, kind, `${i % 50 === 0 ? "Parkrun" : kind.sport} number ${i}`, visibility);
  }
  // Two runs on either side of New Year by the local day (the UTC day says the opposite).
  await make("2022-12-31T21:00:00-05:00", KINDS[0], "New Year's Eve run", "everyone");
  await make("2023-01-01T00:30:00+02:00", KINDS[0], "New Year's Day run", "everyone");
  annFull = await mcpClient(server.url, (await mcpGrant(server.url, ann.email, "ann password")).accessToken);
  annRead = await mcpClient(server.url, (await mcpGrant(server.url, ann.email, "ann password", "read")).accessToken);
  bobToken = (await mcpGrant(server.url, bob.email, "bob password")).accessToken;
  bobClient = await mcpClient(server.url, bobToken);
}, 600_000);
afterAll(async () => {
  for (const c of [annFull, annRead, bobClient]) await c?.close();
  await server?.close();
});

const call = async (c: Client, args: Record<string, unknown>) => {
  const r = await c.callTool({ name: "list_activities", arguments: args }) as any;
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as {
    activities: { id: number; sport_type: string; start_local: string; name: string }[];
    count: number;
    total: number;
    next_cursor: string | null;
    has_more: boolean;
  };
};

/** Every page of one search through next_cursor; each page's count and total as the first page's. */
async function everyPage(c: Client, args: Record<string, unknown>) {
  const ids: number[] = [];
  let cursor: string | undefined;
  let count = -1, total = -1, pages = 0;
  for (; pages < 200; pages++) {
    const page = await call(c, { ...args, ...(cursor ? { cursor } : {}) });
    if (pages === 0) [count, total] = [page.count, page.total];
    expect([page.count, page.total]).toEqual([count, total]);
    ids.push(...page.activities.map((a) => a.id));
    expect(page.has_more).toBe(page.next_cursor !== null);
    if (!page.next_cursor) return { ids, count, total, pages: pages + 1 };
    cursor = page.next_cursor;
  }
  throw new Error("the pages never ended");
}

/** Ids newest first (start, then id), as the search orders them. */
const newestFirst = (list: Made[]) => [...list].sort((a, b) => b.epoch - a.epoch || b.id - a.id).map((a) => a.id);

describe("list_activities over a real athlete's years (1,102 activities)", () => {
  it("pages every activity exactly once, newest first, by cursor; count and total exact", async () => {
    expect(made.length).toBeGreaterThan(800);
    const all = await everyPage(annFull, { limit: 100 });
    expect(all.ids).toEqual(newestFirst(made));
    expect(new Set(all.ids).size).toBe(made.length);
    expect([all.count, all.total]).toEqual([made.length, made.length]);
    expect(all.pages).toBe(Math.ceil(made.length / 100));
  });

  it("my runs in 2022: exactly the runs of 2022's local days, counted exactly", async () => {
    const runs2022 = made.filter((a) => a.sport === "Run" && a.localDay >= "2022-01-01" && a.localDay <= "2022-12-31");
    expect(runs2022.some((a) => a.name === "New Year's Eve run")).toBe(true);
    expect(runs2022.some((a) => a.name === "New Year's Day run")).toBe(false);
    const got = await everyPage(annFull, { sport_type: "Run", after: "2022-01-01", before: "2022-12-31", limit: 20 });
    expect(got.ids).toEqual(newestFirst(runs2022));
    expect(got.count).toBe(runs2022.length);
    expect(got.total).toBe(made.length);
  });

  it("older clients' page numbers reach every match of a filtered search too", async () => {
    const rides = made.filter((a) => a.sport === "Ride");
    expect(rides.length).toBeGreaterThan(200);
    const ids: number[] = [];
    for (let page = 1; page < 100; page++) {
      const r = await call(annFull, { sport_type: "Ride", page, limit: 50 });
      expect(r.count).toBe(rides.length);
      ids.push(...r.activities.map((a) => a.id));
      if (!r.has_more) break;
    }
    expect(ids).toEqual(newestFirst(rides));
  });

  it("name, commute and indoor filters count exactly", async () => {
    const cases: [Record<string, unknown>, (a: Made) => boolean][] = [
      [{ name_contains: "PARKRUN" }, (a) => a.name.startsWith("Parkrun")],
      [{ commute: true }, (a) => a.commute],
      [{ trainer: true, sport_type: "Run" }, (a) => a.trainer && a.sport === "Run"],
      [{ trainer: false, after: "2025-06-01" }, (a) => !a.trainer && a.localDay >= "2025-06-01"],
    ];
    for (const [args, keep] of cases) {
      const expected = made.filter(keep);
      expect(expected.length, JSON.stringify(args)).toBeGreaterThan(0);
      const got = await everyPage(annFull, { ...args, limit: 100 });
      expect(got.ids, JSON.stringify(args)).toEqual(newestFirst(expected));
      expect(got.count, JSON.stringify(args)).toBe(expected.length);
    }
  });

  it("only_me activities only to Ann's own connection with activity:read_all", async () => {
    const notPrivate = made.filter((a) => a.visibility !== "only_me");
    expect(made.length - notPrivate.length).toBeGreaterThan(50);
    const own = await everyPage(annRead, { limit: 100 });
    expect(own.ids).toEqual(newestFirst(notPrivate));
    expect([own.count, own.total]).toEqual([notPrivate.length, notPrivate.length]);
  });

  it("Bob's connection sees Ann's public activities, her followers-only ones only while he follows her", async () => {
    const everyone = made.filter((a) => a.visibility === "everyone");
    const stranger = await everyPage(bobClient, { athlete_id: ann.id, limit: 100 });
    expect(stranger.ids).toEqual(newestFirst(everyone));
    expect(stranger.total).toBe(everyone.length);
    const runs = everyone.filter((a) => a.sport === "Run" && a.localDay.startsWith("2022"));
    const bobRuns = await everyPage(bobClient, {
      athlete_id: ann.id,
      sport_type: "Run",
      after: "2022-01-01",
      before: "2022-12-31",
    });
    expect([bobRuns.ids, bobRuns.count]).toEqual([newestFirst(runs), runs.length]);
    const followed = await server.api("PUT", `/v3/athletes/${ann.id}/follow`, { token: bob.token });
    expect(followed.status, followed.text).toBeLessThan(300);
    const follower = await everyPage(bobClient, { athlete_id: ann.id, limit: 100 });
    const seen = made.filter((a) => a.visibility !== "only_me");
    expect(follower.ids).toEqual(newestFirst(seen));
    expect(follower.total).toBe(seen.length);
  });

  it("a bad cursor or date is a tool error saying what to change, never a 5xx", async () => {
    for (const args of [{ cursor: "yesterday" }, { after: "2022-13-40" }, { sport_type: "Run; drop" }]) {
      const res = await rawMcp(
        server.url,
        bobToken,
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "list_activities", arguments: args },
        }),
      );
      expect(res.status, JSON.stringify(args)).toBeLessThan(500);
      const body = res.body as any;
      expect(body.error ?? body.result?.isError, JSON.stringify(args)).toBeTruthy();
    }
  });
});
