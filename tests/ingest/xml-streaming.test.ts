import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type DataType, parseDeviceFile } from "../../server/ingest/decode.ts";
import type { ParsedFile } from "../../server/ingest/types.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/**
 * What the streaming GPX/TCX readers hand to derivation, checked against the files' own text
 * (read here with plain regular expressions): segments kept apart, file order kept, laps kept.
 */
const text = (path: string) => readFileSync(deviceFile(path), "utf8");
const parse = (xml: string, type: DataType): Promise<ParsedFile> =>
  parseDeviceFile(new TextEncoder().encode(xml), type);
const route = (p: ParsedFile) => p.samples.map((s) => `${s.lat},${s.lng}@${s.time}`);

describe("leading whitespace and a UTF-8 BOM before <?xml", () => {
  for (
    const [path, type] of [["tcx/polar-m400-running-hr-cadence.tcx", "tcx"], [
      "gpx/strava-export-cycling-power-hr-cad-atemp.gpx",
      "gpx",
    ]] as const
  ) {
    it(`${path}: ten spaces (as a Polar Flow export writes), or a BOM, change nothing`, async () => {
      const original = text(path);
      expect(original.startsWith("<?xml")).toBe(true);
      const plain = await parse(original, type);
      expect(plain.samples.length).toBeGreaterThan(100);
      const spaced = await parse(`          ${original}`, type);
      const bom = await parse(`\ufeff${original}`, type);
      const both = await parse(`\ufeff  \r\n${original}`, type);
      for (const variant of [spaced, bom, both]) {
        expect(route(variant)).toEqual(route(plain));
        expect(variant.laps).toEqual(plain.laps);
      }
    });
  }

  it("still refuses text that is not XML before the declaration", async () => {
    const original = text("gpx/strava-export-running-hr.gpx");
    await expect(parse(`junk ${original}`, "gpx")).rejects.toThrow(/not well-formed|not a GPX/);
  });
});

describe("GPX tracks and track segments stay separate", () => {
  for (
    const path of [
      "gpx/garmin-mapsource-multitrack.gpx",
      "gpx/applewatch-running-hr-cad-power-3seg.gpx",
      "gpx/garmin-oregon600-partial-hr-3seg.gpx",
    ]
  ) {
    it(`${path}: a segment start at each new trkseg, a pause over each gap`, async () => {
      const xml = text(path);
      const segments = [...xml.matchAll(/<trkseg>([\s\S]*?)<\/trkseg>/g)]
        .map((m) => [...m[1].matchAll(/<time>([^<]+)<\/time>/g)].map((t) => Date.parse(t[1])))
        .filter((times) => times.length > 0);
      expect(segments.length).toBe(3);
      const parsed = await parse(xml, "gpx");
      const starts: number[] = [];
      let at = 0;
      for (const times of segments.slice(0, -1)) starts.push(at += times.length);
      expect(parsed.segmentStarts).toEqual(starts);
      expect(parsed.pauses).toEqual(
        segments.slice(1).map((times, k) => ({ start: segments[k][segments[k].length - 1], end: times[0] })),
      );
      expect(parsed.samples.map((s) => s.time)).toEqual(segments.flat());
    });
  }

  it("an empty segment marks nothing; a single one gives no segment starts and no pauses", async () => {
    const xml = text("gpx/strava-export-running-hr.gpx");
    const withEmpty = xml.replace("<trkseg>", "<trkseg></trkseg><trkseg>");
    const one = await parse(xml, "gpx");
    const two = await parse(withEmpty, "gpx");
    expect(one.segmentStarts).toEqual([]);
    expect(one.pauses).toEqual([]);
    expect(two.segmentStarts).toEqual([]);
    expect(route(two)).toEqual(route(one));
  });

  it("segments are never joined by sorting: a later track written first keeps its place", async () => {
    const xml = text("gpx/garmin-mapsource-multitrack.gpx");
    const tracks = [...xml.matchAll(/<trk>[\s\S]*?<\/trk>/g)].map((m) => m[0]);
    expect(tracks.length).toBe(3);
    // Day 2 first, then days 1 and 3: day 1's points are earlier than the last kept point of day 2,
    // so they are dropped; day 3 follows day 2 after a pause.
    const reordered = xml.replace(
      tracks.join(xml.slice(xml.indexOf(tracks[0]) + tracks[0].length, xml.indexOf(tracks[1]))),
      "",
    )
      .replace("</gpx>", `${tracks[1]}${tracks[0]}${tracks[2]}</gpx>`);
    const parsed = await parse(reordered, "gpx");
    const count = (t: string) => [...t.matchAll(/<trkpt/g)].length;
    expect(parsed.samples.length).toBe(count(tracks[1]) + count(tracks[2]));
    expect(parsed.segmentStarts).toEqual([count(tracks[1])]);
    expect(parsed.pauses).toHaveLength(1);
  });
});

