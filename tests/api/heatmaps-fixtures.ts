import { decode } from "fast-png";
import { activityRecorded, activityStream } from "../../events/activity/events.ts";
import type { ActivityType } from "../../shared/activity-types.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { putBlob } from "../../server/blobs.ts";
import { nextId } from "../../server/ids.ts";
import { TILE_SIZE, unitsPerPixel, worldX, worldY } from "../../server/heatmaps/mercator.ts";
import type { TestServer } from "../helpers/server.ts";
import type { Platform } from "../../server/platform.ts";

/** Builders of real activities for heatmap tests: streams blobs and ActivityRecorded events. */

const M_PER_DEG = 111_320;

/** A point `east` and `north` metres from a centre. */
export function offset(center: [number, number], east: number, north: number): [number, number] {
  return [center[0] + north / M_PER_DEG, center[1] + east / (M_PER_DEG * Math.cos((center[0] * Math.PI) / 180))];
}

/** A loop of `radius` metres around a centre, one point every `step` metres. */
export function loopTrack(center: [number, number], radius: number, step = 4): [number, number][] {
  const n = Math.max(8, Math.round((2 * Math.PI * radius) / step));
  return Array.from({ length: n + 1 }, (_, i) => {
    const a = (2 * Math.PI * i) / n;
    return offset(center, radius * Math.cos(a), radius * Math.sin(a));
  });
}

/** A straight west → east line of `length` metres centred on a point, one point every `step` metres. */
export function lineTrack(center: [number, number], length: number, step = 4): [number, number][] {
  const n = Math.round(length / step);
  return Array.from({ length: n + 1 }, (_, i) => offset(center, -length / 2 + i * step, 0));
}

/**
 * Index-aligned streams as uploads store them (time, distance, latlng, altitude, moving). A null
 * position (a GPS gap) is written as null, not interpolated: the heatmap build cuts the track there.
 */
export function streamsOf(
  latlng: ([number, number] | null)[],
): Omit<ActivityStreams, "latlng"> & { latlng: ([number, number] | null)[] } {
  const distance: number[] = [];
  let total = 0;
  latlng.forEach((p, i) => {
    const prev = latlng[i - 1];
    if (p && prev) {
      total += Math.hypot(
        (p[0] - prev[0]) * M_PER_DEG,
        (p[1] - prev[1]) * M_PER_DEG * Math.cos((p[0] * Math.PI) / 180),
      );
    }
    distance.push(Math.round(total * 10) / 10);
  });
  return {
    time: latlng.map((_, i) => i),
    distance,
    latlng,
    altitude: latlng.map((_, i) => 400 + Math.sin(i / 50) * 5),
    moving: latlng.map(() => true),
  };
}

export interface ActivitySpec {
  athleteId: number;
  type: ActivityType;
  private?: boolean;
  /** Local start written as UTC, e.g. "2024-05-01T07:00:00Z". */
  startDateLocal: string;
  latlng: ([number, number] | null)[];
  /** Store a streams hash whose blob does not exist (a damaged platform). */
  missingBlob?: boolean;
}

