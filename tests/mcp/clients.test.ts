// deno-lint-ignore-file no-explicit-any
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_TOOLS } from "../../server/mcp/tools/index.ts";
import { launchChromium, SHOTS } from "../helpers/browser.ts";
import { ROOT } from "../helpers/deno.ts";
import { type DropinServer, startDropinServer } from "../dropin/deno-server.ts";
import { mcpGrant } from "./helpers.ts";
import { CONFORMANCE, ensureNode22Tools, INSPECTOR, NODE22, node22Path } from "./node22.ts";
import { type CheckContext, READ_CHECKS } from "./read-checks.ts";
import { buildWorld, type World } from "./world.ts";

/**
 * Clients nobody on the project wrote, against the server as `npm start` runs it (Deno, a real
 * port): the MCP SDK's own Client with its OAuth provider (discovery → registration → consent in
 * Chromium, signing in on our page → token → tools/list → every read tool equal to the API),
 * mcp-remote (what Claude Desktop runs) signing in the same way, the MCP Inspector's CLI, and the
 * official conformance suite run with Node 22 from npm.
 */
let s: DropinServer;
let world: World;
let browser: Browser;
let annToken = "";
const PASSWORD = "password123";

beforeAll(async () => {
  await ensureNode22Tools();
  s = await startDropinServer(["Ann", "Bob"], { premium: true });
  world = await buildWorld(
    s.call,
    { id: s.people.Ann.id, token: s.people.Ann.token },
    { id: s.people.Bob.id, token: s.people.Bob.token },
  );
  annToken = (await mcpGrant(s.server.url, "ann@example.com", PASSWORD)).accessToken;
  browser = await launchChromium();
}, 900_000);
afterAll(async () => {
  await browser?.close();
  await s?.close();
});

const mcpUrl = () => new URL("/mcp", s.server.url);

/** A loopback page that receives the authorization redirect (what a desktop client listens on). */
async function callbackServer(): Promise<{ url: string; code: Promise<string>; server: Server }> {
  let deliver!: (code: string) => void;
  const code = new Promise<string>((r) => (deliver = r));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    res.writeHead(200, { "content-type": "text/plain" }).end("Signed in; you may close this window.");
    const value = url.searchParams.get("code");
    if (value) deliver(value);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`, code, server };
}

/** Signs Ann in on our page and approves on the consent page, as a person would; screenshots of both widths. */
async function signInAndConsent(page: Page, authorizationUrl: string, shot: string): Promise<string> {
  await page.goto(authorizationUrl);
  await page.waitForSelector("#email");
  await page.fill("#email", "ann@example.com");
  await page.fill("#password", PASSWORD);
  await Promise.all([page.waitForURL(/\/oauth\/authorize/), page.click("button[type=submit]")]);
  await page.waitForSelector("#approve");
  const consent = await page.textContent(".card");
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: join(SHOTS, `${shot}-${width}.png`), fullPage: true });
  }
  await page.click("#approve");
  return consent ?? "";
}

describe("the MCP SDK's own Client with its OAuth provider", () => {
  it("discovers, registers, signs in through our consent page, lists and calls every read tool", async () => {
    const callback = await callbackServer();
    const store: Record<string, any> = {};
    let authorizationUrl: URL | undefined;
    const provider = {
      get redirectUrl() {
        return callback.url;
      },
      get clientMetadata() {
        return {
          client_name: "SDK conformance client",
          redirect_uris: [callback.url],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        };
      },
      clientInformation: () => store.client,
      saveClientInformation: (info: unknown) => void (store.client = info),
      tokens: () => store.tokens,
      saveTokens: (tokens: unknown) => void (store.tokens = tokens),
      redirectToAuthorization: (url: URL) => void (authorizationUrl = url),
      saveCodeVerifier: (v: string) => void (store.verifier = v),
      codeVerifier: () => store.verifier,
    };
    const first = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await expect(new Client({ name: "sdk", version: "1" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(store.client.client_id).toMatch(/^\d+$/);
    expect(authorizationUrl!.searchParams.get("resource")).toBe(mcpUrl().href);
    expect(authorizationUrl!.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl!.searchParams.get("scope")).toBe("read activity:read_all activity:write");

    const context = await browser.newContext();
    const page = await context.newPage();
    const consent = await signInAndConsent(page, authorizationUrl!.href, "mcp-consent-sdk");
    expect(consent).toContain("Connect SDK conformance client to your training log");
    expect(consent).toContain("Rename, describe and change the sport of your activities");
    expect(consent).toContain("registered itself");
    await first.finishAuth(await callback.code);
    callback.server.close();
    expect(store.tokens.access_token).toBeTruthy();

    const client = new Client({ name: "sdk", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    const { tools } = await client.listTools();
    expect(tools.map((t: { name: string }) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
    const t: CheckContext = {
      call: async (name, args = {}) => await client.callTool({ name, arguments: args }) as any,
      api: async (path, query) => {
        const r = await s.call("GET", path, { token: world.ann.token, query: query as Record<string, string> });
        expect(r.status, r.text).toBe(200);
        return r.body;
      },
      world,
    };
    for (const [name, check] of Object.entries(READ_CHECKS)) {
      try {
        await check(t);
      } catch (error) {
        throw new Error(`${name}: ${(error as Error).message}`);
      }
    }
    await client.close();

    // Listed on My apps as an AI assistant, and revoked there: the token stops working.
    await page.goto(`${s.server.url}/settings/apps`);
    const row = page.locator("tr", { hasText: "SDK conformance client" });
    expect(await row.textContent()).toContain("AI assistant connected through /mcp");
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(SHOTS, `mcp-my-apps-${width}.png`), fullPage: true });
    }
    await row.locator("button.danger").click();
    await page.waitForURL(/\/settings\/apps/);
    const after = await fetch(mcpUrl(), {
      method: "POST",
      headers: {
        authorization: `Bearer ${store.tokens.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain("resource_metadata=");
    await context.close();
  }, 300_000);
});

