import FitParser, { getFitGarminProductDisplayName } from "fit-file-parser";
import { maxOf, minOf } from "./extent.ts";
import { fillHeartrate, hrReadings, readFitHrMessages } from "./fit-hr-messages.ts";
import { fitIndoor, fitSportType } from "./sports.ts";
import type { ActivityType } from "../../shared/activity-types.ts";
import {
  type DeviceLap,
  type DeviceLength,
  type DeviceSession,
  emptySample,
  IngestError,
  num,
  type ParsedFile,
  type Pause,
  type Sample,
} from "./types.ts";

type Message = Record<string, unknown>;

const MAKERS: Record<string, string> = {
  garmin: "Garmin",
  wahoo_fitness: "Wahoo",
  hammerhead: "Hammerhead",
  sigmasport: "SIGMA",
  suunto: "Suunto",
  coros: "COROS",
  zwift: "Zwift",
  strava: "Strava",
  stryd: "Stryd",
  polar: "Polar",
  bryton: "Bryton",
  development: "Development",
  onelap: "Onelap",
};

function maker(name: unknown): string | null {
  if (typeof name !== "string" || name === "") return null;
  return MAKERS[name] ?? name.split("_").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
}

function ms(value: unknown): number | null {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "string" || typeof value === "number") {
    const t = new Date(value).getTime();
    return Number.isFinite(t) ? t : null;
  }
  return null;
}

async function decode(bytes: Uint8Array, force: boolean): Promise<Record<string, unknown>> {
  const parser = new FitParser({
    force,
    mode: "list",
    lengthUnit: "m",
    speedUnit: "m/s",
    temperatureUnit: "celsius",
    elapsedRecordField: false,
  });
  const copy = bytes.slice().buffer as ArrayBuffer;
  return await parser.parseAsync(copy) as unknown as Record<string, unknown>;
}

function deviceNameOf(fit: Record<string, unknown>): string | null {
  const fileId = ((fit.file_ids as Message[] | undefined) ?? [])[0] ?? (fit.file_id as Message | undefined) ?? {};
  const creator = ((fit.device_infos as Message[] | undefined) ?? []).find((d) => d.device_index === "creator") ?? {};
  const manufacturer = fileId.manufacturer ?? creator.manufacturer;
  const product = num(fileId.product ?? creator.product);
  const productName = (fileId.product_name ?? creator.product_name) as string | undefined;
  const make = maker(manufacturer);
  if (manufacturer === "garmin" && product !== null) {
    const display = getFitGarminProductDisplayName(product);
    if (display) return `Garmin ${display}`;
  }
  if (typeof productName === "string" && productName.trim() !== "") {
    const clean = productName.replace(/\0/g, "").trim();
    return make && !clean.toLowerCase().startsWith(make.toLowerCase()) ? `${make} ${clean}` : clean;
  }
  return make;
}