/** Records an activity the way uploads do: a streams blob, then ActivityRecorded. Returns its id. */
export async function recordActivity(server: { platform: Platform }, spec: ActivitySpec): Promise<number> {
  const platform = server.platform;
  const activityId = await nextId(platform.db, "activity");
  const streams = streamsOf(spec.latlng);
  const sha = spec.missingBlob
    ? "0".repeat(63) + "1"
    : await putBlob(platform.db, new TextEncoder().encode(JSON.stringify(streams)));
  const elapsed = streams.time.length;
  const located = spec.latlng.filter((p): p is [number, number] => p !== null);
  const start = new Date(spec.startDateLocal);
  await platform.store.append(activityStream(activityId), 0, [activityRecorded.create({
    activityId,
    athleteId: spec.athleteId,
    type: spec.type,
    name: `${spec.type} ${spec.startDateLocal.slice(0, 10)}`,
    description: null,
    externalId: `test-${activityId}.gpx`,
    uploadId: null,
    startDate: start.toISOString().replace(/\.\d{3}Z$/, "Z"),
    startDateLocal: spec.startDateLocal,
    timezone: "(GMT+00:00) UTC",
    distance: streams.distance[streams.distance.length - 1] ?? 0,
    movingTime: elapsed,
    elapsedTime: elapsed,
    totalElevationGain: 10,
    elevHigh: 405,
    elevLow: 395,
    startLatlng: located[0] ?? null,
    endLatlng: located[located.length - 1] ?? null,
    averageSpeed: 3,
    maxSpeed: 5,
    averageCadence: null,
    averageTemp: null,
    averageWatts: null,
    maxWatts: null,
    weightedAverageWatts: null,
    kilojoules: null,
    deviceWatts: null,
    hasHeartrate: false,
    averageHeartrate: null,
    maxHeartrate: null,
    calories: null,
    sufferScore: null,
    visibility: spec.private ? "only_me" : "everyone",
    trainer: false,
    commute: false,
    deviceName: null,
    workoutType: null,
    polyline: null,
    summaryPolyline: null,
    streamsSha256: sha,
    laps: [],
    splitsMetric: [],
    splitsStandard: [],
    bestEfforts: [],
  })], { metadata: { athleteId: spec.athleteId, source: "test" } });
  return activityId;
}

/** Tile z/x/y holding a point, and the point's pixel in it. */
export function tileOf(point: [number, number], z: number): { x: number; y: number; px: number; py: number } {
  const unit = unitsPerPixel(z);
  const gx = worldX(point[1]) / unit, gy = worldY(point[0]) / unit;
  return {
    x: Math.floor(gx / TILE_SIZE),
    y: Math.floor(gy / TILE_SIZE),
    px: Math.floor(gx % TILE_SIZE),
    py: Math.floor(gy % TILE_SIZE),
  };
}

export interface DecodedTile {
  width: number;
  height: number;
  alpha(px: number, py: number): number;
  /** Pixels with alpha > 0 within a square of `r` pixels around (px, py). */
  drawnNear(px: number, py: number, r: number): number;
  drawn: number;
}

/** Decodes a tile PNG (the real decoder) into alpha lookups. */
export function decodeTile(bytes: Uint8Array): DecodedTile {
  const png = decode(bytes);
  const channels = png.channels;
  const data = png.data as Uint8Array;
  const alpha = (px: number, py: number) =>
    px < 0 || py < 0 || px >= png.width || py >= png.height ? 0 : data[(py * png.width + px) * channels + channels - 1];
  let drawn = 0;
  for (let i = channels - 1; i < data.length; i += channels) if (data[i] > 0) drawn++;
  return {
    width: png.width,
    height: png.height,
    alpha,
    drawn,
    drawnNear(px, py, r) {
      let n = 0;
      for (let y = py - r; y <= py + r; y++) for (let x = px - r; x <= px + r; x++) if (alpha(x, y) > 0) n++;
      return n;
    },
  };
}

/** Polls progress until done or error (the build is asynchronous). */
export async function waitForBuild(
  server: TestServer,
  athleteId: number,
  mapId: number | bigint,
  token: string,
  limitMs = 60_000,
) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const res = await server.api("GET", `/v3/athletes/${athleteId}/heatmaps/${mapId}/progress`, { token });
    if (res.status !== 200) throw new Error(`progress answered ${res.status}: ${res.text}`);
    if (res.body.status === "done" || res.body.status === "error") return res.body;
    if (Date.now() > deadline) throw new Error(`heatmap ${mapId} still ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Fetches a tile as bytes. */
export async function fetchTile(
  _server: TestServer,
  tilePath: string,
  z: number,
  x: number,
  y: number,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${tilePath}/${z}/${x}/${y}.png`, { headers });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}
