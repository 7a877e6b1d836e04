import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, type CreatedApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { type DenoServer, runCli, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";

/**
 * Callbacks to internal addresses (issue 29 item 6), attacked over HTTP against the Deno server as
 * `npm start` runs it. One platform on disk, three runs of the server:
 *
 * 1. without WEBHOOKS_ALLOW_PRIVATE: every form of an internal address (and host names that resolve
 *    to 127.0.0.1 through /etc/hosts) is refused at subscription with 400 naming callback_url, and
 *    a listener on every local interface receives nothing;
 * 2. with WEBHOOKS_ALLOW_PRIVATE=1: a local callback is verified and receives a delivery;
 * 3. with WEBHOOKS_ALLOW_PRIVATE=127.0.0.1/32 (the operator's range form): a callback on 127.0.0.1 is
 *    allowed, but a handshake or a delivery redirected to 127.0.0.2 (loopback, outside the range; a
 *    listener there would receive what gets through) is refused and nothing reaches that listener.
 *
 * What cannot be shown offline: a public callback whose DNS later moves to a private address, and
 * a public first hop redirecting to a private one (no public address is reachable here). The same
 * code paths are shown with the operator range standing in for "public" in phase 3, and in
 * tests/webhooks/address-policy.test.ts with a substituted resolver (re-check on every request,
 * connection pinned to the checked address).
 */

interface Hit {
  method: string;
  host: string;
  path: string;
}

/** A listener on every interface (IPv6 and IPv4): it counts everything that reaches it. */
class Listener {
  readonly hits: Hit[] = [];
  #server: Server | undefined;
  port = 0;
  constructor(readonly host: string, readonly handle: (req: IncomingMessage, res: ServerResponse, url: URL) => void) {}
  async start(): Promise<void> {
    this.#server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://listener");
      this.hits.push({ method: req.method ?? "", host: req.headers.host ?? "", path: url.pathname });
      req.resume();
      req.on("end", () => this.handle(req, res, url));
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, this.host, resolve));
    this.port = (this.#server.address() as AddressInfo).port;
  }
  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

function echo(res: ServerResponse, url: URL): void {
  res.writeHead(200, { "content-type": "application/json" }).end(
    JSON.stringify({ "hub.challenge": url.searchParams.get("hub.challenge") }),
  );
}

const dataDir = mkdtempSync(join(tmpdir(), "fitness-webhook-callbacks-"));
let server: DenoServer | undefined;
let apps: CreatedApplication[] = [];
let tokens: string[] = [];

// The target a redirect points at: 127.0.0.2 (loopback, but outside phase 3's allowed range).
const stolen = new Listener(
  "127.0.0.2",
  (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end("{}"),
);
// The local callback: on every interface, so any address form that reaches this machine reaches it.
let deliveryMode: "ok" | "redirect" = "ok";
const local = new Listener("::", (req, res, url) => {
  if (url.pathname === "/redirect") {
    return void res.writeHead(302, { location: `http://127.0.0.2:${stolen.port}/stolen` }).end();
  }
  if (req.method === "GET") return echo(res, url);
  if (deliveryMode === "redirect") {
    return void res.writeHead(307, { location: `http://127.0.0.2:${stolen.port}/stolen` }).end();
  }
  res.writeHead(200).end();
});

async function run(allowPrivate: string): Promise<ReturnType<typeof api>> {
  await server?.stop();
  server = await startDenoServer({
    dataDir,
    env: { SEED_DEMO: "0", WEBHOOK_RETRY_MS: "50", WEBHOOK_ATTEMPTS: "2", WEBHOOKS_ALLOW_PRIVATE: allowPrivate },
  });
  return api(server.url);
}

async function subscribe(call: ReturnType<typeof api>, app: CreatedApplication, callbackUrl: string) {
  return await call("POST", "/v3/push_subscriptions", {
    form: { client_id: app.client_id, client_secret: app.client_secret, callback_url: callbackUrl, verify_token: "v" },
  });
}

async function eventually<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  await local.start();
  await stolen.start();
  const setup = await openPlatform(
    configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true, passwordCost: "test" }),
  );
  const athleteId = await createAthlete(setup, {
    firstname: "Hook",
    lastname: "Owner",
    email: "hooks@example.com",
    password: "password123",
  });
  apps = [];
  tokens = [];
  for (const name of ["Internal", "Home lab", "Redirected handshake", "Redirected delivery"]) {
    const app = await createApplication(setup, { name, ownerId: athleteId, callbackDomain: "localhost" });
    apps.push(app);
    tokens.push(
      await issueToken(setup, {
        athleteId,
        applicationId: app.client_id,
        permissions: ["read", "write", "view_private"],
      }),
    );
  }
  await setup.close();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await local.stop();
  await stolen.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("without WEBHOOKS_ALLOW_PRIVATE", () => {
  it("refuses every internal address form at subscription with 400 naming callback_url; nothing is sent", async () => {
    const call = await run("");
    const p = local.port;
    // Forms that reach the local listener if anything were sent, then internal addresses elsewhere.
    const reachable = [
      `127.0.0.1:${p}`,
      `localhost:${p}`,
      `LOCALHOST.:${p}`,
      `vm:${p}`,
      `127.1:${p}`,
      `127.0.1:${p}`,
      `2130706433:${p}`,
      `0x7f000001:${p}`,
      `0x7f.1:${p}`,
      `0177.0.0.1:${p}`,
      `[::1]:${p}`,
      `[::ffff:127.0.0.1]:${p}`,
      `[::ffff:7f00:1]:${p}`,
      `0.0.0.0:${p}`,
      `0:${p}`,
      `[::]:${p}`,
    ];
    const elsewhere = [
      "169.254.169.254",
      "[::ffff:169.254.169.254]",
      "[::ffff:a9fe:a9fe]",
      "2852039166",
      "metadata.google.internal",
      "10.0.0.1",
      "10.1",
      "172.16.0.1",
      "172.31.255.254",
      "192.168.1.1",
      "100.64.0.1",
      "[fd00::1]",
      "[fe80::1]",
      "[fec0::1]",
      "[64:ff9b::a9fe:a9fe]",
      "[2002:a9fe:a9fe::1]",
      "224.0.0.1",
      "255.255.255.255",
    ];
    const answers: { host: string; status: number; field: string; code: string }[] = [];
    const started = Date.now();
    for (const host of [...reachable, ...elsewhere]) {
      for (const scheme of ["http", "https"]) {
        const res = await subscribe(call, apps[0], `${scheme}://${host}/webhook`);
        const error = (res.body?.errors ?? [])[0] ?? {};
        answers.push({ host: `${scheme}://${host}`, status: res.status, field: error.field, code: error.code });
      }
    }
    const elapsed = Date.now() - started;
    const refused = answers.filter((a) => a.status === 400 && a.field === "callback_url");
    const wrong = answers.filter((a) => !(a.status === 400 && a.field === "callback_url"));
    expect(wrong).toEqual([]);
    // Names that resolve nowhere are "not resolvable"; every address is "private address".
    expect(answers.filter((a) => a.code !== "private address").map((a) => a.host)).toEqual([
      "http://metadata.google.internal",
      "https://metadata.google.internal",
    ]);
    const list = await call("GET", "/v3/push_subscriptions", {
      query: { client_id: apps[0].client_id, client_secret: apps[0].client_secret },
    });
    expect(list.body).toEqual([]);
    expect(local.hits).toEqual([]);
    console.log(
      `webhook callbacks: ${refused.length} of ${answers.length} internal callback URLs refused with 400 callback_url ` +
        `(${reachable.length} forms of this machine, ${elsewhere.length} internal addresses elsewhere, http and https) in ${elapsed} ms; ` +
        `${local.hits.length} requests reached the local listener`,
    );
  }, 120_000);
});

