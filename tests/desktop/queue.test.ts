import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rateLimitResetAt, uploadStatusOf } from "../../desktop/core/api.ts";
import { Companion } from "../../desktop/core/companion.ts";
import { fileErrorMessage, readActivityFile } from "../../desktop/core/files.ts";
import { FileTokenStore, pkcePair, StaticToken } from "../../desktop/core/oauth.ts";
import { EventLog } from "./helpers.ts";
import { DEVICES } from "../helpers/fixtures.ts";

const FIT = join(DEVICES, "fit");
const root = mkdtempSync(join(tmpdir(), "companion-queue-"));
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  rmSync(root, { recursive: true, force: true });
});

/**
 * A local HTTP stand-in for what we can't provoke on demand from the real server: an exhausted
 * rate-limit window, and a URL that isn't a fitness platform at all.
 */
async function double(
  handler: (
    req: { method: string; url: string },
    n: number,
  ) => { status: number; headers?: Record<string, string>; body: string },
) {
  const requests: { method: string; url: string }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const r = { method: req.method!, url: req.url! };
      requests.push(r);
      const answer = handler(r, requests.length);
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers }).end(answer.body);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

function dropFolder(name: string, files: string[]): string {
  const folder = join(root, name);
  mkdirSync(folder, { recursive: true });
  for (const f of files) copyFileSync(join(FIT, f), join(folder, f));
  return folder;
}

