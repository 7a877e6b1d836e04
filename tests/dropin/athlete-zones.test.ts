import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DropinServer, startDropinServer, upload } from "./deno-server.ts";

/**
 * GET /v3/athlete/zones and PUT /v3/athlete ftp (issue #19) over HTTP on the Deno server. Heart
 * rate: the 220 − age formula and 60/70/80/90 % bounds; power: Coggan's levels (55, 75, 90, 105,
 * 120, 150 % of FTP); the activity zones bucket by the same bounds.
 */
let s: DropinServer;
beforeAll(async () => {
  s = await startDropinServer(["Ann"], { premium: true }); // activity zones are a premium feature
}, 120_000);
afterAll(() => s?.close());

const BIRTHDATE = "1988-05-06"; // startDropinServer's athletes

describe("GET /v3/athlete/zones", () => {
  it("needs profile:read_all (view_private)", async () => {
    const res = await s.call("GET", "/v3/athlete/zones", { token: s.people.Ann.readToken });
    expect(res.status).toBe(401);
  });

  it("answers heart-rate zones from 220 − age; power zones once an FTP is set through PUT /v3/athlete", async () => {
    const age = Math.floor((Date.now() - Date.parse(`${BIRTHDATE}T00:00:00Z`)) / (365.25 * 86_400_000));
    const max = 220 - age;
    const before = await s.call("GET", "/v3/athlete/zones", { token: s.people.Ann.token });
    expect(before.status).toBe(200);
    const hr = [0, 0.6, 0.7, 0.8, 0.9].map((f) => Math.round(f * max));
    expect(before.body).toEqual({
      heart_rate: { custom_zones: false, zones: hr.map((min, i) => ({ min, max: i < 4 ? hr[i + 1] : -1 })) },
    });

    const bad = await s.call("PUT", "/v3/athlete", { token: s.people.Ann.token, form: { ftp: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ resource: "Athlete", field: "ftp", code: "invalid" }]);
    const put = await s.call("PUT", "/v3/athlete", { token: s.people.Ann.token, form: { ftp: 250, weight: 63.2 } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ ftp: 250, weight: 63.2 });

    const after = await s.call("GET", "/v3/athlete/zones", { token: s.people.Ann.token });
    expect(after.body.power).toEqual({
      zones: [
        { min: 0, max: 138 },
        { min: 138, max: 188 },
        { min: 188, max: 225 },
        { min: 225, max: 263 },
        { min: 263, max: 300 },
        { min: 300, max: 375 },
        { min: 375, max: -1 },
      ],
    });

    // An activity's power zones bucket by the same bounds.
    const ride = await upload(s.call, s.people.Ann.token, "fit/garmin-edge1000-cycling-power-hr.fit");
    const zones = await s.call("GET", `/v3/activities/${ride}/zones`, { token: s.people.Ann.token });
    expect(zones.status).toBe(200);
    const power = zones.body.find((z: { type: string }) => z.type === "power");
    expect(power.distribution_buckets.map((b: { min: number; max: number }) => ({ min: b.min, max: b.max }))).toEqual(
      after.body.power.zones,
    );
  });
});
