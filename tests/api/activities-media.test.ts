import { deflateSync } from "node:zlib";
import { decode as decodePng, encode as encodePng } from "fast-png";
import jpeg from "jpeg-js";
import omggif from "omggif";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privacyZoneCreated } from "../../events/privacy-zone/events.ts";
import { uploadReceived, uploadStream } from "../../events/upload/events.ts";
import { addGear } from "../../server/gear/commands.ts";
import { linkExternalPhoto } from "../../server/photos/commands.ts";
import { nextId } from "../../server/ids.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { buildStreams, recordActivity, type RecordedData } from "./activities-fixtures.ts";

let server: TestServer;
let owner: TestAthlete;
let other: TestAthlete;
let run: RecordedData;
beforeAll(async () => {
  // No job runner: an upload appended below must stay "processing".
  server = await startTestServer({ runJobs: false });
  owner = await server.athlete({ firstname: "Ada", premium: true, birthdate: "1990-01-01" });
  other = await server.athlete({ firstname: "Eddy" });
  run = await recordActivity(server, owner.id);
});
afterAll(() => server.close());

/** A real PNG of the given size (one grey row repeated), built with zlib. */
function png(width: number, height: number): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Uint8Array) => {
    let c = 0xffffffff;
    for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    view.setUint32(8 + data.length, crc(out.subarray(4, 8 + data.length)));
    return out;
  };
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, width);
  v.setUint32(4, height);
  ihdr.set([8, 0, 0, 0, 0], 8);
  const raw = new Uint8Array((width + 1) * height).fill(128);
  for (let y = 0; y < height; y++) raw[y * (width + 1)] = 0;
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array()),
  ];
  const total = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    total.set(p, o);
    o += p.length;
  }
  return total;
}

function photoForm(bytes: Uint8Array, fields: Record<string, string> = {}, type = "image/png") {
  const form = new FormData();
  form.set("file", new Blob([new Uint8Array(bytes) as Uint8Array<ArrayBuffer>], { type }), "photo.png");
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
}

