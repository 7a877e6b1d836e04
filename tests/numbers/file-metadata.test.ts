import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deviceFile } from "../helpers/fixtures.ts";
import { startTestServer, type TestAthlete, type TestServer } from "../helpers/server.ts";
import { uploadActivity } from "./device-totals.ts";

/** Issue #32, cause 8: what the file says of itself (GPX <trk><name> and <type>) names the activity. */
let server: TestServer;
let athlete: TestAthlete;
beforeAll(async () => {
  server = await startTestServer();
  athlete = await server.athlete();
});
afterAll(() => server.close());

const text = (relative: string) => readFileSync(deviceFile(relative), "utf8");

describe("cause 8: file metadata", () => {
  for (
    const file of [
      "gpx/applewatch-running-hr-cad-power-3seg.gpx",
      "gpx/garmin-connect-edge1000-cycling-short-3formats.gpx",
    ]
  ) {
    it(`${file}: the track's own <name> and <type>`, async () => {
      const gpx = text(file);
      const trk = gpx.slice(gpx.indexOf("<trk>"));
      const name = trk.match(/<name>([^<]+)<\/name>/)![1].trim();
      const type = trk.match(/<type>([^<]+)<\/type>/)![1].trim();
      const activity = await uploadActivity(server, athlete, new TextEncoder().encode(gpx), file.split("/").pop()!);
      expect(activity.name).toBe(name);
      expect(activity.type).toBe({ running: "Run", cycling: "Ride" }[type]);
    });
  }

  it("the uploader's own name still wins over the file's", async () => {
    const gpx = text("gpx/strava-export-running-hr.gpx");
    const activity = await uploadActivity(server, athlete, new TextEncoder().encode(gpx), "named.gpx", {
      name: "My own name",
    });
    expect(activity.name).toBe("My own name");
  });
});
