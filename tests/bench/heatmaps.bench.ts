import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode } from "fast-png";
import { handleCommand } from "../../events/decider.ts";
import { heatmapDecider } from "../../events/heatmap/decide.ts";
import { heatmapStream } from "../../events/heatmap/events.ts";
import { createAthlete } from "../../server/athletes/commands.ts";
import { getBlob } from "../../server/blobs.ts";
import { configFromEnv } from "../../server/config.ts";
import { buildHeatmap } from "../../server/heatmaps/build.ts";
import { randomHeatmapId } from "../../server/heatmaps/ids.ts";
import { TILE_SIZE, unitsPerPixel } from "../../server/heatmaps/mercator.ts";
import { TileRenderer } from "../../server/heatmaps/render.ts";
import { privacyFilter } from "../../server/heatmaps/tiles.ts";
import { decodeTracks } from "../../server/heatmaps/tracks.ts";
import { startServer } from "../../server/start.ts";
import { offset, recordActivity } from "../api/heatmaps-fixtures.ts";
import { type BenchFigure, type BenchSuite, percentiles } from "./harness.ts";

const ACTIVITIES = 1_000;
const POINTS = 2_400; // 40 minutes at 1 Hz
const CENTER: [number, number] = [48.8566, 2.3522];
const TILES_PER_ZOOM = 40;

/** A smooth random ride: 5 m per second, slowly turning, starting near the centre. */
function ride(seed: number): [number, number][] {
  let s = seed * 7919 + 13;
  const rand = () => ((s = (s * 16807) % 2147483647) / 2147483647);
  let east = (rand() - 0.5) * 6000, north = (rand() - 0.5) * 6000, heading = rand() * 2 * Math.PI;
  const points: [number, number][] = [];
  for (let i = 0; i < POINTS; i++) {
    heading += (rand() - 0.5) * 0.15;
    if (Math.hypot(east, north) > 9000) heading = Math.atan2(-north, -east);
    east += Math.cos(heading) * 5;
    north += Math.sin(heading) * 5;
    points.push(offset(CENTER, east, north));
  }
  return points;
}

/**
 * Heatmaps: build time over 1,000 activities (next to just reading and parsing their streams), and
 * tile render p50/p99 at z 10–16 (next to the bare PNG library encoding a constant tile).
 */
export const heatmapsBench: BenchSuite = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-heatmaps-"));
  const server = await startServer(
    configFromEnv({ port: 0, dataDir, seedDemo: false, quiet: true, databaseUrl: undefined, runJobs: false }),
  );
  try {
    const { platform } = server;
    const athleteId = await createAthlete(platform, {
      firstname: "Bench",
      lastname: "Heat",
      email: "heat@example.com",
      password: "password123",
    });
    for (let i = 0; i < ACTIVITIES; i++) {
      await recordActivity(server, {
        athleteId,
        type: "Ride",
        startDateLocal: "2024-05-01T07:00:00Z",
        latlng: ride(i + 1),
      });
    }

    // Baseline: read and parse every streams blob (what any build must do).
    let t = performance.now();
    const shas = await platform.db.query<{ streams_sha256: string }>(
      "select streams_sha256 from heatmap_activities where athlete_id = $1",
      [athleteId],
    );
    let points = 0;
    for (const row of shas) {
      points += JSON.parse(new TextDecoder().decode(await getBlob(platform.db, row.streams_sha256))).latlng.length;
    }
    const readSeconds = (performance.now() - t) / 1000;

    const mapId = randomHeatmapId();
    await handleCommand(platform.store, heatmapStream(mapId), heatmapDecider, {
      type: "request",
      mapId,
      athleteId,
      activityTypeIds: [1],
      startDateLocal: null,
      endDateLocal: null,
    });
    t = performance.now();
    await buildHeatmap(platform, mapId);
    const buildSeconds = (performance.now() - t) / 1000;
    const [row] = await platform.db.query<{ status: string; tracks_sha256: string; activities_count: number }>(
      "select status, tracks_sha256, activities_count from heatmaps where id = $1",
      [mapId],
    );
    if (row.status !== "done" || Number(row.activities_count) !== ACTIVITIES) {
      throw new Error(`build ended ${row.status} with ${row.activities_count}`);
    }

    const tracks = decodeTracks((await getBlob(platform.db, row.tracks_sha256))!);
    const renderer = new TileRenderer(tracks);
    const privacy = await privacyFilter(platform.db, athleteId, tracks.activityIds);
    const samples: number[] = [];
    let seed = 1;
    for (let z = 10; z <= 16; z++) {
      renderer.png(z, 0, 0, privacy); // builds the zoom's simplified level (once per map)
      const unit = unitsPerPixel(z) * TILE_SIZE;
      for (let k = 0; k < TILES_PER_ZOOM; k++) {
        seed = (seed * 16807) % 2147483647;
        const i = seed % tracks.xs.length;
        const x = Math.floor(tracks.xs[i] / unit), y = Math.floor(tracks.ys[i] / unit);
        const s = performance.now();
        renderer.png(z, x, y, privacy);
        samples.push(performance.now() - s);
      }
    }
    const constant = new Uint8Array(TILE_SIZE * TILE_SIZE * 4);
    for (let i = 0; i < constant.length; i += 4) constant.set([255, 140, 20, 240], i);
    const baseline: number[] = [];
    for (let k = 0; k < samples.length; k++) {
      const s = performance.now();
      encode({ width: TILE_SIZE, height: TILE_SIZE, data: constant, channels: 4, depth: 8 }, { zlib: { level: 1 } });
      baseline.push(performance.now() - s);
    }
    const ours = percentiles(samples), bare = percentiles(baseline);
    const figures: BenchFigure[] = [
      {
        suite: "heatmaps",
        name: `build, ${ACTIVITIES} activities (${points.toLocaleString("en-US")} points)`,
        ours: buildSeconds,
        baseline: readSeconds,
        baselineName: "read + JSON.parse streams",
        unit: "s",
        higherIsBetter: false,
        target: "≤ 10 s",
      },
      {
        suite: "heatmaps",
        name: "tile render p50, z 10–16",
        ours: ours.p50,
        baseline: bare.p50,
        baselineName: "fast-png encode of a constant tile",
        unit: "ms",
        higherIsBetter: false,
        target: "≤ 20 ms",
      },
      {
        suite: "heatmaps",
        name: "tile render p99, z 10–16",
        ours: ours.p99,
        baseline: bare.p99,
        baselineName: "fast-png encode of a constant tile",
        unit: "ms",
        higherIsBetter: false,
      },
    ];
    return figures;
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};