describe("photos", () => {
  it("stores a native photo (201), serves its bytes and counts it on the activity", async () => {
    const bytes = png(640, 480);
    const res = await server.api("POST", `/v3/activities/${run.activityId}/photos`, {
      token: owner.token,
      multipart: photoForm(bytes, { caption: "Summit", lat: "51.5", lng: "-0.14" }),
    });
    expect(res.status).toBe(201);
    const url = (size: number) => `${server.url.replace(/\/$/, "")}/photos/${res.body.unique_id}/${size}`;
    expect(res.body).toEqual({
      unique_id: expect.stringMatching(/^[0-9A-F-]{36}$/),
      activity_id: run.activityId,
      resource_state: 2,
      urls: { "0": url(100) },
      caption: "Summit",
      source: 1,
      uploaded_at: expect.any(String),
      created_at: expect.any(String),
      location: [51.5, -0.14],
    });
    const image = await fetch(url(640));
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(bytes);
    await linkExternalPhoto(server.platform, {
      activityId: run.activityId,
      ref: "https://photos.example.com/p/1",
      url: "https://cdn.example.com/1.jpg",
      uid: "ext-1",
      caption: "From the phone",
      uploadedAt: "2024-03-10T12:00:00Z",
    });
    const detail = await server.api("GET", `/v3/activities/${run.activityId}`, { token: owner.token });
    expect(detail.body.photo_count).toBe(1);
    expect(detail.body.total_photo_count).toBe(2);
    // Best match of 100 is the 600 rendition (the 100 one is not larger than 100 on any side); of 600, the original.
    expect(detail.body.photos).toEqual({
      primary: { id: null, source: 1, unique_id: res.body.unique_id, urls: { "100": url(600), "600": url(640) } },
      count: 2,
    });
  });

  it("lists both kinds with photo_sources=true, only external ones without it; size picks the best match", async () => {
    const both = await server.api("GET", `/v3/activities/${run.activityId}/photos`, {
      token: owner.token,
      query: { photo_sources: true, size: 5000 },
    });
    expect(both.status).toBe(200);
    expect(both.body.map((p: { source: number }) => p.source)).toEqual([1, 2]);
    expect(both.body[1]).toEqual({
      id: expect.any(Number),
      activity_id: run.activityId,
      resource_state: 2,
      ref: "https://photos.example.com/p/1",
      urls: { "5000": "https://cdn.example.com/1.jpg" },
      uid: "ext-1",
      caption: "From the phone",
      type: "ExternalPhoto",
      source: 2,
      uploaded_at: "2024-03-10T12:00:00Z",
      created_at: expect.any(String),
      location: null,
    });
    expect(Object.keys(both.body[0].urls)).toEqual(["5000"]);
    const external = await server.api("GET", `/v3/activities/${run.activityId}/photos`, { token: owner.token });
    expect(external.body.map((p: { source: number }) => p.source)).toEqual([2]);
  });

  it("refuses a file that is not an image or over 10 MiB (400), others (403), no write (401)", async () => {
    const notImage = await server.api("POST", `/v3/activities/${run.activityId}/photos`, {
      token: owner.token,
      multipart: photoForm(new TextEncoder().encode("<svg></svg> just text"), {}, "image/png"),
    });
    expect(notImage.status).toBe(400);
    expect(notImage.body).toEqual({
      message: "Bad Request",
      errors: [{ resource: "Photo", field: "file", code: "invalid" }],
    });
    const big = new Uint8Array(10 * 1024 * 1024 + 1);
    big.set(png(2, 2));
    const tooBig = await server.api("POST", `/v3/activities/${run.activityId}/photos`, {
      token: owner.token,
      multipart: photoForm(big),
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.errors).toEqual([{ resource: "Photo", field: "file", code: "too large" }]);
    const missing = await server.api("POST", `/v3/activities/${run.activityId}/photos`, {
      token: owner.token,
      form: { caption: "no file" },
    });
    expect(missing.body.errors).toEqual([{ resource: "Photo", field: "file", code: "missing" }]);
    expect(
      (await server.api("POST", `/v3/activities/${run.activityId}/photos`, {
        token: other.token,
        multipart: photoForm(png(4, 4)),
      })).status,
    ).toBe(403);
    expect((await server.api("GET", `/v3/activities/${run.activityId}/photos`, { token: other.token })).status).toBe(
      403,
    );
    const reader = await server.token(owner.id, owner.applicationId, ["read"]);
    expect(
      (await server.api("POST", `/v3/activities/${run.activityId}/photos`, {
        token: reader,
        multipart: photoForm(png(4, 4)),
      })).status,
    ).toBe(401);
    expect(
      (await server.api("GET", `/v3/activities/${run.activityId}/photos`, { token: owner.token, query: { size: -1 } }))
        .status,
    ).toBe(400);
  });
});

/** A real JPEG made with jpeg-js: left half red, right half blue. */
function jpegImage(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 4;
      data.set(x < width / 2 ? [220, 20, 20, 255] : [20, 20, 220, 255], o);
    }
  }
  return new Uint8Array(jpeg.encode({ data, width, height }, 90).data);
}

/** Real dimensions of served bytes, by decoding them. */
function decoded(
  bytes: Uint8Array,
  contentType: string | null,
): { width: number; height: number; rgba: (x: number, y: number) => number[] } {
  if (contentType === "image/jpeg") {
    const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
    return {
      width: img.width,
      height: img.height,
      rgba: (x, y) => [...img.data.subarray((y * img.width + x) * 4, (y * img.width + x) * 4 + 4)],
    };
  }
  const img = decodePng(bytes);
  const c = img.channels;
  return {
    width: img.width,
    height: img.height,
    rgba: (x, y) => [...img.data.subarray((y * img.width + x) * c, (y * img.width + x) * c + c)],
  };
}