describe("with WEBHOOKS_ALLOW_PRIVATE=1", () => {
  it("verifies a local callback and delivers to it", async () => {
    const call = await run("1");
    const before = local.hits.length;
    const url = `http://localhost:${local.port}/homelab`;
    const res = await subscribe(call, apps[1], url);
    expect(res.status).toBe(201);
    expect(res.body.callback_url).toBe(url);
    const made = await call("POST", "/v3/activities", {
      token: tokens[1],
      form: { name: "Home lab ride", type: "Ride", start_date_local: "2024-05-01T08:00:00Z", elapsed_time: 600 },
    });
    expect(made.status).toBe(201);
    const posts = await eventually(() => {
      const hits = local.hits.slice(before).filter((h) => h.path === "/homelab" && h.method === "POST");
      return hits.length >= 1 && hits;
    });
    const handshakes = local.hits.slice(before).filter((h) => h.path === "/homelab" && h.method === "GET");
    expect(handshakes).toHaveLength(1);
    expect(posts[0].host).toBe(`localhost:${local.port}`);
    console.log(
      `webhook callbacks: with WEBHOOKS_ALLOW_PRIVATE=1 a localhost callback got ${handshakes.length} handshake and ${posts.length} delivery`,
    );
  }, 120_000);
});

describe("with WEBHOOKS_ALLOW_PRIVATE=127.0.0.1/32 (one allowed range)", () => {
  it(
    "refuses a handshake and a delivery redirected to an address outside it; nothing reaches that address",
    async () => {
      const call = await run("127.0.0.1/32");
      // A handshake redirected to 127.0.0.2: refused, naming callback_url.
      const handshake = await subscribe(call, apps[2], `http://127.0.0.1:${local.port}/redirect`);
      expect(handshake.status).toBe(400);
      expect(handshake.body.errors).toEqual([{
        resource: "PushSubscription",
        field: "callback_url",
        code: "private address",
      }]);
      expect(local.hits.filter((h) => h.path === "/redirect")).toHaveLength(1);
      // A subscription on 127.0.0.1 that later answers deliveries with 307 to 127.0.0.2.
      const sub = await subscribe(call, apps[3], `http://127.0.0.1:${local.port}/moving`);
      expect(sub.status).toBe(201);
      deliveryMode = "redirect";
      const made = await call("POST", "/v3/activities", {
        token: tokens[3],
        form: { name: "Redirected ride", type: "Ride", start_date_local: "2024-05-02T08:00:00Z", elapsed_time: 600 },
      });
      expect(made.status).toBe(201);
      // Two attempts (WEBHOOK_ATTEMPTS=2), each answered 307 and refused at the redirect hop.
      const attempts = await eventually(() => {
        const hits = local.hits.filter((h) => h.path === "/moving" && h.method === "POST");
        return hits.length >= 2 && hits;
      });
      const status = await eventually(async () => {
        const result = await runCli(["webhooks", "status", "--json"], { DATA_DIR: dataDir });
        const subscriptions = JSON.parse(result.stdout).subscriptions as {
          subscription_id: number;
          failed: number;
          last_error: string | null;
        }[];
        const mine = subscriptions.find((s) => s.subscription_id === sub.body.id);
        return mine && mine.failed >= 1 && mine;
      });
      expect(status.last_error).toMatch(/^refused: 127\.0\.0\.2 is 127\.0\.0\.2 \(loopback\)$/);
      expect(stolen.hits).toEqual([]);
      console.log(
        `webhook callbacks: with one allowed range, 1 redirected handshake refused (400 callback_url) and ${attempts.length} delivery attempts ` +
          `refused at the redirect hop ("${status.last_error}"); ${stolen.hits.length} requests reached the redirect target`,
      );
    },
    120_000,
  );
});
