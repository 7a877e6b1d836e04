/** Export archives in the exact layouts of Strava and Garmin Connect, built from device fixtures with yazl. */
import { createWriteStream, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import jpeg from "jpeg-js";
import yazl from "yazl";
import { deviceFile } from "../helpers/fixtures.ts";

export type Entry = { name: string; bytes: Uint8Array | Buffer; store?: boolean };

/** Writes a zip of the entries (deflated unless `store`). */
export function writeZip(path: string, entries: Entry[]): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(Buffer.from(e.bytes), e.name, { compress: !e.store });
  zip.end();
  return new Promise((resolve, reject) => {
    zip.outputStream.pipe(createWriteStream(path)).on("close", () => resolve()).on("error", reject);
  });
}

/** A zip in memory (for nesting). */
export function zipBytes(entries: Entry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(Buffer.from(e.bytes), e.name);
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks))).on(
      "error",
      reject,
    );
  });
}

/** A small real JPEG (a colour gradient). */
export function photoJpeg(width = 320, height = 240): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = (x * 255) / width;
      data[i + 1] = (y * 255) / height;
      data[i + 2] = 128;
      data[i + 3] = 255;
    }
  }
  return jpeg.encode({ data, width, height }, 85).data;
}

const fixture = (p: string) => readFileSync(deviceFile(p));

/** The columns of a real activities.csv (a subset, in Strava's order, with its repeated headers). */
const HEADER = [
  "Activity ID",
  "Activity Date",
  "Activity Name",
  "Activity Type",
  "Activity Description",
  "Elapsed Time",
  "Distance",
  "Max Heart Rate",
  "Relative Effort",
  "Commute",
  "Activity Private Note",
  "Activity Gear",
  "Filename",
  "Athlete Weight",
  "Bike Weight",
  "Elapsed Time",
  "Moving Time",
  "Distance",
  "Max Speed",
  "Media",
];

export interface CsvActivity {
  id: string;
  date: string;
  name: string;
  type: string;
  description?: string;
  elapsed: number;
  km: number;
  commute?: boolean;
  gear?: string;
  file?: string;
  media?: string[];
}

const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

export function activitiesCsv(rows: CsvActivity[]): string {
  const lines = [HEADER.join(",")];
  for (const r of rows) {
    lines.push(
      [
        r.id,
        r.date,
        r.name,
        r.type,
        r.description ?? "",
        String(r.elapsed),
        r.km.toFixed(2),
        "",
        "",
        r.commute ? "true" : "false",
        "",
        r.gear ?? "",
        r.file ?? "",
        "70",
        "",
        String(r.elapsed),
        String(r.elapsed),
        String(r.km * 1000),
        "",
        (r.media ?? []).join("|"),
      ].map(quote).join(","),
    );
  }
  return lines.join("\n") + "\n";
}

