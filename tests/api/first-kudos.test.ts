import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "../../server/actor.ts";
import { createApp } from "../../server/app.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createManualActivity, deleteActivity, giveKudos } from "../../server/activities/commands.ts";
import { createAthlete, followAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import type { Platform } from "../../server/platform.ts";
import type { Visibility } from "../../shared/visibility.ts";

/**
 * A first kudos (issue 44): a server that has not seen the activity yet (its owner and visibility
 * not in memory, its stream never folded here) gives it in one statement — as the bench's kudos
 * mostly are. Every refusal still answers as the ordinary path does (404 invisible or deleted, 403
 * own, 409 twice), and what is written replays to the same read models.
 */
describe("a first kudos on an activity this server has not seen", () => {
  const dir = mkdtempSync(join(tmpdir(), "fitness-first-kudos-"));
  const config = configFromEnv({ dataDir: join(dir, "data"), databaseUrl: undefined, quiet: true, seedDemo: false });
  let platform: Platform;
  let app: ReturnType<typeof createApp>["app"];
  const token: Record<"owner" | "fan" | "follower", string> = { owner: "", fan: "", follower: "" };
  const act: Record<"everyone" | "twice" | "onlyMe" | "followers" | "deleted" | "crowd", number> = {
    everyone: 0,
    twice: 0,
    onlyMe: 0,
    followers: 0,
    deleted: 0,
    crowd: 0,
  };

  beforeAll(async () => {
    // Written by a first server…
    const first = await openPlatform(config);
    const ids: Record<keyof typeof token, number> = { owner: 0, fan: 0, follower: 0 };
    for (const name of Object.keys(ids) as (keyof typeof token)[]) {
      ids[name] = await createAthlete(first, {
        firstname: name,
        lastname: "K",
        email: `${name}@example.com`,
        password: "password123",
      });
    }
    const application = await createApplication(first, {
      name: "Kudos",
      ownerId: ids.owner,
      callbackDomain: "localhost",
      internal: true,
      kudosEnabled: true,
    });
    for (const name of Object.keys(ids) as (keyof typeof token)[]) {
      token[name] = await issueToken(first, {
        athleteId: ids[name],
        applicationId: application.client_id,
        permissions: ["read", "write"],
      });
    }
    await followAthlete(first, ids.follower, ids.owner, systemActor("test"));
    const ride = (name: string, visibility: Visibility) =>
      createManualActivity(first, {
        athleteId: ids.owner,
        name,
        type: "Ride",
        start: {
          startDate: "2026-05-01T08:00:00Z",
          startDateLocal: "2026-05-01T08:00:00Z",
          timezone: "(GMT+00:00) UTC",
        },
        elapsedTime: 3600,
        visibility,
      }, systemActor("test"));
    act.everyone = await ride("Everyone", "everyone");
    act.twice = await ride("Twice", "everyone");
    act.onlyMe = await ride("Only me", "only_me");
    act.followers = await ride("Followers", "followers_only");
    act.deleted = await ride("Deleted", "everyone");
    act.crowd = await ride("Crowd", "everyone");
    await giveKudos(first, act.twice, ids.fan, systemActor("test"));
    await deleteActivity(first, act.deleted, ids.owner, systemActor("test"));
    await first.close();
    // …served by the next one, which has seen none of it.
    platform = await openPlatform(config);
    app = createApp(platform).app;
    // Each token seen once (the token cache is not what this test is about).
    for (const t of Object.values(token)) {
      await app.request("/v3/athlete", { headers: { authorization: `Bearer ${t}` } });
    }
  }, 120_000);

  afterAll(async () => {
    await platform?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A kudos over HTTP, with the statements the database received for it. */
  async function kudos(activityId: number, who: keyof typeof token) {
    const statements: string[] = [];
    const db = platform.db;
    const query = db.query, exec = db.exec, transaction = db.transaction;
    db.query = ((sql: string, params?: unknown[]) => {
      statements.push(sql);
      return query.call(db, sql, params);
    }) as typeof db.query;
    db.exec = ((sql: string) => {
      statements.push(sql);
      return exec.call(db, sql);
    }) as typeof db.exec;
    db.transaction = ((fn, options) => {
      statements.push("transaction");
      return transaction.call(db, fn, options);
    }) as typeof db.transaction;
    try {
      const res = await app.request(`/v3/activities/${activityId}/kudos`, {
        method: "POST",
        headers: { authorization: `Bearer ${token[who]}` },
      });
      return { status: res.status, body: await res.json(), statements };
    } finally {
      db.query = query;
      db.exec = exec;
      db.transaction = transaction;
    }
  }

  it("is one statement (the append, the kudos row and count, the checkpoint)", async () => {
    const given = await kudos(act.everyone, "fan");
    expect(given.status).toBe(201);
    expect(given.statements).toHaveLength(1);
    expect(given.statements[0]).toMatch(/insert into events[\s\S]*insert into activity_kudos/);
    // On a followers-only activity by a follower too (the follow read in the same statement).
    const followed = await kudos(act.followers, "follower");
    expect(followed.status).toBe(201);
    expect(followed.statements).toHaveLength(1);
  });

  it("refuses as the ordinary path does: twice 409, own 403, only_me / followers-only / deleted 404", async () => {
    const twice = await kudos(act.twice, "fan");
    expect([twice.status, twice.body.errors]).toEqual([409, [{
      resource: "Kudos",
      field: "athlete",
      code: "already exists",
    }]]);
    const own = await kudos(act.crowd, "owner");
    expect([own.status, own.body.errors]).toEqual([403, [{
      resource: "Kudos",
      field: "athlete",
      code: "own activity",
    }]]);
    for (const [id, who] of [[act.onlyMe, "fan"], [act.followers, "fan"], [act.deleted, "fan"]] as const) {
      const refused = await kudos(id, who);
      expect(refused.status).toBe(404);
      expect(refused.body.errors).toEqual([{ resource: "Activity", field: "id", code: "invalid" }]);
    }
    // Nothing was written by a refusal; a second kudos of the same athlete is refused too.
    expect((await kudos(act.everyone, "fan")).status).toBe(409);
    const counts = await platform.db.query<{ id: number; kudos_count: number }>(
      "select id, kudos_count from activities where id = any($1::bigint[]) order by id",
      [[act.everyone, act.twice, act.onlyMe, act.followers, act.crowd]],
    );
    expect(counts.map((r) => r.kudos_count)).toEqual([1, 1, 0, 1, 0]);
  });

  it("concurrent first kudos on one activity: each counted once, replay equals live", async () => {
    const results = await Promise.all([
      kudos(act.crowd, "fan"),
      kudos(act.crowd, "follower"),
      kudos(act.crowd, "fan"),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 409]);
    const [row] = await platform.db.query<{ kudos_count: number }>("select kudos_count from activities where id = $1", [
      act.crowd,
    ]);
    expect(row.kudos_count).toBe(2);
    const { differences } = await platform.projections.verify();
    expect(differences).toEqual([]);
  }, 60_000);

  it("checks the stream's events on the stream's index only, never on an index of the whole log's types", async () => {
    // A log where KudosGiven is common (as on a real server): 400 kudos on other streams, appended
    // after the planner's statistics were taken (a log grown since the runner's last ANALYZE).
    await platform.db.exec("analyze events");
    for (let i = 0; i < 400; i++) {
      await platform.db.query(
        `insert into events (stream_id, stream_version, type, schema_version, data)
         values ($1, 1, 'KudosGiven', 1, $2::jsonb)`,
        [`activity-elsewhere-${i}`, JSON.stringify({ activityId: 10_000_000 + i, athleteId: 1 })],
      );
    }
    // The route's statement for a first kudos, with its parameters.
    let captured: { sql: string; params: unknown[] } | undefined;
    const db = platform.db, query = db.query;
    db.query = ((sql: string, params?: unknown[]) => {
      if (sql.includes("insert into activity_kudos")) captured ??= { sql, params: params ?? [] };
      return query.call(db, sql, params);
    }) as typeof db.query;
    try {
      expect((await kudos(act.followers, "fan")).status).toBe(404); // refused: the statement ran, wrote nothing
    } finally {
      db.query = query;
    }
    expect(captured).toBeDefined();
    // Every read of the log in it is by the stream alone: filtered by type too, the planner may
    // combine the stream's index with events_type and read every KudosGiven of the log
    // (tests/bench/kudos-parts.ts EXPLAIN=1 showed it on a fresh server: 601 index entries read).
    expect(captured!.sql).toMatch(/from events e where e\.stream_id = \$1::text\)/);
    expect(captured!.sql).not.toMatch(/from events e where e\.stream_id = \$1::text\s+and/);
    // Its plan as the server runs it (a generic plan); explained, it writes nothing (refused again).
    await platform.db.transaction(async (tx) => {
      await tx.exec("set local plan_cache_mode = force_generic_plan");
      await tx.exec(`prepare first_kudos as ${captured!.sql}`);
      const literal = (v: unknown): string =>
        v === null
          ? "null"
          : Array.isArray(v)
          ? `array[${v.map(literal).join(",")}]`
          : typeof v === "number"
          ? String(v)
          : `'${String(v).replaceAll("'", "''")}'`;
      const plan = (await tx.query<{ "QUERY PLAN": string }>(
        `explain (analyze, costs off) execute first_kudos(${captured!.params.map(literal).join(", ")})`,
      )).map((r) => r["QUERY PLAN"]).join("\n");
      await tx.exec("deallocate first_kudos");
      expect(plan).toMatch(/events_stream_version/);
      expect(plan).not.toMatch(/events_type/);
    });
  });
});
