import type { Sample } from "./types.ts";

/**
 * Heart rate that a FIT file keeps outside its records: FIT `hr` messages (global message 132),
 * written by Garmin watches in pool-swim mode (the wrist or strap reading cannot reach the watch
 * under water, so the readings are stored in batches and not in the records). fit-file-parser
 * keeps only the last `hr` message of a file and reads only the first FIT file of a chained file,
 * so these messages are read here by a small walk over the FIT structure of their own.
 *
 * An `hr` message holds filtered_bpm (uint8 array) with the times of the readings either as
 * event_timestamp (uint32 array, 1/1024 s) or as event_timestamp_12 (the low 12 bits of each
 * event_timestamp, packed two to three bytes). A message with a timestamp (and fractional_timestamp)
 * and exactly one event_timestamp anchors the event timestamps to the clock: a reading's time is
 * the anchor's time plus its event timestamp minus the anchor's (the FIT SDK's "merge heart rates").
 */

/** One `hr` message's fields as stored (times unscaled). */
export interface FitHrMessage {
  /** Field 253, seconds since the FIT epoch (1989-12-31T00:00:00Z); only when the message has it. */
  timestamp: number | null;
  /** Field 0, 1/32768 s. */
  fractionalTimestamp: number | null;
  /** Field 6, one value per reading (255 means invalid). */
  filteredBpm: number[];
  /** Field 9, 1/1024 s each. */
  eventTimestamp: number[];
  /** Field 10, 12-bit values packed little-endian, 1/1024 s each (the low bits of event_timestamp). */
  eventTimestamp12: number[];
}

/** One heart-rate reading: epoch milliseconds and beats per minute. */
export interface HrReading {
  time: number;
  bpm: number;
}

const HR_MESSAGE = 132;
const FIT_EPOCH_MS = 631065600 * 1000;
/** event_timestamp is a uint32 of 1/1024 s, so it rolls over every 2^32 / 1024 seconds. */
const EVENT_TIMESTAMP_ROLLOVER_S = 2 ** 32 / 1024;

interface FieldDef {
  num: number;
  size: number;
}

interface Definition {
  global: number;
  littleEndian: boolean;
  fields: FieldDef[];
  /** Bytes of a data message of this definition (native plus developer fields). */
  size: number;
}

/**
 * The `hr` messages of a FIT file, in file order, over every FIT file of a chained file. The walk
 * checks no CRC (the main decode does) and stops at the first thing that does not fit the format,
 * keeping what it read so far.
 */
