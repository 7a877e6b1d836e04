import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatch } from "../../server/cli/dispatch.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { expectNear, readGpxPoints, uploadActivity } from "./device-totals.ts";
import { definitionGain, istriaAt, istriaTile, SIZE } from "./terrain-plane.ts";

/**
 * Issue #32, cause 9, as an operator does it: `npm run cli -- elevation fetch` downloads the SRTM
 * tiles the uploaded activities pass through (from the AWS terrain tiles by default; here from a
 * local HTTP server laid out the same way: /skadi/N45/N45E013.hgt.gz), then `reprocess --all` gives a
 * phone's walk the terrain's gain instead of its noisy altitude's.
 */
let server: TestServer;
let athlete: TestAthlete;
let dir: string;
let source: Server;
let base = "";
const requests: string[] = [];
const cli = (...argv: string[]) =>
  dispatch([...argv, "--json"], (fn) => fn(server.platform), { interactive: false, progress: () => {} });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tiles-"));
  process.env.ELEVATION_TILES_DIR = dir;
  const gz = gzipSync(istriaTile());
  source = createServer((req, res) => {
    requests.push(req.url ?? "");
    if (req.url === "/skadi/N45/N45E013.hgt.gz") res.writeHead(200, { "content-type": "application/gzip" }).end(gz);
    else if (req.url?.startsWith("/broken/")) res.writeHead(200).end(gz.subarray(0, 1000));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => source.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => source.close(resolve));
  delete process.env.ELEVATION_TILES_DIR;
  rmSync(dir, { recursive: true, force: true });
});

describe("elevation fetch", () => {
  it("fetches the tiles under the activities; reprocess then takes a phone walk's gain from the terrain", async () => {
    const gpx = readFileSync(deviceFile("gpx/mytracks-android-hike-karojba.gpx"), "utf8");
    const before = await uploadActivity(server, athlete, new TextEncoder().encode(gpx), "karojba.gpx", {
      activity_type: "hike",
    });
    // No tile yet: the phone's own altitude (536 m of climbing where the ground climbs ~190 m).
    expect(before.total_elevation_gain).toBeGreaterThan(400);

    // A bad source first: a truncated gzip is refused, nothing is written.
    const broken = await cli("elevation", "fetch", "--source", `${base}/broken/{tile}.hgt.gz`);
    expect(broken.exitCode, broken.stderr).toBe(0);
    expect(JSON.parse(broken.stdout)).toMatchObject({ tiles: 1, fetched: 0, failed: 1 });
    expect(JSON.parse(broken.stdout).outcomes[0].reason).toMatch(/gzip/);
    expect(readdirSync(dir)).toEqual([]);

    const fetched = await cli("elevation", "fetch", "--source", `${base}/skadi/{band}/{tile}.hgt.gz`);
    expect(fetched.exitCode, fetched.stderr).toBe(0);
    expect(JSON.parse(fetched.stdout)).toMatchObject({
      dir,
      tiles: 1,
      fetched: 1,
      present: 0,
      failed: 0,
      outcomes: [{ tile: "N45E013.hgt", outcome: "fetched", bytes: SIZE * SIZE * 2 }],
    });
    expect(statSync(join(dir, "N45E013.hgt")).size).toBe(SIZE * SIZE * 2);
    expect(requests).toContain("/skadi/N45/N45E013.hgt.gz");
    // Again: nothing to fetch.
    const again = await cli("elevation", "fetch", "--source", `${base}/skadi/{band}/{tile}.hgt.gz`);
    expect(JSON.parse(again.stdout)).toMatchObject({ tiles: 1, fetched: 0, present: 1 });

    const reprocessed = await cli("reprocess", "--all");
    expect(reprocessed.exitCode, reprocessed.stderr).toBe(0);
    expect(JSON.parse(reprocessed.stdout), reprocessed.stdout).toMatchObject({ reprocessed: 1 });
    const after = await server.api("GET", `/v3/activities/${before.id}`, { token: athlete.token });
    const track = readGpxPoints(gpx);
    const points = track.map((p) => [p.lat, p.lng] as [number, number]), times = track.map((p) => p.time);
    expectNear(after.body.total_elevation_gain, definitionGain(points, times, istriaAt), 0.1);
    // Not the phone's figure any more (the plane climbs less than the phone's noise does).
    expect(before.total_elevation_gain - after.body.total_elevation_gain).toBeGreaterThan(100);
    expect(after.body.elev_high).toBeCloseTo(Math.max(...points.map(([lat, lng]) => istriaAt(lat, lng))), 0);
  });

  it("a source without the tile (open sea) is reported, not an error; usage errors name the fix", async () => {
    const sea = await cli(
      "elevation",
      "fetch",
      "--source",
      `${base}/nowhere/{band}/{tile}.hgt.gz`,
      "--dir",
      join(dir, "sea"),
    );
    expect(sea.exitCode, sea.stderr).toBe(0);
    expect(JSON.parse(sea.stdout)).toMatchObject({ tiles: 1, fetched: 0, none: 1, failed: 0 });
    expect(existsSync(join(dir, "sea", "N45E013.hgt"))).toBe(false);
    const badSource = await cli("elevation", "fetch", "--source", "ftp://example.org/{tile}");
    expect(badSource.exitCode).not.toBe(0);
    expect(badSource.stderr).toMatch(/--source/);
  });
});
