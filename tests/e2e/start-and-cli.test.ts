import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { api } from "../helpers/http.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";

const servers: DenoServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

describe("the CLI without a running server (opens the embedded database itself)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-cli-"));
  const env = { DATA_DIR: dataDir };

  it("shows help for every command and refuses bad usage with exit 2", async () => {
    const overview = await runCli(["--help"], env);
    expect(overview.code).toBe(0);
    for (const name of ["athlete create", "app create", "token issue", "replay", "verify", "follow"]) {
      expect(overview.stdout).toContain(name);
    }
    const help = await runCli(["athlete", "create", "--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--firstname");
    const missing = await runCli(["athlete", "create", "--firstname", "X"], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--lastname is required");
    const unknown = await runCli(["frobnicate"], env);
    expect(unknown.code).toBe(2);
  });

  it("creates an athlete, an application and a token, printing one JSON object each", async () => {
    const athlete = await runCli([
      "athlete",
      "create",
      "--firstname",
      "Fausto",
      "--lastname",
      "Coppi",
      "--email",
      "fausto@example.com",
      "--password",
      "campionissimo",
      "--sex",
      "M",
      "--premium",
      "--json",
    ], env);
    expect(athlete.code).toBe(0);
    const { id } = JSON.parse(athlete.stdout);
    expect(Number.isInteger(id)).toBe(true);
    const app = await runCli([
      "app",
      "create",
      "--name",
      "Tool",
      "--callback-domain",
      "example.com",
      "--owner",
      String(id),
      "--kudos",
      "--json",
    ], env);
    expect(app.code).toBe(0);
    const created = JSON.parse(app.stdout);
    expect(Object.keys(created).sort()).toEqual(["access_token", "client_id", "client_secret"]);
    expect(created.client_secret).toMatch(/^[0-9a-f]{40}$/);
    const token = await runCli([
      "token",
      "issue",
      "--athlete",
      String(id),
      "--client-id",
      String(created.client_id),
      "--scope",
      "view_private,write",
      "--json",
    ], env);
    expect(token.code).toBe(0);
    expect(JSON.parse(token.stdout).access_token).toMatch(/^[0-9a-f]{40}$/);
    const duplicate = await runCli([
      "athlete",
      "create",
      "--firstname",
      "F",
      "--lastname",
      "C",
      "--email",
      "FAUSTO@example.com",
      "--password",
      "campionissimo",
    ], env);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain("email");
  }, 180_000); // two athlete creations hash passwords at the OWASP scrypt cost (seconds each on a busy machine)

  it("verifies the read models against a replay", async () => {
    const verify = await runCli(["verify"], env);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/equal to the live ones/);
  });
});

describe("npm start (Deno, PGlite on disk) and the CLI through the running server", () => {
  it("starts with a demo platform, prints a working token, and the CLI reaches the running server", async () => {
    const server = await startDenoServer();
    servers.push(server);
    const out = server.output();
    expect(out).toContain("Demo platform created");
    const token = /Access token[^\n]*\n\s+([0-9a-f]{40})/.exec(out)?.[1];
    expect(token).toBeDefined();
    expect(out).toContain(`curl -H "Authorization: Bearer ${token}" ${server.url}/v3/athlete`);
    const call = api(server.url);
    const me = await call("GET", "/v3/athlete", { token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ firstname: "Ada", lastname: "Lovelace", resource_state: 3 });

    // The server holds DATA_DIR: the CLI goes through its loopback admin endpoint.
    const env = { DATA_DIR: server.dataDir };
    const created = await runCli([
      "athlete",
      "create",
      "--firstname",
      "Gino",
      "--lastname",
      "Bartali",
      "--email",
      "gino@example.com",
      "--password",
      "ginettaccio",
      "--json",
    ], env);
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout);
    const seen = await call("GET", `/v3/athletes/${id}`, { token });
    expect(seen.status).toBe(200);
    expect(seen.body.firstname).toBe("Gino");
    const follow = await runCli(["follow", "--athlete", String(me.body.id), "--target", String(id), "--json"], env);
    expect(follow.code).toBe(0);
    expect(JSON.parse(follow.stdout)).toMatchObject({ changed: true });
    const verify = await runCli(["verify"], env);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toContain("equal to the live ones");

    // A second server may not open the same directory.
    const second = await startDenoServer({ dataDir: server.dataDir }).then(
      (s) => {
        servers.push(s);
        return "started";
      },
      (error: Error) => error.message,
    );
    expect(second).toContain("another server");

    // Restarting keeps everything and does not seed again.
    expect(await server.stop()).toBe(0);
    const again = await startDenoServer({ dataDir: server.dataDir });
    servers.push(again);
    expect(again.output()).not.toContain("Demo platform created");
    const still = await api(again.url)("GET", `/v3/athletes/${id}`, { token });
    expect(still.body.firstname).toBe("Gino");
  });
});
