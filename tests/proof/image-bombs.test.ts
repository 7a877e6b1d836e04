import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import jpeg from "jpeg-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApplication, issueToken } from "../../server/applications/commands.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { configFromEnv } from "../../server/config.ts";
import { openPlatform } from "../../server/open-platform.ts";
import { activitiesCsv, zipBytes } from "../archive/archives.ts";
import { type DenoServer, startDenoServer } from "../helpers/deno.ts";
import { type Api, api } from "../helpers/http.ts";
import { healthPoller, peakRssMiB, resetPeakRss, rssMiB } from "../helpers/peak-rss.ts";

/**
 * Image decompression bombs, as a class (issue 29 item 1), against what ships (Deno, PGlite on
 * disk): tiny files declaring huge images — a 35-byte GIF of 16,384² and 65,535², a GIF whose
 * second frame is 65,535², a 10,000² PNG of a few hundred KiB, JPEG headers of 65,535² and 49 MP —
 * sent to every image route (profile picture, activity photos, an archive's photos). Each is
 * refused from its header (400 naming the field), the server's peak RSS grows by less than 256 MB
 * and a /health poller running meanwhile never waits 1 s. A photo at the top of the budget is
 * decoded (off the event loop) within the same bounds, and a photo's EXIF/XMP position never
 * reaches another athlete (item 11).
 */
const RSS_LIMIT_MB = 256;
const HEALTH_LIMIT_MS = 1000;

let server: DenoServer;
let call: Api;
let ownerToken: string;
let viewerToken: string;
let activityId: number;
const figures: string[] = [];

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "fitness-image-bombs-"));
  const setup = await openPlatform(configFromEnv({ dataDir, databaseUrl: undefined, seedDemo: false, quiet: true }));
  const owner = await createAthlete(setup, {
    firstname: "Image",
    lastname: "Owner",
    email: "owner@example.com",
    password: "password123",
  });
  const viewer = await createAthlete(setup, {
    firstname: "Image",
    lastname: "Viewer",
    email: "viewer@example.com",
    password: "password123",
  });
  const app = await createApplication(setup, {
    name: "Bombs",
    ownerId: owner,
    callbackDomain: "localhost",
    internal: true,
    kudosEnabled: true,
  });
  ownerToken = await issueToken(setup, {
    athleteId: owner,
    applicationId: app.client_id,
    permissions: ["read", "write", "view_private"],
  });
  viewerToken = await issueToken(setup, { athleteId: viewer, applicationId: app.client_id, permissions: ["read"] });
  await setup.close();
  server = await startDenoServer({ dataDir, env: { SEED_DEMO: "0" } });
  call = api(server.url);
  expect((await call("GET", "/health")).status).toBe(200);
  const created = await call("POST", "/v3/activities", {
    token: ownerToken,
    form: {
      name: "Photo walk",
      sport_type: "Walk",
      start_date_local: "2026-05-01T08:00:00Z",
      elapsed_time: "3600",
      private: "0",
    },
  });
  expect(created.status, created.text).toBe(201);
  activityId = created.body.id;
}, 180_000);

afterAll(async () => {
  await server?.stop();
});

// ---- Files -------------------------------------------------------------------------------------

/** A 35-byte GIF: a 2-colour palette and one frame, both declaring width × height. */
function tinyGif(width: number, height: number): Uint8Array {
  const le = (n: number) => [n & 255, n >> 8];
  return new Uint8Array([
    ...new TextEncoder().encode("GIF89a"),
    ...le(width),
    ...le(height),
    0x80,
    0,
    0, // screen, 2-colour palette
    0,
    0,
    0,
    255,
    255,
    255, // palette
    0x2c,
    0,
    0,
    0,
    0,
    ...le(width),
    ...le(height),
    0, // image descriptor
    0x02,
    0x02,
    0x44,
    0x01,
    0x00, // LZW code size, one sub-block, terminator
    0x3b,
  ]);
}

