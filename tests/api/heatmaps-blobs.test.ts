import { afterAll, beforeAll } from "vitest";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { heatmapBlobsSuite } from "./heatmaps-blobs-suite.ts";

/** A heatmap's tracks blobs stay bounded however often it is updated, on the embedded store (heatmaps-blobs-suite.ts). */
let server: TestServer;
let athlete: TestAthlete;

beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete({ firstname: "Blobs" });
}, 60_000);
afterAll(() => server?.close());

heatmapBlobsSuite(() => ({ server, athlete }), "embedded");
