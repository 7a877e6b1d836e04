import { decode as decodePng, encode as encodePng } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";

/**
 * The settings page's extension endpoints: POST /v3/gear (through the gear decider) and
 * PUT/DELETE /v3/athlete/picture (blobs + an AthletePictureChanged event; the avatar URLs answer it).
 */
let server: TestServer;
let ann: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  ann = await server.athlete({ firstname: "Ann" });
});
afterAll(() => server.close());

describe("POST /v3/gear", () => {
  it("adds a bike (b…) and shoes (g…) that GET /v3/gear/:id and the detailed athlete then show", async () => {
    const bike = await server.api("POST", "/v3/gear", {
      token: ann.token,
      form: {
        kind: "bike",
        name: "Winter bike",
        brand_name: "Surly",
        model_name: "Cross-Check",
        frame_type: 2,
        weight: 11.8,
        primary: 1,
      },
    });
    expect(bike.status, bike.text).toBe(201);
    expect(bike.body).toMatchObject({
      id: expect.stringMatching(/^b\d+$/),
      resource_state: 3,
      name: "Winter bike",
      brand_name: "Surly",
      model_name: "Cross-Check",
      frame_type: 2,
      weight: 11.8,
      primary: true,
      distance: 0,
    });
    const shoes = await server.api("POST", "/v3/gear", {
      token: ann.token,
      json: { kind: "shoe", name: "Trail shoes" },
    });
    expect(shoes.status).toBe(201);
    expect(shoes.body.id).toMatch(/^g\d+$/);
    expect((await server.api("GET", `/v3/gear/${bike.body.id}`, { token: ann.token })).body).toEqual(bike.body);
    const me = await server.api("GET", "/v3/athlete", { token: ann.token });
    expect(me.body.bikes.map((b: { id: string }) => b.id)).toEqual([bike.body.id]);
    expect(me.body.shoes.map((b: { id: string }) => b.id)).toEqual([shoes.body.id]);
    const events = await server.platform.db.query<{ n: number }>(
      "select count(*)::int as n from events where type = 'GearAdded' and data->>'athleteId' = $1",
      [String(ann.id)],
    );
    expect(events[0].n).toBe(2);
  });

  it("refuses what the decider refuses (400), a missing name or kind (400), a read-only token (401)", async () => {
    const shoeFrame = await server.api("POST", "/v3/gear", {
      token: ann.token,
      form: { kind: "shoe", name: "Road shoes", frame_type: 3 },
    });
    expect(shoeFrame.status).toBe(400);
    expect(shoeFrame.body.errors).toEqual([{ resource: "Gear", field: "frame_type", code: "invalid" }]);
    const heavy = await server.api("POST", "/v3/gear", {
      token: ann.token,
      form: { kind: "bike", name: "Tank", weight: 250 },
    });
    expect(heavy.body.errors).toEqual([{ resource: "Gear", field: "weight", code: "invalid" }]);
    expect((await server.api("POST", "/v3/gear", { token: ann.token, form: { kind: "bike" } })).status).toBe(400);
    expect((await server.api("POST", "/v3/gear", { token: ann.token, form: { kind: "car", name: "x" } })).status).toBe(
      400,
    );
    const reader = await server.token(ann.id, ann.applicationId, ["read"]);
    expect((await server.api("POST", "/v3/gear", { token: reader, form: { kind: "bike", name: "x" } })).status).toBe(
      401,
    );
    expect((await server.api("GET", "/v3/athlete", { token: ann.token })).body.bikes).toHaveLength(1);
  });
});

/** A 300 × 200 RGBA PNG: red columns 0–49, green 50–249, blue 250–299 (its centre square is all green). */
function stripes(): Uint8Array<ArrayBuffer> {
  const w = 300, h = 200, data = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * 4;
      data.set(x < 50 ? [255, 0, 0, 255] : x < 250 ? [0, 160, 0, 255] : [0, 0, 255, 255], o);
    }
  }
  return new Uint8Array(encodePng({ width: w, height: h, data, channels: 4, depth: 8 }));
}

const fetchAvatar = async (url: string, headers: Record<string, string> = {}) => {
  const path = new URL(url).pathname;
  return await fetch(`${server.url}${path}`, { headers });
};

describe("PUT / DELETE /v3/athlete/picture", () => {
  it("crops the centre square, scales it to 124 and 62 px, and profile / profile_medium answer it", async () => {
    const me = await server.api("GET", "/v3/athlete", { token: ann.token });
    const identicon = new Uint8Array(await (await fetchAvatar(me.body.profile)).arrayBuffer());
    const form = new FormData();
    form.set("file", new Blob([stripes()], { type: "image/png" }), "me.png");
    const res = await server.api("PUT", "/v3/athlete/picture", { token: ann.token, multipart: form });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ profile: me.body.profile, profile_medium: me.body.profile_medium, custom: true });
    for (const [url, side] of [[me.body.profile, 124], [me.body.profile_medium, 62]] as const) {
      const got = await fetchAvatar(url);
      expect(got.status).toBe(200);
      expect(got.headers.get("content-type")).toBe("image/png");
      const png = decodePng(new Uint8Array(await got.arrayBuffer()));
      expect([png.width, png.height]).toEqual([side, side]);
      const channels = png.channels;
      for (let i = 0; i < png.width * png.height; i++) {
        expect(png.data[i * channels], `red at ${i}`).toBeLessThan(10);
        expect(png.data[i * channels + 1], `green at ${i}`).toBeGreaterThan(150);
        expect(png.data[i * channels + 2], `blue at ${i}`).toBeLessThan(10);
      }
      // Revalidation: the same picture answers 304 to its ETag.
      const again = await fetchAvatar(url, { "if-none-match": got.headers.get("etag")! });
      expect(again.status).toBe(304);
    }
    const events = await server.platform.db.query<{ n: number }>(
      "select count(*)::int as n from events where type = 'AthletePictureChanged'",
    );
    expect(events[0].n).toBe(1);
    // Removed: the identicon is back.
    const removed = await server.api("DELETE", "/v3/athlete/picture", { token: ann.token });
    expect(removed.body.custom).toBe(false);
    expect(new Uint8Array(await (await fetchAvatar(me.body.profile)).arrayBuffer())).toEqual(identicon);
  });

  it("refuses a file that is not a picture, or none (400), and a read-only token (401)", async () => {
    const form = new FormData();
    form.set("file", new Blob([new TextEncoder().encode("not a picture")]), "x.png");
    const bad = await server.api("PUT", "/v3/athlete/picture", { token: ann.token, multipart: form });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([{ resource: "Athlete", field: "file", code: "invalid" }]);
    // PNG magic bytes and a header, but corrupt data behind them.
    const broken = stripes().slice(0, 60);
    const form2 = new FormData();
    form2.set("file", new Blob([broken]), "x.png");
    expect((await server.api("PUT", "/v3/athlete/picture", { token: ann.token, multipart: form2 })).body.errors)
      .toEqual([{ resource: "Athlete", field: "file", code: "invalid" }]);
    expect((await server.api("PUT", "/v3/athlete/picture", { token: ann.token, multipart: new FormData() })).status)
      .toBe(400);
    const reader = await server.token(ann.id, ann.applicationId, ["read"]);
    const form3 = new FormData();
    form3.set("file", new Blob([stripes()]), "me.png");
    expect((await server.api("PUT", "/v3/athlete/picture", { token: reader, multipart: form3 })).status).toBe(401);
  });
});