/** A 1 × 1 GIF whose second frame declares 65,535² (every frame descriptor counts). */
function gifWithHugeFrame(): Uint8Array {
  const one = tinyGif(1, 1);
  const frame = tinyGif(65535, 65535).subarray(19, 34);
  const out = new Uint8Array(one.length + frame.length);
  out.set(one.subarray(0, 34));
  out.set(frame, 34);
  out[out.length - 1] = 0x3b;
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}
function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
/** A PNG by hand: IHDR (8-bit, colour type 2 RGB or 6 RGBA), the extra chunks, one IDAT of `rows`. */
function pngFile(width: number, height: number, rows: Uint8Array, colorType = 2, extra: Uint8Array[] = []): Uint8Array {
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr.set([8, colorType, 0, 0, 0], 8);
  return concat([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    ...extra,
    pngChunk("IDAT", deflateSync(rows, { level: 9 })),
    pngChunk("IEND", new Uint8Array(0)),
  ]);
}

/** A JPEG that is all header: SOI, APP0, DQT, SOF0 declaring width × height (4:2:0), DHT, SOS, EOI. */
function jpegHeader(width: number, height: number): Uint8Array {
  const seg = (
    marker: number,
    body: number[],
  ) => [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 255, ...body];
  return new Uint8Array([
    0xff,
    0xd8,
    ...seg(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...seg(0xdb, [0, ...new Array(64).fill(1)]),
    ...seg(0xc0, [8, height >> 8, height & 255, width >> 8, width & 255, 3, 1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0]),
    ...seg(0xc4, [0x00, 0, 1, ...new Array(14).fill(0), 0]),
    ...seg(0xda, [3, 1, 0, 2, 0, 3, 0, 0, 63, 0]),
    0x00,
    0x00,
    0xff,
    0xd9,
  ]);
}

/** Unfiltered rows (filter byte 0) of `channels` samples per pixel, all `value`. */
function flatRows(width: number, height: number, channels: number, value: number): Uint8Array {
  const rows = new Uint8Array(height * (1 + width * channels)).fill(value);
  for (let y = 0; y < height; y++) rows[y * (1 + width * channels)] = 0;
  return rows;
}

/** A real JPEG (jpeg-js: 4:4:4) of a pattern. */
function realJpeg(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = x & 255;
      data[i + 1] = y & 255;
      data[i + 2] = (x ^ y) & 255;
      data[i + 3] = 255;
    }
  }
  return new Uint8Array(jpeg.encode({ data, width, height }, 90).data);
}

/** EXIF (big-endian TIFF) with a GPS IFD: 48°51'29.6"N 2°17'40.2"E. */
function exifWithGps(): Uint8Array {
  const tiff: number[] = [0x4d, 0x4d, 0, 42, 0, 0, 0, 8];
  const u16 = (n: number) => [n >> 8, n & 255];
  const u32 = (n: number) => [n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255];
  // IFD0 at 8: one entry, GPSInfo → the GPS IFD at 26.
  tiff.push(...u16(1), ...u16(0x8825), ...u16(4), ...u32(1), ...u32(26), ...u32(0));
  // GPS IFD at 26: four entries, rationals after it (26 + 2 + 4 × 12 + 4 = 80).
  const rationals = (values: number[][]) => values.flatMap(([n, d]) => [...u32(n), ...u32(d)]);
  tiff.push(...u16(4));
  tiff.push(...u16(1), ...u16(2), ...u32(2), 0x4e, 0, 0, 0); // GPSLatitudeRef "N"
  tiff.push(...u16(2), ...u16(5), ...u32(3), ...u32(80)); // GPSLatitude
  tiff.push(...u16(3), ...u16(2), ...u32(2), 0x45, 0, 0, 0); // GPSLongitudeRef "E"
  tiff.push(...u16(4), ...u16(5), ...u32(3), ...u32(104)); // GPSLongitude
  tiff.push(...u32(0));
  tiff.push(...rationals([[48, 1], [51, 1], [296, 10]]), ...rationals([[2, 1], [17, 1], [402, 10]]));
  return concat([new TextEncoder().encode("Exif\0\0"), new Uint8Array(tiff)]);
}

const XMP = new TextEncoder().encode(
  `http://ns.adobe.com/xap/1.0/\0<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` +
    `<rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="48,51.4933N" exif:GPSLongitude="2,17.67E"/></rdf:RDF></x:xmpmeta>`,
);

/** A JPEG with an EXIF GPS block and an XMP packet (APP1 segments) right after its SOI. */
function jpegWithGps(width: number, height: number): Uint8Array {
  const plain = realJpeg(width, height);
  const app1 = (body: Uint8Array) =>
    concat([new Uint8Array([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 255]), body]);
  return concat([plain.subarray(0, 2), app1(exifWithGps()), app1(XMP), plain.subarray(2)]);
}

