// deno-lint-ignore-file no-explicit-any -- the API's JSON answers and the FIT SDK's messages are read field by field
import { Decoder, Stream } from "@garmin/fitsdk";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DropinServer, startDropinServer, upload } from "../dropin/deno-server.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * Issue #47 item 6 over HTTP, on the server as `npm start` runs it: two efforts on a segment
 * compared along its distance. The Edge 810 ride passes a stretch twice (a circuit): a segment cut
 * on the first pass has two efforts in the ride. What the comparison answers is checked against the
 * device's own records, read here with the FIT SDK: when each effort reached each point (its
 * recorded distance, scaled to the segment), its heart rate and power there; then who may compare
 * what (the privacy engine: another athlete's effort only when the caller may see it).
 */
const EDGE810 = "fit/garmin-edge810-cycling-power-vector.fit";

let dropin: DropinServer;
let ada: DropinServer["people"][string], ben: DropinServer["people"][string], cy: DropinServer["people"][string];
let segment: number;
let adas: any[], bens: any[];

beforeAll(async () => {
  dropin = await startDropinServer(["Ada", "Ben", "Cy"]);
  ({ Ada: ada, Ben: ben, Cy: cy } = dropin.people);
  const ride = await upload(dropin.call, ada.token, EDGE810);
  const created = await dropin.call("POST", "/v3/segments", {
    token: ada.token,
    json: { name: "Circuit", activity_id: ride, start_index: 470, end_index: 930 },
  });
  expect(created.status, created.text).toBe(201);
  segment = created.body.id;
  const bensRide = await upload(dropin.call, ben.token, EDGE810);
  const efforts = async (token: string, activity: number) =>
    ((await dropin.call("GET", `/v3/activities/${activity}`, { token, query: { include_all_efforts: "true" } })).body
      .segment_efforts as any[]).filter((e) => e.segment.id === segment);
  adas = await efforts(ada.token, ride);
  bens = await efforts(ben.token, bensRide);
}, 300_000);
afterAll(async () => {
  await dropin?.close();
});

const compare = (token: string, ids: unknown[], id = segment) =>
  dropin.call("GET", `/v3/segments/${id}/compare`, { token, query: { effort_ids: ids.map(String).join(",") } });

/** The ride's records as the SDK reads them: time (ms), distance, heart rate, power. */
function records() {
  const { messages } = new Decoder(Stream.fromByteArray(new Uint8Array(readFileSync(deviceFile(EDGE810))))).read();
  return (messages.recordMesgs as any[]).filter((r) => r.distance !== undefined).map((r) => ({
    t: (r.timestamp as Date).getTime(),
    d: r.distance as number,
    hr: r.heartRate as number | undefined,
    w: r.power as number | undefined,
  }));
}

/**
 * What the device recorded of one effort: the moment it reached each point (the effort's share of
 * the segment, along its recorded distance), and its heart rate and power there (the record at or
 * after that moment).
 */
function deviceAlong(effort: any, points: number[], length: number) {
  const all = records();
  const t0 = Date.parse(effort.start_date), t1 = t0 + effort.elapsed_time * 1000;
  const own = all.filter((r) => r.t >= t0 && r.t <= t1);
  const d0 = own[0].d, covered = own[own.length - 1].d - d0;
  return points.map((x) => {
    const target = d0 + (x / length) * covered;
    const k = Math.max(1, own.findIndex((r) => r.d >= target));
    const a = own[k - 1], b = own[k];
    const f = b.d > a.d ? Math.min(1, Math.max(0, (target - a.d) / (b.d - a.d))) : 1;
    return { time: (a.t + f * (b.t - a.t) - own[0].t) / 1000, hr: b.hr, w: b.w };
  });
}

describe("comparing two efforts on a segment", () => {
  it("the ride's two passes: time along the segment, heart rate and power as the device recorded them", async () => {
    expect(adas.length).toBe(2);
    const res = await compare(ada.token, [adas[0].id, adas[1].id]);
    expect(res.status, res.text).toBe(200);
    const c = res.body;
    expect(c.segment).toMatchObject({ id: segment, name: "Circuit" });
    expect(c.efforts.map((e: any) => e.effort.id)).toEqual([adas[0].id, adas[1].id]);
    expect(c.distance[0]).toBe(0);
    expect(c.distance[c.distance.length - 1]).toBe(c.segment.distance);
    expect(c.final_gap).toBe(adas[1].elapsed_time - adas[0].elapsed_time);
    expect(c.gap[c.gap.length - 1]).toBe(c.final_gap);
    const device = adas.map((e) => deviceAlong(e, c.distance, c.segment.distance));
    c.efforts.forEach((e: any, k: number) => {
      expect(e.time.length).toBe(c.distance.length);
      // Within the records' second (the finish is the effort's elapsed time as matched).
      const off = e.time.slice(0, -1).map((t: number, i: number) => Math.abs(t - device[k][i].time));
      expect(Math.max(...off)).toBeLessThanOrEqual(2);
      const hr = e.heartrate.map((v: number, i: number) => Math.abs(v - device[k][i].hr!));
      expect(hr.reduce((a: number, b: number) => a + b, 0) / hr.length).toBeLessThanOrEqual(2);
      const ours = e.watts.reduce((a: number, b: number) => a + b, 0) / e.watts.length;
      const theirs = device[k].reduce((a, r) => a + (r.w ?? 0), 0) / device[k].length;
      expect(Math.abs(ours - theirs)).toBeLessThanOrEqual(theirs * 0.05);
      expect(e.velocity_smooth.every((v: number) => v >= 0 && v < 30)).toBe(true);
    });
    // The gap is the second pass's time minus the first's at each point.
    c.gap.slice(0, -1).forEach((g: number, i: number) => {
      expect(Math.abs(g - (device[1][i].time - device[0][i].time))).toBeLessThanOrEqual(3);
    });
  }, 120_000);

  it(
    "with another athlete's effort the caller may see; the same ride recorded twice is level all the way",
    async () => {
      const res = await compare(ada.token, [adas[0].id, bens[0].id]);
      expect(res.status, res.text).toBe(200);
      expect(res.body.final_gap).toBe(0);
      expect(Math.max(...res.body.gap.map(Math.abs))).toBeLessThanOrEqual(0.1);
      expect(res.body.efforts[1].effort.athlete.id).toBe(ben.id);
      // A read-only token compares too; the reference may be the other athlete's.
      const read = await compare(ada.readToken, [bens[0].id, adas[1].id]);
      expect(read.status, read.text).toBe(200);
      expect(read.body.final_gap).toBe(adas[1].elapsed_time - bens[0].elapsed_time);
    },
    120_000,
  );

  it("refuses what the caller may not compare: neither effort theirs 403, an effort they may not see 404", async () => {
    expect((await compare(cy.token, [adas[0].id, adas[1].id])).status).toBe(403);
    // Ben's ride made private: Ada no longer sees his effort.
    const bensRide = bens[0].activity.id;
    expect(
      (await dropin.call("PUT", `/v3/activities/${bensRide}`, { token: ben.token, json: { private: true } })).status,
    )
      .toBe(200);
    expect((await compare(ada.token, [adas[0].id, bens[0].id])).status).toBe(404);
    // Ben still compares his own with Ada's (his token sees his private effort).
    expect((await compare(ben.token, [bens[0].id, adas[0].id])).status).toBe(200);
    await dropin.call("PUT", `/v3/activities/${bensRide}`, { token: ben.token, json: { private: false } });
    expect((await compare(ada.token, [adas[0].id, bens[0].id])).status).toBe(200);
    // An effort starting inside Ben's privacy zone is withheld from others.
    const [lat, lng] = bens[0].segment.start_latlng;
    const zone = await dropin.call("POST", "/v3/athlete/privacy_zones", {
      token: ben.token,
      json: { lat, lng, radius: 200 },
    });
    expect(zone.status, zone.text).toBe(201);
    expect((await compare(ada.token, [adas[0].id, bens[0].id])).status).toBe(404);
  }, 120_000);

  it("bad requests are 400s naming effort_ids; an unknown segment or effort is a 404", async () => {
    for (const ids of [[adas[0].id], [adas[0].id, adas[1].id, adas[0].id], ["x", adas[0].id], []]) {
      const res = await compare(ada.token, ids);
      expect(res.status, `${ids}: ${res.text}`).toBe(400);
      expect(res.body.errors[0].field).toBe("effort_ids");
    }
    const other = await dropin.call("POST", "/v3/segments", {
      token: ada.token,
      json: { name: "Elsewhere", activity_id: adas[0].activity.id, start_index: 2000, end_index: 2300 },
    });
    expect(other.status, other.text).toBe(201);
    const notOn = await compare(ada.token, [adas[0].id, adas[1].id], other.body.id);
    expect(notOn.status).toBe(400);
    expect(notOn.body.errors[0]).toMatchObject({ field: "effort_ids", code: "not on this segment" });
    expect((await compare(ada.token, [adas[0].id, adas[1].id], 999_999)).status).toBe(404);
    expect((await compare(ada.token, [adas[0].id, "9007199254740993"])).status).toBe(404);
  }, 120_000);
});