describe("timestamps that go backwards: file order kept, the earlier point dropped", () => {
  const cases = [
    ["gpx/strava-export-cycling-power-hr-cad-atemp.gpx", "gpx", /<trkpt[\s\S]*?<\/trkpt>/g, /<time>([^<]+)<\/time>/],
    ["tcx/garmin-fr410-running-hr.tcx", "tcx", /<Trackpoint>[\s\S]*?<\/Trackpoint>/g, /<Time>([^<]+)<\/Time>/],
  ] as const;
  for (const [path, type, pointRe, timeRe] of cases) {
    it(`${path}: a point moved 200 places later is dropped there, nothing is reordered`, async () => {
      const xml = text(path);
      const points = [...xml.matchAll(pointRe)].map((m) => m[0]);
      expect(points.length).toBeGreaterThan(300);
      const moved = points[50];
      // Cut point 50 out and write it again after point 250: its time is now behind.
      const cut = xml.replace(moved, "");
      const again = cut.replace(points[250], `${points[250]}${moved}`);
      const plain = await parse(xml, type);
      const parsed = await parse(again, type);
      const movedTime = Date.parse(timeRe.exec(moved)![1]);
      expect(parsed.samples.length).toBe(plain.samples.length - 1);
      expect(parsed.samples.some((s) => s.time === movedTime)).toBe(false);
      for (let i = 1; i < parsed.samples.length; i++) {
        expect(parsed.samples[i].time).toBeGreaterThan(parsed.samples[i - 1].time);
      }
      expect(route(parsed)).toEqual(route(plain).filter((_, i) => plain.samples[i].time !== movedTime));
    });
  }

  it("FIT: records keep the file's order too (times in the file only move forward)", async () => {
    const parsed = await parseDeviceFile(
      new Uint8Array(readFileSync(deviceFile("fit/garmin-edge500-cycling-hr-cad-pauses.fit"))),
      "fit",
    );
    for (let i = 1; i < parsed.samples.length; i++) {
      expect(parsed.samples[i].time).toBeGreaterThan(parsed.samples[i - 1].time);
    }
  });
});

describe("TCX laps", () => {
  it("every Lap is kept with its StartTime, TotalTimeSeconds, DistanceMeters and Calories, with or without a Track", async () => {
    const xml = text("tcx/garmin-fr410-running-hr.tcx");
    const fileLaps = [...xml.matchAll(/<Lap StartTime="([^"]+)">([\s\S]*?)<\/Lap>/g)].map((m) => {
      const own = m[2].replace(/<Track>[\s\S]*<\/Track>/, "");
      const value = (name: string) => Number(new RegExp(`<${name}>([^<]+)</${name}>`).exec(own)![1]);
      return {
        startTime: Date.parse(m[1]),
        elapsedTime: value("TotalTimeSeconds"),
        distance: value("DistanceMeters"),
        calories: value("Calories"),
      };
    });
    expect(fileLaps).toHaveLength(3);
    // Each lap also knows its own Track (issue #32): how many trackpoints it holds.
    const ownPoints = [...xml.matchAll(/<Lap StartTime="[^"]+">([\s\S]*?)<\/Lap>/g)].map((m) =>
      (m[1].match(/<Trackpoint>/g) ?? []).length
    );
    const parsedLaps = (await parse(xml, "tcx")).laps;
    expect(parsedLaps).toMatchObject(fileLaps);
    expect(parsedLaps.map((l) => l.points)).toEqual(ownPoints);
    // The Track of the first lap removed (a lap the device wrote without trackpoints).
    const firstTrack = /<Track>[\s\S]*?<\/Track>/.exec(xml)![0];
    const trackless = await parse(xml.replace(firstTrack, ""), "tcx");
    expect(trackless.laps).toMatchObject(fileLaps);
    expect(trackless.laps.map((l) => l.points)).toEqual([0, ...ownPoints.slice(1)]);
    expect(trackless.samples[0].time).toBeGreaterThan(fileLaps[0].startTime);
    expect(trackless.laps[0].startTime).toBeLessThan(trackless.samples[0].time);
  });
});

describe("declarations stay refused", () => {
  it("a DOCTYPE with entities (billion laughs) and an external entity are refused, nothing expanded", async () => {
    const xml = text("gpx/strava-export-running-hr.gpx");
    const laughs = xml.replace(
      "?>",
      `?><!DOCTYPE gpx [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>`,
    );
    await expect(parse(laughs, "gpx")).rejects.toThrow(/DOCTYPE or entities/);
    const external = xml.replace("?>", `?><!DOCTYPE gpx [<!ENTITY x SYSTEM "file:///etc/passwd">]>`).replace(
      "<name>",
      "<name>&x;",
    );
    await expect(parse(external, "gpx")).rejects.toThrow(/DOCTYPE or entities/);
    const undeclared = xml.replace("<name>", "<name>&x;");
    await expect(parse(undeclared, "gpx")).rejects.toThrow(/not well-formed/);
  });
});