const has = (bytes: Uint8Array, text: string) => Buffer.from(bytes).includes(Buffer.from(text, "latin1"));

// ---- Requests ----------------------------------------------------------------------------------

function form(bytes: Uint8Array, name: string): FormData {
  const body = new FormData();
  body.set("file", new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  return body;
}
const putPicture = (bytes: Uint8Array, name: string) =>
  call("PUT", "/v3/athlete/picture", { token: ownerToken, multipart: form(bytes, name) });
const postPhoto = (bytes: Uint8Array, name: string, activity = activityId) =>
  call("POST", `/v3/activities/${activity}/photos`, { token: ownerToken, multipart: form(bytes, name) });

/** Runs `attack` with the peak RSS reset and a /health poller running; asserts both bounds and records the figures. */
async function measured<T>(label: string, attack: () => Promise<T>): Promise<T> {
  const pid = server.child.pid!;
  const before = rssMiB(pid);
  resetPeakRss(pid);
  const poller = healthPoller(`${server.url}/health`);
  const started = performance.now();
  const outcome = await attack().then((value) => ({ value }), (error: unknown) => ({ error }));
  const took = performance.now() - started;
  const health = await poller.stop();
  if ("error" in outcome) throw outcome.error;
  const result = outcome.value;
  const growth = peakRssMiB(pid) - before;
  figures.push(
    `${label}: peak RSS +${growth.toFixed(0)} MiB (from ${before.toFixed(0)}), worst /health ${
      health.worstMs.toFixed(0)
    } ms ` +
      `(sent at ${(health.worstAt - started).toFixed(0)} of ${took.toFixed(0)} ms) over ${health.polls} polls`,
  );
  expect(health.polls).toBeGreaterThan(0);
  expect(growth).toBeLessThan(RSS_LIMIT_MB);
  expect(health.worstMs).toBeLessThan(HEALTH_LIMIT_MS);
  expect(server.child.exitCode).toBe(null);
  return result;
}

const BOMBS: { name: string; file: string; bytes: () => Uint8Array }[] = [
  { name: "35-byte GIF of 16,384²", file: "bomb.gif", bytes: () => tinyGif(16384, 16384) },
  { name: "35-byte GIF of 65,535²", file: "bomb.gif", bytes: () => tinyGif(65535, 65535) },
  { name: "1 × 1 GIF whose second frame is 65,535²", file: "frames.gif", bytes: gifWithHugeFrame },
  {
    name: "PNG of 10,000² (zero rows)",
    file: "bomb.png",
    bytes: () => pngFile(10_000, 10_000, new Uint8Array(10_000 * (1 + 3 * 10_000))),
  },
  { name: "JPEG header of 65,535²", file: "bomb.jpg", bytes: () => jpegHeader(65535, 65535) },
  { name: "JPEG header of 49 MP (8,576 × 5,715)", file: "49mp.jpg", bytes: () => jpegHeader(8576, 5715) },
];

describe("image decompression bombs", () => {
  it("the files are what they claim: tiny, declaring huge images", () => {
    expect(tinyGif(16384, 16384).length).toBe(35);
    expect(tinyGif(65535, 65535).length).toBe(35);
    const png = BOMBS[3].bytes();
    expect(png.length).toBeLessThan(400 * 1024);
    expect(new DataView(png.buffer, png.byteOffset).getUint32(16)).toBe(10_000);
  });

  it("PUT /v3/athlete/picture: every bomb → 400 {Athlete, file, too large}; memory and /health bounded", async () => {
    const files = BOMBS.map((b) => ({ ...b, data: b.bytes() }));
    await measured("profile picture, 6 bombs", async () => {
      for (const bomb of files) {
        const res = await putPicture(bomb.data, bomb.file);
        expect(res.status, bomb.name).toBe(400);
        expect(res.body.errors, bomb.name).toEqual([{ resource: "Athlete", field: "file", code: "too large" }]);
      }
    });
    // Nothing was recorded: the athlete still has the default picture.
    const me = await call("GET", "/v3/athlete", { token: ownerToken });
    expect(me.status).toBe(200);
    const avatar = await fetch(me.body.profile);
    expect(avatar.status).toBe(200);
  }, 120_000);

  it("POST /v3/activities/:id/photos: every bomb → 400 {Photo, file, too large}; nothing stored", async () => {
    const files = BOMBS.map((b) => ({ ...b, data: b.bytes() }));
    await measured("activity photos, 6 bombs", async () => {
      for (const bomb of files) {
        const res = await postPhoto(bomb.data, bomb.file);
        expect(res.status, bomb.name).toBe(400);
        expect(res.body.errors, bomb.name).toEqual([{ resource: "Photo", field: "file", code: "too large" }]);
      }
    });
    const photos = await call("GET", `/v3/activities/${activityId}/photos`, {
      token: ownerToken,
      query: { photo_sources: "true" },
    });
    expect(photos.status).toBe(200);
    expect(photos.body).toEqual([]);
  }, 120_000);

  it(
    "POST /v3/athlete/imports: an archive's bomb photos are each reported as too large, its ordinary photo imported",
    async () => {
      const media = BOMBS.map((b, i) => ({ name: `media/bomb-${i}-${b.file}`, bytes: b.bytes() }));
      const ordinary = { name: "media/ordinary.jpg", bytes: realJpeg(320, 240) };
      const archive = await zipBytes([
        {
          name: "activities.csv",
          bytes: Buffer.from(
            activitiesCsv([{
              id: "901",
              date: "Mar 14, 2020, 6:30:00 PM",
              name: "Archive walk",
              type: "Walk",
              elapsed: 1800,
              km: 2,
              media: [...media, ordinary].map((m) => m.name),
            }]),
          ),
        },
        ...media,
        ordinary,
      ]);
      const run = await measured("archive import, 6 bomb photos + 1 ordinary", async () => {
        const res = await fetch(`${server.url}/v3/athlete/imports`, {
          method: "POST",
          headers: { authorization: `Bearer ${ownerToken}`, "content-type": "application/zip" },
          body: new Uint8Array(archive),
        });
        expect(res.status).toBe(202);
        const { id } = await res.json();
        for (let i = 0; i < 240; i++) {
          const status = await call("GET", `/v3/athlete/imports/${id}`, { token: ownerToken });
          expect(status.status).toBe(200);
          if (status.body.status !== "running") return status.body;
          await new Promise((r) => setTimeout(r, 250));
        }
        throw new Error("the import still runs after 60 s");
      });
      expect(run.status).toBe("done");
      expect(run.failed).toEqual(media.map((m) => ({ file: m.name, error: "not a usable photo (file too large)" })));
      const list = await call("GET", "/v3/athlete/activities", { token: ownerToken, query: { per_page: "50" } });
      const walk = list.body.find((a: { name: string }) => a.name === "Archive walk");
      expect(walk).toBeDefined();
      const photos = await call("GET", `/v3/activities/${walk.id}/photos`, {
        token: ownerToken,
        query: { photo_sources: "true" },
      });
      expect(photos.body.length).toBe(1);
    },
    120_000,
  );

  it(
    "a photo at the top of the budget (14 MP JPEG, 4:4:4) is decoded and resized off the event loop, within the bounds",
    async () => {
      const big = realJpeg(4600, 3096);
      const res = await measured(
        `14 MP JPEG 4:4:4 photo (${
          (big.length / 1024 / 1024).toFixed(1)
        } MiB; the first large one), decoded into 3 renditions`,
        () => postPhoto(big, "big.jpg"),
      );
      expect(res.status, res.text).toBe(201);
      expect(Object.keys(res.body.urls)).toEqual(["0"]);
      const again = await measured("the same photo again (worker started)", () => postPhoto(big, "again.jpg"));
      expect(again.status, again.text).toBe(201);
      const picture = await measured("14 MP JPEG as the profile picture", () => putPicture(big, "big.jpg"));
      expect(picture.status).toBe(200);
      const avatar = await fetch(picture.body.profile);
      expect(avatar.headers.get("content-type")).toBe("image/png");
    },
    240_000,
  );

  it("a PNG at the top of the budget (7.1 MP RGBA) is decoded within the bounds too", async () => {
    const [width, height] = [3000, 2370];
    const rows = new Uint8Array(height * (1 + width * 4));
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const o = y * (1 + width * 4) + 1 + x * 4;
        rows.set([x & 255, y & 255, (x ^ y) & 255, 255 - (x & 127)], o);
      }
    }
    const png = pngFile(width, height, rows, 6);
    const res = await measured(
      `7.1 MP RGBA PNG photo (${(png.length / 1024 / 1024).toFixed(1)} MiB), decoded into 3 renditions`,
      () => postPhoto(png, "big.png"),
    );
    expect(res.status, res.text).toBe(201);
  }, 240_000);

  it("an ordinary picture and photo still work", async () => {
    const picture = await putPicture(realJpeg(300, 200), "me.jpg");
    expect(picture.status).toBe(200);
    expect(picture.body.custom).toBe(true);
    const photo = await postPhoto(pngFile(64, 48, flatRows(64, 48, 4, 200), 6), "small.png");
    expect(photo.status, photo.text).toBe(201);
    expect(photo.body.urls["0"]).toMatch(/\/photos\/[0-9A-F-]{36}\/64$/);
  });
});

