import { decode } from "fast-png";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DropinServer, startDropinServer } from "./deno-server.ts";

/**
 * profile / profile_medium (issue #19): absolute URLs on our public URL that answer real PNG
 * images (decoded here by fast-png), 124 and 62 pixels as Strava's, one picture per athlete.
 */
let s: DropinServer;
beforeAll(async () => {
  s = await startDropinServer(["Ann", "Bob"]);
}, 120_000);
afterAll(() => s?.close());

async function image(url: string) {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/png");
  return decode(new Uint8Array(await res.arrayBuffer()));
}

describe("athlete pictures", () => {
  it("are absolute URLs of this server that serve 124 px and 62 px PNGs, different per athlete", async () => {
    const { Ann, Bob } = s.people;
    const me = await s.call("GET", "/v3/athlete", { token: Ann.token });
    expect(me.body.profile).toBe(`${s.server.url.replace(/\/$/, "")}/avatars/athletes/${Ann.id}/large.png`);
    expect(me.body.profile_medium).toBe(`${s.server.url.replace(/\/$/, "")}/avatars/athletes/${Ann.id}/medium.png`);
    const large = await image(me.body.profile);
    expect([large.width, large.height]).toEqual([124, 124]);
    const medium = await image(me.body.profile_medium);
    expect([medium.width, medium.height]).toEqual([62, 62]);
    // A picture, not a blank: at least two colours.
    const colours = new Set<string>();
    for (let i = 0; i < large.data.length; i += large.channels) {
      colours.add(Array.from(large.data.slice(i, i + 3)).join(","));
    }
    expect(colours.size).toBeGreaterThanOrEqual(2);
    // Another athlete's summary carries their own picture, which differs; the same athlete's stays the same.
    const other = await s.call("GET", `/v3/athletes/${Bob.id}`, { token: Ann.token });
    expect(other.body.resource_state).toBe(2);
    expect(new URL(other.body.profile).pathname).toBe(`/avatars/athletes/${Bob.id}/large.png`);
    const bob = await image(other.body.profile);
    expect(Buffer.from(bob.data).equals(Buffer.from(large.data))).toBe(false);
    expect(Buffer.from((await image(me.body.profile)).data).equals(Buffer.from(large.data))).toBe(true);
  });

  it("answer 404 for an unknown athlete or size", async () => {
    expect((await fetch(new URL("/avatars/athletes/999999/large.png", s.server.url))).status).toBe(404);
    expect((await fetch(new URL(`/avatars/athletes/${s.people.Ann.id}/huge.png`, s.server.url))).status).toBe(404);
    expect((await fetch(new URL("/avatars/athletes/abc/large.png", s.server.url))).status).toBe(404);
  });
});