/** Decodes a FIT file (list mode: cascade mode drops records of files without sessions). */
export async function parseFit(bytes: Uint8Array): Promise<ParsedFile> {
  if (bytes.byteLength < 12 || new TextDecoder().decode(bytes.subarray(8, 12)) !== ".FIT") {
    throw new IngestError("The file is not a FIT file (no .FIT header).");
  }
  const notes: string[] = [];
  let fit: Record<string, unknown>;
  try {
    fit = await decode(bytes, false);
  } catch (strictError) {
    const reason = String((strictError as Error)?.message ?? strictError);
    if (!/crc/i.test(reason)) throw new IngestError(`The FIT file could not be read: ${reason}.`);
    try {
      fit = await decode(bytes, true);
    } catch (error) {
      throw new IngestError(`The FIT file could not be read: ${String((error as Error)?.message ?? error)}.`);
    }
    notes.push("The FIT file's CRC check failed; the activity was built from its readable records.");
  }

  const samples: Sample[] = [];
  let lastTime = -Infinity;
  for (const r of (fit.records as Message[] | undefined) ?? []) {
    const time = ms(r.timestamp);
    if (time === null || time < lastTime) continue;
    const s = emptySample(time);
    const lat = num(r.position_lat);
    const lng = num(r.position_long);
    if (lat !== null && lng !== null && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 && !(lat === 0 && lng === 0)) {
      s.lat = lat;
      s.lng = lng;
    }
    s.altitude = num(r.enhanced_altitude) ?? num(r.altitude);
    const hr = num(r.heart_rate);
    s.heartrate = hr !== null && hr > 0 && hr < 255 ? hr : null;
    const cad = num(r.cadence);
    s.cadence = cad !== null && cad < 255 ? cad + (num(r.fractional_cadence) ?? 0) : null;
    const watts = num(r.power);
    s.watts = watts !== null && watts < 65535 ? watts : null;
    const temp = num(r.temperature);
    s.temp = temp !== null && temp < 127 ? temp : null;
    s.distance = num(r.distance);
    s.speed = num(r.enhanced_speed) ?? num(r.speed);
    if (time === lastTime && samples.length) {
      samples[samples.length - 1] = mergeSample(samples[samples.length - 1], s);
      continue;
    }
    samples.push(s);
    lastTime = time;
  }

  const sessionMessages = (fit.sessions as Message[] | undefined) ?? [];
  const sessions: DeviceSession[] = [];
  for (const session of sessionMessages) {
    const start = ms(session.start_time);
    if (start === null) continue;
    const elapsed = num(session.total_elapsed_time);
    sessions.push({
      startTime: start,
      endTime: start + (elapsed ?? 0) * 1000,
      sport: fitSportType(session.sport, session.sub_sport),
      elapsedTime: elapsed,
      timerTime: num(session.total_timer_time),
      distance: num(session.total_distance),
      poolLength: num(session.pool_length),
    });
  }
  sessions.sort((a, b) => a.startTime - b.startTime);
  // The type of a multisport file is the sport with the most timer time over all its sessions.
  const timeByType = new Map<ActivityType, number>();
  for (const session of sessionMessages) {
    const type = fitSportType(session.sport, session.sub_sport);
    if (!type) continue;
    const timer = num(session.total_timer_time) ?? num(session.total_elapsed_time) ?? 0;
    timeByType.set(type, (timeByType.get(type) ?? 0) + timer);
  }
  let sport: ActivityType | null = null;
  let longest = -1;
  for (const [type, timer] of timeByType) {
    if (timer > longest) {
      longest = timer;
      sport = type;
    }
  }
  const indoor = sessionMessages.some((s) => fitSportType(s.sport, s.sub_sport) === sport && fitIndoor(s.sub_sport));
  if (sessionMessages.length > 1) {
    notes.push(`The file holds ${sessionMessages.length} sessions; they were combined into one activity.`);
  }
  const sum = (key: string) => {
    const values = sessionMessages.map((s) => num(s[key])).filter((v): v is number => v !== null);
    return values.length ? values.reduce((a, b) => a + b, 0) : null;
  };

  const lengths: DeviceLength[] = [];
  for (const length of (fit.lengths as Message[] | undefined) ?? []) {
    const start = ms(length.start_time);
    const elapsed = num(length.total_elapsed_time);
    if (start === null || elapsed === null) continue;
    lengths.push({
      startTime: start,
      elapsedTime: elapsed,
      timerTime: num(length.total_timer_time),
      active: length.length_type === "active",
    });
  }
  lengths.sort((a, b) => a.startTime - b.startTime);

  const laps: DeviceLap[] = [];
  for (const lap of (fit.laps as Message[] | undefined) ?? []) {
    const start = ms(lap.start_time);
    if (start === null) continue;
    laps.push({
      startTime: start,
      elapsedTime: num(lap.total_elapsed_time),
      endTime: ms(lap.timestamp),
      distance: num(lap.total_distance),
      timerTime: num(lap.total_timer_time),
      calories: num(lap.total_calories),
      averageHeartrate: heartRate(lap.avg_heart_rate),
      maxHeartrate: heartRate(lap.max_heart_rate),
    });
  }
  laps.sort((a, b) => a.startTime - b.startTime);

  const pauses: Pause[] = [];
  let stoppedAt: number | null = null;
  let firstTimerStart: number | null = null;
  for (const event of (fit.events as Message[] | undefined) ?? []) {
    if (event.event !== "timer") continue;
    const at = ms(event.timestamp);
    if (at === null) continue;
    if (event.event_type === "start" && (firstTimerStart === null || at < firstTimerStart)) firstTimerStart = at;
    if (event.event_type === "stop" || event.event_type === "stop_all") stoppedAt ??= at;
    else if (event.event_type === "start" && stoppedAt !== null) {
      if (at > stoppedAt) pauses.push({ start: stoppedAt, end: at });
      stoppedAt = null;
    }
  }

  let utcOffsetSeconds: number | null = null;
  const activity = fit.activity as Message | undefined;
  if (activity) {
    const ts = ms(activity.timestamp);
    const raw = activity.local_timestamp;
    const local = typeof raw === "number" ? (raw + 631065600) * 1000 : ms(raw);
    if (ts !== null && local !== null) {
      const offset = Math.round((local - ts) / 900_000) * 900;
      if (Math.abs(offset) <= 14 * 3600) utcOffsetSeconds = offset;
    }
  }

  // A record far outside every session (a stray first record dated weeks early) is not part of the
  // recording: records more than an hour before the first session's start or after the last one's
  // end are dropped when they are a few stragglers (at most 1 % of the records).
  if (sessions.length && samples.length > 1) {
    const from = minOf(sessions.map((s) => s.startTime)) - STRAY_MARGIN_MS;
    const to = maxOf(sessions.map((s) => Math.max(s.endTime, s.startTime))) + STRAY_MARGIN_MS;
    let lo = 0;
    let hi = samples.length;
    while (lo < hi && samples[lo].time < from) lo++;
    while (hi > lo && samples[hi - 1].time > to) hi--;
    const dropped = lo + (samples.length - hi);
    if (dropped > 0 && dropped <= Math.max(1, samples.length * 0.01) && hi > lo) {
      notes.push(
        `${dropped} record${dropped === 1 ? "" : "s"} dated far outside the file's sessions ${
          dropped === 1 ? "was" : "were"
        } left out.`,
      );
      samples.splice(hi);
      samples.splice(0, lo);
    }
  }

  // Heart rate kept in FIT hr messages (a swim's) goes onto the records that carry none; when no
  // record carries any, the device's session and lap summaries keep the figures (sensors.ts).
  const recordsCarryHeartrate = samples.some((s) => s.heartrate !== null);
  const filledHeartrate = samples.some((s) => s.heartrate === null)
    ? fillHeartrate(samples, hrReadings(readFitHrMessages(bytes)))
    : 0;
  const heartrateFromHrMessages = !recordsCarryHeartrate && filledHeartrate > 0;

  // When the timer started and stopped: the sessions' own times (and the first lap's start, the first
  // timer start, the first length), whatever the first and last records say. A time far from the
  // records is not believed.
  const firstRecord = samples.length ? samples[0].time : null;
  const lastRecord = samples.length ? samples[samples.length - 1].time : null;
  const near = (t: number | null) =>
    t !== null && firstRecord !== null && lastRecord !== null &&
    t >= firstRecord - MAX_TIMER_LEAD_MS && t <= lastRecord + MAX_TIMER_LEAD_MS;
  const startCandidates = [
    sessions[0]?.startTime ?? null,
    laps[0]?.startTime ?? null,
    firstTimerStart,
    lengths[0]?.startTime ?? null,
  ].filter(near) as number[];
  let timerStart = startCandidates.length ? minOf(startCandidates) : null;
  // Records written before the timer started are not part of the activity (a Forerunner 110 writes one
  // 3 s early): they are left out when they are a few (at most 1 % of the records). More than that,
  // and the file's start times are not believed: the first record starts the activity.
  if (timerStart !== null) {
    let early = 0;
    while (early < samples.length && samples[early].time < timerStart) early++;
    if (early > 0 && early < samples.length && early <= Math.max(1, samples.length * 0.01)) samples.splice(0, early);
    else if (early > 0) timerStart = null;
  }
  const endCandidates = sessions.filter((s) => s.elapsedTime !== null).map((s) => s.endTime).filter(near);
  const timerEnd = endCandidates.length ? maxOf(endCandidates) : null;
  const hrValues = (key: string) =>
    sessionMessages.map((s) => heartRate(s[key])).filter((v): v is number => v !== null);
  const avgHrs = hrValues("avg_heart_rate");
  const maxHrs = hrValues("max_heart_rate");
  const sessionHeartrate = avgHrs.length || maxHrs.length
    ? {
      // Several sessions: weighted by their timer time.
      average: avgHrs.length ? weightedSessionMean(sessionMessages, "avg_heart_rate") : null,
      max: maxHrs.length ? maxOf(maxHrs) : null,
    }
    : null;

  const ascent = sum("total_ascent");
  return {
    format: "fit",
    sport,
    indoor,
    deviceName: deviceNameOf(fit),
    barometric: ascent !== null,
    samples,
    laps,
    pauses,
    sessions,
    lengths,
    deviceTotals: { ascent, calories: sum("total_calories"), distance: sum("total_distance") },
    utcOffsetSeconds,
    timerStart,
    timerEnd,
    timerTime: sum("total_timer_time"),
    devicePaused: pauses.length > 0,
    sessionHeartrate,
    ...(heartrateFromHrMessages ? { heartrateFromHrMessages } : {}),
    notes,
  };
}

/** How far (ms) outside its sessions a record may lie and still belong to the recording. */
const STRAY_MARGIN_MS = 3600 * 1000;

/** How far (ms) before the first or after the last record a session time is still believed. */
const MAX_TIMER_LEAD_MS = 6 * 3600 * 1000;

/** A heart rate from a summary field (0 and 255 mean "none"). */
function heartRate(value: unknown): number | null {
  const v = num(value);
  return v !== null && v > 0 && v < 255 ? v : null;
}

/** Mean of a session field over the sessions that have it, weighted by their timer time. */
function weightedSessionMean(sessions: Message[], key: string): number | null {
  let sum = 0;
  let weight = 0;
  for (const s of sessions) {
    const v = heartRate(s[key]);
    if (v === null) continue;
    const w = num(s.total_timer_time) ?? num(s.total_elapsed_time) ?? 1;
    sum += v * w;
    weight += w;
  }
  return weight > 0 ? sum / weight : null;
}

function mergeSample(a: Sample, b: Sample): Sample {
  const out = { ...a };
  for (const key of Object.keys(b) as (keyof Sample)[]) {
    if (out[key] === null && b[key] !== null) (out as Record<string, unknown>)[key] = b[key];
  }
  return out;
}
