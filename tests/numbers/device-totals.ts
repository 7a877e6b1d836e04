// deno-lint-ignore-file no-explicit-any -- the API's JSON answers are read field by field
import { Decoder, Stream } from "@garmin/fitsdk";
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { TestAthlete, TestServer } from "../helpers/server.ts";

/**
 * What the device itself says, read in the test with the Garmin FIT SDK (an independent decoder)
 * or, for TCX, straight from the Lap elements' text. Our figures are compared against these.
 */
type Mesg = Record<string, unknown>;

export interface FitTotals {
  sessions: Mesg[];
  laps: Mesg[];
  lengths: Mesg[];
  records: Mesg[];
}

export function readFit(path: string): FitTotals {
  const { messages, errors } = new Decoder(Stream.fromByteArray(new Uint8Array(readFileSync(path)))).read();
  expect(errors).toEqual([]);
  return {
    sessions: (messages.sessionMesgs ?? []) as Mesg[],
    laps: (messages.lapMesgs ?? []) as Mesg[],
    lengths: (messages.lengthMesgs ?? []) as Mesg[],
    records: (messages.recordMesgs ?? []) as Mesg[],
  };
}

export const field = (m: Mesg, key: string): number => Number(m[key] ?? NaN);
export const sumOf = (ms: Mesg[], key: string): number => ms.reduce((a, m) => a + Number(m[key] ?? 0), 0);

export interface TcxLap {
  startTime: number;
  totalTimeSeconds: number;
  distanceMeters: number;
  calories: number | null;
  trackpoints: number;
}

/** The Lap elements of a TCX file (their own totals), by regular expressions over the text. */
export function readTcxLaps(text: string): TcxLap[] {
  const laps: TcxLap[] = [];
  const parts = text.split(/<Lap\b/).slice(1);
  for (const part of parts) {
    const body = part.split(/<\/Lap>/)[0];
    const track = body.indexOf("<Track");
    const head = track === -1 ? body : body.slice(0, track);
    const number = (tag: string) => {
      const m = head.match(new RegExp(`<${tag}>\\s*([-\\d.eE+]+)\\s*</${tag}>`));
      return m ? Number(m[1]) : null;
    };
    laps.push({
      startTime: Date.parse(part.match(/StartTime="([^"]+)"/)![1]),
      totalTimeSeconds: number("TotalTimeSeconds") ?? NaN,
      distanceMeters: number("DistanceMeters") ?? NaN,
      calories: number("Calories"),
      trackpoints: (body.match(/<Trackpoint>/g) ?? []).length,
    });
  }
  return laps;
}

