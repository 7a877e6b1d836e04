// deno-lint-ignore-file no-explicit-any
// @ts-types="@modelcontextprotocol/sdk/client/index"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_TOOLS } from "../../server/mcp/tools/index.ts";
import { readFileSync } from "node:fs";
import { deviceFile } from "../helpers/fixtures.ts";
import { uploadUntilReady } from "../helpers/http.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { mcpClient, mcpGrant, rawMcp } from "./helpers.ts";
import { buildWorld, metres, type World } from "./world.ts";
import { READ_CHECKS } from "./read-checks.ts";

/**
 * The MCP tools over HTTP on the real server, called by the SDK's own client with a token from the
 * OAuth flow: each read tool's answer equals the API's, writes need the write scope, another
 * athlete's private data never appears, and bad calls are JSON-RPC or tool errors, never a 5xx.
 */
let server: TestServer;
let world: World;
let client: Client;
let readOnly: Client;
let mcpToken: string;
let readToken: string;

type Result = { isError?: boolean; structuredContent?: any; content: { type: string; text: string }[] };
const call = async (c: Client, name: string, args: Record<string, unknown> = {}) =>
  await c.callTool({ name, arguments: args }) as Result;

beforeAll(async () => {
  server = await startTestServer();
  const ann = await server.athlete({ password: "ann password", premium: true });
  const bob = await server.athlete({ password: "bob password" });
  world = await buildWorld(server.api, ann, bob, () => server.platform.jobs.kick());
  mcpToken = (await mcpGrant(server.url, ann.email, "ann password")).accessToken;
  readToken = (await mcpGrant(server.url, ann.email, "ann password", "read activity:read_all")).accessToken;
  client = await mcpClient(server.url, mcpToken);
  readOnly = await mcpClient(server.url, readToken);
}, 300_000);
afterAll(async () => {
  await client?.close();
  await readOnly?.close();
  await server?.close();
});

const api = (path: string, query?: Record<string, unknown>) =>
  server.api("GET", path, { token: world.ann.token, query: query as Record<string, string> }).then((r) => {
    expect(r.status, r.text).toBe(200);
    return r.body;
  });

describe("tools/list", () => {
  it("lists every tool with input and output schemas and annotations", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t: { name: string }) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
      const spec = MCP_TOOLS.find((t) => t.name === tool.name)!;
      expect(tool.annotations).toMatchObject({
        readOnlyHint: !spec.write,
        idempotentHint: spec.idempotent,
        destructiveHint: false,
      });
    }
  });
});

describe("read tools answer what the API answers", () => {
  for (const [name, check] of Object.entries(READ_CHECKS)) {
    it(name, () => check({ call: (tool, args) => call(client, tool, args), api, world }));
  }
  it("every read tool is checked", () => {
    const source = Object.values(READ_CHECKS).map(String).join("\n");
    for (const tool of MCP_TOOLS.filter((t) => !t.write)) expect(source, tool.name).toContain(`"${tool.name}"`);
  });
});

describe("write tools", () => {
  it("a token without the write scope changes nothing", async () => {
    const before = await server.platform.store.headPosition();
    const attempts: [string, Record<string, unknown>][] = [
      ["update_activity", { id: world.ride, name: "renamed" }],
      ["create_manual_activity", {
        name: "x",
        sport_type: "Run",
        start_local: "2024-05-01T07:00:00Z",
        elapsed_time_s: 60,
      }],
      ["give_kudos", { activity_id: world.bobRide }],
      ["add_comment", { activity_id: world.bobRide, text: "hi" }],
    ];
    expect(attempts.map(([n]) => n).sort()).toEqual(MCP_TOOLS.filter((t) => t.write).map((t) => t.name).sort());
    for (const [name, args] of attempts) {
      const r = await call(readOnly, name, args);
      expect(r.isError, name).toBe(true);
      expect(r.content[0].text).toMatch(/write|scope|permission/i);
    }
    expect(await server.platform.store.headPosition()).toBe(before);
    expect((await api(`/v3/activities/${world.ride}`)).name).not.toBe("renamed");
  });

  it("with the write scope, each write goes through the API's command", async () => {
    const renamed = await call(client, "update_activity", {
      id: world.run,
      name: "Sunday long run",
      sport_type: "TrailRun",
    });
    expect(renamed.isError).toBeFalsy();
    const a = await api(`/v3/activities/${world.run}`);
    expect([a.name, a.sport_type]).toEqual(["Sunday long run", "TrailRun"]);
    const made = await call(client, "create_manual_activity", {
      name: "Gym",
      sport_type: "Workout",
      start_local: "2024-05-01T18:00:00+02:00",
      elapsed_time_s: 3600,
    });
    const created = await api(`/v3/activities/${made.structuredContent.activity.id}`);
    expect(created.name).toBe("Gym");
    expect(created.start_date).toBe("2024-05-01T16:00:00Z");
    const kudos = await call(client, "give_kudos", { activity_id: world.bobRide });
    expect(kudos.isError).toBeFalsy();
    const kudoers = await server.api("GET", `/v3/activities/${world.bobRide}/kudos`, { token: world.bob.token });
    expect(kudoers.body.map((k: any) => k.firstname)).toHaveLength(1);
    const again = await call(client, "give_kudos", { activity_id: world.bobRide });
    expect(again.isError).toBe(true);
    const comment = await call(client, "add_comment", { activity_id: world.bobRide, text: "Nice ride!" });
    const comments = await server.api("GET", `/v3/activities/${world.bobRide}/comments`, { token: world.bob.token });
    expect(comments.body.map((c: any) => [c.id, c.text])).toEqual([[
      comment.structuredContent.comment_id,
      "Nice ride!",
    ]]);
  });
});