async function served(url: string) {
  const res = await fetch(url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const type = res.headers.get("content-type");
  return { res, bytes, image: type === "image/png" || type === "image/jpeg" ? decoded(bytes, type) : null };
}

describe("photo renditions", () => {
  let activityId: number;
  beforeAll(async () => {
    activityId = (await recordActivity(server, owner.id)).activityId;
  });
  const base = () => server.url.replace(/\/$/, "");

  it("resizes a JPEG to 100, 600 and 1800 px on the long side and keeps the original; each size gets its best match", async () => {
    const original = jpegImage(2000, 1000);
    const res = await server.api("POST", `/v3/activities/${activityId}/photos`, {
      token: owner.token,
      multipart: photoForm(original, {}, "image/jpeg"),
    });
    expect(res.status).toBe(201);
    const id = res.body.unique_id as string;
    expect(res.body.urls).toEqual({ "0": `${base()}/photos/${id}/100` });
    const expected: [number, number, number][] = [[100, 100, 50], [600, 600, 300], [1800, 1800, 900], [
      2000,
      2000,
      1000,
    ]];
    for (const [size, width, height] of expected) {
      const { res: r, bytes, image } = await served(`${base()}/photos/${id}/${size}`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("image/jpeg");
      expect(r.headers.get("cache-control")).toBe("private, max-age=31536000, immutable");
      expect(r.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
      expect({ width: image!.width, height: image!.height }).toEqual({ width, height });
      // Colours survive the resampling: red on the left, blue on the right.
      const [lr, , lb] = image!.rgba(Math.floor(width / 8), Math.floor(height / 2));
      const [rr, , rb] = image!.rgba(width - 1 - Math.floor(width / 8), Math.floor(height / 2));
      expect(lr).toBeGreaterThan(150);
      expect(lb).toBeLessThan(80);
      expect(rb).toBeGreaterThan(150);
      expect(rr).toBeLessThan(80);
      if (size === 2000) expect(bytes).toEqual(original);
      const again = await fetch(`${base()}/photos/${id}/${size}`, {
        headers: { "if-none-match": r.headers.get("etag")! },
      });
      expect(again.status).toBe(304);
    }
    expect((await fetch(`${base()}/photos/${id}/300`)).status).toBe(404);
    const best: [number, number][] = [[0, 100], [99, 100], [100, 600], [599, 600], [600, 1800], [1800, 2000], [
      1999,
      2000,
    ], [5000, 2000]];
    for (const [size, rendition] of best) {
      const list = await server.api("GET", `/v3/activities/${activityId}/photos`, {
        token: owner.token,
        query: { photo_sources: true, size },
      });
      expect(list.body[0].urls).toEqual({ [String(size)]: `${base()}/photos/${id}/${rendition}` });
    }
  });

  it("keeps a PNG a PNG (with transparency), makes PNG renditions of a GIF, and only the original of a small image", async () => {
    const width = 900, height = 1200;
    const rgba = new Uint8Array(width * height * 4);
    for (let i = 0; i < width * height; i++) rgba.set(i % width < width / 2 ? [0, 160, 0, 255] : [0, 0, 0, 0], i * 4);
    const pngBytes = encodePng({ width, height, data: rgba, channels: 4, depth: 8 });
    const pngRes = await server.api("POST", `/v3/activities/${activityId}/photos`, {
      token: owner.token,
      multipart: photoForm(pngBytes),
    });
    expect(pngRes.status).toBe(201);
    for (const [size, w, h] of [[100, 75, 100], [600, 450, 600], [1200, 900, 1200]]) {
      const { res, image } = await served(`${base()}/photos/${pngRes.body.unique_id}/${size}`);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect({ width: image!.width, height: image!.height }).toEqual({ width: w, height: h });
      expect(image!.rgba(2, 2)).toEqual([0, 160, 0, 255]);
      expect(image!.rgba(w - 2, h - 2)[3]).toBe(0);
    }
    expect((await fetch(`${base()}/photos/${pngRes.body.unique_id}/1800`)).status).toBe(404);

    const gw = 300, gh = 150;
    const gifBytes = new Uint8Array(gw * gh + 1024);
    const writer = new (omggif as unknown as {
      GifWriter: new (
        buf: Uint8Array,
        w: number,
        h: number,
        opts: object,
      ) => { addFrame(x: number, y: number, w: number, h: number, px: number[], opts?: object): void; end(): number };
    })
      .GifWriter(gifBytes, gw, gh, { palette: [0xff0000, 0x0000ff] });
    writer.addFrame(0, 0, gw, gh, Array.from({ length: gw * gh }, (_, i) => (i % gw < gw / 2 ? 0 : 1)));
    const gif = gifBytes.slice(0, writer.end());
    const gifRes = await server.api("POST", `/v3/activities/${activityId}/photos`, {
      token: owner.token,
      multipart: photoForm(gif, {}, "image/gif"),
    });
    expect(gifRes.status).toBe(201);
    const small = await served(`${base()}/photos/${gifRes.body.unique_id}/100`);
    expect(small.res.headers.get("content-type")).toBe("image/png");
    expect({ width: small.image!.width, height: small.image!.height }).toEqual({ width: 100, height: 50 });
    expect(small.image!.rgba(5, 25).slice(0, 3)).toEqual([255, 0, 0]);
    const originalGif = await served(`${base()}/photos/${gifRes.body.unique_id}/300`);
    expect(originalGif.res.headers.get("content-type")).toBe("image/gif");
    expect(originalGif.bytes).toEqual(gif);

    const tiny = await server.api("POST", `/v3/activities/${activityId}/photos`, {
      token: owner.token,
      multipart: photoForm(png(64, 48)),
    });
    expect(tiny.body.urls).toEqual({ "0": `${base()}/photos/${tiny.body.unique_id}/64` });
    expect((await fetch(`${base()}/photos/${tiny.body.unique_id}/100`)).status).toBe(404);
  });

  it("counts native photos on the activity and lists them in upload order", async () => {
    const detail = await server.api("GET", `/v3/activities/${activityId}`, { token: owner.token });
    // photo_count counts external photos only (the real service's meaning); total_photo_count both kinds.
    expect(detail.body.photo_count).toBe(0);
    expect(detail.body.total_photo_count).toBe(4);
    const list = await server.api("GET", `/v3/activities/${activityId}/photos`, {
      token: owner.token,
      query: { photo_sources: true },
    });
    expect(list.body).toHaveLength(4);
    const first = list.body[0].unique_id as string;
    expect(detail.body.photos).toEqual({
      primary: {
        id: null,
        source: 1,
        unique_id: first,
        urls: { "100": `${base()}/photos/${first}/600`, "600": `${base()}/photos/${first}/1800` },
      },
      count: 4,
    });
  });

  it("refuses an image whose data cannot be decoded (400 invalid) and records nothing", async () => {
    const good = jpegImage(400, 300);
    const garbage = good.slice();
    for (let i = 700; i < garbage.length; i++) garbage[i] = (i * 7919) & 0xff;
    const truncated = good.slice(0, Math.floor(good.length / 2));
    const brokenPng = png(200, 100);
    brokenPng.fill(7, 60, brokenPng.length - 12);
    for (
      const [bytes, type] of [[garbage, "image/jpeg"], [truncated, "image/jpeg"], [brokenPng, "image/png"]] as const
    ) {
      const res = await server.api("POST", `/v3/activities/${activityId}/photos`, {
        token: owner.token,
        multipart: photoForm(bytes, {}, type),
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: "Bad Request",
        errors: [{ resource: "Photo", field: "file", code: "invalid" }],
      });
    }
    const detail = await server.api("GET", `/v3/activities/${activityId}`, { token: owner.token });
    expect(detail.body.total_photo_count).toBe(4);
  });
});

describe("streams", () => {
  it("returns only distance without keys, keyed by type without a type member", async () => {
    const res = await server.api("GET", `/v3/activities/${run.activityId}/streams`, {
      token: owner.token,
      query: { key_by_type: true },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["distance"]);
    expect(res.body.distance).toEqual({
      data: buildStreams().distance,
      series_type: "distance",
      original_size: 601,
      resolution: "high",
    });
  });

  it("returns requested keys plus distance as an array with type, ignoring unknown keys", async () => {
    const res = await server.api("GET", `/v3/activities/${run.activityId}/streams`, {
      token: owner.token,
      query: { keys: "time,heartrate,bogus,latlng,moving" },
    });
    expect(res.body.map((s: { type: string }) => s.type)).toEqual([
      "time",
      "heartrate",
      "latlng",
      "moving",
      "distance",
    ]);
    expect(res.body[0]).toEqual({
      type: "time",
      data: buildStreams().time,
      series_type: "distance",
      original_size: 601,
      resolution: "high",
    });
    expect(res.body[2].data[0]).toEqual([51.50123, -0.14212]);
    const legacy = await server.api("GET", `/v3/activities/${run.activityId}/streams/watts,temp`, {
      token: owner.token,
    });
    expect(legacy.body.map((s: { type: string }) => s.type)).toEqual(["watts", "temp", "distance"]);
  });

  it("down-samples with resolution along series_type", async () => {
    const low = await server.api("GET", `/v3/activities/${run.activityId}/streams`, {
      token: owner.token,
      query: { keys: "time", key_by_type: true, resolution: "low", series_type: "time" },
    });
    expect(low.body.time.data).toHaveLength(100);
    expect(low.body.time.data[0]).toBe(0);
    expect(low.body.time.data[99]).toBe(600);
    expect(low.body.time).toMatchObject({ series_type: "time", original_size: 601, resolution: "low" });
    const medium = await server.api("GET", `/v3/activities/${run.activityId}/streams`, {
      token: owner.token,
      query: { key_by_type: true, resolution: "medium" },
    });
    expect(medium.body.distance.data).toHaveLength(601);
    const bad = await server.api("GET", `/v3/activities/${run.activityId}/streams`, {
      token: owner.token,
      query: { resolution: "ultra" },
    });
    expect(bad.body).toEqual({
      message: "Bad Request",
      errors: [{ resource: "Activity", field: "resolution", code: "invalid" }],
    });
  });

  it("removes points inside the owner's privacy zones for other viewers, not for the owner with view_private", async () => {
    const zoneId = await nextId(server.platform.db, "privacy_zone");
    await server.platform.store.append(`privacy-zone-test-${zoneId}`, 0, [
      privacyZoneCreated.create({ zoneId, athleteId: owner.id, lat: 51.50123, lng: -0.14212, radiusM: 200 }),
    ], {});
    const query = { keys: "latlng,time", key_by_type: true };
    const mine = await server.api("GET", `/v3/activities/${run.activityId}/streams`, { token: owner.token, query });
    expect(mine.body.latlng.data).toHaveLength(601);
    const theirs = await server.api("GET", `/v3/activities/${run.activityId}/streams`, { token: other.token, query });
    const kept = theirs.body.latlng.data as [number, number][];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(601);
    expect(theirs.body.time.data).toHaveLength(kept.length);
    expect(theirs.body.distance.data).toHaveLength(kept.length);
    expect(kept[0][0]).toBeGreaterThan(51.5012 + 0.0012);
    const ownerPublic = await server.token(owner.id, owner.applicationId, ["read"]);
    expect(
      (await server.api("GET", `/v3/activities/${run.activityId}/streams`, { token: ownerPublic, query })).body.latlng
        .data,
    ).toHaveLength(kept.length);
  });

  it("answers an empty list for a manual activity and 404 for another's private activity", async () => {
    const manual = await server.api("POST", "/v3/activities", {
      token: owner.token,
      form: { name: "M", type: "Run", start_date_local: "2024-01-01T10:00:00Z", elapsed_time: 60 },
    });
    expect((await server.api("GET", `/v3/activities/${manual.body.id}/streams`, { token: owner.token })).body).toEqual(
      [],
    );
    const priv = await recordActivity(server, owner.id, { visibility: "only_me" });
    expect((await server.api("GET", `/v3/activities/${priv.activityId}/streams`, { token: other.token })).status).toBe(
      404,
    );
  });
});

describe("laps", () => {
  it("lists lap summaries to anyone who may see the activity", async () => {
    const res = await server.api("GET", `/v3/activities/${run.activityId}/laps`, { token: other.token });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[1]).toEqual({
      id: run.activityId * 10000 + 2,
      resource_state: 2,
      name: "Lap 2",
      activity: { id: run.activityId, resource_state: 1 },
      athlete: { id: owner.id, resource_state: 1 },
      elapsed_time: 300,
      moving_time: 300,
      start_date: "2024-03-10T09:05:00Z",
      start_date_local: "2024-03-10T10:05:00Z",
      distance: 1053.5,
      start_index: 300,
      end_index: 600,
      total_elevation_gain: 6.5,
      average_speed: 3.51,
      max_speed: 3.5,
      average_cadence: null,
      average_watts: null,
      average_heartrate: 145,
      max_heartrate: 160,
      lap_index: 2,
      split: 2,
      pace_zone: 0,
      sport_type: "Run",
    });
    expect((await server.api("GET", "/v3/activities/x/laps", { token: other.token })).status).toBe(400);
  });
});

describe("zones", () => {
  it("computes heartrate and power buckets for a premium owner", async () => {
    const res = await server.api("GET", `/v3/activities/${run.activityId}/zones`, { token: owner.token });
    expect(res.status).toBe(200);
    const [hr, power] = res.body;
    // max HR 220 − 34 = 186; bounds 0, 112, 130, 149, 167. Heartrate is 100 + floor(i / 10), samples 1..600.
    expect(hr).toEqual({
      score: hr.points,
      type: "heartrate",
      resource_state: 3,
      sensor_based: true,
      points: hr.points,
      custom_zones: false,
      max: 186,
      distribution_buckets: [
        { min: 0, max: 112, time: 119 },
        { min: 112, max: 130, time: 180 },
        { min: 130, max: 149, time: 190 },
        { min: 149, max: 167, time: 111 },
        { min: 167, max: -1, time: 0 },
      ],
    });
    expect(hr.points).toBe(Math.round((119 * 0.2 + 180 * 0.4 + 190 * 0.75 + 111 * 1.67) / 60));
    expect(power.type).toBe("power");
    expect(power.distribution_buckets[power.distribution_buckets.length - 1].max).toBe(-1);
    expect(power.distribution_buckets.reduce((s: number, b: { time: number }) => s + b.time, 0)).toBe(600);
    expect(power.sensor_based).toBe(true);
  });

  it("refuses a non-premium owner and other athletes (403)", async () => {
    const plain = await recordActivity(server, other.id);
    const res = await server.api("GET", `/v3/activities/${plain.activityId}/zones`, { token: other.token });
    expect(res.status).toBe(403);
    expect(res.body.errors).toEqual([{ resource: "Athlete", field: "premium", code: "required" }]);
    expect((await server.api("GET", `/v3/activities/${run.activityId}/zones`, { token: other.token })).status).toBe(
      403,
    );
  });
});

describe("gear", () => {
  it("serves detailed gear and lists bikes and shoes on the detailed athlete", async () => {
    const bike = await addGear(server.platform, {
      athleteId: owner.id,
      kind: "bike",
      name: "Road bike",
      brandName: "Colnago",
      modelName: "C64",
      frameType: 3,
      weight: 7.4,
      primary: true,
    });
    const shoe = await addGear(server.platform, { athleteId: owner.id, kind: "shoe", name: "Racers" });
    expect(bike).toMatch(/^b\d+$/);
    expect(shoe).toMatch(/^g\d+$/);
    await server.api("PUT", `/v3/activities/${run.activityId}`, { token: owner.token, form: { gear_id: shoe } });
    const res = await server.api("GET", `/v3/gear/${bike}`, { token: other.token });
    expect(res.body).toEqual({
      id: bike,
      primary: true,
      name: "Road bike",
      nickname: "",
      resource_state: 3,
      retired: false,
      distance: 0,
      converted_distance: 0,
      reminder_distance: null,
      reminder_reached: false,
      brand_name: "Colnago",
      model_name: "C64",
      description: "",
      frame_type: 3,
      weight: 7.4,
    });
    const shoes = await server.api("GET", `/v3/gear/${shoe}`, { token: owner.token });
    expect(shoes.body).toMatchObject({ id: shoe, distance: 2100, converted_distance: 2.1, resource_state: 3 });
    expect(shoes.body).not.toHaveProperty("frame_type");
    const athlete = await server.api("GET", "/v3/athlete", { token: owner.token });
    expect(athlete.body.bikes).toEqual([{
      id: bike,
      primary: true,
      name: "Road bike",
      nickname: "",
      resource_state: 2,
      retired: false,
      distance: 0,
      converted_distance: 0,
      reminder_distance: null,
      reminder_reached: false,
    }]);
    expect(athlete.body.shoes.map((s: { id: string }) => s.id)).toEqual([shoe]);
    expect((await server.api("GET", "/v3/gear/b999999", { token: owner.token })).status).toBe(404);
    expect((await server.api("GET", "/v3/gear/x1", { token: owner.token })).status).toBe(400);
  });
});

describe("processing", () => {
  it("reads resource_state -1 while the activity's upload is processing, for its owner", async () => {
    const uploadId = await nextId(server.platform.db, "upload");
    const activityId = await nextId(server.platform.db, "activity");
    await server.platform.store.append(uploadStream(uploadId), 0, [uploadReceived.create({
      uploadId,
      athleteId: owner.id,
      activityId,
      fileName: "ride.fit",
      dataType: "fit",
      originalSha256: "a".repeat(64),
      contentSha256: "b".repeat(64),
      externalId: null,
      activityType: null,
      name: null,
      description: null,
      visibility: "everyone",
      trainer: false,
      commute: false,
    })], {});
    const res = await server.api("GET", `/v3/activities/${activityId}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: activityId, resource_state: -1 });
    expect((await server.api("GET", `/v3/activities/${activityId}`, { token: other.token })).status).toBe(404);
  });
});
