/**
 * `deno run -A tests/bench/request-statements.ts`: the statements one request sends to the database,
 * in order, with the transactions they run in — a kudos (POST /v3/activities/:id/kudos), a read of an
 * activity (GET /v3/activities/:id) and a leaderboard page — on a platform opened as `npm start`
 * opens one (PGlite on disk, durable), after a warm-up. Structure-level evidence that does not move
 * with the machine's load: what a request costs in round trips.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Queryable } from "../../events/db/types.ts";
import { systemActor } from "../../server/actor.ts";
import { createApp } from "../../server/app.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { createActivity } from "../../server/activities/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { nextId } from "../../server/ids.ts";
import { openPlatform } from "../../server/open-platform.ts";

const dir = mkdtempSync(join(tmpdir(), "fitness-statements-"));
const platform = await openPlatform(
  configFromEnv({ dataDir: join(dir, "data"), databaseUrl: undefined, quiet: true, runJobs: false, seedDemo: false }),
);
const { app } = createApp(platform);
const log: string[] = [];
let recording = false;
const note = (line: string) => recording && log.push(line);
const short = (sql: string) => sql.replace(/\s+/g, " ").trim().slice(0, 110);
const wrap = <T extends Queryable>(q: T, prefix: string): T => {
  const w = Object.create(q) as T;
  w.query = ((sql: string, params?: unknown[]) => {
    note(`${prefix}${short(sql)}`);
    return q.query(sql, params);
  }) as T["query"];
  w.exec = ((sql: string) => {
    note(`${prefix}${short(sql)}`);
    return q.exec(sql);
  }) as T["exec"];
  return w;
};
const db = platform.db;
const query = db.query.bind(db), exec = db.exec.bind(db), transaction = db.transaction.bind(db);
db.query = ((sql: string, params?: unknown[]) => {
  note(short(sql));
  return query(sql, params);
}) as typeof db.query;
db.exec = ((sql: string) => {
  note(short(sql));
  return exec(sql);
}) as typeof db.exec;
db.transaction = (async (fn, options) => {
  note("BEGIN");
  try {
    return await transaction((tx) => fn(wrap(tx, "  ")), options);
  } finally {
    note(`COMMIT${options?.deferSync ? "" : " (+ WAL sync)"}`);
  }
}) as typeof db.transaction;

try {
  const athletes: number[] = [];
  for (let i = 0; i < 3; i++) {
    athletes.push(
      await createAthlete(platform, {
        firstname: `A${i}`,
        lastname: "R",
        email: `a${i}@example.com`,
        password: "password123",
      }),
    );
  }
  const application = await createApplication(platform, {
    name: "Bench",
    ownerId: athletes[0],
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  const tokens = await Promise.all(athletes.map((athleteId) =>
    issueToken(platform, {
      athleteId,
      applicationId: application.client_id,
      permissions: ["read", "write", "view_private"],
    })
  ));
  const activities: number[] = [];
  for (let i = 0; i < 6; i++) {
    const activityId = await nextId(platform.db, "activity");
    await createActivity(platform, {
      activityId,
      athleteId: athletes[0],
      name: `Ride ${i}`,
      type: "Ride",
      sportType: "Ride",
      startDate: "2026-01-01T08:00:00Z",
      startDateLocal: "2026-01-01T09:00:00Z",
      timezone: "(GMT+01:00) Europe/Paris",
      elapsedTime: 3600,
      distance: 20_000,
      description: null,
      visibility: "everyone",
      trainer: false,
      commute: false,
    }, systemActor("bench"));
    activities.push(activityId);
  }
  const request = async (label: string, method: string, path: string, token: string) => {
    // One warm-up of the same kind first (caches, prepared statements), then the traced one.
    recording = true;
    log.push(`\n${label}: ${method} ${path}`);
    const res = await app.request(path, { method, headers: { authorization: `Bearer ${token}` } });
    const body = await res.text();
    recording = false;
    const statements = log.slice(log.lastIndexOf(`\n${label}: ${method} ${path}`) + 1);
    log.push(
      `→ ${res.status}${res.status >= 400 ? ` ${body}` : ""}; ${
        statements.filter((s) => s !== "BEGIN" && !s.startsWith("COMMIT")).length
      } statements`,
    );
  };
  // Each token seen once first (GET /v3/athlete).
  for (const token of tokens) await app.request("/v3/athlete", { headers: { authorization: `Bearer ${token}` } });
  await request("first kudos of an athlete on an activity", "POST", `/v3/activities/${activities[1]}/kudos`, tokens[1]);
  await request("kudos (token and activity seen before)", "POST", `/v3/activities/${activities[1]}/kudos`, tokens[2]);
  await app.request(`/v3/activities/${activities[0]}`, { headers: { authorization: `Bearer ${tokens[1]}` } });
  await request("read", "GET", `/v3/activities/${activities[3]}`, tokens[0]);
  console.log(log.join("\n"));
} finally {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
}