describe("photos shown to others carry no EXIF position (issue 29 item 11)", () => {
  it("a JPEG with EXIF GPS and XMP: every rendition another athlete is shown, and the original, carry neither", async () => {
    const withGps = jpegWithGps(800, 600);
    expect(has(withGps, "Exif\0\0")).toBe(true);
    expect(has(withGps, "GPSLatitude")).toBe(true);
    const walk = await call("POST", "/v3/activities", {
      token: ownerToken,
      form: {
        name: "Walk with a phone photo",
        sport_type: "Walk",
        start_date_local: "2026-05-02T08:00:00Z",
        elapsed_time: "1800",
        private: "0",
      },
    });
    expect(walk.status).toBe(201);
    const created = await postPhoto(withGps, "gps.jpg", walk.body.id);
    expect(created.status, created.text).toBe(201);
    const uniqueId = created.body.unique_id as string;
    // The URLs the API gives out (the activity's primary photo, and the original) are what anyone
    // shown the photo fetches: here another athlete, with their own token.
    const detail = await call("GET", `/v3/activities/${walk.body.id}`, { token: ownerToken });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.body.photos.primary.unique_id).toBe(uniqueId);
    const listed = await call("GET", `/v3/activities/${walk.body.id}/photos`, {
      token: ownerToken,
      query: { photo_sources: "true", size: "5000" },
    });
    const mine = listed.body.find((p: { unique_id: string }) => p.unique_id === uniqueId);
    const urls = [
      ...Object.values(detail.body.photos.primary.urls as Record<string, string>),
      ...Object.values(mine.urls as Record<string, string>),
    ];
    const original = `${server.url.replace(/\/$/, "")}/photos/${uniqueId}/800`;
    expect(urls).toContain(original);
    for (const url of urls) {
      const res = await fetch(url, { headers: { authorization: `Bearer ${viewerToken}` } });
      expect(res.status, url).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/jpeg");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect(bytes[0] === 0xff && bytes[1] === 0xd8, url).toBe(true);
      expect(has(bytes, "Exif\0\0"), url).toBe(false);
      expect(has(bytes, "GPSLatitude"), url).toBe(false);
      expect(has(bytes, "\xff\xe1"), url).toBe(false);
      // Still the same picture.
      const decoded = jpeg.decode(bytes, { useTArray: true });
      expect(decoded.width / decoded.height).toBeCloseTo(800 / 600, 1);
    }
    figures.push(`EXIF GPS + XMP JPEG (${withGps.length} bytes): ${urls.length} URLs served without EXIF/XMP`);
  });

  it("a PNG with an eXIf chunk and an XMP iTXt: the original served carries neither", async () => {
    const exif = exifWithGps().subarray(6);
    const itxt = concat([new TextEncoder().encode("XML:com.adobe.xmp\0\0\0\0\0"), XMP.subarray(29)]);
    const png = pngFile(40, 30, flatRows(40, 30, 3, 90), 2, [pngChunk("eXIf", exif), pngChunk("iTXt", itxt)]);
    const created = await postPhoto(png, "gps.png");
    expect(created.status, created.text).toBe(201);
    const res = await fetch(`${server.url.replace(/\/$/, "")}/photos/${created.body.unique_id}/40`);
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(has(bytes, "IHDR") && has(bytes, "IDAT")).toBe(true);
    expect(has(bytes, "eXIf")).toBe(false);
    expect(has(bytes, "GPSLatitude")).toBe(false);
  });
});

describe("image bombs: figures", () => {
  it("reports the figures", () => {
    expect(figures.length).toBeGreaterThanOrEqual(8);
    console.log(
      `image bombs (Deno; limits: peak RSS +${RSS_LIMIT_MB} MiB, /health ${HEALTH_LIMIT_MS} ms):\n  ${
        figures.join("\n  ")
      }`,
    );
  });
});
