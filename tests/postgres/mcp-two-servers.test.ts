import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../helpers/postgres.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { mcpClient, mcpGrant, registerClient } from "../mcp/helpers.ts";

/**
 * The MCP endpoint behind several servers on one PostgreSQL: stateless, so a client signed in
 * through one server is answered by another request by request; the registration limit is one
 * budget for all of them.
 */
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let one: TestServer;
let two: TestServer;

beforeAll(async () => {
  database = await createTestDatabase();
  const settings = { databaseUrl: database.url, registrationLimitShort: 6 };
  one = await startTestServer(settings);
  two = await startTestServer(settings);
}, 120_000);
afterAll(async () => {
  await one?.close();
  await two?.close();
  await database?.drop();
});

describe("MCP on two servers sharing PostgreSQL", () => {
  it("a token from one server's consent works on the other, request by request", async () => {
    const ann = await one.athlete({ password: "ann password" });
    const grant = await mcpGrant(one.url, ann.email, "ann password");
    for (const server of [two, one, two]) {
      const client = await mcpClient(server.url, grant.accessToken);
      const profile = await client.callTool({ name: "get_profile", arguments: {} }) as unknown as {
        structuredContent: { athlete: { id: number } };
      };
      expect(profile.structuredContent.athlete.id).toBe(ann.id);
      await client.close();
    }
  });

  it("counts registrations against one budget for every server", async () => {
    const statuses: number[] = [];
    // mcpGrant above registered one client on `one`: five more fill the budget of six, the next is refused anywhere.
    for (const server of [one, two, one, two, one, two, one]) statuses.push((await registerClient(server.url)).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429]);
  });
});
