import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { insidePrivacyZone } from "../../shared/privacy-zones.ts";

/** The /v3/athlete/privacy_zones extension and the shared helper. */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("/v3/athlete/privacy_zones", () => {
  it("creates, lists and deletes one's zones (the privacy_zones read model)", async () => {
    const a = await server.athlete();
    const created = await server.api("POST", "/v3/athlete/privacy_zones", {
      token: a.token,
      form: { lat: 52.52, lng: 13.405, radius: 400 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ lat: 52.52, lng: 13.405, radius: 400 });
    expect(typeof created.body.created_at).toBe("string");
    const list = await server.api("GET", "/v3/athlete/privacy_zones", { token: a.token });
    expect(list.body).toEqual([created.body]);
    const rows = await server.platform.db.query(
      "select id, athlete_id, lat, lng, radius_m from privacy_zones where athlete_id = $1",
      [a.id],
    );
    expect(rows.map((r) => ({ ...r, id: Number(r.id), athlete_id: Number(r.athlete_id) }))).toEqual([
      { id: created.body.id, athlete_id: a.id, lat: 52.52, lng: 13.405, radius_m: 400 },
    ]);
    const del = await server.api("DELETE", `/v3/athlete/privacy_zones/${created.body.id}`, { token: a.token });
    expect(del.status).toBe(204);
    expect((await server.api("GET", "/v3/athlete/privacy_zones", { token: a.token })).body).toEqual([]);
  });

  it("refuses bad circles, other athletes' zones and missing scopes", async () => {
    const a = await server.athlete();
    const b = await server.athlete();
    for (
      const [form, field, code] of [
        [{ lat: 91, lng: 0, radius: 100 }, "lat", "invalid"],
        [{ lat: 0, lng: 181, radius: 100 }, "lng", "invalid"],
        [{ lat: 0, lng: 0, radius: 0 }, "radius", "invalid"],
        [{ lat: 0, lng: 0, radius: 50_000 }, "radius", "invalid"],
        [{ lat: 0, lng: 0 }, "radius", "missing"],
        [{ lat: "north", lng: 0, radius: 10 }, "lat", "invalid"],
      ] as const
    ) {
      const res = await server.api("POST", "/v3/athlete/privacy_zones", { token: a.token, form });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: "Bad Request", errors: [{ resource: "PrivacyZone", field, code }] });
    }
    const zone = await server.api("POST", "/v3/athlete/privacy_zones", {
      token: a.token,
      form: { lat: 1, lng: 1, radius: 10 },
    });
    const stolen = await server.api("DELETE", `/v3/athlete/privacy_zones/${zone.body.id}`, { token: b.token });
    expect(stolen.status).toBe(404);
    expect(stolen.body).toEqual({
      message: "Record Not Found",
      errors: [{ resource: "PrivacyZone", field: "id", code: "invalid" }],
    });
    expect((await server.api("GET", "/v3/athlete/privacy_zones", { token: a.token })).body).toHaveLength(1);
    const readOnly = await server.athlete({ permissions: ["read"] });
    const list = await server.api("GET", "/v3/athlete/privacy_zones", { token: readOnly.token });
    expect(list.status).toBe(401);
    expect(list.body.errors).toEqual([{ resource: "AccessToken", field: "view_private_permission", code: "missing" }]);
    const post = await server.api("POST", "/v3/athlete/privacy_zones", {
      token: readOnly.token,
      form: { lat: 1, lng: 1, radius: 10 },
    });
    expect(post.status).toBe(401);
  });
});

describe("insidePrivacyZone", () => {
  it("tells points within the radius (metres, great-circle) from points outside", () => {
    const zones = [{ lat: 48.8584, lng: 2.2945, radius_m: 200 }];
    expect(insidePrivacyZone([48.8584, 2.2945], zones)).toBe(true);
    expect(insidePrivacyZone([48.8584 + 150 / 111_195, 2.2945], zones)).toBe(true);
    expect(insidePrivacyZone([48.8584 + 250 / 111_195, 2.2945], zones)).toBe(false);
    expect(insidePrivacyZone([48.8584, 2.2945], [])).toBe(false);
  });
});
