import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebClient } from "../oauth/web-client.ts";
import { type DropinServer, startDropinServer } from "./deno-server.ts";
import { runTool, stravaToolsPython, type ToolRun } from "./python/tools.ts";

/**
 * strava-offline 1.1.1 itself (issue #42), unchanged: its `strava-offline sqlite` command run as
 * its users run it — a token file from an earlier authorization, its OAuth2 session refreshing the
 * expired token at /oauth/token, its bikes from GET /api/v3/athlete, then
 * GET /api/v3/athlete/activities?before=<now>&per_page=200&page=N until an empty page — against the
 * server as `npm start` runs it, through strava_here.py (its https://www.strava.com requests sent
 * here). What it stored is read back from its own sqlite database. Full sync, incremental sync
 * (it stops once it has seen more than 10 known activities) and a full sync after a deletion.
 */
const exec = promisify(execFile);
let s: DropinServer;
let python = "";
const dir = mkdtempSync(join(tmpdir(), "strava-offline-"));
const tokenFile = join(dir, "token.json");
const database = join(dir, "strava.sqlite");
const DAY = 86_400;
const FIRST = Date.parse("2024-01-01T08:00:00Z") / 1000;
/** More than one page of 200: page 2 is needed, page 3 is the empty page that ends the sync. */
const COUNT = 203;
const created: number[] = [];
let bike = "";

