import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followStream } from "../../events/athlete/events.ts";
import { openDb } from "../../events/db/open.ts";
import { handleCommand } from "../../events/decider.ts";
import { followDecider } from "../../events/follow/decide.ts";
import { importEvents } from "../../server/analysts/import.ts";
import { dispatch } from "../../server/cli/dispatch.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("replay, time travel and export (commands in the running server)", () => {
  let server: TestServer;
  const scratch = mkdtempSync(join(tmpdir(), "analysts-tools-"));
  const ids: number[] = [];

  async function cli(...argv: string[]) {
    let progress = "";
    let streamed = "";
    const outcome = await dispatch(argv, (fn) => fn(server.platform), {
      interactive: false,
      progress: (t) => {
        progress += t;
      },
      write: async (chunk) => {
        streamed += chunk;
      },
    });
    return { ...outcome, progress, streamed };
  }

  async function follow(type: "follow" | "unfollow", athleteId: number, targetId: number) {
    await handleCommand(server.platform.store, followStream(athleteId), followDecider, { type, athleteId, targetId }, {
      metadata: { athleteId },
    });
  }

  beforeAll(async () => {
    server = await startTestServer();
    for (let i = 0; i < 3; i++) ids.push((await server.athlete()).id);
    await follow("follow", ids[0], ids[1]);
    await follow("follow", ids[0], ids[2]);
    await follow("unfollow", ids[0], ids[1]);
  });

  afterAll(async () => {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("replay rebuilds the live read models with a progress bar, events/s and the time taken", async () => {
    const head = await server.platform.store.headPosition();
    const r = await cli("replay");
    expect(r.exitCode).toBe(0);
    expect(r.progress).toMatch(new RegExp(`replay \\[#+\\] ${head}/${head} events, \\d+ events/s`));
    expect(r.stdout).toMatch(new RegExp(`^replayed ${head} events in [\\d.]+ s \\(\\d+ events/s\\)$`));
    const res = await server.api("GET", `/v3/athletes/${ids[1]}`, { token: (await server.athlete()).token });
    expect(res.status).toBe(200);
  });

  it("exports with --types, --stream, --from and --to (positions and times)", async () => {
    const follows = await cli("export", "--format", "ndjson", "--types", "AthleteFollowed,AthleteUnfollowed");
    expect(follows.exitCode).toBe(0);
    const rows = follows.streamed.trim().split("\n").map((l) => JSON.parse(l));
    expect(rows.map((r) => r.type)).toEqual(["AthleteFollowed", "AthleteFollowed", "AthleteUnfollowed"]);
    expect(follows.progress).toMatch(/exported 3 events/);

    const stream = await cli(
      "export",
      "--format",
      "ndjson",
      "--stream",
      followStream(ids[0]),
      "--from",
      String(rows[1].position),
      "--to",
      String(rows[2].position),
    );
    expect(stream.streamed.trim().split("\n").map((l) => JSON.parse(l).stream_version)).toEqual([2, 3]);

    const byTime = await cli(
      "export",
      "--format",
      "ndjson",
      "--from",
      rows[2].recorded_at,
      "--to",
      rows[2].recorded_at,
    );
    const timed = byTime.streamed.trim().split("\n").map((l) => JSON.parse(l));
    expect(timed.map((r) => r.position)).toContain(rows[2].position);
    expect(timed.every((r) => r.recorded_at.slice(0, 23) === rows[2].recorded_at.slice(0, 23))).toBe(true);
  });

  it("exports CSV whose data column holds the event's JSON", async () => {
    const out = join(scratch, "follows.csv");
    const r = await cli("export", "--format", "csv", "--types", "AthleteFollowed", "--out", out, "--json");
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ events: 2, format: "csv", out });
    const records = parse(readFileSync(out, "utf8"), { columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(2);
    expect(JSON.parse(records[0].data)).toEqual({ athleteId: ids[0], targetId: ids[1] });
    expect(records[0]).toMatchObject({
      type: "AthleteFollowed",
      stream_id: followStream(ids[0]),
      stream_version: "1",
      schema_version: "1",
    });
  });

  it("refuses an unknown type, a bad format and a bad bound with clear messages", async () => {
    const unknown = await cli(
      "export",
      "--format",
      "ndjson",
      "--types",
      "Bogus",
      "--out",
      join(scratch, "bogus.ndjson"),
    );
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toBe("error: unknown event type Bogus (see docs/events.md for the catalogue)");
    expect(() => readFileSync(join(scratch, "bogus.ndjson"))).toThrow();
    const format = await cli("export", "--format", "xml");
    expect(format.exitCode).toBe(2);
    expect(format.stderr).toContain("--format must be csv or ndjson");
    const bound = await cli("export", "--format", "csv", "--from", "yesterday");
    expect(bound.exitCode).toBe(2);
    expect(bound.stderr).toContain("--from yesterday: expected a global position");
  });

  it("time travel by ISO time builds the read models as they stood then, leaving the live ones untouched", async () => {
    const unfollow = (await server.platform.store.readStream(followStream(ids[0])))[2];
    const at = (await server.platform.db.query<{ t: string }>(
      "select to_char((recorded_at - interval '1 millisecond') at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') as t from events where global_position = $1",
      [unfollow.position],
    ))[0].t;
    const into = join(scratch, "before-unfollow");
    const r = await cli("replay", "--until", at, "--into", into, "--json");
    expect(r.exitCode, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.until_position).toBeLessThan(unfollow.position);
    const db = await openDb({ dataDir: into, searchPath: "rm, public" });
    try {
      const rows = await db.query<{ followee_id: number }>(
        "select followee_id from follows where follower_id = $1 order by followee_id",
        [ids[0]],
      );
      expect(rows.map((x) => Number(x.followee_id))).toEqual([ids[1], ids[2]]);
    } finally {
      await db.close();
    }
    const live = await server.platform.db.query<{ followee_id: number }>(
      "select followee_id from follows where follower_id = $1",
      [ids[0]],
    );
    expect(live.map((x) => Number(x.followee_id))).toEqual([ids[2]]);
  });

  it("refuses --until beyond the end, --until without --into, and an unusable --into", async () => {
    const head = await server.platform.store.headPosition();
    const beyond = await cli("replay", "--until", String(head + 1), "--into", join(scratch, "x"));
    expect(beyond.exitCode).toBe(1);
    expect(beyond.stderr).toContain(
      `--until ${head + 1} is beyond the end of the log: the log ends at position ${head}`,
    );
    const future = await cli("replay", "--until", "2999-01-01T00:00:00Z", "--into", join(scratch, "y"));
    expect(future.exitCode).toBe(1);
    expect(future.stderr).toContain("is beyond the end of the log");
    const alone = await cli("replay", "--until", "1");
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toContain("--until needs --into");
    const full = join(scratch, "not-empty");
    mkdirSync(full);
    writeFileSync(join(full, "keep.txt"), "x");
    const notEmpty = await cli("replay", "--until", "1", "--into", full);
    expect(notEmpty.exitCode).toBe(1);
    expect(notEmpty.stderr).toContain("not an empty directory");
    expect(readFileSync(join(full, "keep.txt"), "utf8")).toBe("x");
    const live = await cli("replay", "--into", server.dataDir);
    expect(live.exitCode).toBe(1);
    expect(live.stderr).toContain("live data directory");
  });

  it("export to stdout is refused inside the server (no stream to write to) with a hint", async () => {
    const outcome = await dispatch(["export", "--format", "ndjson"], (fn) => fn(server.platform), {
      interactive: false,
      progress: () => {},
    });
    expect(outcome.exitCode).toBe(2);
    expect(outcome.stderr).toContain("pass --out FILE");
  });
});

