import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DropinServer, startDropinServer } from "./deno-server.ts";
import { DetailedAthlete, SummaryActivity, violations } from "./strava-model.ts";

/**
 * strava-offline's sync (issue 31 item 1) over HTTP against the Deno server, with the requests its
 * StravaAPI builds (strava_offline/strava.py): the athlete for its bikes, then
 * GET /api/v3/athlete/activities?before=<epoch>&per_page=200&page=N with N = 1, 2, … until an empty
 * page (Authorization: Bearer, the OAuth2 session's header). A full sync reads every page; an
 * incremental one stops once it has seen more than 10 activities it already holds (its sqlite upsert).
 */
let s: DropinServer;
const DAY = 86_400;
const FIRST = Date.parse("2024-01-01T08:00:00Z") / 1000;
/** More than one page of 200: page 2 is needed, page 3 is the empty page that ends the sync. */
const COUNT = 203;
const created: number[] = [];

async function createOn(day: number): Promise<number> {
  const start = new Date((FIRST + day * DAY) * 1000).toISOString().replace(/\.000Z$/, "Z");
  const res = await s.call("POST", "/v3/activities", {
    token: s.people.Ann.token,
    form: { name: `Day ${day}`, type: "Ride", start_date_local: start, elapsed_time: 1800, distance: 10_000 },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

beforeAll(async () => {
  s = await startDropinServer(["Ann"]);
  for (let day = 0; day < COUNT; day += 8) {
    const batch = Array.from({ length: Math.min(8, COUNT - day) }, (_, i) => createOn(day + i));
    created.push(...(await Promise.all(batch)));
  }
}, 600_000);
afterAll(() => s?.close());

interface Sync {
  ids: number[];
  urls: string[];
}

/** strava-offline's get_activities and its sqlite upsert: every page until an empty one, or (incremental) > 10 seen. */
async function sync(known: Set<number>, incremental: boolean, before = Math.floor(Date.now() / 1000)): Promise<Sync> {
  const out: Sync = { ids: [], urls: [] };
  let seen = 0;
  for (let page = 1;; page++) {
    const query = { before, per_page: 200, page };
    out.urls.push(
      `/api/v3/athlete/activities?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`,
    );
    const res = await s.call("GET", "/api/v3/athlete/activities", { token: s.people.Ann.token, query });
    expect(res.status, res.text).toBe(200);
    if (res.body.length === 0) return out;
    for (const activity of res.body) {
      expect(violations(activity, SummaryActivity), JSON.stringify(activity)).toEqual([]);
      out.ids.push(activity.id);
      if (known.has(activity.id) && ++seen > 10 && incremental) return out;
    }
  }
}

describe("strava-offline sync", () => {
  it("reads the athlete's bikes as strava-offline does (GET /api/v3/athlete, Bearer)", async () => {
    const res = await s.call("GET", "/api/v3/athlete", { token: s.people.Ann.token });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.bikes)).toBe(true);
    expect(violations(res.body, DetailedAthlete)).toEqual([]);
  });

  it("full sync: before=<now>&per_page=200&page=1,2,3 lists every activity once, newest first, page 3 empty", async () => {
    const full = await sync(new Set(), false);
    expect(full.urls).toHaveLength(3);
    expect(full.urls[1]).toMatch(/^\/api\/v3\/athlete\/activities\?before=\d+&per_page=200&page=2$/);
    expect(full.ids).toHaveLength(COUNT);
    expect(new Set(full.ids).size).toBe(COUNT);
    expect(full.ids).toEqual([...created].reverse());
  });

  it("the time window comes first, then the page within it", async () => {
    // before = the start of day 150: days 0–149 are in the window; page 1 holds 149 … 0 (150 < 200).
    const before = FIRST + 150 * DAY;
    const windowed = await sync(new Set(), false, before);
    expect(windowed.urls).toHaveLength(2);
    expect(windowed.ids).toEqual(created.slice(0, 150).reverse());
    const page2 = await s.call("GET", "/api/v3/athlete/activities", {
      token: s.people.Ann.token,
      query: { before, per_page: 100, page: 2 },
    });
    expect(page2.body.map((a: { id: number }) => a.id)).toEqual(created.slice(0, 50).reverse());
  });

  it("incremental sync after new activities: the new ones first, then it stops on page 1 after 11 known ones", async () => {
    const known = new Set(created);
    const fresh = [await createOn(COUNT), await createOn(COUNT + 1)];
    const incremental = await sync(known, true);
    expect(incremental.urls).toHaveLength(1);
    expect(incremental.ids.slice(0, 2)).toEqual([fresh[1], fresh[0]]);
    expect(incremental.ids.slice(2)).toEqual([...created].reverse().slice(0, 11));
  });
});