async function createOn(day: number): Promise<number> {
  const start = new Date((FIRST + day * DAY) * 1000).toISOString().replace(/\.000Z$/, "Z");
  const res = await s.call("POST", "/v3/activities", {
    token: s.people.Ann.token,
    form: {
      name: `Day ${day}`,
      type: day % 2 ? "Ride" : "Run",
      start_date_local: start,
      elapsed_time: 1800,
      distance: 10_000,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

beforeAll(async () => {
  [s, python] = await Promise.all([startDropinServer(["Ann"]), stravaToolsPython()]);
  for (let day = 0; day < COUNT; day += 8) {
    const batch = Array.from({ length: Math.min(8, COUNT - day) }, (_, i) => createOn(day + i));
    created.push(...(await Promise.all(batch)));
  }
  const gear = await s.call("POST", "/v3/gear", {
    token: s.people.Ann.token,
    form: { kind: "bike", name: "Commuter" },
  });
  expect(gear.status, gear.text).toBe(201);
  bike = gear.body.id;
  await s.call("PUT", `/v3/activities/${created[1]}`, { token: s.people.Ann.token, form: { gear_id: bike } });
  // An earlier authorization, as strava-offline's own flow leaves it: Ann approved the application
  // (redirect to its local server, 127.0.0.1:12345/code) and the code was exchanged for tokens.
  const web = new WebClient(s.server.url);
  await web.signIn("ann@example.com", "password123");
  const redirect = await web.authorize({
    client_id: String(s.application.clientId),
    redirect_uri: "http://127.0.0.1:12345/code",
    response_type: "code",
    scope: "read,profile:read_all,activity:read_all",
  });
  const tokens = await s.call("POST", "/oauth/token", {
    form: {
      client_id: s.application.clientId,
      client_secret: s.application.clientSecret,
      code: redirect.searchParams.get("code")!,
      grant_type: "authorization_code",
    },
  });
  expect(tokens.status, tokens.text).toBe(200);
  // Expired an hour ago: the tool's OAuth2 session refreshes it before its first call.
  writeFileSync(
    tokenFile,
    JSON.stringify({
      access_token: tokens.body.access_token,
      refresh_token: tokens.body.refresh_token,
      token_type: "Bearer",
      expires_at: Math.floor(Date.now() / 1000) - 3600,
      expires_in: -3600,
    }),
  );
}, 900_000);
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `strava-offline sqlite` with its options, as its README gives them. */
function sync(full: boolean): Promise<ToolRun> {
  return runTool(python, s.server.url, [
    "-m",
    "strava_offline",
    "sqlite",
    "--client-id",
    String(s.application.clientId),
    "--client-secret",
    s.application.clientSecret,
    "--token-file",
    tokenFile,
    "--database",
    database,
    full ? "--full" : "--no-full",
  ]);
}

/** What strava-offline stored: its sqlite tables, read with Python's sqlite3. */
async function stored(): Promise<
  { activities: { id: number; name: string; gear_id: string | null }[]; bikes: { id: string; name: string }[] }
> {
  const script = `import json, sqlite3
db = sqlite3.connect(${JSON.stringify(database)})
print(json.dumps({
  "activities": [dict(zip(("id", "name", "gear_id"), r)) for r in db.execute("SELECT id, name, gear_id FROM activity ORDER BY start_date DESC")],
  "bikes": [dict(zip(("id", "name"), r)) for r in db.execute("SELECT id, name FROM bike")],
}))`;
  return JSON.parse((await exec(python, ["-c", script], { maxBuffer: 16 * 1024 * 1024 })).stdout);
}

const activityPages = (run: ToolRun) => run.requests.filter((r) => r.includes("/api/v3/athlete/activities"));

describe("strava-offline 1.1.1, unchanged, against this server", () => {
  it(
    "full sync: refreshes the expired token, stores the bikes and every activity once, pages before=<now>&per_page=200&page=1,2,3",
    async () => {
      const before = JSON.parse(readFileSync(tokenFile, "utf8"));
      const run = await sync(true);
      expect(run.requests[0]).toBe("POST https://www.strava.com/oauth/token");
      // Its token_updater saved what /oauth/token answered: a rotated refresh token and the access
      // token's real expiry (the same access token while it has more than an hour left, as Strava's).
      const after = JSON.parse(readFileSync(tokenFile, "utf8"));
      expect(after.refresh_token).not.toBe(before.refresh_token);
      expect(after.expires_at).toBeGreaterThan(Date.now() / 1000 + 3600);
      expect(run.requests[1]).toBe("GET https://www.strava.com/api/v3/athlete");
      const pages = activityPages(run);
      expect(pages).toHaveLength(3);
      pages.forEach((url, i) =>
        expect(url).toMatch(
          new RegExp(
            `^GET https://www\\.strava\\.com/api/v3/athlete/activities\\?before=\\d+&per_page=200&page=${i + 1}$`,
          ),
        )
      );
      const { activities, bikes } = await stored();
      expect(bikes).toEqual([{ id: bike, name: "Commuter" }]);
      expect(activities.map((a) => a.id)).toEqual([...created].reverse());
      expect(activities.find((a) => a.id === created[1])!.gear_id).toBe(bike);
    },
    300_000,
  );

  it(
    "incremental sync after two new activities: the new ones stored, one page read (it stops after 11 known)",
    async () => {
      const fresh = [await createOn(COUNT), await createOn(COUNT + 1)];
      const run = await sync(false);
      expect(activityPages(run)).toHaveLength(1);
      const { activities } = await stored();
      expect(activities.slice(0, 2).map((a) => a.id)).toEqual([fresh[1], fresh[0]]);
      expect(activities).toHaveLength(COUNT + 2);
      created.push(...fresh);
    },
    300_000,
  );

  it(
    "full sync after a deletion and a rename: the deleted activity leaves its database, the new name arrives",
    async () => {
      const gone = created[5];
      expect((await s.call("DELETE", `/v3/activities/${gone}`, { token: s.people.Ann.token })).status).toBe(204);
      await s.call("PUT", `/v3/activities/${created[6]}`, { token: s.people.Ann.token, form: { name: "Renamed" } });
      await sync(true);
      const { activities } = await stored();
      expect(activities.map((a) => a.id)).not.toContain(gone);
      expect(activities).toHaveLength(COUNT + 1);
      expect(activities.find((a) => a.id === created[6])!.name).toBe("Renamed");
    },
    300_000,
  );
});
