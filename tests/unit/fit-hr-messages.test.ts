import { Decoder, Stream } from "@garmin/fitsdk";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  fillHeartrate,
  type FitHrMessage,
  hrReadings,
  readFitHrMessages,
  unpack12,
} from "../../server/ingest/fit-hr-messages.ts";
import { emptySample, type Sample } from "../../server/ingest/types.ts";
import { deviceFile } from "../helpers/fixtures.ts";

/** Our reader of FIT hr messages (global 132) on hand-built files and on the two pool swims. */

const FIT_EPOCH_MS = 631065600 * 1000;

/** A FIT file (14-byte header, no CRC checked by the reader) around the given record bytes. */
function fitFile(records: number[]): number[] {
  const size = records.length;
  const header = [14, 0x20, 0x08, 0x08, size & 0xff, (size >> 8) & 0xff, (size >> 16) & 0xff, size >>> 24];
  return [...header, 0x2e, 0x46, 0x49, 0x54, 0, 0, ...records, 0, 0];
}
const u16 = (v: number, le = true) => le ? [v & 0xff, v >> 8] : [v >> 8, v & 0xff];
const u32 = (v: number, le = true) => {
  const b = [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];
  return le ? b : b.reverse();
};
/** Packs 12-bit values little-endian, two to three bytes. */
function pack12(values: number[]): number[] {
  const out = new Array(Math.ceil((values.length * 12) / 8)).fill(0);
  values.forEach((v, k) => {
    for (let bit = 0; bit < 12; bit++) if ((v >> bit) & 1) out[(k * 12 + bit) >> 3] |= 1 << ((k * 12 + bit) & 7);
  });
  return out;
}

