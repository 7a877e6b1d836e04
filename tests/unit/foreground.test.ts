import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { createApp } from "../../server/app.ts";
import { configFromEnv } from "../../server/config.ts";
import { Foreground, foreground, MAX_DEFER_MS, TurnBudget } from "../../server/event-loop-turn.ts";
import { type Platform } from "../../server/platform.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { longGpx } from "../helpers/long-gpx.ts";
import { multipartUpload } from "../helpers/multipart-upload.ts";

const settled = async (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);

describe("bulk loops give way to requests (TurnBudget and Foreground)", () => {
  it("a spent turn waits while a foreground request is in flight, and goes on when it leaves", async () => {
    const requests = new Foreground();
    const turn = new TurnBudget(4, requests);
    await turn.spent(); // idle and not spent: at once
    requests.enter();
    requests.enter();
    const waiting = turn.spent();
    expect(await settled(waiting, 5)).toBe(false);
    requests.leave();
    expect(await settled(waiting, 5)).toBe(false);
    requests.leave();
    expect(await settled(waiting, 5)).toBe(true);
  });

  it("waits at most MAX_DEFER_MS for requests that never end, so an upload is slowed but never stopped", async () => {
    const requests = new Foreground();
    const turn = new TurnBudget(4, requests);
    requests.enter();
    const t0 = performance.now();
    await turn.spent();
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(MAX_DEFER_MS - 2);
    expect(waited).toBeLessThan(MAX_DEFER_MS + 1000);
  });
});

describe("an upload's body is read between requests, not ahead of them (the app's middleware)", () => {
  let platform: Platform;
  let dataDir: string;
  let token: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "fitness-foreground-"));
    platform = await openPlatform(
      configFromEnv({
        dataDir,
        databaseUrl: undefined,
        seedDemo: false,
        quiet: true,
        passwordCost: "test",
        rateLimitShort: 1_000_000,
        rateLimitLong: 10_000_000,
      }),
    );
    const athleteId = await createAthlete(platform, {
      firstname: "Fore",
      lastname: "Ground",
      email: "fore@example.com",
      password: "password123",
    });
    const app = await createApplication(platform, {
      name: "Fore",
      ownerId: athleteId,
      callbackDomain: "localhost",
      internal: true,
    });
    token = await issueToken(platform, { athleteId, applicationId: app.client_id, permissions: ["read", "write"] });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    "no chunk of a multipart body is pulled while a GET is being answered (but after a deferral), and both finish",
    async () => {
      const { app } = createApp(platform);
      // An 8 MB GPX (a real ride's trackpoints, repeated), offered 64 kB per pull; each pull notes
      // whether a GET was in flight.
      const { body, contentType } = multipartUpload(longGpx(24_000).bytes, "ride.gpx", "gpx");
      let offset = 0;
      let pulls = 0;
      let pullsDuringGet = 0;
      let pullsAheadOfGet = 0;
      let getStarted = 0;
      let uploading = true;
      const stream = new ReadableStream<Uint8Array>({
        type: "bytes",
        pull(controller) {
          pulls++;
          if (foreground.busy) {
            pullsDuringGet++;
            // Within MAX_DEFER_MS of the GET's start the body must wait for it.
            if (performance.now() - getStarted < MAX_DEFER_MS - 2) pullsAheadOfGet++;
          }
          if (offset >= body.byteLength) {
            controller.close();
            return;
          }
          const chunk = body.slice(offset, offset + 65536);
          offset += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      const posted = Promise.resolve(app.request("/v3/uploads", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": contentType },
        body: stream,
        duplex: "half",
      } as RequestInit)).finally(() => (uploading = false));
      let gets = 0;
      const getting = (async () => {
        while (uploading) {
          getStarted = performance.now();
          const res = await app.request("/v3/athlete", { headers: { authorization: `Bearer ${token}` } });
          expect(res.status, await res.clone().text()).toBe(200);
          await res.arrayBuffer();
          gets++;
          // In-process requests resolve as microtasks; a client on a socket leaves the loop a turn.
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const res = await posted;
      await getting;
      expect(res.status, await res.clone().text()).toBe(201);
      expect(gets).toBeGreaterThan(0);
      expect(pulls).toBeGreaterThan(1);
      // A pull may fall inside a GET only after a MAX_DEFER_MS deferral (a GET slower than that).
      expect({ pullsAheadOfGet, pullsDuringGet }).toEqual({ pullsAheadOfGet: 0, pullsDuringGet: expect.any(Number) });
      expect(foreground.busy).toBe(false);
    },
    60_000,
  );
});
