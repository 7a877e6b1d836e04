import { gunzipSync } from "node:zlib";
import { parseFit } from "./fit.ts";
import { parseGpx } from "./gpx.ts";
import { parseTcx } from "./tcx.ts";
import { IngestError, type ParsedFile, type Pause, type Sample } from "./types.ts";

export const DATA_TYPES = ["fit", "fit.gz", "tcx", "tcx.gz", "gpx", "gpx.gz"] as const;
export type DataType = (typeof DATA_TYPES)[number];

export function dataTypeOf(value: string): DataType | undefined {
  const v = value.trim().toLowerCase();
  return (DATA_TYPES as readonly string[]).includes(v) ? v as DataType : undefined;
}

/** The inflated file is larger than allowed (HTTP 413 at submission). */
export class TooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The file is larger than ${limit} bytes once decompressed.`);
    this.name = "TooLargeError";
  }
}

/** Inflates a .gz upload with a cap on the inflated size (gzip bombs stop at the cap). */
export function inflate(bytes: Uint8Array, dataType: DataType, maxBytes: number): Uint8Array {
  if (!dataType.endsWith(".gz")) {
    if (bytes.byteLength > maxBytes) throw new TooLargeError(maxBytes);
    return bytes;
  }
  if (bytes.byteLength < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    throw new IngestError(`The file is not gzip-compressed, but data_type is ${dataType}.`);
  }
  try {
    return new Uint8Array(gunzipSync(bytes, { maxOutputLength: maxBytes }));
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (error instanceof RangeError || code === "ERR_BUFFER_TOO_LARGE") throw new TooLargeError(maxBytes);
    throw new IngestError(`The gzip data is corrupt: ${(error as Error).message}.`);
  }
}

/** Cheap content check at submission: the bytes must look like the declared format. */
export function sniff(content: Uint8Array, dataType: DataType): void {
  const kind = dataType.replace(".gz", "");
  if (content.byteLength === 0) throw new IngestError("The file is empty.");
  if (kind === "fit") {
    const ok = content.byteLength >= 12 && content[8] === 0x2e && content[9] === 0x46 && content[10] === 0x49 &&
      content[11] === 0x54;
    if (!ok) throw new IngestError(`The file is not a FIT file, but data_type is ${dataType}.`);
    return;
  }
  const head = new TextDecoder().decode(content.subarray(0, 8192));
  const root = kind === "gpx" ? /<([A-Za-z_][\w.-]*:)?gpx[\s>]/ : /<([A-Za-z_][\w.-]*:)?TrainingCenterDatabase[\s>]/;
  if (!root.test(head)) {
    throw new IngestError(`The file is not a ${kind.toUpperCase()} file, but data_type is ${dataType}.`);
  }
}

/** Longest recording accepted: beyond it a timestamp is corrupt (and durations would overflow). */
export const MAX_RECORDING_SECONDS = 30 * 24 * 3600;

/** Largest magnitude accepted for a recorded value (metres, watts, bpm, …); beyond it the value is corrupt. */
const MAX_SENSOR_MAGNITUDE = 1e9;
/** Every recorded value of a sample (`insane` below checks each of them by name). */
const SAMPLE_KEYS = ["lat", "lng", "altitude", "heartrate", "cadence", "watts", "temp", "distance", "speed"] as const;

/** Text from a file made storable: U+0000 and unpaired surrogates (refused by PostgreSQL) become U+FFFD. */
export function storableText(text: string): string {
  // deno-lint-ignore no-control-regex -- U+0000 is what it replaces: PostgreSQL cannot store it
  return text.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

/** Parses the (inflated) bytes of a device file of the given type. */
export async function parseDeviceFile(content: Uint8Array, dataType: DataType): Promise<ParsedFile> {
  sniff(content, dataType);
  const kind = dataType.replace(".gz", "");
  const parsed = kind === "fit" ? await parseFit(content) : kind === "tcx" ? parseTcx(content) : parseGpx(content);
  keepFileOrder(parsed);
  dropIsolatedEnds(parsed);
  if (parsed.samples.length === 0) {
    throw new IngestError(`The ${kind.toUpperCase()} file holds no timed records or trackpoints.`);
  }
  // Times only move forward now: the span is last minus first.
  const span = (parsed.samples[parsed.samples.length - 1].time - parsed.samples[0].time) / 1000;
  if (!Number.isFinite(span) || span > MAX_RECORDING_SECONDS) {
    throw new IngestError(
      `The ${kind.toUpperCase()} file's timestamps span more than ${MAX_RECORDING_SECONDS / 86400} days.`,
    );
  }
  // Values no sensor records (a corrupt file's 1e20 W) would reach the event log as integers beyond
  // 2^53, which read back as BigInt: they are dropped like any unreadable value.
  const sane = (
    v: number | null,
  ) => (v !== null && Number.isFinite(v) && Math.abs(v) <= MAX_SENSOR_MAGNITUDE ? v : null);
  const insane = (v: number | null) => v !== null && !(Math.abs(v) <= MAX_SENSOR_MAGNITUDE);
  for (const s of parsed.samples) {
    // Written out field by field: this runs for every record of every upload.
    if (insane(s.lat)) s.lat = null;
    if (insane(s.lng)) s.lng = null;
    if (insane(s.altitude)) s.altitude = null;
    if (insane(s.heartrate)) s.heartrate = null;
    if (insane(s.cadence)) s.cadence = null;
    if (insane(s.watts)) s.watts = null;
    if (insane(s.temp)) s.temp = null;
    if (insane(s.distance)) s.distance = null;
    if (insane(s.speed)) s.speed = null;
  }
  for (const lap of parsed.laps) {
    lap.elapsedTime = sane(lap.elapsedTime);
    lap.distance = sane(lap.distance);
  }
  parsed.deviceTotals = {
    ascent: sane(parsed.deviceTotals.ascent),
    calories: sane(parsed.deviceTotals.calories),
    distance: sane(parsed.deviceTotals.distance),
  };
  parsed.deviceName = parsed.deviceName === null ? null : storableText(parsed.deviceName);
  if (parsed.name) parsed.name = storableText(parsed.name);
  parsed.notes = parsed.notes.map(storableText);
  return parsed;
}

