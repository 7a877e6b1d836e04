import { request as httpRequest } from "node:http";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";

/**
 * The attack (issue 29 item 2): unauthenticated clients choosing label values. Before, every
 * made-up HTTP method became a `method` label value of its own (16 series each: a counter and a
 * histogram), so 3,000 requests added 48,000 series and +925 MB of RSS for the life of the process.
 * Now every label value comes from a closed set (unknown methods, unmatched paths and unusual status
 * codes fold into "other"): thousands of hostile requests leave the number of series under a fixed
 * bound, 1,000 more add none, and the process barely grows.
 */
let server: DenoServer;

beforeAll(async () => {
  server = await startDenoServer({ env: { SEED_DEMO: "0", LOG_FORMAT: "off" } });
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

/** Resident set size of the Deno server now, in MiB. */
function rssMiB(): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** One raw HTTP/1.1 request (any method token, any path, any headers); resolves with the status. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: server.port, method, path, headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

let seq = 0;
/** Every made-up token sent (none may show up in a label value). */
const madeUp = new Set<string>();
const made = () => {
  const token = `${(++seq).toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  madeUp.add(token);
  return token;
};

/** Made-up methods (every other request): on a matched route, the API, a page and an unmatched path. */
const METHOD_ATTACKS: (() => Promise<number>)[] = [
  () => send(`X${made().toUpperCase()}`, "/v3/athlete"),
  () => send(`PROPFIND${made().toUpperCase()}`, `/${made()}`),
  () => send(made().toUpperCase(), "/login", { accept: "text/html" }),
  () => send(made(), "/metrics"),
];

/** The other attacks, in a fixed rotation: unmatched paths, odd statuses. */
const OTHER_ATTACKS: (() => Promise<number>)[] = [
  // Random unmatched paths: API (JSON 404) and pages (HTML 404), deep and with odd characters.
  () => send("GET", `/v3/${made()}/${made()}`),
  () => send("GET", `/${made()}/${made()}/%F0%9F%92%A5${made()}`, { accept: "text/html" }),
  () => send("POST", `/api/v3/${made()}`, { "content-type": "application/json" }, "{}"),
  // Odd status-producing requests: 401s, 400s, 404s, 405-ish, 413, bad JSON, bad ids.
  () => send("GET", `/v3/activities/${made()}`),
  () => send("GET", "/v3/athlete", { authorization: `Bearer ${made()}` }),
  () => send("POST", "/oauth/token", { "content-type": "application/x-www-form-urlencoded" }, `grant_type=${made()}`),
  () =>
    send("POST", "/v3/uploads", { "content-type": "application/json", authorization: `Bearer ${made()}` }, "{not json"),
  () => send("GET", `/heatmaps/${made()}/${made()}`, { accept: "text/html" }),
  () => send("GET", `/heatmap-viewer/${made()}.js`),
  () => send("PUT", "/metrics"),
  () => send("DELETE", `/docs/assets/${made()}`),
  () => send("GET", `/oauth/authorize?client_id=${made()}&response_type=${made()}`, { accept: "text/html" }),
  () =>
    send(
      "POST",
      "/login",
      { "content-type": "application/x-www-form-urlencoded", "content-length": "999999999999" },
      "",
    ),
  () => send("OPTIONS", `/v3/${made()}`),
  () => send("HEAD", `/${made()}`),
];

async function attack(count: number): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let next = 0;
  await Promise.all(Array.from({ length: 12 }, async () => {
    while (next < count) {
      const i = next++;
      const attacks = i % 2 === 0 ? METHOD_ATTACKS : OTHER_ATTACKS;
      const status = await attacks[Math.floor(i / 2) % attacks.length]().catch(() => 0);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }));
  return statuses;
}

/** The scrape's series (sample lines) and the label values each label took. */
async function scrape(): Promise<{ series: number; values: Map<string, Set<string>> }> {
  const res = await fetch(`${server.url}/metrics`);
  expect(res.status).toBe(200);
  const lines = (await res.text()).split("\n").filter((l) => l && !l.startsWith("#"));
  const values = new Map<string, Set<string>>();
  for (const line of lines) {
    for (const [, name, value] of (/\{(.*)\}/.exec(line)?.[1] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      if (!values.has(name)) values.set(name, new Set());
      values.get(name)!.add(value);
    }
  }
  return { series: lines.length, values };
}

/** A fixed bound on the series /metrics may hold, whatever clients send. */
const MAX_SERIES = 1_500;

describe("/metrics stays bounded whatever clients send (issue 29 item 2)", () => {
  it(
    "thousands of made-up methods, unmatched paths and odd statuses: series under a fixed bound, none added by 1,000 more",
    async () => {
      // Warm up with ordinary traffic, then measure from there.
      for (let i = 0; i < 50; i++) await send("GET", "/health");
      const before = await scrape();
      const rssBefore = rssMiB();

      // 6,000 requests, 3,000 of them with made-up methods (the 3,000 added 48,000 series).
      const statuses = await attack(6_000);
      expect(statuses[0] ?? 0).toBe(0); // every request answered
      expect(Object.keys(statuses).every((s) => Number(s) < 500)).toBe(true);
      const after = await scrape();
      const rssAfter = rssMiB();

      await attack(1_000);
      const again = await scrape();
      const rssAgain = rssMiB();

      console.log(
        `[metrics-cardinality] series: ${before.series} before, ${after.series} after 6,000 hostile requests (3,000 made-up methods), ${again.series} after 1,000 more ` +
          `(bound ${MAX_SERIES}); RSS ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} → ${
            rssAgain.toFixed(0)
          } MiB; statuses ${JSON.stringify(statuses)}`,
      );
      expect(after.series).toBeLessThan(MAX_SERIES);
      expect(again.series).toBe(after.series);
      // Every label value is from a closed set.
      for (const method of again.values.get("method") ?? []) {
        expect(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]).toContain(method);
      }
      for (const status of again.values.get("status") ?? []) expect(status).toMatch(/^([1-5]\d\d|[1-5]xx|other)$/);
      for (const route of again.values.get("route") ?? []) {
        expect(route === "other" || route.startsWith("/")).toBe(true);
      }
      expect(again.values.get("route")).toContain("other");
      expect(again.values.get("method")).toContain("other");
      const labelValues = [...again.values.values()].flatMap((set) => [...set].map((v) => v.toLowerCase()));
      expect(labelValues.filter((v) => [...madeUp].some((token) => v.includes(token)))).toEqual([]);
      // The process does not grow with the attack (it grew by +925 MB for 3,000 made-up methods).
      expect(rssAfter - rssBefore).toBeLessThan(80);
      expect(rssAgain - rssAfter).toBeLessThan(24);
      // And it still answers.
      expect(await send("GET", "/health")).toBe(200);
    },
    300_000,
  );
});
