// deno-lint-ignore-file no-explicit-any -- the API's JSON answers and the FIT SDK's messages are read field by field
import { Decoder, Stream } from "@garmin/fitsdk";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DropinServer, startDropinServer } from "../dropin/deno-server.ts";
import { runCli } from "../helpers/deno.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { greatCircle, readGpxPoints } from "../numbers/device-totals.ts";
import { decodeTile, tileOf } from "./heatmaps-fixtures.ts";
import { activityTypeId } from "../../shared/activity-types.ts";

/**
 * Issue #47 item 5 over HTTP, on the server as `npm start` runs it: crop and split derive an
 * activity again from its original file over the kept window, checked against the device's own
 * figures over that window, read here from the file (the FIT SDK's records, laps and timer events;
 * a TCX's trackpoints; a GPX's points by great circles), never from our derivation; undo puts back
 * exactly what the API answered before (the activity, its streams, laps and efforts, the boards and
 * totals that follow it); the rules (owner, window, manual activities, undo order); and replay.
 */
const EDGE500 = deviceFile("fit/garmin-edge500-cycling-hr-cad-pauses.fit");
const FR920 = deviceFile("fit/garmin-fr920xt-running-paused.fit");
const FR410 = deviceFile("tcx/garmin-fr410-running-hr.tcx");
const GPX_RIDE = deviceFile("gpx/strava-export-cycling-power-hr-cad-atemp.gpx");
/** A pool swim written as one trackpoint per length (tens of seconds apart). */
const POOL_TCX = deviceFile("tcx/garmin-vivoactivehr-pool-swim.tcx");
const STREAM_KEYS = "time,distance,latlng,altitude,velocity_smooth,heartrate,cadence,watts,temp,moving,grade_smooth";

let dropin: DropinServer;
let ada: { id: number; token: string; readToken: string };
let ben: { id: number; token: string; readToken: string };

beforeAll(async () => {
  // Premium: the activity's zones are part of what an undo must put back.
  dropin = await startDropinServer(["Ada", "Ben"], { premium: true });
  ada = dropin.people.Ada;
  ben = dropin.people.Ben;
}, 180_000);
afterAll(async () => {
  await dropin?.close();
});

const call = (method: string, path: string, options: Parameters<DropinServer["call"]>[2] = {}) =>
  dropin.call(method, path, { token: ada.token, ...options });

