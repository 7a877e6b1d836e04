import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { deviceFile } from "./fixtures.ts";

/** The trackpoints of a real GPX ride (Strava export: HR, cadence, power, air temperature). */
const SOURCE = "gpx/strava-export-cycling-power-hr-cad-atemp.gpx";

export interface LongGpx {
  /** The GPX document as UTF-8 (or gzip when asked). */
  bytes: Uint8Array<ArrayBuffer>;
  points: number;
  /** ms since the epoch of the first and last point. */
  start: number;
  end: number;
}

/**
 * A long 1 Hz GPX made from a real recording: its trackpoints ridden forth and back again and again
 * (so the route stays continuous), each rewritten with a time one second after the previous one.
 * `minimal` keeps position, elevation and time only (about 100 bytes a point); otherwise every
 * point keeps its sensor extensions, as the device wrote them.
 */
export function longGpx(
  points: number,
  options: { minimal?: boolean; gzip?: boolean; startIso?: string } = {},
): LongGpx {
  const text = readFileSync(deviceFile(SOURCE), "utf8");
  const blocks = [...text.matchAll(/<trkpt[\s\S]*?<\/trkpt>/g)].map((m) => m[0]);
  const parts = blocks.map((block) => {
    const lat = /lat="([^"]+)"/.exec(block)![1];
    const lon = /lon="([^"]+)"/.exec(block)![1];
    const ele = /<ele>([^<]+)<\/ele>/.exec(block)?.[1];
    if (options.minimal) {
      return [`<trkpt lat="${lat}" lon="${lon}">${ele ? `<ele>${ele}</ele>` : ""}<time>`, "</time></trkpt>\n"];
    }
    const [before, after] = block.split(/<time>[^<]*<\/time>/);
    return [`${before}<time>`, `</time>${after}\n`];
  });
  const start = Date.parse(options.startIso ?? "2026-03-01T06:00:00Z");
  const chunks: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>\n<gpx creator="long-gpx test generator" version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Long</name><type>1</type><trkseg>\n`,
  ];
  const period = 2 * blocks.length - 2;
  let piece: string[] = [];
  for (let i = 0; i < points; i++) {
    const k = i % period;
    const [before, after] = parts[k < blocks.length ? k : period - k];
    piece.push(before, new Date(start + i * 1000).toISOString().replace(".000Z", "Z"), after);
    if (piece.length >= 30_000) {
      chunks.push(piece.join(""));
      piece = [];
    }
  }
  chunks.push(piece.join(""), "</trkseg></trk></gpx>\n");
  const raw = new TextEncoder().encode(chunks.join(""));
  return {
    bytes: options.gzip ? new Uint8Array(gzipSync(raw, { level: 1 })) : raw,
    points,
    start,
    end: start + (points - 1) * 1000,
  };
}