describe("privacy: another athlete's private data never appears", () => {
  it("in any tool's output", async () => {
    const called = new Set<string>();
    const outputs: string[] = [];
    const seg = await api(`/v3/segments/${world.segment}`);
    const [lat, lng] = seg.start_latlng;
    const run = async (name: string, args: Record<string, unknown>) => {
      called.add(name);
      const r = await call(client, name, args);
      outputs.push(JSON.stringify(r));
      return r;
    };
    await run("get_profile", {});
    await run("list_activities", { limit: 50 });
    await run("list_activities", { name_contains: world.secret });
    for (const id of [world.bobPrivate, world.bobRide]) {
      await run("get_activity", { id });
      await run("get_activity_streams", { id, types: ["latlng", "heartrate", "altitude"], points: 200 });
    }
    const streams = await call(client, "get_activity_streams", { id: world.bobRide, types: ["latlng"], points: 200 });
    expect(streams.isError).toBeFalsy();
    for (const p of streams.structuredContent.latlng ?? []) {
      if (p) expect(metres(p, [world.bobZone.lat, world.bobZone.lng])).toBeGreaterThan(world.bobZone.radius);
    }
    await run("get_records", { athlete_id: world.bob.id });
    await run("get_fitness", {});
    await run("explore_segments", { south: lat - 0.05, west: lng - 0.05, north: lat + 0.05, east: lng + 0.05 });
    await run("get_segment", { id: world.segment });
    await run("get_segment_leaderboard", { id: world.segment, limit: 50 });
    await run("list_my_segment_efforts", { segment_id: world.segment });
    await run("list_clubs", {});
    await run("get_club", { id: world.club });
    await run("get_club_activities", { id: world.club, limit: 100 });
    await run("list_routes", {});
    await run("get_route", { id: world.route });
    await run("update_activity", { id: world.bobPrivate, description: "mine now" });
    await run("create_manual_activity", { name: "ok", sport_type: "Run", start_local: "bad", elapsed_time_s: 1 });
    await run("give_kudos", { activity_id: world.bobPrivate });
    await run("add_comment", { activity_id: world.bobPrivate, text: "peek" });
    expect([...called].sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
    for (const out of outputs) expect(out).not.toContain(world.secret);
    // Bob's private ride is not even acknowledged to exist.
    const peek = await call(client, "get_activity", { id: world.bobPrivate });
    expect(peek.isError).toBe(true);
    expect(peek.content[0].text).toMatch(/not found|refused/i);
    const bobSees = await server.api("GET", `/v3/activities/${world.bobPrivate}`, { token: world.bob.token });
    expect(bobSees.body.description).toBe(`${world.secret} description`);
  });
});

describe("followers-only: another athlete's activity reaches the assistant only while its athlete is followed", () => {
  it("through every read tool, and at once after a follow and an unfollow", async () => {
    // Cleo, in Ann's club, rides the segment for her followers only; Ann does not follow her.
    const cleo = await server.athlete({ password: "cleo password" });
    expect((await server.api("POST", `/v3/clubs/${world.club}/join`, { token: cleo.token })).status).toBeLessThan(300);
    const marker = `FOLLOWERSONLY${Date.now()}`;
    const relative = "gpx/garmin-connect-edge1000-cycling-short-3formats.gpx";
    const ride = await uploadUntilReady(
      server.api,
      cleo.token,
      { bytes: new Uint8Array(readFileSync(deviceFile(relative))), name: "cleo.gpx", dataType: "gpx" },
      { name: `${marker} ride`, description: `${marker} description`, visibility: "followers_only" },
      () => server.platform.jobs.kick(),
    );
    const own = await server.api("GET", `/v3/activities/${ride}`, { token: cleo.token });
    expect([own.body.visibility, own.body.segment_efforts.length > 0]).toEqual(["followers_only", true]);
    const seg = await api(`/v3/segments/${world.segment}`);
    const [lat, lng] = seg.start_latlng;
    /** Everything Ann's assistant can read that could carry Cleo's ride, as one text. */
    const everything = async () => {
      const outputs: string[] = [];
      const reads: [string, Record<string, unknown>][] = [
        ["get_activity", { id: ride }],
        ["get_activity_streams", { id: ride, types: ["latlng", "heartrate", "altitude"], points: 200 }],
        ["get_records", { athlete_id: cleo.id }],
        ["get_segment_leaderboard", { id: world.segment, limit: 50 }],
        ["get_segment", { id: world.segment }],
        ["explore_segments", { south: lat - 0.05, west: lng - 0.05, north: lat + 0.05, east: lng + 0.05 }],
        ["get_club_activities", { id: world.club, limit: 100 }],
        ["list_activities", { limit: 50 }],
        ["list_my_segment_efforts", { segment_id: world.segment }],
      ];
      for (const [name, args] of reads) outputs.push(JSON.stringify(await call(client, name, args)));
      return outputs.join("\n");
    };
    const seen = async () => {
      const text = await everything();
      const board = await call(client, "get_segment_leaderboard", { id: world.segment, limit: 50 });
      const streams = await call(client, "get_activity_streams", { id: ride, types: ["latlng"], points: 50 });
      // The detailed activity is its owner's alone (the spec: 403 to another who may see it, 404 to
      // one who may not), so the follow shows in which refusal get_activity gives.
      const one = await call(client, "get_activity", { id: ride });
      expect(one.isError).toBe(true);
      return {
        name: text.includes(marker),
        board: board.structuredContent.entries.some((e: any) => e.activity_id === ride),
        streams: !streams.isError,
        activity: /^Refused/.test(one.content[0].text) ? "visible, not owned" : one.content[0].text.slice(0, 9),
      };
    };
    const none = { name: false, board: false, streams: false, activity: "Not found" };
    const all = { name: true, board: true, streams: true, activity: "visible, not owned" };
    expect(await seen()).toEqual(none);
    for (
      const [name, args] of [
        ["give_kudos", { activity_id: ride }],
        ["add_comment", { activity_id: ride, text: "peek" }],
      ] as const
    ) {
      const r = await call(client, name, args);
      expect(r.isError, name).toBe(true);
      expect(JSON.stringify(r)).not.toContain(marker);
    }
    expect((await server.api("PUT", `/v3/athletes/${cleo.id}/follow`, { token: world.ann.token })).status).toBeLessThan(
      300,
    );
    expect(await seen()).toEqual(all);
    expect((await server.api("DELETE", `/v3/athletes/${cleo.id}/follow`, { token: world.ann.token })).status)
      .toBeLessThan(300);
    expect(await seen()).toEqual(none);
  });
});

describe("bad calls are JSON-RPC or tool errors, never a 5xx", () => {
  it("malformed JSON, not JSON-RPC, unknown methods and tools, wrong argument types", async () => {
    const init = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    expect((await rawMcp(server.url, mcpToken, init)).status).toBe(200);
    const bad = await rawMcp(server.url, mcpToken, "{not json");
    expect(bad.status).toBe(400);
    expect((bad.body as any).error.code).toBe(-32700);
    const notRpc = await rawMcp(server.url, mcpToken, JSON.stringify({ hello: "world" }));
    expect(notRpc.status).toBeLessThan(500);
    expect((notRpc.body as any).error).toBeDefined();
    const unknownMethod = await rawMcp(server.url, mcpToken, JSON.stringify({ jsonrpc: "2.0", id: 2, method: "nope" }));
    expect(unknownMethod.status).toBe(200);
    expect((unknownMethod.body as any).error.code).toBe(-32601);
    const cases: [string, unknown][] = [
      ["no_such_tool", {}],
      ["get_activity", { id: "twelve" }],
      ["get_activity", {}],
      ["list_activities", { limit: 10_000 }],
      ["get_fitness", { from: "yesterday" }],
      ["get_activity", { id: 987654321 }],
      ["get_activity_streams", { id: world.ride, types: ["nonsense"] }],
    ];
    for (const [name, args] of cases) {
      const res = await rawMcp(
        server.url,
        mcpToken,
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name, arguments: args } }),
      );
      expect(res.status, name).toBeLessThan(500);
      const body = res.body as any;
      expect(body.error ?? body.result?.isError, `${name} ${JSON.stringify(args)}`).toBeTruthy();
      if (body.result) expect(body.result.content[0].text.length).toBeGreaterThan(10);
    }
    const big = await rawMcp(
      server.url,
      mcpToken,
      JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping", x: "a".repeat(2_000_000) }),
    );
    expect(big.status).toBe(413);
  });
});

describe("replay", () => {
  it("rebuilds every read model identically after the MCP sign-ins and writes (cli verify)", async () => {
    const { differences } = await server.platform.projections.verify();
    expect(differences).toEqual([]);
  });
});