export function readFitHrMessages(bytes: Uint8Array): FitHrMessage[] {
  const out: FitHrMessage[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fileStart = 0;
  while (fileStart + 12 <= bytes.length && isFitHeader(bytes, fileStart)) {
    const headerSize = bytes[fileStart];
    const dataSize = view.getUint32(fileStart + 4, true);
    const dataStart = fileStart + headerSize;
    const dataEnd = Math.min(bytes.length, dataStart + dataSize);
    if (!readMessages(bytes, view, dataStart, dataEnd, out)) break;
    // The file's 2-byte CRC, then possibly the next file of a chain.
    fileStart = dataStart + dataSize + 2;
  }
  return out;
}

function isFitHeader(bytes: Uint8Array, at: number): boolean {
  const size = bytes[at];
  return (size === 12 || size === 14) && bytes[at + 8] === 0x2e && bytes[at + 9] === 0x46 &&
    bytes[at + 10] === 0x49 && bytes[at + 11] === 0x54; // ".FIT"
}

/** Reads the records from `start` to `end`; false when they are malformed (the walk stops). */
function readMessages(bytes: Uint8Array, view: DataView, start: number, end: number, out: FitHrMessage[]): boolean {
  const definitions: (Definition | undefined)[] = new Array(16);
  let at = start;
  while (at < end) {
    const header = bytes[at++];
    if ((header & 0x80) !== 0) {
      // Compressed-timestamp header: a data message of local type 0-3 (its time is in the header).
      const def = definitions[(header >> 5) & 0x03];
      if (!def || at + def.size > end) return false;
      if (def.global === HR_MESSAGE) out.push(hrMessage(bytes, view, at, def));
      at += def.size;
    } else if ((header & 0x40) !== 0) {
      // Definition message: reserved, architecture, global number, fields, developer fields.
      if (at + 5 > end) return false;
      const littleEndian = bytes[at + 1] === 0;
      const global = view.getUint16(at + 2, littleEndian);
      const count = bytes[at + 4];
      at += 5;
      if (at + count * 3 > end) return false;
      const fields: FieldDef[] = [];
      let size = 0;
      for (let i = 0; i < count; i++, at += 3) {
        fields.push({ num: bytes[at], size: bytes[at + 1] });
        size += bytes[at + 1];
      }
      if ((header & 0x20) !== 0) {
        if (at + 1 > end) return false;
        const devCount = bytes[at++];
        if (at + devCount * 3 > end) return false;
        for (let i = 0; i < devCount; i++, at += 3) size += bytes[at + 1];
      }
      definitions[header & 0x0f] = { global, littleEndian, fields, size };
    } else {
      const def = definitions[header & 0x0f];
      if (!def || at + def.size > end) return false;
      if (def.global === HR_MESSAGE) out.push(hrMessage(bytes, view, at, def));
      at += def.size;
    }
  }
  return true;
}

function hrMessage(bytes: Uint8Array, view: DataView, start: number, def: Definition): FitHrMessage {
  const message: FitHrMessage = {
    timestamp: null,
    fractionalTimestamp: null,
    filteredBpm: [],
    eventTimestamp: [],
    eventTimestamp12: [],
  };
  let at = start;
  for (const { num, size } of def.fields) {
    if (num === 253 && size === 4) {
      const v = view.getUint32(at, def.littleEndian);
      if (v !== 0xffffffff) message.timestamp = v;
    } else if (num === 0 && size === 2) {
      const v = view.getUint16(at, def.littleEndian);
      if (v !== 0xffff) message.fractionalTimestamp = v;
    } else if (num === 6) {
      for (let i = 0; i < size; i++) message.filteredBpm.push(bytes[at + i]);
    } else if (num === 9 && size % 4 === 0) {
      for (let i = 0; i < size; i += 4) message.eventTimestamp.push(view.getUint32(at + i, def.littleEndian));
    } else if (num === 10) {
      message.eventTimestamp12 = unpack12(bytes.subarray(at, at + size));
    }
    at += size;
  }
  return message;
}

/** 12-bit values packed little-endian (value k is bits 12k..12k+11 of the byte string). */
export function unpack12(packed: Uint8Array): number[] {
  const values: number[] = [];
  const count = Math.floor((packed.length * 8) / 12);
  for (let k = 0; k < count; k++) {
    const bit = k * 12;
    const byte = bit >> 3;
    const pair = packed[byte] | ((packed[byte + 1] ?? 0) << 8);
    values.push((pair >> (bit & 7)) & 0xfff);
  }
  return values;
}

/**
 * The readings of `hr` messages on the clock, in order. 12-bit event timestamps accumulate onto the
 * last full one (each adds how far its 12 bits moved on, modulo 4096); messages before the first
 * anchor, readings of 0 or 255 bpm and readings that would go back before their anchor are left out.
 */
export function hrReadings(messages: readonly FitHrMessage[]): HrReading[] {
  const readings: HrReading[] = [];
  let anchorSeconds: number | null = null;
  let anchorEvent = 0;
  /** The running event timestamp, 1/1024 s. */
  let event: number | null = null;
  for (const m of messages) {
    let events: number[];
    if (m.eventTimestamp.length) {
      events = m.eventTimestamp;
      event = events[events.length - 1];
    } else if (m.eventTimestamp12.length && event !== null) {
      events = [];
      for (const low of m.eventTimestamp12) {
        event += (low - event) & 0xfff;
        events.push(event);
      }
    } else continue;
    if (m.timestamp !== null && m.eventTimestamp.length === 1) {
      anchorSeconds = m.timestamp + (m.fractionalTimestamp ?? 0) / 32768;
      anchorEvent = m.eventTimestamp[0] / 1024;
    }
    if (anchorSeconds === null) continue;
    const n = Math.min(events.length, m.filteredBpm.length);
    for (let i = 0; i < n; i++) {
      const bpm = m.filteredBpm[i];
      if (bpm === 0 || bpm === 255) continue;
      let seconds = events[i] / 1024;
      if (seconds < anchorEvent) {
        if (anchorEvent - seconds > EVENT_TIMESTAMP_ROLLOVER_S / 2) seconds += EVENT_TIMESTAMP_ROLLOVER_S;
        else continue;
      }
      readings.push({ time: FIT_EPOCH_MS + (anchorSeconds + seconds - anchorEvent) * 1000, bpm });
    }
  }
  // A later anchor may set the clock back a little: keep the readings in time order (stable sort).
  return readings.sort((a, b) => a.time - b.time);
}

/** How long (ms) a reading still stands for a record that has none of its own after it. */
const HOLD_MS = 5000;

/**
 * Gives each sample without a heart rate of its own the mean of the readings since the sample
 * before it (over the second before, for the first sample), rounded; when there is none, the last
 * reading before it if that is at most 5 s old (the FIT SDK carries a reading forward up to 5 s).
 * Samples must be in time order; a heart rate a record carries is never replaced. Returns how many
 * samples were given one.
 */
export function fillHeartrate(samples: Sample[], readings: readonly HrReading[]): number {
  let filled = 0;
  let r = 0;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    const from = i > 0 ? samples[i - 1].time : s.time - 1000;
    while (r < readings.length && readings[r].time <= from) r++;
    if (s.heartrate !== null) continue;
    let sum = 0;
    let count = 0;
    for (let k = r; k < readings.length && readings[k].time <= s.time; k++) {
      sum += readings[k].bpm;
      count++;
    }
    if (count > 0) s.heartrate = Math.round(sum / count);
    else if (r > 0 && s.time - readings[r - 1].time <= HOLD_MS) s.heartrate = readings[r - 1].bpm;
    else continue;
    filled++;
  }
  return filled;
}
