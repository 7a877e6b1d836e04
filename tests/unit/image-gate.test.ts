import jpeg from "jpeg-js";
import { describe, expect, it } from "vitest";
import { checkImage, MAX_DECODE_BYTES, MAX_IMAGE_PIXELS, readImageHeader } from "../../server/images/header.ts";
import { decode as decodeJpeg } from "../../server/images/jpeg-decode.js";
import { encode as encodeJpeg } from "../../server/images/jpeg-encode.js";
import { stripMetadata } from "../../server/images/metadata.ts";

/** The image gate (server/images/header.ts), the leaner JPEG decoder and the metadata stripper. */

const le = (n: number) => [n & 255, n >> 8];
function gif(
  width: number,
  height: number,
  frames: [number, number][] = [[width, height]],
  extensions: number[] = [],
): Uint8Array {
  const out = [
    ...new TextEncoder().encode("GIF89a"),
    ...le(width),
    ...le(height),
    0x80,
    0,
    0,
    0,
    0,
    0,
    255,
    255,
    255,
    ...extensions,
  ];
  for (const [w, h] of frames) out.push(0x2c, 0, 0, 0, 0, ...le(w), ...le(h), 0, 0x02, 0x02, 0x44, 0x01, 0x00);
  out.push(0x3b);
  return new Uint8Array(out);
}

/** A JPEG header declaring width × height with the given sampling factors (0x22 = 2 × 2) per component. */
function jpegHeader(width: number, height: number, sampling: number[]): Uint8Array {
  const seg = (
    marker: number,
    body: number[],
  ) => [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 255, ...body];
  const components = sampling.flatMap((s, i) => [i + 1, s, 0]);
  return new Uint8Array([
    0xff,
    0xd8,
    ...seg(0xc0, [8, height >> 8, height & 255, width >> 8, width & 255, sampling.length, ...components]),
    ...seg(0xda, [1, 1, 0, 0, 63, 0]),
    0,
    0xff,
    0xd9,
  ]);
}

function png(width: number, height: number, colorType: number, depth = 8): Uint8Array {
  const b = new Uint8Array(33);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const view = new DataView(b.buffer);
  view.setUint32(16, width);
  view.setUint32(20, height);
  b.set([depth, colorType, 0, 0, 0], 24);
  return b;
}

function realJpeg(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7 + (i >> 10)) & 255;
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  return new Uint8Array(jpeg.encode({ data, width, height }, 80).data);
}

const text = (b: Uint8Array) => Buffer.from(b).toString("latin1");

describe("the image gate", () => {
  it("reads GIF, PNG and JPEG headers, refusing what is not one (invalid)", () => {
    expect(readImageHeader(gif(3, 2))).toMatchObject({ contentType: "image/gif", width: 3, height: 2, pixels: 6 });
    expect(readImageHeader(png(40, 30, 6))).toMatchObject({ contentType: "image/png", width: 40, height: 30 });
    expect(readImageHeader(jpegHeader(640, 480, [0x22, 0x11, 0x11]))).toMatchObject({
      contentType: "image/jpeg",
      width: 640,
      height: 480,
    });
    expect(checkImage(new TextEncoder().encode("<svg/>"))).toEqual({ ok: false, code: "invalid" });
    expect(checkImage(gif(3, 2).subarray(0, 20))).toEqual({ ok: false, code: "invalid" });
    expect(checkImage(png(40, 30, 5))).toEqual({ ok: false, code: "invalid" });
    expect(checkImage(jpegHeader(0, 480, [0x11]))).toEqual({ ok: false, code: "invalid" });
  });

  it("refuses the bombs from their header: GIF screen or any frame, PNG, JPEG past the budget", () => {
    expect(checkImage(gif(16384, 16384))).toEqual({ ok: false, code: "too large" });
    expect(checkImage(gif(65535, 65535))).toEqual({ ok: false, code: "too large" });
    expect(checkImage(gif(1, 1, [[1, 1], [65535, 65535]]))).toEqual({ ok: false, code: "too large" });
    expect(checkImage(png(10_000, 10_000, 2))).toEqual({ ok: false, code: "too large" });
    expect(checkImage(jpegHeader(65535, 65535, [0x22, 0x11, 0x11]))).toEqual({ ok: false, code: "too large" });
    expect(checkImage(jpegHeader(8576, 5715, [0x22, 0x11, 0x11]))).toEqual({ ok: false, code: "too large" });
  });

  it("passes a 20 MP camera JPEG (4:2:0) and a 14 MP 4:4:4 one; 24 MP JPEGs and a 12 MP 16-bit PNG are too large", () => {
    const camera = checkImage(jpegHeader(5472, 3648, [0x22, 0x11, 0x11]));
    expect(camera.ok).toBe(true);
    expect(camera.ok && camera.header.decodeBytes).toBeLessThanOrEqual(MAX_DECODE_BYTES);
    expect(checkImage(jpegHeader(4032, 3024, [0x22, 0x11, 0x11])).ok).toBe(true); // a 12 MP phone photo
    expect(checkImage(jpegHeader(4600, 3096, [0x11, 0x11, 0x11])).ok).toBe(true);
    expect(checkImage(jpegHeader(6000, 4000, [0x22, 0x11, 0x11]))).toEqual({ ok: false, code: "too large" });
    expect(checkImage(jpegHeader(6000, 4000, [0x11, 0x11, 0x11]))).toEqual({ ok: false, code: "too large" });
    expect(checkImage(png(4000, 3000, 6, 16))).toEqual({ ok: false, code: "too large" });
    expect(checkImage(png(3000, 2000, 6)).ok).toBe(true);
    expect(checkImage(gif(6000, 4000)).ok).toBe(true);
    expect(checkImage(gif(6000, 4001))).toEqual({ ok: false, code: "too large" });
    expect(6000 * 4000).toBe(MAX_IMAGE_PIXELS);
  });
});

