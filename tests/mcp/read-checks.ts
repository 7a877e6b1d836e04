// deno-lint-ignore-file no-explicit-any
import { expect } from "vitest";
import type { World } from "./world.ts";

/**
 * Each read tool's answer against the API's answer to the same athlete (tests/mcp/tools.test.ts
 * with a token from the HTTP consent, tests/mcp/clients.test.ts with the SDK's client signed in
 * through Chromium on the Deno server): values copied, renamed and rounded, never recomputed.
 */
export type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
export interface CheckContext {
  call(name: string, args?: Record<string, unknown>): Promise<Result>;
  api(path: string, query?: Record<string, unknown>): Promise<any>;
  world: World;
}

export const READ_CHECKS: Record<string, (t: CheckContext) => Promise<void>> = {
  "get_profile": async ({ call, api, world }) => {
    const r = await call("get_profile");
    const me = await api("/v3/athlete");
    const stats = await api(`/v3/athletes/${world.ann.id}/stats`);
    expect(r.structuredContent.athlete.id).toBe(me.id);
    expect(r.structuredContent.athlete.name).toBe(`${me.firstname} ${me.lastname}`);
    expect(r.structuredContent.athlete.weight_kg).toBe(me.weight);
    expect(r.structuredContent.totals.ride_all.count).toBe(stats.all_ride_totals.count);
    expect(r.structuredContent.totals.ride_all.distance_m).toBeCloseTo(stats.all_ride_totals.distance, 1);
    expect(r.structuredContent.totals.run_ytd.moving_time_s).toBe(stats.ytd_run_totals.moving_time);
    expect(r.content[0].text).toContain(me.firstname);
  },

  "list_activities pages as the API does": async ({ call, api }) => {
    const r = await call("list_activities", { limit: 3 });
    const rows = await api("/v3/athlete/activities", { per_page: 3 });
    expect(r.structuredContent.activities.map((a: { id: number }) => a.id)).toEqual(rows.map((a: any) => a.id));
    const first = r.structuredContent.activities[0], row = rows[0];
    expect(first).toMatchObject({
      name: row.name,
      sport_type: row.sport_type,
      moving_time_s: row.moving_time,
      elapsed_time_s: row.elapsed_time,
      start_local: `${row.start_date_local.slice(0, 10)} ${row.start_date_local.slice(11, 16)}`,
    });
    expect(first.distance_m).toBeCloseTo(row.distance, 1);
    expect(first.time_zone).toBe(row.timezone.replace(/^\([^)]*\)\s*/, ""));
    expect(r.structuredContent.has_more).toBe(true);
  },

  "list_activities searches by sport and name": async ({ call, api, world }) => {
    const r = await call("list_activities", { sport_type: "Run" });
    const all = await api("/v3/athlete/activities", { per_page: 200 });
    const runs = all.filter((a: any) => a.sport_type === "Run");
    expect(runs.length).toBeGreaterThan(0);
    expect(r.structuredContent.activities.map((a: any) => a.id)).toEqual(runs.map((a: any) => a.id));
    const named = await call("list_activities", { name_contains: "private SESSION" });
    expect(named.structuredContent.activities.map((a: any) => a.id)).toEqual([world.annPrivate]);
  },

  "get_activity": async ({ call, api, world }) => {
    const r = await call("get_activity", { id: world.ride });
    const a = await api(`/v3/activities/${world.ride}`);
    const zones = await api(`/v3/activities/${world.ride}/zones`);
    const s = r.structuredContent;
    expect(s.activity.id).toBe(a.id);
    expect(s.laps.length).toBe(a.laps.length);
    expect(s.laps[0].moving_time_s).toBe(a.laps[0].moving_time);
    expect(s.calories_kcal).toBe(a.calories === null ? null : Math.round(a.calories));
    expect(s.segment_effort_count).toBe(a.segment_efforts.length);
    expect(s.zones.map((z: any) => z.type)).toEqual(zones.map((z: any) => z.type));
    expect(s.zones[0].buckets.map((b: any) => b.time_s)).toEqual(zones[0].distribution_buckets.map((b: any) => b.time));
    const run = await call("get_activity", { id: world.run });
    const apiRun = await api(`/v3/activities/${world.run}`);
    expect(run.structuredContent.best_efforts.map((b: any) => [b.name, b.elapsed_time_s])).toEqual(
      apiRun.best_efforts.map((b: any) => [b.name, b.elapsed_time]),
    );
    expect(run.structuredContent.splits_km.map((b: any) => b.moving_time_s)).toEqual(
      apiRun.splits_metric.map((b: any) => b.moving_time),
    );
  },

  "get_activity_streams summarizes the API's streams with units": async ({ call, api, world }) => {
    const r = await call("get_activity_streams", { id: world.ride, points: 20 });
    const s = await api(`/v3/activities/${world.ride}/streams`, { keys: "watts,heartrate", key_by_type: true });
    const watts = s.watts.data as number[], hr = s.heartrate.data as number[];
    expect(r.structuredContent.sample_count).toBe(s.distance.data.length);
    expect(r.structuredContent.points).toBe(20);
    expect(r.structuredContent.streams.watts.unit).toBe("W");
    expect(r.structuredContent.streams.watts.max).toBe(Math.max(...watts));
    expect(r.structuredContent.streams.heartrate.min).toBe(Math.min(...hr));
    const mean = watts.reduce((a, b) => a + b, 0) / watts.length;
    expect(r.structuredContent.streams.watts.mean).toBeCloseTo(mean, 1);
    expect(JSON.stringify(r.structuredContent).length).toBeLessThan(20_000);
  },

  "get_records": async ({ call, api, world }) => {
    const r = await call("get_records");
    const rec = await api(`/v3/athletes/${world.ann.id}/records`);
    expect(r.structuredContent.power_curve.map((p: any) => [p.duration_s, p.watts_w, p.activity_id])).toEqual(
      rec.power_curve.map((p: any) => [p.duration, p.watts, p.activity.id]),
    );
    expect(r.structuredContent.best_efforts.map((b: any) => [b.name, b.elapsed_time_s])).toEqual(
      rec.best_efforts.map((b: any) => [b.name, b.elapsed_time]),
    );
  },

  "get_fitness over a date range": async ({ call, api, world }) => {
    const f = await api(`/v3/athletes/${world.ann.id}/fitness`, { days: 3650 });
    const loaded = f.activities[0].date as string;
    const to = new Date(Date.parse(`${loaded}T00:00:00Z`) + 20 * 86400_000).toISOString().slice(0, 10);
    const r = await call("get_fitness", { from: loaded, to });
    const days = f.days.filter((d: any) => d.date >= loaded && d.date <= to);
    expect(r.structuredContent.days).toEqual(days);
    expect(r.structuredContent.summary.end).toEqual(days.at(-1));
    expect(r.structuredContent.sampling).toBe("daily");
  },

  "segments: explore, get, leaderboard, my efforts": async ({ call, api, world }) => {
    const seg = await api(`/v3/segments/${world.segment}`);
    const [lat, lng] = seg.start_latlng;
    const box = { south: lat - 0.01, west: lng - 0.01, north: lat + 0.01, east: lng + 0.01 };
    const ex = await call("explore_segments", box);
    const apiEx = await api("/v3/segments/explore", { bounds: [box.south, box.west, box.north, box.east].join(",") });
    expect(ex.structuredContent.segments.map((s: any) => s.id)).toEqual(apiEx.segments.map((s: any) => s.id));
    const one = await call("get_segment", { id: world.segment });
    expect(one.structuredContent.segment).toMatchObject({ id: seg.id, name: seg.name });
    expect(one.structuredContent.effort_count).toBe(seg.effort_count);
    expect(one.structuredContent.my_pr?.elapsed_time_s ?? null).toBe(seg.athlete_segment_stats.pr_elapsed_time);
    const board = await call("get_segment_leaderboard", { id: world.segment });
    const apiBoard = await api(`/v3/segments/${world.segment}/leaderboard`);
    expect(board.structuredContent.entries.map((e: any) => [e.rank, e.athlete_id, e.elapsed_time_s])).toEqual(
      apiBoard.entries.map((e: any) => [e.rank, e.athlete_id, e.elapsed_time]),
    );
    const mine = await call("list_my_segment_efforts", { segment_id: world.segment });
    const apiMine = await api("/v3/segment_efforts", { segment_id: world.segment });
    expect(mine.structuredContent.efforts.map((e: any) => String(e.id))).toEqual(apiMine.map((e: any) => String(e.id)));
  },

  "clubs and their feed": async ({ call, api, world }) => {
    const list = await call("list_clubs");
    const apiList = await api("/v3/athlete/clubs");
    expect(list.structuredContent.clubs.map((c: any) => c.id)).toEqual(apiList.map((c: any) => c.id));
    const club = await call("get_club", { id: world.club });
    const apiClub = await api(`/v3/clubs/${world.club}`);
    expect(club.structuredContent.club).toMatchObject({ id: apiClub.id, member_count: apiClub.member_count });
    const feed = await call("get_club_activities", { id: world.club });
    const apiFeed = await api(`/v3/clubs/${world.club}/activities`, { per_page: 20 });
    expect(feed.structuredContent.activities.map((a: any) => [a.name, a.moving_time_s])).toEqual(
      apiFeed.map((a: any) => [a.name, a.moving_time]),
    );
  },

  "routes": async ({ call, api, world }) => {
    const list = await call("list_routes");
    const apiList = await api("/v3/athlete/routes");
    expect(list.structuredContent.routes.map((r: any) => r.id)).toEqual(apiList.map((r: any) => r.id));
    const one = await call("get_route", { id: world.route });
    const apiOne = await api(`/v3/routes/${world.route}`);
    expect(one.structuredContent.route.distance_m).toBeCloseTo(apiOne.distance, 1);
    expect(one.structuredContent.route.name).toBe(apiOne.name);
  },
};
