import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Decoder, Stream } from "@garmin/fitsdk";
import { describe, expect, it } from "vitest";
import { fitFileType } from "../../server/archive/fit-type.ts";
import { activityTypeOfCsv, csvDate, csvRows } from "../../server/archive/layout.ts";
import { receiveArchive } from "../../server/archive/receive.ts";
import { safeEntryName } from "../../server/archive/zip.ts";
import { deviceFile } from "../helpers/fixtures.ts";
import { monitoringFit } from "./archives.ts";

describe("archive parts", () => {
  it("reads file_id.type as the Garmin FIT SDK does", () => {
    for (
      const f of [
        "fit/garmin-edge1000-cycling-power-hr.fit",
        "fit/zwift-virtual-cycling-power.fit",
        "fit/stryd-running-power-devfields.fit",
      ]
    ) {
      const bytes = readFileSync(deviceFile(f));
      const sdk = new Decoder(Stream.fromByteArray(bytes)).read({ convertTypesToStrings: false });
      expect(fitFileType(bytes), f).toBe(sdk.messages.fileIdMesgs![0].type);
    }
    const monitoring = monitoringFit();
    const sdk = new Decoder(Stream.fromByteArray(monitoring)).read({ convertTypesToStrings: false });
    expect(fitFileType(monitoring)).toBe(sdk.messages.fileIdMesgs![0].type);
    expect(fitFileType(monitoring)).toBe(15);
    expect(fitFileType(new TextEncoder().encode("<gpx></gpx>"))).toBeNull();
  });

  it("reads Strava's CSV by header (first of repeated headers), dates in UTC, types with spaces", () => {
    const csv = csvRows('\uFEFFActivity ID,Distance,Extra,Distance\n7,"1,234.5",x,1234500\n');
    expect(csv.get(csv.rows[0], "distance")).toBe("1,234.5");
    expect(csv.get(csv.rows[0], "Missing", "Activity ID")).toBe("7");
    expect(csvDate("Jan 5, 2020, 7:03:12 PM")).toBe("2020-01-05T19:03:12Z");
    expect(csvDate("Dec 31, 2019, 12:00:00 AM")).toBe("2019-12-31T00:00:00Z");
    expect(csvDate("2021-06-01 08:00:00")).toBe("2021-06-01T08:00:00Z");
    expect(csvDate("yesterday")).toBeNull();
    expect(activityTypeOfCsv("Virtual Ride")).toBe("VirtualRide");
    expect(activityTypeOfCsv("E-Bike Ride")).toBe("EBikeRide");
    expect(activityTypeOfCsv("Weight Training")).toBe("WeightTraining");
    expect(activityTypeOfCsv("Quidditch")).toBeNull();
  });

  it("refuses entry names that leave the archive", () => {
    for (const bad of ["../x", "a/../../x", "/etc/passwd", "C:/x", "a\\..\\x", "x\0y"]) {
      expect(safeEntryName(bad), bad).toBe(false);
    }
    for (const good of ["activities/1.fit.gz", "a..b/c", "media/x.jpg"]) expect(safeEntryName(good), good).toBe(true);
  });

  it("streams a multipart file to disk whatever the chunking, with the fields before it", async () => {
    const file = new Uint8Array(300_000).map((_, i) => (i * 7919) % 251);
    const form = new FormData();
    form.set("_csrf", "token-1");
    form.set("file", new Blob([file]), "export.zip");
    const request = new Request("http://x/", { method: "POST", body: form });
    const type = request.headers.get("content-type")!;
    const body = new Uint8Array(await request.arrayBuffer());
    for (const size of [13, 4096, body.length]) {
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          for (let i = 0; i < body.length; i += size) c.enqueue(body.slice(i, i + size));
          c.close();
        },
      });
      const path = join(mkdtempSync(join(tmpdir(), "receive-")), "a.zip");
      let seen: Record<string, string> = {};
      const got = await receiveArchive(stream, type, "file", path, (fields) => void (seen = { ...fields }));
      expect(got.file).toEqual({ name: "export.zip", bytes: file.length });
      expect(seen._csrf).toBe("token-1");
      expect(Buffer.compare(readFileSync(path), Buffer.from(file))).toBe(0);
    }
  }, 120_000);
});