/** Uploads a file over HTTP and returns the detailed activity once the upload is processed. */
export async function uploadActivity(
  server: TestServer,
  athlete: TestAthlete,
  bytes: Uint8Array<ArrayBuffer>,
  fileName: string,
  fields: Record<string, string> = {},
): Promise<Record<string, any>> {
  const form = new FormData();
  form.set("file", new Blob([bytes]), fileName);
  form.set("data_type", fileName.split(".").pop()!);
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  const created = await server.api("POST", "/v3/uploads", { token: athlete.token, multipart: form });
  expect(created.status, created.text).toBe(201);
  for (let i = 0; i < 1200; i++) {
    const status = await server.api("GET", `/v3/uploads/${created.body.id}`, { token: athlete.token });
    expect(status.body.error).toBeNull();
    if (status.body.activity_id) {
      const detail = await server.api("GET", `/v3/activities/${status.body.activity_id}`, { token: athlete.token });
      expect(detail.status).toBe(200);
      return detail.body;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${fileName} did not finish`);
}

export const STREAM_KEYS =
  "time,distance,latlng,altitude,velocity_smooth,heartrate,cadence,watts,temp,moving,grade_smooth";

/** The activity's streams keyed by type. */
export async function activityStreams(
  server: TestServer,
  athlete: TestAthlete,
  id: number,
): Promise<Record<string, any[]>> {
  const res = await server.api("GET", `/v3/activities/${id}/streams`, {
    token: athlete.token,
    query: { keys: STREAM_KEYS, key_by_type: "true" },
  });
  expect(res.status).toBe(200);
  return Object.fromEntries(Object.entries(res.body as Record<string, { data: any[] }>).map(([k, v]) => [k, v.data]));
}

/** |ours − theirs| within a relative tolerance (and an absolute floor). */
export function expectNear(ours: number, theirs: number, relative: number, absolute = 0): void {
  expect(Number.isFinite(theirs), `device figure ${theirs}`).toBe(true);
  expect(Math.abs(ours - theirs), `ours ${ours} vs device ${theirs}`).toBeLessThanOrEqual(
    Math.max(absolute, Math.abs(theirs) * relative),
  );
}

/** Great-circle distance in metres (written here, independent of the server's geo code). */
export function greatCircle(a: [number, number], b: [number, number]): number {
  const rad = Math.PI / 180;
  const dLat = (b[0] - a[0]) * rad;
  const dLng = (b[1] - a[1]) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.sqrt(h));
}

/** A GPX track point as the file has it (NaN where it has no `<ele>` or `<time>`). */
export interface GpxPoint {
  lat: number;
  lng: number;
  ele: number;
  time: number;
}

/** A GPX's track points, read with regular expressions over the text. */
export function readGpxPoints(text: string): GpxPoint[] {
  const points: GpxPoint[] = [];
  for (const m of text.matchAll(/<trkpt\s+lat="([^"]+)"\s+lon="([^"]+)"\s*>([\s\S]*?)<\/trkpt>/g)) {
    const ele = m[3].match(/<ele>([^<]+)<\/ele>/);
    const time = m[3].match(/<time>([^<]+)<\/time>/);
    points.push({
      lat: Number(m[1]),
      lng: Number(m[2]),
      ele: ele ? Number(ele[1]) : NaN,
      time: time ? Date.parse(time[1]) : NaN,
    });
  }
  return points;
}

/** Cumulative great-circle distance at each point. */
export function alongTrack(points: [number, number][]): number[] {
  const cum = [0];
  for (let i = 1; i < points.length; i++) cum.push(cum[i - 1] + greatCircle(points[i - 1], points[i]));
  return cum;
}

/**
 * Gain of heights along a track smoothed over distance, the way docs/numbers.md defines it for
 * non-barometric altitude (averaged over ±20 m of distance, then climbs of at least 2 m), computed
 * another way: the heights are resampled every metre along the track (linear between points), so
 * every metre of the way weighs the same however often the device recorded there, averaged over
 * ±`halfWidth` m, and a climb counts once the average rose `threshold` m above its last low.
 */
export function distanceSmoothedGain(heights: number[], cum: number[], halfWidth = 20, threshold = 2): number {
  const profile: number[] = [];
  let j = 0;
  for (let d = 0; d <= cum[cum.length - 1]; d += 1) {
    while (j < cum.length - 2 && cum[j + 1] < d) j++;
    const span = cum[j + 1] - cum[j];
    const f = span > 0 ? Math.min(1, (d - cum[j]) / span) : 0;
    profile.push(heights[j] + f * (heights[j + 1] - heights[j]));
  }
  const prefix = [0];
  for (const v of profile) prefix.push(prefix[prefix.length - 1] + v);
  let gain = 0;
  let low = Infinity;
  for (let i = 0; i < profile.length; i++) {
    const a = Math.max(0, i - halfWidth);
    const b = Math.min(profile.length - 1, i + halfWidth);
    const mean = (prefix[b + 1] - prefix[a]) / (b - a + 1);
    if (low === Infinity) low = mean;
    else if (mean - low >= threshold) {
      gain += mean - low;
      low = mean;
    } else if (mean < low) low = mean;
  }
  return gain;
}
