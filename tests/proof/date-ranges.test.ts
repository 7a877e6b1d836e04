import { afterAll, describe, expect, it } from "vitest";
import type { AnyRoute } from "../../server/http/route.ts";
import { allRoutes } from "../../server/route-table.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { api } from "../helpers/http.ts";

/** Epoch seconds and dates no activity has: JavaScript's and PostgreSQL's limits and beyond. */
const EXTREME = [
  "9007199254740991",
  "-9007199254740991",
  "8640000000001",
  "-62135596801",
  "253402300800",
  "99999999999",
  "9999-12-31T23:59:59Z",
  "0001-01-01T00:00:00Z",
  "0000-01-01",
  "275760-09-13T00:00:00Z",
  "1899-12-31T23:59:59Z",
  "2201-01-01T00:00:00Z",
];
const DATE_FIELD = /date|^before$|^after$/;

function keys(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

let server: DenoServer | undefined;
afterAll(async () => {
  await server?.stop();
});

describe("date and epoch inputs are range-checked on every route (Deno, PGlite on disk)", () => {
  it("answers 400 naming the field for extreme dates, and no reading route answers 5xx afterwards", async () => {
    server = await startDenoServer({ env: { RATE_LIMIT_SHORT: "100000000", RATE_LIMIT_LONG: "100000000" } });
    const banner = /Access token \(athlete (\d+)[^\n]*:\n\s+(\S+)/.exec(server.output());
    expect(banner).toBeTruthy();
    const athleteId = Number(banner![1]);
    const token = banner![2];
    const call = api(server.url);
    const activity = await call("POST", "/v3/activities", {
      token,
      form: { name: "Dated", type: "Run", start_date_local: "2024-05-01T08:00:00Z", elapsed_time: 600 },
    });
    expect(activity.status).toBe(201);
    // The widest accepted window (1900-01-01 … 2200-12-31) is stored and must render.
    const edge = await call("POST", "/v3/athlete/heatmaps", {
      token,
      form: {
        activity_type_ids: "2",
        start_date_local: Date.UTC(1900, 0, 1) / 1000,
        end_date_local: Date.UTC(2201, 0, 1) / 1000 - 1,
      },
    });
    expect(edge.status).toBe(201);
    const ids: Record<string, string> = {
      athlete_id: String(athleteId),
      map_id: String(edge.body.id),
      id: String(activity.body.id),
    };
    const fill = (route: AnyRoute) => route.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => ids[name] ?? ids.id);

    // Every route with a date or epoch field, every extreme value, in the query and in the body.
    const dated = allRoutes.filter((r) => [...keys(r.query), ...keys(r.body)].some((k) => DATE_FIELD.test(k)));
    expect(dated.length).toBeGreaterThanOrEqual(5);
    let refused = 0;
    const accepted: string[] = [];
    for (const route of dated) {
      for (const field of [...keys(route.query), ...keys(route.body)].filter((k) => DATE_FIELD.test(k))) {
        const inQuery = keys(route.query).includes(field);
        for (const value of EXTREME) {
          const extra = route.path.endsWith("/heatmaps") ? { activity_type_ids: "2" } : {};
          const res = await call(
            route.method,
            fill(route),
            inQuery ? { token, query: { [field]: value } } : { token, form: { ...extra, [field]: value } },
          );
          expect(res.status, `${route.method} ${route.path} ${field}=${value}: ${res.text}`).toBeLessThan(500);
          if (res.status === 400 && JSON.stringify(res.body).includes(`"field":"${field}"`)) refused++;
          else accepted.push(`${route.method} ${route.path} ${field}=${value} → ${res.status}`);
        }
      }
    }
    expect(accepted).toEqual([]);

    // The bug of issue #15: a stored extreme value made four routes answer 500 until deleted.
    const reads = allRoutes.filter((r) => r.method === "GET");
    const failures: string[] = [];
    for (const route of reads) {
      const res = await call("GET", fill(route), { token });
      if (res.status >= 500) failures.push(`GET ${route.path} → ${res.status}`);
    }
    const heatmaps = await call("GET", "/v3/athlete/heatmaps", { token });
    expect(heatmaps.status).toBe(200);
    expect(failures).toEqual([]);
    console.log(
      `date ranges: ${dated.length} routes with date fields, ${refused} extreme values refused with a 400 naming the field, 0 accepted; ${reads.length} reading routes afterwards, ${failures.length} answered 5xx`,
    );
  }, 300_000);
});