describe("import refuses bad files and leaves the store unchanged", () => {
  const dir = mkdtempSync(join(tmpdir(), "analysts-import-"));
  const good = [
    {
      position: 1,
      stream_id: "athlete-7",
      stream_version: 1,
      type: "AthleteRegistered",
      schema_version: 1,
      recorded_at: "2024-01-01T10:00:00.000000Z",
      data: {
        athleteId: 7,
        firstname: "A",
        lastname: "B",
        email: "a@b.io",
        passwordHash: "x",
        sex: null,
        premium: false,
        city: null,
        state: null,
        country: null,
        birthdate: null,
        weight: null,
      },
      metadata: {},
    },
    {
      position: 3,
      stream_id: "athlete-9",
      stream_version: 1,
      type: "AthleteRegistered",
      schema_version: 1,
      recorded_at: "2024-01-01T10:00:01.000000Z",
      data: {
        athleteId: 9,
        firstname: "C",
        lastname: "D",
        email: "c@d.io",
        passwordHash: "x",
        sex: "F",
        premium: true,
        city: null,
        state: null,
        country: null,
        birthdate: null,
        weight: 60,
      },
      metadata: { source: "cli" },
    },
  ];
  const cases: [string, unknown[], RegExp][] = [
    ["an unknown type", [good[0], { ...good[1], type: "Nope" }], /:2: unknown event type Nope/],
    [
      "data that breaks the schema",
      [good[0], { ...good[1], data: { ...good[1].data, premium: "yes" } }],
      /:2: AthleteRegistered data does not match its schema: premium/,
    ],
    ["positions out of order", [good[1], good[0]], /:2: position 1 does not follow 3/],
    [
      "a repeated stream version",
      [good[0], { ...good[1], stream_id: "athlete-7" }],
      /:2: stream athlete-7 version 1 does not follow 1/,
    ],
    [
      "a future schema version",
      [{ ...good[0], schema_version: 2 }],
      /:1: AthleteRegistered schema version 2 is newer than this server's \(1\)/,
    ],
    ["a missing column", [{ ...good[0], recorded_at: undefined }], /:1: missing recorded_at/],
  ];

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses each bad file, then imports the good one (keeping positions and times)", async () => {
    const platform = await openPlatform(
      configFromEnv({
        dataDir: join(dir, "data"),
        databaseUrl: undefined,
        quiet: true,
        runJobs: false,
        seedDemo: false,
      }),
    );
    try {
      for (const [name, events, message] of cases) {
        const file = join(dir, `${name.replace(/\W+/g, "-")}.ndjson`);
        writeFileSync(file, events.map((e) => JSON.stringify(e)).join("\n") + "\n");
        await expect(importEvents(platform, file), name).rejects.toThrow(message);
        expect(await platform.store.headPosition(), name).toBe(0);
      }
      await expect(importEvents(platform, join(dir, "missing.ndjson"))).rejects.toThrow(/no such file/);
      const file = join(dir, "good.ndjson");
      writeFileSync(file, good.map((e) => JSON.stringify(e)).join("\n") + "\n");
      expect(await importEvents(platform, file)).toEqual({
        events: 2,
        streams: 2,
        lastPosition: 3,
        blobsNamed: 0,
        blobsBrought: 0,
        blobBytes: 0,
      });
      const events = await platform.store.readAll(0);
      expect(events.map((e) => [e.position, e.recordedAt])).toEqual([[1, "2024-01-01T10:00:00.000Z"], [
        3,
        "2024-01-01T10:00:01.000Z",
      ]]);
      const [{ id }] = await platform.db.query<{ id: number }>("select nextval('public.ids_athlete') as id");
      expect(Number(id)).toBe(10);
    } finally {
      await platform.close();
    }
  });
});