/** The Strava test archive: CSV, .fit.gz, .fit, .gpx, .gpx.gz, .tcx, .tcx.gz, a manual row, gear, a photo, one broken file. */
export function stravaArchiveEntries(): { entries: Entry[]; rows: CsvActivity[] } {
  const rows: CsvActivity[] = [
    {
      id: "101",
      date: "Jun 5, 2015, 7:03:12 AM",
      name: "Morning ride with photo",
      type: "Ride",
      description: "Café stop",
      elapsed: 3600,
      km: 30,
      commute: true,
      gear: "Trek Domane",
      file: "activities/101.fit.gz",
      media: ["media/ab12-cd34.jpg"],
    },
    {
      id: "102",
      date: "Jan 1, 2019, 9:00:00 AM",
      name: "Export run",
      type: "Run",
      elapsed: 1800,
      km: 5,
      gear: "Pegasus 38",
      file: "activities/102.gpx",
    },
    {
      id: "103",
      date: "Jan 2, 2019, 9:00:00 AM",
      name: "Watch run",
      type: "Run",
      elapsed: 600,
      km: 1,
      file: "activities/103.gpx.gz",
    },
    {
      id: "104",
      date: "Jan 3, 2019, 9:00:00 AM",
      name: "Forerunner run",
      type: "Run",
      elapsed: 2400,
      km: 8,
      file: "activities/104.tcx",
    },
    {
      id: "105",
      date: "Jan 4, 2019, 9:00:00 AM",
      name: "Versa ride",
      type: "Ride",
      elapsed: 3000,
      km: 20,
      file: "activities/105.tcx.gz",
    },
    {
      id: "106",
      date: "Jan 5, 2019, 9:00:00 AM",
      name: "Zwift session",
      type: "Virtual Ride",
      elapsed: 1500,
      km: 12,
      file: "activities/106.fit",
    },
    {
      id: "107",
      date: "Mar 14, 2020, 6:30:00 PM",
      name: "Gym",
      type: "Weight Training",
      description: "Legs day",
      elapsed: 3600,
      km: 0,
    },
    {
      id: "108",
      date: "Jan 6, 2019, 9:00:00 AM",
      name: "Empty track",
      type: "Run",
      elapsed: 60,
      km: 0,
      file: "activities/108.gpx",
    },
  ];
  const entries: Entry[] = [
    { name: "activities.csv", bytes: Buffer.from(activitiesCsv(rows)) },
    {
      name: "bikes.csv",
      bytes: Buffer.from("Bike Name,Bike Brand,Bike Model,Bike Default Sport Types\nTrek Domane,Trek,Domane SL6,\n"),
    },
    {
      name: "shoes.csv",
      bytes: Buffer.from("Shoe Name,Shoe Brand,Shoe Model,Shoe Default Sport Types\nPegasus 38,Nike,Pegasus,\n"),
    },
    {
      name: "activities/101.fit.gz",
      bytes: gzipSync(fixture("fit/garmin-edge500-cycling-hr-cad-pauses.fit")),
      store: true,
    },
    { name: "activities/102.gpx", bytes: fixture("gpx/strava-export-running-hr.gpx") },
    {
      name: "activities/103.gpx.gz",
      bytes: gzipSync(fixture("gpx/applewatch-running-hr-cad-power-3seg.gpx")),
      store: true,
    },
    { name: "activities/104.tcx", bytes: fixture("tcx/garmin-fr410-running-hr.tcx") },
    { name: "activities/105.tcx.gz", bytes: gzipSync(fixture("tcx/fitbit-versa-cycling-hr.tcx")), store: true },
    { name: "activities/106.fit", bytes: fixture("fit/zwift-virtual-cycling-power.fit") },
    { name: "activities/108.gpx", bytes: fixture("broken/osmand-empty-track.gpx") },
    { name: "media/ab12-cd34.jpg", bytes: photoJpeg(), store: true },
    { name: "profile.csv", bytes: Buffer.from("Athlete ID,Email Address\n1,a@example.com\n") },
  ];
  return { entries, rows };
}

/** The Garmin test archive: DI_CONNECT/…/UploadedFiles_0-_Part1.zip holding FIT files (one not a workout). */
export async function garminArchiveEntries(): Promise<Entry[]> {
  const inner = await zipBytes([
    { name: "someone@example.com_1001.fit", bytes: fixture("fit/garmin-edge1000-cycling-power-hr.fit") },
    { name: "someone@example.com_1002.fit", bytes: fixture("fit/garmin-fr735xt-pool-swim-lengths.fit") },
    { name: "someone@example.com_1003.fit", bytes: monitoringFit() },
  ]);
  return [
    { name: "DI_CONNECT/DI-Connect-Uploaded-Files/UploadedFiles_0-_Part1.zip", bytes: inner, store: true },
    { name: "DI_CONNECT/DI-Connect-User/user_profile.json", bytes: Buffer.from("{}") },
  ];
}

/** A minimal valid FIT file whose file_id says "monitoring" (type 15), as Garmin exports hold by the thousand. */
export function monitoringFit(): Buffer {
  // Definition (local 0 → global 0 file_id: type uint8, manufacturer uint16), then one data message.
  const records = Buffer.from([0x40, 0, 0, 0, 0, 2, 0, 1, 0x00, 1, 2, 0x84, 0x00, 15, 1, 0]);
  const header = Buffer.alloc(12);
  header[0] = 12;
  header[1] = 0x10;
  header.writeUInt16LE(2100, 2);
  header.writeUInt32LE(records.length, 4);
  header.write(".FIT", 8, "ascii");
  return Buffer.concat([header, records, Buffer.from([0, 0])]);
}