async function upload(path: string, dataType: string, token = ada.token): Promise<number> {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(readFileSync(path))]), path.split("/").pop()!);
  form.set("data_type", dataType);
  const created = await dropin.call("POST", "/v3/uploads", { token, multipart: form });
  expect(created.status, created.text).toBe(201);
  for (let i = 0; i < 1200; i++) {
    const status = await dropin.call("GET", `/v3/uploads/${created.body.id}`, { token });
    expect(status.body.error).toBeNull();
    if (status.body.activity_id) return status.body.activity_id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${path} did not finish`);
}

/** Everything the API answers about an activity and what follows it (compared whole before and after an undo). */
async function snapshot(id: number, segments: number[] = []) {
  const get = async (path: string, query: Record<string, string> = {}) => {
    const res = await call("GET", path, { query });
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    return res.body;
  };
  return {
    activity: await get(`/v3/activities/${id}`, { include_all_efforts: "true" }),
    streams: await get(`/v3/activities/${id}/streams`, { keys: STREAM_KEYS, key_by_type: "true" }),
    laps: await get(`/v3/activities/${id}/laps`),
    zones: await get(`/v3/activities/${id}/zones`),
    list: await get("/v3/athlete/activities", { per_page: "50" }),
    stats: await get(`/v3/athletes/${ada.id}/stats`),
    records: await get(`/v3/athletes/${ada.id}/records`),
    boards: await Promise.all(segments.map((s) => get(`/v3/segments/${s}/leaderboard`))),
    efforts: await Promise.all(segments.map((s) => get(`/v3/segments/${s}/all_efforts`))),
  };
}

/** The FIT file as the SDK reads it: records (time, distance, heart rate, power), laps and timer pauses. */
function fitFile(path: string) {
  const { messages, errors } = new Decoder(Stream.fromByteArray(new Uint8Array(readFileSync(path)))).read();
  expect(errors).toEqual([]);
  const records = (messages.recordMesgs as any[]).map((r) => ({
    t: (r.timestamp as Date).getTime(),
    distance: r.distance as number | undefined,
    hr: r.heartRate as number | undefined,
  }));
  const timer = (messages.eventMesgs as any[]).filter((e) => e.event === "timer");
  const pauses: [number, number][] = [];
  for (let i = 0; i + 1 < timer.length; i++) {
    if (String(timer[i].eventType).startsWith("stop") && timer[i + 1].eventType === "start") {
      pauses.push([timer[i].timestamp.getTime(), timer[i + 1].timestamp.getTime()]);
    }
  }
  const laps = (messages.lapMesgs as any[]).map((l) => ({
    start: (l.startTime as Date).getTime(),
    end: (l.timestamp as Date).getTime(),
    distance: Number(l.totalDistance),
    elapsed: Number(l.totalElapsedTime),
  }));
  return { records, pauses, laps };
}

/**
 * A recorded value at time t: the record's there, else linear between the records either side (as a
 * cut edge between two records is read); t is held within the recording.
 */
function valueAt(records: { t: number }[], key: string, t: number): number {
  const get = (r: any) => r[key] as number | undefined;
  const known = records.filter((r) => get(r) !== undefined);
  const at = Math.min(Math.max(t, known[0].t), known[known.length - 1].t);
  const k = known.findIndex((r) => r.t >= at);
  if (known[k].t === at) return get(known[k])!;
  const a = known[k - 1], b = known[k];
  return get(a)! + (get(b)! - get(a)!) * (at - a.t) / (b.t - a.t);
}

/**
 * The device's figures over [start, end] (ms): the distance it travelled (its readings at the edges,
 * linear between records), the timer's time (the window less its pauses), heart rate, and how many
 * records the window holds (one more at each edge between two records).
 */
function deviceWindow(file: ReturnType<typeof fitFile>, start: number, end: number) {
  const inside = file.records.filter((r) => r.t >= start && r.t <= end);
  const paused = file.pauses
    .filter(([a, b]) => b > start && a < end)
    .reduce((s, [a, b]) => s + Math.min(b, end) - Math.max(a, start), 0);
  const times = [...new Set(file.records.map((r) => r.t))];
  const edge = (t: number) => !times.includes(t) && times.some((x) => x < t) && times.some((x) => x > t);
  const hr = inside.map((r) => r.hr).filter((v): v is number => v !== undefined);
  // An edge's record has the heart rate between its neighbours', in whole beats as devices record it.
  const edgeHr = [start, end].filter(edge).map((t) => Math.round(valueAt(file.records, "hr", t)));
  return {
    records: new Set(inside.map((r) => r.t)).size + [start, end].filter(edge).length,
    firstHr: Math.round(valueAt(file.records, "hr", Math.max(start, file.records[0].t))),
    distance: valueAt(file.records, "distance", end) - valueAt(file.records, "distance", start),
    timerTime: (end - start - paused) / 1000,
    maxHr: Math.max(...hr, ...edgeHr),
    meanHr: hr.reduce((a, b) => a + b, 0) / hr.length,
  };
}

/** Stream indexes of the first samples at or after `from` and `to` seconds. */
function indexesAt(time: number[], from: number, to: number): [number, number] {
  return [time.findIndex((t) => t >= from), time.findIndex((t) => t >= to)];
}

async function segmentFrom(activityId: number, name: string, time: number[], from: number, to: number) {
  const [start_index, end_index] = indexesAt(time, from, to);
  const res = await call("POST", "/v3/segments", { json: { name, activity_id: activityId, start_index, end_index } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

const effortsOn = (activity: any, segmentId: number) =>
  (activity.segment_efforts as any[]).filter((e) => e.segment.id === segmentId);

/** A heatmap of Ada's rides built now: how many pixels its z14 tile draws around a point. */
async function heatAt(points: [number, number][]): Promise<number[]> {
  const created = await call("POST", "/v3/athlete/heatmaps", {
    form: { activity_type_ids: String(activityTypeId("Ride")) },
  });
  expect(created.status, created.text).toBe(201);
  let map: any;
  for (let i = 0; i < 1200 && map?.status !== "done"; i++) {
    if (i) await new Promise((r) => setTimeout(r, 100));
    map = (await call("GET", `/v3/athletes/${ada.id}/heatmaps/${created.body.id}/progress`)).body;
  }
  expect(map.status).toBe("done");
  const path = new URL(map.tile_path).pathname;
  return await Promise.all(points.map(async (point) => {
    const t = tileOf(point, 14);
    const tile = await fetch(`${dropin.server.url}${path}/14/${t.x}/${t.y}.png`);
    expect(tile.status).toBe(200);
    return decodeTile(new Uint8Array(await tile.arrayBuffer())).drawnNear(t.px, t.py, 6);
  }));
}

describe("crop: a ride's forgotten start and end", () => {
  let id: number;
  let before: Awaited<ReturnType<typeof snapshot>>;
  let early: number, middle: number;
  /** How many samples the crop takes off the start (the kept efforts' indexes move by as many). */
  let cut = 0;
  const file = fitFile(EDGE500);

  it("keeps [15:00, 2:30:00]: figures, streams and laps are the device's over the window", async () => {
    id = await upload(EDGE500, "fit");
    const whole = (await call("GET", `/v3/activities/${id}`)).body;
    const time = (await call("GET", `/v3/activities/${id}/streams`, { query: { keys: "time", key_by_type: "true" } }))
      .body.time.data as number[];
    // A segment in the part cropped away, one in the part kept.
    cut = time.filter((t) => t < 900).length;
    early = await segmentFrom(id, "Early stretch", time, 120, 600);
    middle = await segmentFrom(id, "Middle stretch", time, 3000, 3600);
    before = await snapshot(id, [early, middle]);
    expect(effortsOn(before.activity, early).length).toBe(1);

    const crop = await call("POST", `/v3/activities/${id}/crop`, { json: { start_time: 900, end_time: 9000 } });
    expect(crop.status, crop.text).toBe(200);
    const a = crop.body;
    const start = Date.parse(whole.start_date) + 900_000, end = Date.parse(whole.start_date) + 9_000_000;
    const device = deviceWindow(file, start, end);
    expect(a.start_date).toBe(new Date(start).toISOString().replace(".000Z", "Z"));
    expect(Date.parse(a.start_date_local) - Date.parse(a.start_date)).toBe(
      Date.parse(whole.start_date_local) - Date.parse(whole.start_date),
    );
    expect(a.elapsed_time).toBe(8100);
    expect(Math.abs(a.distance - device.distance)).toBeLessThanOrEqual(0.5);
    // Moving time against the device's timer over the window, as close as over the whole ride.
    const wholeGap = Math.abs(whole.moving_time - deviceWindow(file, 0, Infinity).timerTime);
    expect(Math.abs(a.moving_time - device.timerTime)).toBeLessThanOrEqual(Math.max(60, wholeGap));
    expect(a.max_heartrate).toBe(device.maxHr);
    expect(Math.abs(a.average_heartrate - device.meanHr)).toBeLessThanOrEqual(2);

    const streams = (await call("GET", `/v3/activities/${id}/streams`, {
      query: { keys: STREAM_KEYS, key_by_type: "true" },
    })).body;
    expect(streams.time.data.length).toBe(device.records);
    expect(streams.time.data[0]).toBe(0);
    expect(streams.heartrate.data[0]).toBe(device.firstHr);
    expect(streams.distance.data[streams.distance.data.length - 1]).toBeCloseTo(a.distance, 0);

    // The device's laps that overlap the window; those wholly inside keep the device's own figures.
    const laps = (await call("GET", `/v3/activities/${id}/laps`)).body as any[];
    const overlapping = file.laps.filter((l) => l.end > start && l.start < end);
    expect(laps.length).toBe(overlapping.length);
    let whole_laps = 0;
    laps.forEach((lap, k) => {
      const d = overlapping[k];
      if (d.start < start || d.end > end) return;
      whole_laps++;
      expect(Math.abs(lap.distance - d.distance)).toBeLessThanOrEqual(1);
      expect(Math.abs(lap.elapsed_time - d.elapsed)).toBeLessThanOrEqual(1);
    });
    expect(whole_laps).toBeGreaterThan(0);
  }, 300_000);

  it("heat follows: a heatmap built after the crop draws the part kept, not the part cropped away", async () => {
    // A point of the ride's first minutes no later record comes near (the FIT SDK's positions), and one kept.
    const { messages } = new Decoder(Stream.fromByteArray(new Uint8Array(readFileSync(EDGE500)))).read();
    const deg = (v: number) => v * 180 / 2 ** 31;
    const fixes = (messages.recordMesgs as any[]).filter((r) => r.positionLat !== undefined).map((r) => ({
      t: (r.timestamp as Date).getTime(),
      p: [deg(r.positionLat), deg(r.positionLong)] as [number, number],
    }));
    const t0 = Date.parse(before.activity.start_date);
    const kept = fixes.filter((f) => f.t >= t0 + 900_000 && f.t <= t0 + 9_000_000);
    const gone = fixes.find((f) =>
      f.t < t0 + 900_000 && f.t > t0 + 120_000 && kept.every((k) => greatCircle(f.p, k.p) > 300)
    );
    expect(gone, "a point only the cropped start passes").toBeDefined();
    const [away, here] = await heatAt([gone!.p, kept[Math.floor(kept.length / 2)].p]);
    expect(away).toBe(0);
    expect(here).toBeGreaterThan(0);
  }, 180_000);

  it("segment efforts, boards and totals follow; the edit is listed and reprocessing keeps the window", async () => {
    const a = (await call("GET", `/v3/activities/${id}`, { query: { include_all_efforts: "true" } })).body;
    expect(effortsOn(a, early)).toEqual([]);
    // The effort kept is the same effort (id, time, ranks), at the same samples of the shorter streams.
    expect(effortsOn(a, middle)).toEqual(
      effortsOn(before.activity, middle).map((e) => ({
        ...e,
        start_index: e.start_index - cut,
        end_index: e.end_index - cut,
      })),
    );
    expect((await call("GET", `/v3/segments/${early}/leaderboard`)).body.entries).toEqual([]);
    expect((await call("GET", `/v3/segments/${middle}/leaderboard`)).body.entries.length).toBe(1);
    const stats = (await call("GET", `/v3/athletes/${ada.id}/stats`)).body;
    expect(stats.all_ride_totals.count).toBe(1);
    expect(Math.abs(stats.all_ride_totals.distance - a.distance)).toBeLessThanOrEqual(1);
    expect(stats.all_ride_totals.elapsed_time).toBe(8100);
    const edits = (await call("GET", `/v3/activities/${id}/edits`)).body;
    expect(edits).toMatchObject({ activity_id: id, croppable: true, split_from: null });
    expect(edits.edits.map((e: any) => [e.edit, e.kind, e.start_date, e.split_activity_id])).toEqual([
      [1, "crop", a.start_date, null],
    ]);
  }, 120_000);

  it(
    "undo puts back exactly what the API answered before: activity, streams, laps, efforts, boards, totals",
    async () => {
      const undo = await call("DELETE", `/v3/activities/${id}/edits/1`);
      expect(undo.status, undo.text).toBe(200);
      expect(undo.body).toEqual((await call("GET", `/v3/activities/${id}`)).body);
      expect(await snapshot(id, [early, middle])).toEqual(before);
      expect((await call("GET", `/v3/activities/${id}/edits`)).body.edits).toEqual([]);
      // Nothing left to undo.
      expect((await call("DELETE", `/v3/activities/${id}/edits/1`)).status).toBe(404);
    },
    120_000,
  );
});

describe("split: a coffee stop recorded as one run", () => {
  let id: number, part: number;
  let before: Awaited<ReturnType<typeof snapshot>>;
  const file = fitFile(FR920);

  it("makes two activities, each the device's figures over its part", async () => {
    id = await upload(FR920, "fit");
    const gear = await call("POST", "/v3/gear", { json: { kind: "shoe", name: "Trail shoes" } });
    expect(gear.status, gear.text).toBe(201);
    expect(
      (await call("PUT", `/v3/activities/${id}`, {
        json: { gear_id: gear.body.id, name: "Long run", hide_from_home: true, visibility: "followers_only" },
      }))
        .status,
    )
      .toBe(200);
    before = await snapshot(id);
    const whole = before.activity;
    const at = 3600;
    const res = await call("POST", `/v3/activities/${id}/split`, { json: { time: at } });
    expect(res.status, res.text).toBe(201);
    const { activity: first, split_activity: second } = res.body;
    part = second.id;
    expect(first.id).toBe(id);
    const t0 = Date.parse(whole.start_date), cut = t0 + at * 1000, t1 = t0 + whole.elapsed_time * 1000;
    expect([first.start_date, first.elapsed_time]).toEqual([whole.start_date, at]);
    expect([second.start_date, second.elapsed_time]).toEqual([
      new Date(cut).toISOString().replace(".000Z", "Z"),
      whole.elapsed_time - at,
    ]);
    const a = deviceWindow(file, t0 - 1000, cut), b = deviceWindow(file, cut, t1 + 1000);
    expect(Math.abs(first.distance - a.distance)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(second.distance - b.distance)).toBeLessThanOrEqual(0.5);
    expect(Math.abs(first.distance + second.distance - whole.distance)).toBeLessThanOrEqual(1);
    expect(first.max_heartrate).toBe(a.maxHr);
    expect(second.max_heartrate).toBe(b.maxHr);
    // The new activity keeps what the athlete chose.
    expect([
      second.name,
      second.sport_type,
      second.private,
      second.visibility,
      second.gear_id,
      second.hide_from_home,
      second.upload_id,
    ])
      .toEqual(["Long run", whole.sport_type, false, "followers_only", gear.body.id, true, whole.upload_id]);
    // The new part is followers-only in every read model, not just in its representation: Ben, who
    // does not follow Ada, finds neither part; following her, both; unfollowing, neither again.
    const benSees = async () => {
      const list = await dropin.call("GET", `/v3/athletes/${ada.id}/activities`, { token: ben.token });
      const listed = (list.body as { id: number }[]).map((a) => a.id).filter((x) => x === id || x === second.id);
      const streams = await dropin.call("GET", `/v3/activities/${second.id}/streams`, { token: ben.token });
      const laps = await dropin.call("GET", `/v3/activities/${second.id}/laps`, { token: ben.token });
      return [listed.sort(), streams.status, laps.status];
    };
    expect(await benSees()).toEqual([[], 404, 404]);
    expect((await dropin.call("PUT", `/v3/athletes/${ada.id}/follow`, { token: ben.token })).status).toBeLessThan(300);
    expect(await benSees()).toEqual([[id, second.id].sort(), 200, 200]);
    expect((await dropin.call("DELETE", `/v3/athletes/${ada.id}/follow`, { token: ben.token })).status).toBeLessThan(
      300,
    );
    expect(await benSees()).toEqual([[], 404, 404]);
    // Splits and best efforts of each part, from its own distance: no part beats the whole's best.
    for (const p of [first, second]) {
      expect(p.splits_metric.length).toBe(Math.ceil(p.distance / 1000 - 1e-9));
      for (const effort of p.best_efforts) {
        const best = whole.best_efforts.find((e: any) => e.name === effort.name);
        expect(effort.elapsed_time).toBeGreaterThanOrEqual(best.elapsed_time);
      }
    }
  }, 300_000);

  it("totals, records and the activity list count both parts; each names the other", async () => {
    const stats = (await call("GET", `/v3/athletes/${ada.id}/stats`)).body;
    const parts = await Promise.all([id, part].map(async (x) => (await call("GET", `/v3/activities/${x}`)).body));
    expect(stats.all_run_totals.count).toBe(before.stats.all_run_totals.count + 1);
    expect(Math.abs(stats.all_run_totals.distance - parts[0].distance - parts[1].distance)).toBeLessThanOrEqual(1);
    const list = (await call("GET", "/v3/athlete/activities", { query: { per_page: "50" } })).body as any[];
    expect(list.map((x) => x.id)).toEqual(expect.arrayContaining([id, part]));
    const records = (await call("GET", `/v3/athletes/${ada.id}/records`)).body;
    for (const record of records.best_efforts) {
      const fastest = Math.min(
        ...parts.flatMap((p) =>
          p.best_efforts.filter((e: any) => e.name === record.name).map((e: any) => e.elapsed_time)
        ),
      );
      expect(record.elapsed_time).toBe(fastest);
    }
    expect((await call("GET", `/v3/activities/${part}/edits`)).body).toMatchObject({
      split_from: { activity_id: id },
      edits: [],
    });
    expect((await call("GET", `/v3/activities/${id}/edits`)).body.edits).toMatchObject([
      { edit: 1, kind: "split", split_activity_id: part },
    ]);
  }, 120_000);

  it("undo is refused while the part has crops of its own, then deletes the part and restores the run", async () => {
    const cropPart = await call("POST", `/v3/activities/${part}/crop`, { json: { start_time: 60, end_time: 600 } });
    expect(cropPart.status, cropPart.text).toBe(200);
    expect((await call("DELETE", `/v3/activities/${id}/edits/1`)).status).toBe(409);
    expect((await call("DELETE", `/v3/activities/${part}/edits/1`)).status).toBe(200);
    const undo = await call("DELETE", `/v3/activities/${id}/edits/1`);
    expect(undo.status, undo.text).toBe(200);
    expect((await call("GET", `/v3/activities/${part}`)).status).toBe(404);
    expect(await snapshot(id)).toEqual(before);
  }, 300_000);
});

describe("every kind of recording", () => {
  it("a TCX run cropped: the trackpoints' own distance and count over the window", async () => {
    const id = await upload(FR410, "tcx");
    const whole = (await call("GET", `/v3/activities/${id}`)).body;
    const text = readFileSync(FR410, "utf8");
    const points = [...text.matchAll(/<Trackpoint>([\s\S]*?)<\/Trackpoint>/g)].map((m) => ({
      t: Date.parse(/<Time>([^<]+)<\/Time>/.exec(m[1])![1]),
      d: Number(/<DistanceMeters>([^<]+)<\/DistanceMeters>/.exec(m[1])?.[1] ?? NaN),
    }));
    const start = Date.parse(whole.start_date) + 300_000, end = Date.parse(whole.start_date) + 1_500_000;
    const res = await call("POST", `/v3/activities/${id}/crop`, { json: { start_time: 300, end_time: 1500 } });
    expect(res.status, res.text).toBe(200);
    const measured = points.filter((p) => Number.isFinite(p.d));
    expect(res.body.elapsed_time).toBe(1200);
    // The trackpoints' own distance, read at the window's edges (linear between trackpoints).
    const travelled = valueAt(measured, "d", end) - valueAt(measured, "d", start);
    expect(Math.abs(res.body.distance - travelled)).toBeLessThanOrEqual(1);
    const time = (await call("GET", `/v3/activities/${id}/streams`, { query: { keys: "time", key_by_type: "true" } }))
      .body.time.data;
    const times = [...new Set(points.map((p) => p.t))];
    const edges = [start, end].filter((t) =>
      !times.includes(t) && times.some((x) => x < t) && times.some((x) => x > t)
    );
    expect(time.length).toBe(times.filter((t) => t >= start && t <= end).length + edges.length);
  }, 300_000);

  it("a sparse recording split between two trackpoints: the parts add up to the whole", async () => {
    const id = await upload(POOL_TCX, "tcx");
    const whole = (await call("GET", `/v3/activities/${id}`)).body;
    const text = readFileSync(POOL_TCX, "utf8");
    const times = [...text.matchAll(/<Trackpoint>\s*<Time>([^<]+)<\/Time>/g)].map((m) => Date.parse(m[1]));
    const time = Math.round(whole.elapsed_time * 0.4);
    expect(times).not.toContain(Date.parse(whole.start_date) + time * 1000);
    const res = await call("POST", `/v3/activities/${id}/split`, { json: { time } });
    expect(res.status, res.text).toBe(201);
    expect(Math.abs(res.body.activity.distance + res.body.split_activity.distance - whole.distance))
      .toBeLessThanOrEqual(1);
  }, 300_000);

  it("a GPX ride split: each part's distance is the great circles between its own points", async () => {
    const id = await upload(GPX_RIDE, "gpx");
    const whole = (await call("GET", `/v3/activities/${id}`)).body;
    const points = readGpxPoints(readFileSync(GPX_RIDE, "utf8"));
    const cut = Date.parse(whole.start_date) + 3600_000;
    const res = await call("POST", `/v3/activities/${id}/split`, { json: { time: 3600 } });
    expect(res.status, res.text).toBe(201);
    const along = (ps: typeof points) =>
      ps.slice(1).reduce((s, p, k) => s + greatCircle([ps[k].lat, ps[k].lng], [p.lat, p.lng]), 0);
    // The point at the split, between the points either side (shared by both parts).
    const k = points.findIndex((p) => p.time >= cut);
    const [a, b] = [points[k - 1], points[k]];
    const f = (cut - a.time) / (b.time - a.time);
    const at = { ...a, lat: a.lat + f * (b.lat - a.lat), lng: a.lng + f * (b.lng - a.lng), time: cut };
    const first = [...points.filter((p) => p.time < cut), at], second = [at, ...points.filter((p) => p.time > cut)];
    // Within 0.5 % (the derivation drops GPS jitter the bare sum keeps).
    expect(Math.abs(res.body.activity.distance - along(first))).toBeLessThanOrEqual(along(first) * 0.005);
    expect(Math.abs(res.body.split_activity.distance - along(second))).toBeLessThanOrEqual(along(second) * 0.005);
    // Nothing lost at the split: the parts add up to the whole.
    expect(Math.abs(res.body.activity.distance + res.body.split_activity.distance - whole.distance))
      .toBeLessThanOrEqual(1);
  }, 300_000);
});

describe("the rules, over HTTP", () => {
  let id: number;
  beforeAll(async () => {
    id = await upload(FR410, "tcx", ben.token);
  }, 300_000);

  it(
    "only the owner crops, splits and undoes: another athlete 403, a private activity 404, a read token 401",
    async () => {
      const crop = (token: string) =>
        dropin.call("POST", `/v3/activities/${id}/crop`, { token, json: { start_time: 60, end_time: 600 } });
      expect((await crop(ada.token)).status).toBe(403);
      expect((await dropin.call("POST", `/v3/activities/${id}/split`, { token: ada.token, json: { time: 60 } })).status)
        .toBe(403);
      expect((await dropin.call("GET", `/v3/activities/${id}/edits`, { token: ada.token })).status).toBe(403);
      expect((await crop(ben.readToken)).status).toBe(401);
      await dropin.call("PUT", `/v3/activities/${id}`, { token: ben.token, json: { private: true } });
      expect((await crop(ada.token)).status).toBe(404);
      expect((await dropin.call("DELETE", `/v3/activities/${id}/edits/1`, { token: ada.token })).status).toBe(404);
      expect((await crop(ben.token)).status).toBe(200);
    },
    300_000,
  );

  it("bad windows and times are 400s naming the field; a manual activity has nothing to crop", async () => {
    const elapsed = (await dropin.call("GET", `/v3/activities/${id}`, { token: ben.token })).body.elapsed_time;
    const expectFault = async (path: string, json: unknown, field: string) => {
      const res = await dropin.call("POST", `/v3/activities/${id}/${path}`, { token: ben.token, json });
      expect(res.status, res.text).toBe(400);
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    };
    await expectFault("crop", { start_time: elapsed - 10, end_time: 10 }, "end_time");
    await expectFault("crop", { start_time: 0, end_time: elapsed + 10 }, "end_time");
    await expectFault("crop", { start_time: -5, end_time: 100 }, "start_time");
    await expectFault("crop", { start_time: 0, end_time: elapsed }, "window");
    await expectFault("crop", { start_time: "soon", end_time: 100 }, "start_time");
    await expectFault("split", { time: 0 }, "time");
    await expectFault("split", { time: elapsed }, "time");
    await expectFault("split", {}, "time");
    const manual = await dropin.call("POST", "/v3/activities", {
      token: ben.token,
      json: { name: "Gym", sport_type: "Workout", start_date_local: "2024-05-06T10:00:00Z", elapsed_time: 3600 },
    });
    const res = await dropin.call("POST", `/v3/activities/${manual.body.id}/crop`, {
      token: ben.token,
      json: { start_time: 60, end_time: 600 },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ field: "id", code: "not uploaded" });
    expect((await dropin.call("GET", `/v3/activities/${manual.body.id}/edits`, { token: ben.token })).body.croppable)
      .toBe(false);
  }, 120_000);

  it("undoes only the latest edit: an earlier one 409, an unknown one 404", async () => {
    const second = await dropin.call("POST", `/v3/activities/${id}/crop`, {
      token: ben.token,
      json: { start_time: 30, end_time: 300 },
    });
    expect(second.status, second.text).toBe(200);
    expect((await dropin.call("DELETE", `/v3/activities/${id}/edits/1`, { token: ben.token })).status).toBe(409);
    expect((await dropin.call("DELETE", `/v3/activities/${id}/edits/9`, { token: ben.token })).status).toBe(404);
    expect((await dropin.call("DELETE", `/v3/activities/${id}/edits/2`, { token: ben.token })).status).toBe(200);
    expect((await dropin.call("DELETE", `/v3/activities/${id}/edits/1`, { token: ben.token })).status).toBe(200);
  }, 120_000);
});

describe("replay", () => {
  it("cli reprocess keeps a cropped activity's window, and the read models equal a replay of the log", async () => {
    const id = await upload(EDGE500.replace("edge500-cycling-hr-cad-pauses", "edge1000-cycling-power-hr"), "fit");
    const crop = await call("POST", `/v3/activities/${id}/crop`, { json: { start_time: 600, end_time: 4000 } });
    expect(crop.status, crop.text).toBe(200);
    await dropin.server.stop();
    // Derived again over its window, the cropped activity is what the crop recorded (over the whole file it would not be).
    const reprocess = await runCli(["reprocess", "--activity", String(id), "--json"], {
      DATA_DIR: dropin.server.dataDir,
    });
    expect(reprocess.code, reprocess.stderr).toBe(0);
    expect(JSON.parse(reprocess.stdout).outcomes).toEqual([{ activityId: id, outcome: "unchanged" }]);
    const verify = await runCli(["verify", "--json"], { DATA_DIR: dropin.server.dataDir });
    expect(verify.code, verify.stderr).toBe(0);
    expect(JSON.parse(verify.stdout).differences).toEqual([]);
  }, 300_000);
});
