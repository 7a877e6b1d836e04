import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_PAGE, MAX_PER_PAGE } from "../../server/http/input.ts";
import { type DropinServer, startDropinServer, upload } from "../dropin/deno-server.ts";

/**
 * Issue 29 item 8: every paginated route — every operation of /v3/openapi.json with a page or
 * per_page parameter, so a new one is walked without editing this test — answers extreme page and
 * per_page values with a 400 naming the parameter, and the extremes that are in range with a valid
 * answer (an empty page far out), never a 5xx. Over HTTP against the Deno server as it ships, with
 * real resources behind the path ids so the lists are really queried.
 */
let s: DropinServer;
// deno-lint-ignore no-explicit-any
let doc: any;
const ids: Record<string, string> = {};

beforeAll(async () => {
  s = await startDropinServer(["Ann"]);
  const token = s.people.Ann.token;
  const ride = await upload(s.call, token, "fit/garmin-edge1000-cycling-short-3formats.fit");
  const points =
    (await s.call("GET", `/v3/activities/${ride}/streams`, { token, query: { keys: "time", key_by_type: true } })).body
      .time.original_size;
  const segment = await s.call("POST", "/v3/segments", {
    token,
    form: {
      name: "Paged",
      activity_id: ride,
      start_index: Math.floor(points * 0.2),
      end_index: Math.floor(points * 0.8),
    },
  });
  expect(segment.status, segment.text).toBe(201);
  // The same road again: an effort on the segment, so its leaderboard and efforts have entries.
  await upload(s.call, token, "gpx/garmin-connect-edge1000-cycling-short-3formats.gpx");
  const club = await s.call("POST", "/v3/clubs", { token, form: { name: "Paged club", sport_type: "cycling" } });
  expect(club.status, club.text).toBe(201);
  const route = await s.call("POST", "/v3/routes", { token, json: { activity_id: ride, name: "Paged route" } });
  expect(route.status, route.text).toBe(201);
  Object.assign(ids, {
    activities: String(ride),
    athletes: String(s.people.Ann.id),
    segments: String(segment.body.id),
    clubs: String(club.body.id),
    routes: String(route.body.id),
    segment_id: String(segment.body.id),
  });
  doc = (await s.call("GET", "/v3/openapi.json")).body;
}, 300_000);
afterAll(() => s?.close());

interface Paginated {
  path: string;
  query: Record<string, string>;
  names: string[];
}

/** The paginated GET operations of the document, with their path ids and required query parameters filled in. */
function paginated(): Paginated[] {
  const out: Paginated[] = [];
  for (
    const [template, item] of Object.entries(doc.paths) as [
      string,
      { get?: { parameters?: { name: string; in: string; required?: boolean }[] } },
    ][]
  ) {
    const params = item.get?.parameters ?? [];
    const names = params.filter((p) => p.in === "query" && (p.name === "page" || p.name === "per_page")).map((p) =>
      p.name
    );
    if (names.length === 0) continue;
    // /v3/<family>/{id}/…: the id of a real resource of that family (a 404 where there is none, e.g. challenges).
    const family = template.split("/")[2];
    const path = template.replace(/\{[^}]+\}/g, () => ids[family] ?? "1");
    const query: Record<string, string> = {};
    for (const p of params) if (p.in === "query" && p.required) query[p.name] = ids[p.name] ?? "1";
    out.push({ path, query, names });
  }
  return out;
}

const OUT_OF_RANGE: Record<string, string[]> = {
  page: [
    "0",
    "-1",
    "9007199254740991",
    "9007199254740993",
    "1e309",
    "-1e309",
    "1.5",
    "abc",
    "0x10",
    String(MAX_PAGE + 1),
    "",
  ],
  per_page: ["0", "-1", "9007199254740991", "1e309", "1.5", "abc", String(MAX_PER_PAGE + 1), "99999999999999999999"],
};

describe("pagination extremes on every paginated route", () => {
  it("finds the paginated routes in the OpenAPI document", () => {
    const routes = paginated().map((r) => r.path);
    expect(routes.length).toBeGreaterThanOrEqual(15);
    expect(routes).toContain(`/v3/segments/${ids.segments}/leaderboard`);
    expect(routes).toContain("/v3/athlete/activities");
  });

  it("out-of-range page and per_page: 400 naming the parameter, on every route", async () => {
    const failures: string[] = [];
    for (const route of paginated()) {
      for (const name of route.names) {
        for (const value of OUT_OF_RANGE[name]) {
          const res = await s.call("GET", route.path, {
            token: s.people.Ann.token,
            query: { ...route.query, [name]: value },
          });
          const fields = (res.body?.errors ?? []).map((e: { field: string }) => e.field);
          if (res.status !== 400 || !fields.includes(name)) {
            failures.push(`${route.path}?${name}=${value}: ${res.status} ${res.text.slice(0, 200)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("in-range extremes (the last page, the largest per_page, both): a valid answer, an empty page far out", async () => {
    const failures: string[] = [];
    for (const route of paginated()) {
      const cases: Record<string, string>[] = [
        { page: String(MAX_PAGE), per_page: String(MAX_PER_PAGE) },
        { page: "1", per_page: String(MAX_PER_PAGE) },
        { page: String(MAX_PAGE) },
        { per_page: "1" },
      ];
      // A keyset-paged route (the activity search) takes per_page and cursors, no page.
      for (const extreme of cases.filter((c) => !("page" in c) || route.names.includes("page"))) {
        const res = await s.call("GET", route.path, {
          token: s.people.Ann.token,
          query: { ...route.query, ...extreme },
        });
        const label = `${route.path}?${new URLSearchParams(extreme)}: ${res.status} ${res.text.slice(0, 200)}`;
        if (res.status >= 500 || res.status === 400) failures.push(label);
        if (res.status === 200 && extreme.page === String(MAX_PAGE)) {
          // A leaderboard adds the caller's own entry (and its context) to any page: those aside, empty.
          const list = Array.isArray(res.body)
            ? res.body
            : res.body.entries?.filter((e: { athlete_id: number }) => e.athlete_id !== s.people.Ann.id);
          if (!Array.isArray(list) || list.length !== 0) failures.push(`${label}: not an empty page`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it("the segment leaderboard of the issue answers page=9007199254740991 with a 400, and its first page still works", async () => {
    const path = `/v3/segments/${ids.segments}/leaderboard`;
    const res = await s.call("GET", path, { token: s.people.Ann.token, query: { page: "9007199254740991" } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ resource: "Leaderboard", field: "page", code: "invalid" }]);
    const first = await s.call("GET", path, { token: s.people.Ann.token, query: { page: 1, per_page: 200 } });
    expect(first.status).toBe(200);
    expect(first.body.entries.length).toBeGreaterThan(0);
  });
});