describe("the JPEG decoder (jpeg-js's, leaner)", () => {
  it("decodes to the very pixels jpeg-js does", () => {
    for (const [w, h] of [[333, 211], [64, 8], [17, 100]]) {
      const bytes = realJpeg(w, h);
      const ours = decodeJpeg(bytes, { useTArray: true, formatAsRGBA: true });
      const theirs = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
      expect([ours.width, ours.height]).toEqual([w, h]);
      expect(Buffer.compare(Buffer.from(ours.data), Buffer.from(theirs.data))).toBe(0);
    }
  });
});

describe("the JPEG encoder (jpeg-js's, with less garbage)", () => {
  it("writes the very bytes jpeg-js does, image after image with one encoder", () => {
    for (const [w, h, q] of [[333, 211, 85], [17, 9, 50], [120, 80, 85]]) {
      const data = new Uint8Array(w * h * 4);
      for (let i = 0; i < data.length; i++) data[i] = ((i * 2654435761) >>> 24) ^ (i >> 7);
      const ours = encodeJpeg({ data, width: w, height: h }, q).data;
      const theirs = jpeg.encode({ data, width: w, height: h }, q).data;
      expect(ours.length).toBeGreaterThan(100);
      expect(Buffer.compare(Buffer.from(ours), Buffer.from(theirs))).toBe(0);
    }
  });
});

describe("stripping metadata", () => {
  const app = (marker: number, body: string) => {
    const b = new TextEncoder().encode(body);
    return new Uint8Array([0xff, marker, (b.length + 2) >> 8, (b.length + 2) & 255, ...b]);
  };

  it("JPEG: drops APP1 (EXIF, XMP), APP13, COM and what follows the EOI; keeps JFIF, ICC and the image", () => {
    const plain = realJpeg(40, 30);
    const icc = app(0xe2, "ICC_PROFILE\0\x01\x01profile");
    const dirty = new Uint8Array([
      ...plain.subarray(0, 2),
      ...app(0xe1, "Exif\0\0MM GPSLatitude"),
      ...icc,
      ...app(0xed, "Photoshop 3.0 IPTC"),
      ...app(0xe1, 'http://ns.adobe.com/xap/1.0/\0<x:xmpmeta exif:GPSLatitude="1"/>'),
      ...plain.subarray(2, plain.length - 2),
      ...app(0xfe, "a comment"),
      0xff,
      0xd9,
      ...plain, // a second picture after the EOI
    ]);
    const clean = stripMetadata(dirty, "image/jpeg");
    expect(text(clean)).not.toMatch(/Exif|GPS|IPTC|xmpmeta|comment/);
    expect(text(clean)).toMatch(/ICC_PROFILE/);
    expect(text(clean)).toMatch(/JFIF/);
    expect([clean[clean.length - 2], clean[clean.length - 1]]).toEqual([0xff, 0xd9]);
    expect(
      Buffer.compare(
        Buffer.from(decodeJpeg(clean, { useTArray: true }).data),
        Buffer.from(decodeJpeg(plain, { useTArray: true }).data),
      ),
    ).toBe(0);
    // A photo that carries nothing comes out unchanged.
    expect(Buffer.compare(Buffer.from(stripMetadata(plain, "image/jpeg")), Buffer.from(plain))).toBe(0);
  });

  it("PNG: drops eXIf and text chunks; GIF: drops comments and XMP, keeps the loop count", () => {
    const chunk = (type: string, data: string) => {
      const d = new TextEncoder().encode(data);
      const out = new Uint8Array(12 + d.length);
      new DataView(out.buffer).setUint32(0, d.length);
      out.set(new TextEncoder().encode(type), 4);
      out.set(d, 8);
      return out;
    };
    const head = png(1, 1, 0);
    const file = new Uint8Array([
      ...head,
      ...chunk("eXIf", "MM GPS"),
      ...chunk("iTXt", "XML:com.adobe.xmp GPS"),
      ...chunk("IDAT", "x"),
      ...chunk("IEND", ""),
      1,
      2,
      3,
    ]);
    const clean = stripMetadata(file, "image/png");
    expect(text(clean)).not.toMatch(/eXIf|iTXt|GPS/);
    expect(text(clean)).toMatch(/IHDR[\s\S]*IDAT[\s\S]*IEND/);
    expect(text(clean).endsWith("IEND\0\0\0\0")).toBe(true);

    const netscape = [0x21, 0xff, 0x0b, ...new TextEncoder().encode("NETSCAPE2.0"), 0x03, 0x01, 0x00, 0x00, 0x00];
    const xmp = [
      0x21,
      0xff,
      0x0b,
      ...new TextEncoder().encode("XMP DataXMP"),
      0x04,
      ...new TextEncoder().encode("GPS!"),
      0x00,
    ];
    const comment = [0x21, 0xfe, 0x05, ...new TextEncoder().encode("hello"), 0x00];
    const animated = gif(2, 2, [[2, 2]], [...netscape, ...xmp, ...comment]);
    const cleanGif = stripMetadata(animated, "image/gif");
    expect(text(cleanGif)).toMatch(/NETSCAPE2\.0/);
    expect(text(cleanGif)).not.toMatch(/XMP|GPS|hello/);
    expect(cleanGif.length).toBe(animated.length - xmp.length - comment.length);
    expect(readImageHeader(cleanGif)).toMatchObject({ width: 2, height: 2 });
  });
});
