import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api } from "../helpers/http.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

let database: Awaited<ReturnType<typeof createTestDatabase>>;
const servers: DenoServer[] = [];
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  for (const s of servers) await s.stop();
  await database.drop();
});

describe("two server processes on one PostgreSQL", () => {
  it("reads through one server what was written through the other", async () => {
    const env = { DATABASE_URL: database.url };
    // Started together: migrations must not race.
    const [one, two] = await Promise.all([startDenoServer({ env }), startDenoServer({ env })]);
    servers.push(one, two);
    const banner = one.output() + two.output();
    const token = /Access token[^\n]*\n\s+([0-9a-f]{40})/.exec(banner)?.[1];
    expect(token).toBeDefined();
    // Exactly one of them seeded the demo platform.
    expect(banner.match(/Demo platform created/g)?.length).toBe(1);

    const created = await runCli([
      "athlete",
      "create",
      "--firstname",
      "Annemiek",
      "--lastname",
      "van Vleuten",
      "--email",
      "annemiek@example.com",
      "--password",
      "password123",
      "--json",
    ], env);
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout);
    const follow = await runCli(["follow", "--athlete", "1", "--target", String(id), "--json"], env);
    expect(follow.code).toBe(0);

    for (const server of [one, two]) {
      const res = await api(server.url)("GET", `/v3/athletes/${id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.firstname).toBe("Annemiek");
    }
    const verify = await runCli(["verify"], env);
    expect(verify.stdout).toContain("equal to the live ones");
    expect(verify.code).toBe(0);
  });
});
