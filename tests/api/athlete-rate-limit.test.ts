import { describe, expect, it } from "vitest";
import { createApp } from "../../server/app.ts";
import { configFromEnv } from "../../server/config.ts";
import { RateLimiter, retryAfterSeconds } from "../../server/http/rate-limit.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { listen } from "../../server/serve.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { api } from "../helpers/http.ts";

/**
 * This server's own applications (the web pages' "Web app") are budgeted per athlete: every
 * athlete's pages share one application, so one busy athlete must not lock the others out. Other
 * applications keep one budget for all their athletes, as Strava's.
 */
describe("per-athlete budget of internal applications", () => {
  it("refuses one athlete past its own budget (403 Rate Limit Exceeded, Retry-After) while another athlete of the same application goes on", async () => {
    const platform = await openPlatform(configFromEnv({
      port: 0,
      databaseUrl: undefined,
      dataDir: "",
      seedDemo: false,
      quiet: true,
      rateLimitShort: 1000,
      rateLimitLong: 100000,
      athleteRateLimitShort: 3,
      athleteRateLimitLong: 50,
    }));
    const { app } = createApp(platform);
    const s = await listen(app.fetch, { port: 0, hostname: "127.0.0.1" });
    try {
      const ada = await createAthlete(platform, {
        firstname: "Ada",
        lastname: "B",
        email: "ada-rl@example.com",
        password: "password123",
      });
      const eddy = await createAthlete(platform, {
        firstname: "Eddy",
        lastname: "M",
        email: "eddy-rl@example.com",
        password: "password123",
      });
      const web = await createApplication(platform, {
        name: "Pages",
        ownerId: ada,
        callbackDomain: "localhost",
        internal: true,
      });
      const permissions = ["read", "write", "view_private"] as const;
      const adaToken = await issueToken(platform, {
        athleteId: ada,
        applicationId: web.client_id,
        permissions: [...permissions],
      });
      const eddyToken = await issueToken(platform, {
        athleteId: eddy,
        applicationId: web.client_id,
        permissions: [...permissions],
      });
      const c = api(`http://127.0.0.1:${s.port}`);
      const seen = [];
      for (let i = 0; i < 4; i++) {
        const res = await c("GET", "/v3/athlete", { token: adaToken });
        seen.push([res.status, res.headers.get("x-ratelimit-limit"), res.headers.get("x-ratelimit-usage")]);
        if (i === 3) {
          expect(res.body).toEqual({
            message: "Rate Limit Exceeded",
            errors: [{ resource: "Application", field: "rate limit", code: "exceeded" }],
          });
          const wait = Number(res.headers.get("retry-after"));
          expect(wait).toBeGreaterThanOrEqual(1);
          expect(wait).toBeLessThanOrEqual(15 * 60);
        } else {
          expect(res.headers.get("retry-after")).toBeNull();
        }
      }
      expect(seen).toEqual([[200, "3,50", "1,1"], [200, "3,50", "2,2"], [200, "3,50", "3,3"], [403, "3,50", "4,4"]]);
      // Eddy, on the same application, has his own budget.
      const other = await c("GET", "/v3/athlete", { token: eddyToken });
      expect(other.status).toBe(200);
      expect(other.headers.get("x-ratelimit-usage")).toBe("1,1");

      // A third-party application keeps one budget for all its athletes, with its own limits.
      const third = await createApplication(platform, { name: "Third", ownerId: ada, callbackDomain: "localhost" });
      const t = await issueToken(platform, { athleteId: ada, applicationId: third.client_id, permissions: ["read"] });
      const res = await c("GET", "/v3/athlete", { token: t });
      expect([res.status, res.headers.get("x-ratelimit-limit"), res.headers.get("x-ratelimit-usage")]).toEqual([
        200,
        "1000,100000",
        "1,1",
      ]);
    } finally {
      await s.close();
      await platform.close();
    }
  });

  it("says how long to wait: to the end of the 15-minute window, or to midnight UTC for the daily limit", () => {
    const limiter = new RateLimiter(2, 3);
    const at = Date.parse("2026-05-01T10:14:30Z");
    expect(retryAfterSeconds(limiter, { short: 3, long: 3 }, at)).toBe(30);
    expect(retryAfterSeconds(limiter, { short: 1, long: 4 }, at)).toBe((24 - 10) * 3600 - 14 * 60 - 30);
    expect(retryAfterSeconds(limiter, { short: 3, long: 4 }, Date.parse("2026-05-01T23:59:59.500Z"))).toBe(1);
  });
});