describe("readFitHrMessages", () => {
  it("reads hr messages among others: developer fields, compressed-timestamp headers, big-endian, chained files", () => {
    const anchor = 1_000_000_000; // FIT seconds
    const first = fitFile([
      // Local 0: a record (global 20) with a timestamp and one developer field of 2 bytes.
      0x60,
      0,
      0,
      ...u16(20),
      2,
      253,
      4,
      0x86,
      3,
      1,
      0x02,
      1,
      0,
      2,
      0,
      0x00,
      ...u32(anchor - 5),
      120,
      0xaa,
      0xbb,
      // Same record with a compressed-timestamp header (local 0, offset 3).
      0x80 | 3,
      ...u32(anchor - 4),
      121,
      0xaa,
      0xbb,
      // Local 1: the anchor hr message (filtered_bpm[1], timestamp, fractional_timestamp, event_timestamp[1]).
      0x41,
      0,
      0,
      ...u16(132),
      4,
      6,
      1,
      0x02,
      253,
      4,
      0x86,
      0,
      2,
      0x84,
      9,
      4,
      0x86,
      0x01,
      90,
      ...u32(anchor),
      ...u16(16384),
      ...u32(3 * 1024),
      // Local 2, big-endian: hr with 4 readings as event_timestamp_12, crossing a 4096 boundary.
      0x42,
      0,
      1,
      ...u16(132, false),
      2,
      6,
      4,
      0x02,
      10,
      6,
      0x0d,
      0x02,
      91,
      92,
      93,
      94,
      ...pack12([(3 * 1024 + 512) & 0xfff, 4 * 1024 & 0xfff, (4 * 1024 + 300) & 0xfff, (5 * 1024) & 0xfff]),
    ]);
    // A second FIT file chained on: local definitions start afresh.
    const second = fitFile([
      0x40,
      0,
      0,
      ...u16(132),
      2,
      6,
      2,
      0x02,
      9,
      8,
      0x86,
      0x00,
      95,
      255,
      ...u32(6 * 1024),
      ...u32(7 * 1024),
    ]);
    const messages = readFitHrMessages(new Uint8Array([...first, ...second]));
    expect(messages).toEqual<FitHrMessage[]>([
      {
        timestamp: anchor,
        fractionalTimestamp: 16384,
        filteredBpm: [90],
        eventTimestamp: [3072],
        eventTimestamp12: [],
      },
      {
        timestamp: null,
        fractionalTimestamp: null,
        filteredBpm: [91, 92, 93, 94],
        eventTimestamp: [],
        eventTimestamp12: [3584, 0, 300, 1024],
      },
      {
        timestamp: null,
        fractionalTimestamp: null,
        filteredBpm: [95, 255],
        eventTimestamp: [6144, 7168],
        eventTimestamp12: [],
      },
    ]);
    const at = (seconds: number) => FIT_EPOCH_MS + (anchor + 0.5 + seconds - 3) * 1000;
    expect(hrReadings(messages)).toEqual([
      { time: at(3), bpm: 90 },
      { time: at(3.5), bpm: 91 },
      { time: at(4), bpm: 92 },
      { time: at(4 + 300 / 1024), bpm: 93 },
      { time: at(5), bpm: 94 },
      { time: at(6), bpm: 95 }, // 255 is "no reading"
    ]);
  });

  it("stops at a truncated message and keeps what it read; no anchor, no readings", () => {
    const bytes = fitFile([0x40, 0, 0, ...u16(132), 2, 6, 1, 0x02, 9, 4, 0x86, 0x00, 80, ...u32(1024), 0x00, 81]);
    const messages = readFitHrMessages(new Uint8Array(bytes));
    expect(messages.map((m) => m.filteredBpm)).toEqual([[80]]);
    expect(hrReadings(messages)).toEqual([]);
    expect(readFitHrMessages(new Uint8Array([1, 2, 3]))).toEqual([]);
  });

  it("unpacks 12-bit values", () => {
    expect(unpack12(new Uint8Array(pack12([0xabc, 0x123, 0xfff, 0])))).toEqual([0xabc, 0x123, 0xfff, 0]);
    expect(unpack12(new Uint8Array([158, 114, 57]))).toEqual([670, 919]);
  });

  it("gives the same readings as the Garmin FIT SDK on the fenix 3 and FR735XT pool swims", () => {
    for (const file of ["fit/garmin-fenix3-pool-swim-hr-messages.fit", "fit/garmin-fr735xt-pool-swim-lengths.fit"]) {
      const bytes = new Uint8Array(readFileSync(deviceFile(file)));
      const { messages, errors } = new Decoder(Stream.fromByteArray(bytes)).read({ mergeHeartRates: false });
      expect(errors).toEqual([]);
      // The SDK's readings: each event timestamp (seconds) from the last anchor's time.
      const expected: { time: number; bpm: number }[] = [];
      let anchorMs = 0;
      let anchorEvent = 0;
      for (const m of (messages.hrMesgs ?? []) as Record<string, unknown>[]) {
        const events = [m.eventTimestamp].flat() as number[];
        const bpms = [m.filteredBpm].flat() as number[];
        if (m.timestamp instanceof Date) {
          anchorMs = m.timestamp.getTime() + Number(m.fractionalTimestamp ?? 0) * 1000;
          anchorEvent = events[0];
        }
        events.forEach((e, i) => expected.push({ time: anchorMs + (e - anchorEvent) * 1000, bpm: bpms[i] }));
      }
      const ours = hrReadings(readFitHrMessages(bytes));
      expect(ours.length, file).toBe(expected.length);
      expect(ours.length, file).toBeGreaterThan(7000);
      ours.forEach((r, i) => {
        expect(Math.abs(r.time - expected[i].time), file).toBeLessThan(0.01);
        expect(r.bpm, file).toBe(expected[i].bpm);
      });
    }
  });
});

describe("fillHeartrate", () => {
  const samplesAt = (...seconds: number[]): Sample[] => seconds.map((s) => emptySample(s * 1000));
  it("averages the readings since the sample before, holds one up to 5 s, never replaces a recorded value", () => {
    const samples = samplesAt(10, 11, 12, 13, 20, 30);
    samples[2].heartrate = 150;
    const readings = [
      { time: 8_500, bpm: 90 }, // before the first sample's second: not used
      { time: 9_200, bpm: 100 },
      { time: 10_000, bpm: 102 },
      { time: 10_400, bpm: 110 },
      { time: 11_900, bpm: 113 }, // falls to the sample at 12 s, which has its own; held for the one at 13 s
      { time: 16_000, bpm: 130 }, // the sample at 30 s is more than 5 s after it
    ];
    expect(fillHeartrate(samples, readings)).toBe(4);
    expect(samples.map((s) => s.heartrate)).toEqual([101, 110, 150, 113, 130, null]);
  });
});
