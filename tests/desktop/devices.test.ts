import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  defaultVolumeRoots,
  detectDevice,
  folderSource,
  listVolumes,
  parseGarminDeviceXml,
} from "../../desktop/core/devices.ts";
import { dataTypeOf, isActivityFile } from "../../desktop/core/files.ts";

const root = mkdtempSync(join(tmpdir(), "companion-devices-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DEVICE_XML = `<?xml version="1.0" encoding="UTF-8" standalone="no" ?>
<Device xmlns="http://www.garmin.com/xmlschemas/GarminDevice/v2">
  <Model><PartNumber>006-B1567-00</PartNumber><SoftwareVersion>290</SoftwareVersion><Description>Edge 500</Description></Model>
  <Id>3831092274</Id>
  <MassStorageMode>
    <DataType><Name>FIT_TYPE_4</Name>
      <File><Specification><Identifier>http://www.garmin.com/xmlschemas/FIT</Identifier></Specification>
        <Location><Path>Garmin/ACTIVITIES</Path><FileExtension>FIT</FileExtension></Location>
        <TransferDirection>OutputFromUnit</TransferDirection></File>
    </DataType>
    <DataType><Name>FIT_TYPE_6</Name>
      <File><Location><Path>Garmin/Courses</Path><FileExtension>FIT</FileExtension></Location>
        <TransferDirection>InputToUnit</TransferDirection></File>
    </DataType>
  </MassStorageMode>
</Device>`;

function volume(name: string): string {
  const path = join(root, "media", name);
  mkdirSync(path, { recursive: true });
  return path;
}

describe("device detection", () => {
  it("reads the serial, model and activity folder from GarminDevice.xml (folder name in any case)", () => {
    const v = volume("GARMIN");
    mkdirSync(join(v, "GARMIN", "Activities"), { recursive: true });
    writeFileSync(join(v, "GARMIN", "GarminDevice.xml"), DEVICE_XML);
    const device = detectDevice(v)!;
    expect(device).toMatchObject({
      id: "garmin:3831092274",
      name: "Edge 500",
      kind: "device",
      serial: "3831092274",
      volume: v,
    });
    expect(device.folder).toBe(join(v, "GARMIN", "Activities"));
  });

  it("finds a Garmin Activity folder without GarminDevice.xml, any case, identified by the volume label", () => {
    const v = volume("FR735");
    mkdirSync(join(v, "garmin", "ACTIVITY"), { recursive: true });
    expect(detectDevice(v)).toMatchObject({ id: "volume:FR735", name: "FR735", folder: join(v, "garmin", "ACTIVITY") });
  });

  it("ignores volumes without an activity folder (a USB stick)", () => {
    const v = volume("STICK");
    mkdirSync(join(v, "Photos"), { recursive: true });
    expect(detectDevice(v)).toBeUndefined();
  });

  it("lists mount points under the roots and the platform's default roots", () => {
    expect(listVolumes([join(root, "media"), join(root, "missing")])).toEqual(
      [join(root, "media", "FR735"), join(root, "media", "GARMIN"), join(root, "media", "STICK")],
    );
    expect(defaultVolumeRoots("linux", "ann")).toEqual(["/media/ann", "/run/media/ann"]);
    expect(defaultVolumeRoots("darwin", "ann")).toEqual(["/Volumes"]);
    expect(defaultVolumeRoots("win32", "ann")).toEqual(["(drives)"]);
  });

  it("rejects malformed GarminDevice.xml without throwing", () => {
    expect(parseGarminDeviceXml("<Device><Id>1</Id>")?.activityPath).toBeUndefined();
    expect(parseGarminDeviceXml("not xml at all")).toBeUndefined();
  });

  it("user folders are identified by their absolute path", () => {
    expect(folderSource(join(root, "drop"))).toMatchObject({ id: `folder:${join(root, "drop")}`, kind: "folder" });
  });
});

describe("activity files", () => {
  it("data_type from the extension, case-insensitive and .gz aware", () => {
    expect(dataTypeOf("/x/2024-05-01-07-12-33.FIT")).toBe("fit");
    expect(dataTypeOf("ride.fit.gz")).toBe("fit.gz");
    expect(dataTypeOf("Run.TCX.GZ")).toBe("tcx.gz");
    expect(dataTypeOf("walk.gpx")).toBe("gpx");
    expect(dataTypeOf("notes.txt")).toBeUndefined();
    expect(dataTypeOf("ride.gz")).toBeUndefined();
    expect(isActivityFile("/x/.ride.fit")).toBe(false);
    expect(isActivityFile("/x/ride.fit")).toBe(true);
  });
});
