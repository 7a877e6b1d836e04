import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../server/route-table.ts";
import type { AnyRoute } from "../../server/http/route.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/** Quick in CI; `npm run fuzz` sets FUZZ_LONG for the long mode. */
const RUNS = process.env.FUZZ_LONG ? 400 : 12;

let server: TestServer;
let token: string;
let otherToken: string;
beforeAll(async () => {
  server = await startTestServer();
  token = (await server.athlete({ permissions: ["read", "write", "view_private"], premium: true })).token;
  otherToken = (await server.athlete({ permissions: ["read"] })).token;
});
afterAll(() => server.close());

/** Values that break naive parsers: huge and negative numbers, floats, unicode, injections, empties. */
const hostile = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "0",
    "-1",
    "1",
    "2",
    "1e309",
    "NaN",
    "Infinity",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999999999",
    "1.5",
    "0x10",
    "true",
    "null",
    "[]",
    "{}",
    "'; drop table events; --",
    "../../etc/passwd",
    "%00",
    "\u0000",
    "😀",
    "a".repeat(5000),
    "2026-13-45T99:99:99Z",
    "2020-01-01T00:00:00Z",
    "ride",
    "Run",
    "riding",
    "-90,-180,90,180",
    "91,0,92,1",
    "1,2,3",
    "M",
    "F",
    "this_year",
    "friends",
    "club",
    "none",
    "fit",
    "gpx.gz",
  ),
  fc.string({ maxLength: 40 }),
  fc.integer().map(String),
  fc.double().map(String),
);

function shapeKeys(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

function fuzzRoute(route: AnyRoute) {
  const pathParams = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
  const bodyKeys = shapeKeys(route.body);
  // A write's body fields may also come in the query string (server/http/body.ts readParams).
  const queryKeys = [...new Set([...shapeKeys(route.query), ...bodyKeys, "page", "per_page", "callback"])];
  return fc.record({
    path: fc.tuple(...pathParams.map(() => hostile)),
    query: fc.dictionary(fc.constantFrom(...queryKeys), hostile, { maxKeys: 4 }),
    body: bodyKeys.length ? fc.dictionary(fc.constantFrom(...bodyKeys), hostile, { maxKeys: 6 }) : fc.constant({}),
    asJson: fc.boolean(),
    who: fc.constantFrom("owner", "other", "none", "garbage"),
  });
}

describe("hostile input on every declared route never gets a 5xx", () => {
  for (const route of allRoutes) {
    it(`${route.method} ${route.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(fuzzRoute(route), async (input) => {
          let path = route.path;
          const params = [...route.path.matchAll(/:([A-Za-z_]+)/g)];
          params.forEach((m, i) => (path = path.replace(m[0], encodeURIComponent(input.path[i] || "x"))));
          const query = Object.fromEntries(Object.entries(input.query));
          const t = { owner: token, other: otherToken, none: undefined, garbage: "not-a-token" }[input.who];
          const hasBody = route.method === "POST" || route.method === "PUT";
          const res = await server.api(route.method, path, {
            token: t,
            query,
            ...(hasBody ? (input.asJson ? { json: input.body } : { form: input.body as Record<string, string> }) : {}),
          });
          expect(
            res.status,
            `${route.method} ${path} ${JSON.stringify(input)} → ${res.status} ${res.text.slice(0, 300)}`,
          ).toBeLessThan(500);
          if (res.status >= 400 && (res.headers.get("content-type") ?? "").includes("json")) {
            expect(typeof res.body?.message).toBe("string");
            expect(Array.isArray(res.body?.errors)).toBe(true);
          }
        }),
        { numRuns: RUNS },
      );
    });
  }
});