/** Runs mcp-remote (the stdio proxy Claude Desktop starts) and speaks JSON-RPC on its stdin. */
function startMcpRemote(
  configDir: string,
  port: number,
): { child: ChildProcess; stderr: () => string; send(m: unknown): void; next(): Promise<any> } {
  const child = spawn(process.execPath, [
    join(ROOT, "node_modules/mcp-remote/dist/proxy.js"),
    mcpUrl().href,
    String(port),
  ], {
    env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir, BROWSER: "true", DISPLAY: "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "", out = "";
  const waiting: ((m: any) => void)[] = [];
  const queue: any[] = [];
  child.stderr!.on("data", (d) => (err += d));
  child.stdout!.on("data", (d) => {
    out += d;
    let nl;
    while ((nl = out.indexOf("\n")) >= 0) {
      const line = out.slice(0, nl).trim();
      out = out.slice(nl + 1);
      if (!line) continue;
      const message = JSON.parse(line);
      const w = waiting.shift();
      if (w) w(message);
      else queue.push(message);
    }
  });
  return {
    child,
    stderr: () => err,
    send: (m) => child.stdin!.write(`${JSON.stringify(m)}\n`),
    next: () => queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r)),
  };
}

describe("mcp-remote", () => {
  it("completes its sign-in in Chromium and lists the tools", async () => {
    const configDir = mkdtempSync(join(tmpdir(), "mcp-remote-"));
    const port = await new Promise<number>((r) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const p = (probe.address() as AddressInfo).port;
        probe.close(() => r(p));
      });
    });
    const remote = startMcpRemote(configDir, port);
    try {
      const deadline = Date.now() + 60_000;
      let url: string | undefined;
      while (!url && Date.now() < deadline) {
        url = /Please authorize this client by visiting:\s*(\S+)/.exec(remote.stderr())?.[1];
        if (!url) await new Promise((r) => setTimeout(r, 200));
      }
      expect(url, remote.stderr()).toBeTruthy();
      const authorize = new URL(url!);
      expect(authorize.searchParams.get("resource")).toBe(mcpUrl().href);
      expect(authorize.searchParams.get("redirect_uri")).toBe(`http://localhost:${port}/oauth/callback`);
      const context = await browser.newContext();
      const page = await context.newPage();
      await signInAndConsent(page, url!, "mcp-consent-mcp-remote");
      await page.waitForURL(/localhost:\d+\/oauth\/callback/);
      await context.close();
      remote.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "claude-desktop-like", version: "1" },
        },
      });
      const init = await remote.next();
      expect(init.result?.serverInfo?.name, JSON.stringify(init)).toBe("fitness-training-log");
      remote.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      remote.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      const list = await remote.next();
      expect(list.result.tools.map((t: any) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
      remote.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "get_profile", arguments: {} } });
      const profile = await remote.next();
      expect(profile.result.structuredContent.athlete.id).toBe(world.ann.id);
    } finally {
      remote.child.kill();
      rmSync(configDir, { recursive: true, force: true });
    }
  }, 180_000);
});

function run(
  program: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(program, args, {
      env: { ...process.env, PATH: node22Path(), ...env },
      timeout: 240_000,
      maxBuffer: 16 << 20,
    }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe("the MCP Inspector's CLI", () => {
  it("lists and calls tools", async () => {
    const home = mkdtempSync(join(tmpdir(), "inspector-"));
    const common = [
      INSPECTOR,
      "--cli",
      mcpUrl().href,
      "--transport",
      "http",
      "--header",
      `Authorization: Bearer ${annToken}`,
    ];
    const env = { HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json") };
    try {
      const list = await run(NODE22, [...common, "--method", "tools/list", "--strict"], env);
      expect(list.code, list.stderr).toBe(0);
      expect(JSON.parse(list.stdout).tools.map((t: any) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
      const called = await run(
        NODE22,
        [...common, "--method", "tools/call", "--tool-name", "get_activity", "--tool-arg", `id=${world.ride}`],
        env,
      );
      expect(called.code, called.stderr).toBe(0);
      const result = JSON.parse(called.stdout);
      expect(result.structuredContent.activity.id).toBe(world.ride);
      expect(result.content[0].text).toContain(`#${world.ride}`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 300_000);
});

/**
 * The conformance suite's client has no way to sign in: a loopback proxy adds Ann's MCP token to
 * each request and passes everything else through as sent — Host and Origin included, so the
 * DNS-rebinding scenario's foreign Host reaches the server, which must refuse it itself.
 */
async function tokenProxy(target: URL, token: string): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    const upstream = httpRequest({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, authorization: `Bearer ${token}` },
    }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close: () => server.close() };
}

describe("the official conformance suite (Node 22)", () => {
  for (const scenario of ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]) {
    it(scenario, async () => {
      const proxy = await tokenProxy(new URL(s.server.url), annToken);
      try {
        const r = await run(NODE22, [CONFORMANCE, "server", "--url", proxy.url, "--scenario", scenario]);
        expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
        expect(r.stdout).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      } finally {
        proxy.close();
      }
    }, 120_000);
  }
});