/**
 * Samples stay in the file's order (never sorted: sorting turns a route into a zigzag). A sample
 * whose time is earlier than the last kept one is dropped; one with the same time fills the kept
 * sample's missing values. Segment starts follow the kept samples, and the time between two GPX
 * track segments becomes a pause.
 */
export function keepFileOrder(parsed: ParsedFile): void {
  const samples = parsed.samples;
  const starts = parsed.segmentStarts ?? [];
  const kept: Sample[] = [];
  const keptStarts: number[] = [];
  let next = 0;
  let boundary = false;
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i];
    while (next < starts.length && starts[next] <= i) {
      boundary = true;
      next++;
    }
    const last = kept[kept.length - 1];
    if (last && s.time < last.time) continue;
    if (last && s.time === last.time) {
      for (const key of SAMPLE_KEYS) if (last[key] === null && s[key] !== null) last[key] = s[key];
      continue;
    }
    if (boundary && kept.length > 0) keptStarts.push(kept.length);
    boundary = false;
    kept.push(s);
  }
  parsed.samples = kept;
  if (parsed.segmentStarts === undefined) return;
  parsed.segmentStarts = keptStarts;
  const gaps: Pause[] = [];
  for (const k of keptStarts) gaps.push({ start: kept[k - 1].time, end: kept[k].time });
  if (gaps.length) parsed.pauses = parsed.pauses.concat(gaps).sort((a, b) => a.start - b.start);
}

/** A gap (ms) that leaves a lone record at either end of a recording outside it. */
export const ISOLATED_GAP_MS = 6 * 3600 * 1000;

/**
 * A single record at the start or end of a recording, separated from all the others by more than
 * ISOLATED_GAP_MS (a stray first record dated weeks early), is not part of the recording: dropped.
 */
export function dropIsolatedEnds(parsed: ParsedFile): void {
  let samples = parsed.samples;
  let dropped = 0;
  while (samples.length > 2 && samples[1].time - samples[0].time > ISOLATED_GAP_MS) {
    samples = samples.slice(1);
    if (parsed.segmentStarts) parsed.segmentStarts = parsed.segmentStarts.map((i) => i - 1).filter((i) => i > 0);
    dropped++;
  }
  while (samples.length > 2 && samples[samples.length - 1].time - samples[samples.length - 2].time > ISOLATED_GAP_MS) {
    samples = samples.slice(0, -1);
    if (parsed.segmentStarts) parsed.segmentStarts = parsed.segmentStarts.filter((i) => i < samples.length);
    dropped++;
  }
  if (dropped === 0) return;
  parsed.samples = samples;
  const first = samples[0].time;
  const last = samples[samples.length - 1].time;
  parsed.pauses = parsed.pauses.filter((p) => p.end > first && p.start < last);
  parsed.notes.push(
    `${dropped} record${dropped === 1 ? "" : "s"} far from the rest of the recording ${
      dropped === 1 ? "was" : "were"
    } left out.`,
  );
}