describe("queue against rate limits and foreign servers", () => {
  it("waits for the window to reset after a 429 with X-RateLimit-* and says so, then uploads", async () => {
    const api = await double((req) => {
      if (req.method === "POST") {
        const posts = api.requests.filter((r) => r.method === "POST").length;
        if (posts === 1) {
          return {
            status: 429,
            headers: { "x-ratelimit-limit": "600,30000", "x-ratelimit-usage": "601,1200", "retry-after": "1" },
            body: JSON.stringify({
              message: "Rate Limit Exceeded",
              errors: [{ resource: "Application", field: "rate limit", code: "exceeded" }],
            }),
          };
        }
        return {
          status: 201,
          body: JSON.stringify({
            id: 7,
            id_str: "7",
            external_id: "x",
            activity_id: null,
            status: "Your activity is still being processed.",
            error: null,
          }),
        };
      }
      return {
        status: 200,
        body: JSON.stringify({
          id: 7,
          id_str: "7",
          external_id: "x",
          activity_id: 99,
          status: "Your activity is ready.",
          error: null,
        }),
      };
    });
    const folder = dropFolder("rate", ["zwift-virtual-cycling-power.fit"]);
    const companion = new Companion({
      server: api.url,
      tokens: new StaticToken("t"),
      stateDir: join(root, "state-rate"),
      folders: [folder],
      volumeRoots: [],
      stabilityMs: 200,
    });
    const log = new EventLog(companion);
    await companion.start();
    try {
      await log.until((e) => e.some((x) => x.event === "rate_limited"), 20_000, "rate_limited");
      const limited = log.files((e) => e.event === "rate_limited")[0];
      expect(limited.path).toBe(join(folder, "zwift-virtual-cycling-power.fit"));
      expect(limited.message).toMatch(/rate limit/i);
      expect(Date.parse(limited.until!)).toBeGreaterThan(Date.parse(limited.at));
      expect(companion.state().rateLimit?.message).toMatch(/Rate limit reached/);
      await log.settled(["zwift-virtual-cycling-power.fit"], ["ready"], 20_000);
      expect(log.files((e) => e.event === "ready")[0]).toMatchObject({ activity_id: "99", upload_id: "7" });
      expect(api.requests.filter((r) => r.method === "POST")).toHaveLength(2);
      expect(api.requests.filter((r) => r.method === "GET").map((r) => r.url)).toContain("/v3/uploads/7");
      expect(companion.state().rateLimit).toBeUndefined();
    } finally {
      await companion.stop();
    }
  });

  it("a URL that isn't our server gives a clear message and keeps the file queued", async () => {
    const api = await double(() => ({
      status: 404,
      headers: { "content-type": "text/html" },
      body: "<html>Welcome to nginx</html>",
    }));
    const folder = dropFolder("foreign", ["garmin-edge500-cycling-hr-cad-pauses.fit"]);
    const companion = new Companion({
      server: api.url,
      tokens: new StaticToken("t"),
      stateDir: join(root, "state-foreign"),
      folders: [folder],
      volumeRoots: [],
      stabilityMs: 200,
      backoffBaseMs: 60_000,
    });
    const log = new EventLog(companion);
    await companion.start();
    try {
      await log.until((e) => e.some((x) => x.event === "error"), 20_000, "error");
      const error = log.files((e) => e.event === "error")[0];
      expect(error.message).toMatch(/doesn't look like a fitness platform server/);
      expect(error.will_retry).toBe(true);
      const [entry] = companion.ledger.entries();
      expect(entry.status).toBe("queued");
      expect(statSync(companion.ledger.stashPath(entry.sha256)).size).toBe(entry.size);
    } finally {
      await companion.stop();
    }
  });
});

describe("pieces", () => {
  it("rate-limit reset: Retry-After, then the daily window at midnight UTC, else the next quarter hour", () => {
    const now = Date.parse("2025-03-04T10:07:30Z");
    const h = (o: Record<string, string>) => new Headers(o);
    expect(rateLimitResetAt(h({ "retry-after": "30" }), now)).toBe(now + 30_000);
    expect(
      new Date(rateLimitResetAt(h({ "x-ratelimit-limit": "600,30000", "x-ratelimit-usage": "601,700" }), now))
        .toISOString(),
    ).toBe("2025-03-04T10:15:00.000Z");
    expect(
      new Date(rateLimitResetAt(h({ "x-ratelimit-limit": "600,30000", "x-ratelimit-usage": "12,30000" }), now))
        .toISOString(),
    ).toBe("2025-03-05T00:00:00.000Z");
    expect(new Date(rateLimitResetAt(h({}), now)).toISOString()).toBe("2025-03-04T10:15:00.000Z");
  });

  it("upload status bodies: ready, duplicate (also with HTML), error, deleted, processing", () => {
    const base = { id: 5, id_str: "5", external_id: "a.fit" };
    expect(uploadStatusOf({ ...base, activity_id: 9, status: "Your activity is ready.", error: null })).toEqual({
      state: "ready",
      uploadId: "5",
      activityId: "9",
    });
    expect(
      uploadStatusOf({
        ...base,
        activity_id: null,
        status: "There was an error processing your activity.",
        error: "a.fit duplicate of activity 12",
      }),
    )
      .toMatchObject({ state: "duplicate", activityId: "12" });
    expect(
      uploadStatusOf({
        ...base,
        activity_id: null,
        status: "There was an error processing your activity.",
        error: 'a.fit duplicate of <a href="/activities/13">activity 13</a>',
      }),
    )
      .toMatchObject({ state: "duplicate", activityId: "13" });
    expect(
      uploadStatusOf({
        ...base,
        activity_id: null,
        status: "There was an error processing your activity.",
        error: null,
      }),
    )
      .toMatchObject({ state: "error", message: "The server could not process this file." });
    expect(
      uploadStatusOf({ ...base, activity_id: null, status: "The created activity has been deleted.", error: null }),
    ).toEqual({ state: "deleted", uploadId: "5" });
    expect(
      uploadStatusOf({ ...base, activity_id: null, status: "Your activity is still being processed.", error: null }),
    ).toEqual({ state: "processing", uploadId: "5" });
    expect(uploadStatusOf({ message: "Bad Request", errors: [] })).toBeUndefined();
  });

  it("PKCE S256 is base64url(SHA-256(verifier)) (checked with WebCrypto); the headless token file is 0600", async () => {
    const { verifier, challenge } = pkcePair();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
    expect(challenge).toBe(
      btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
    );
    const store = new FileTokenStore(join(root, "tok", "token.json"));
    store.save({ server: "http://x", client_id: "1", access_token: "a", refresh_token: "r", expires_at: 1 });
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(store.load()?.refresh_token).toBe("r");
    store.clear();
    expect(store.load()).toBeUndefined();
  });

  it("file-system problems become plain words", async () => {
    mkdirSync(join(root, "folder.fit"), { recursive: true });
    const error = await readActivityFile(join(root, "folder.fit")).catch((e) => e);
    expect(fileErrorMessage(error)).toBe("This is a folder, not a file.");
    expect(fileErrorMessage(Object.assign(new Error("x"), { code: "EACCES" }))).toMatch(/permission denied/);
    expect(fileErrorMessage(Object.assign(new Error("x"), { code: "ENOENT" }))).toMatch(/unplugged/);
  });
});
