import { gzipSync } from "node:zlib";
import type { Entry } from "../archive/archives.ts";
import { fitActivity, type FitSample, SPORT, SUB_SPORT } from "./fit-writer.ts";

/**
 * A real athlete's years as a Strava export (issue 43): `activities` activities over `years` years
 * up to `end` — outdoor rides with power (two bikes, some commutes), indoor virtual rides with
 * power, runs (two pairs of shoes; Saturday parkruns, a 10K race each spring), open-water swims,
 * hikes, and manual strength workouts without a file — about 3 % of them private. Each recording
 * is a FIT file encoded with Garmin's FIT SDK, recorded every few seconds as watches do ("smart
 * recording"), gzipped as Strava stores them, listed in activities.csv with its type, gear,
 * commute and privacy. Deterministic for given options.
 *
 * Besides the archive it answers what was generated, so tests can compute every total, calendar
 * day and record themselves (independently of the server): the local start day, the distance the
 * file records, the seconds, each ride's power samples and each run's distances over time.
 */

export interface YearsOptions {
  activities: number;
  years: number;
  /** The last day of the history (YYYY-MM-DD). */
  end: string;
  seed?: number;
}

export type GeneratedKind = "ride" | "virtual" | "run" | "swim" | "hike" | "strength";

export interface GeneratedActivity {
  /** Strava's Activity ID in activities.csv. */
  csvId: string;
  kind: GeneratedKind;
  name: string;
  /** The type as activities.csv writes it ("Virtual Ride") and as the server names it ("VirtualRide"). */
  csvType: string;
  type: string;
  private: boolean;
  commute: boolean;
  gear: string | null;
  /** Start in UTC (ms) and the local start day and time (Europe/Paris; UTC for indoor files without a position). */
  startMs: number;
  localDay: string;
  localIso: string;
  elapsed: number;
  /** The distance the file records (its last record's and its session's), metres; 0 for a manual workout. */
  distance: number;
  /** The file's samples: seconds from the start, cumulative metres, watts (rides with power). */
  samples: { t: number[]; d: number[]; w: number[] | null } | null;
  file: string | null;
}

export interface GeneratedYears {
  entries: Entry[];
  activities: GeneratedActivity[];
  bikes: string[];
  shoes: string[];
}

const DAY = 86_400_000;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Offset of Europe/Paris from UTC at an instant, in ms (from the runtime's time-zone data). */
const paris = new Intl.DateTimeFormat("en-US", { timeZone: "Europe/Paris", timeZoneName: "longOffset" });
function parisOffsetMs(at: number): number {
  const name = paris.formatToParts(new Date(at)).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) * 1000 : 0;
}

/** The UTC instant of a local Paris time given as ms of a "UTC-written" local time. */
function parisToUtc(localMs: number): number {
  let utc = localMs - parisOffsetMs(localMs);
  utc = localMs - parisOffsetMs(utc);
  return utc;
}

const CENTRES: Record<string, [number, number]> = {
  ride: [45.76, 4.84], // Lyon
  run: [45.77, 4.83],
  swim: [45.86, 6.17], // Annecy lake
  hike: [45.92, 6.87], // Chamonix
};

/** A position on a loop of `circumference` metres around a centre at a distance along it. */
function onLoop(centre: [number, number], circumference: number, distance: number): [number, number] {
  const r = circumference / (2 * Math.PI);
  const a = distance / r;
  return [
    centre[0] + (r * Math.sin(a)) / 111_320,
    centre[1] + (r * Math.cos(a)) / (111_320 * Math.cos((centre[0] * Math.PI) / 180)),
  ];
}

interface Recording {
  sport: number;
  subSport: number;
  /** Seconds between records. */
  step: number;
  seconds: number;
  /** Speed (m/s) at second t. */
  speed: (t: number) => number;
  /** Watts at second t, or null without a power meter. */
  power: ((t: number) => number) | null;
  /** null: indoor, no position. */
  centre: [number, number] | null;
  loop: number;
  altitude: (d: number) => number;
}

function encode(rec: Recording, startMs: number): { bytes: Uint8Array; t: number[]; d: number[]; w: number[] | null } {
  const t: number[] = [], d: number[] = [], w: number[] | null = rec.power ? [] : null;
  const samples: FitSample[] = [];
  let distance = 0;
  for (let s = 0; s <= rec.seconds; s += rec.step) {
    if (s > 0) { for (let k = s - rec.step; k < s; k++) distance += rec.speed(k); }
    const metres = Math.round(distance * 100) / 100;
    const sample: FitSample = {
      time: startMs + s * 1000,
      distance: metres,
      speed: rec.speed(s),
      heartRate: 120 + Math.round(25 * Math.sin(s / 400)),
      cadence: rec.sport === SPORT.running ? 86 : 88,
    };
    if (rec.centre) {
      sample.position = onLoop(rec.centre, rec.loop, distance);
      sample.altitude = rec.altitude(distance);
    }
    if (rec.power && w) {
      sample.power = Math.round(rec.power(s));
      w.push(sample.power);
    }
    samples.push(sample);
    t.push(s);
    d.push(metres);
  }
  const endMs = startMs + rec.seconds * 1000;
  const bytes = fitActivity({
    start: startMs,
    sport: rec.sport,
    subSport: rec.subSport,
    samples,
    localOffsetSeconds: rec.centre ? parisOffsetMs(endMs) / 1000 : 0,
  });
  return { bytes, t, d, w };
}

const CSV_HEADER = [
  "Activity ID",
  "Activity Date",
  "Activity Name",
  "Activity Type",
  "Activity Description",
  "Elapsed Time",
  "Distance",
  "Commute",
  "Activity Private",
  "Activity Gear",
  "Filename",
  "Elapsed Time",
  "Moving Time",
  "Distance",
];

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "Jan 5, 2020, 7:03:12 AM" in UTC, as Strava writes activities.csv. */
function csvDate(ms: number): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  const two = (n: number) => String(n).padStart(2, "0");
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}, ${h % 12 || 12}:${
    two(d.getUTCMinutes())
  }:${two(d.getUTCSeconds())} ${h < 12 ? "AM" : "PM"}`;
}

const quote = (v: string) => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** Generates the history and its export archive's entries. */
export function generateYears(options: YearsOptions): GeneratedYears {
  const random = mulberry32(options.seed ?? 43);
  const endDay = Date.parse(`${options.end}T00:00:00Z`);
  const firstDay = endDay - Math.round(options.years * 365.25) * DAY;
  const days = Math.round((endDay - firstDay) / DAY) + 1;
  const bikes = ["Canyon Ultimate", "Specialized Diverge"];
  const shoes = ["Pegasus 40", "Speedgoat 5"];
  // Spread the activities over the days: a day each, a second one on some days.
  const slots: number[] = [];
  for (let i = 0; i < options.activities; i++) slots.push(firstDay + Math.floor((i * days) / options.activities) * DAY);
  const activities: GeneratedActivity[] = [];
  const entries: Entry[] = [];
  const csv: string[] = [CSV_HEADER.join(",")];
  let parkruns = 0;
  const racedYears = new Set<number>();
  slots.forEach((day, i) => {
    const csvId = String(9_000_000_000 + i);
    const date = new Date(day);
    const weekday = date.getUTCDay();
    const r = random();
    const year = date.getUTCFullYear();
    let kind: GeneratedKind;
    let name: string;
    let localHour = weekday === 0 || weekday === 6 ? 8.5 : 17.5;
    // The spring race (first run slot after 15 April of a year) and Saturday parkruns.
    const spring = date.getUTCMonth() === 3 && date.getUTCDate() >= 15 && !racedYears.has(year);
    if (spring) {
      kind = "run";
      name = `Spring 10K ${year}`;
      racedYears.add(year);
      localHour = 9;
    } else if (weekday === 6 && r < 0.45) {
      kind = "run";
      name = `Parkrun #${++parkruns}`;
      localHour = 9;
    } else if (r < 0.3) kind = "ride", name = weekday >= 1 && weekday <= 5 && r < 0.08 ? "Commute" : "Morning Ride";
    else if (r < 0.42) kind = "virtual", name = "Zwift - Watopia";
    else if (r < 0.75) kind = "run", name = weekday === 3 ? "Lunch Run" : "Easy Run";
    else if (r < 0.83) kind = "swim", name = "Lake swim";
    else if (r < 0.91) kind = "hike", name = "Hike in the Alps";
    else kind = "strength", name = "Strength session";
    if (name === "Commute") localHour = 7.75;
    // A day's second activity starts hours away from its first: two recordings overlapping in time
    // would be one activity recorded twice (the importer counts the second as a duplicate).
    if (i > 0 && slots[i - 1] === day) localHour += localHour < 12 ? 6 : -9;
    const localMs = day + localHour * 3600_000 + Math.floor(random() * 1800) * 1000;
    const indoor = kind === "virtual" || kind === "strength";
    const startMs = indoor ? localMs : parisToUtc(localMs);
    const isPrivate = random() < 0.03;
    const commute = name === "Commute";
    const gear = kind === "ride" ? bikes[i % 2] : kind === "run" ? shoes[i % 2] : null;
    const csvType =
      { ride: "Ride", virtual: "Virtual Ride", run: "Run", swim: "Swim", hike: "Hike", strength: "Weight Training" }[
        kind
      ];
    const type =
      { ride: "Ride", virtual: "VirtualRide", run: "Run", swim: "Swim", hike: "Hike", strength: "WeightTraining" }[
        kind
      ];
    let rec: Recording | null = null;
    const base = 150 + Math.floor(random() * 110);
    const burst = 450 + Math.floor(random() * 400);
    const block = 40 + Math.floor(random() * 120);
    const speedBase = 2.6 + random() * 1.2;
    switch (kind) {
      case "ride":
      case "virtual": {
        const seconds = (45 + Math.floor(random() * 75)) * 60;
        const v = 7 + random() * 2.5;
        rec = {
          sport: SPORT.cycling,
          subSport: kind === "virtual" ? SUB_SPORT.virtualActivity : SUB_SPORT.road,
          step: kind === "virtual" ? 2 : 5,
          seconds,
          speed: (t) => v + 1.5 * Math.sin(t / 240),
          // A steady base, a 5-minute block every 20 minutes and one sprint of 15 s.
          power: (t) =>
            t >= 600 && t < 615
              ? burst
              : t % 1200 >= 900 && t % 1200 < 1200
              ? base + block
              : base + 15 * Math.sin(t / 60),
          centre: kind === "virtual" ? null : [CENTRES.ride[0] + (i % 7) * 0.01, CENTRES.ride[1] + (i % 5) * 0.01],
          loop: 30_000,
          altitude: (d) => 200 + 40 * Math.sin(d / 1500),
        };
        break;
      }
      case "run": {
        const race = name.startsWith("Spring 10K");
        const parkrun = name.startsWith("Parkrun");
        const v = race ? 3.9 + random() * 0.4 : parkrun ? 3.3 + random() * 0.6 : speedBase;
        const length = race ? 10_300 : parkrun ? 5_100 : 4_000 + Math.floor(random() * 10_000);
        rec = {
          sport: SPORT.running,
          subSport: SUB_SPORT.generic,
          step: 3,
          seconds: Math.ceil(length / v / 3) * 3,
          speed: () => v,
          power: null,
          centre: [CENTRES.run[0] + (i % 3) * 0.005, CENTRES.run[1]],
          loop: 5_000,
          altitude: (d) => 170 + 8 * Math.sin(d / 700),
        };
        break;
      }
      case "swim":
        rec = {
          sport: SPORT.swimming,
          subSport: SUB_SPORT.openWater,
          step: 5,
          seconds: (25 + Math.floor(random() * 30)) * 60,
          speed: () => 0.85,
          power: null,
          centre: CENTRES.swim,
          loop: 1_500,
          altitude: () => 446,
        };
        break;
      case "hike":
        rec = {
          sport: SPORT.hiking,
          subSport: SUB_SPORT.generic,
          step: 10,
          seconds: (90 + Math.floor(random() * 120)) * 60,
          speed: () => 1.2,
          power: null,
          centre: CENTRES.hike,
          loop: 12_000,
          altitude: (d) => 1100 + 400 * Math.sin(d / 3000),
        };
        break;
      case "strength":
        rec = null;
        break;
    }
    let generated: GeneratedActivity["samples"] = null;
    let file: string | null = null;
    let elapsed = 3600;
    let distance = 0;
    if (rec) {
      const { bytes, t, d, w } = encode(rec, startMs);
      file = `activities/${csvId}.fit.gz`;
      entries.push({ name: file, bytes: gzipSync(bytes, { level: 1 }), store: true });
      generated = { t, d, w };
      elapsed = rec.seconds;
      distance = d[d.length - 1];
    }
    const localIso = new Date(indoor ? startMs : startMs + parisOffsetMs(startMs)).toISOString().replace(
      /\.\d{3}Z$/,
      "Z",
    );
    activities.push({
      csvId,
      kind,
      name,
      csvType,
      type,
      private: isPrivate,
      commute,
      gear,
      startMs,
      localDay: localIso.slice(0, 10),
      localIso,
      elapsed,
      distance,
      samples: generated,
      file,
    });
    csv.push(
      [
        csvId,
        csvDate(startMs),
        name,
        csvType,
        "",
        String(elapsed),
        (distance / 1000).toFixed(2),
        commute ? "true" : "false",
        isPrivate ? "true" : "false",
        gear ?? "",
        file ?? "",
        String(elapsed),
        String(elapsed),
        String(distance),
      ].map(quote).join(","),
    );
  });
  entries.unshift(
    { name: "activities.csv", bytes: Buffer.from(csv.join("\n") + "\n") },
    {
      name: "bikes.csv",
      bytes: Buffer.from(
        `Bike Name,Bike Brand,Bike Model,Bike Default Sport Types\n${bikes[0]},Canyon,Ultimate CF SL,\n${
          bikes[1]
        },Specialized,Diverge Comp,\n`,
      ),
    },
    {
      name: "shoes.csv",
      bytes: Buffer.from(
        `Shoe Name,Shoe Brand,Shoe Model,Shoe Default Sport Types\n${shoes[0]},Nike,Pegasus,\n${
          shoes[1]
        },Hoka,Speedgoat,\n`,
      ),
    },
  );
  return { entries, activities, bikes, shoes };
}

// Figures computed from the generated history itself, as a test checks the server against them.

/** The highest mean power over `seconds` of a ride's samples, each held until the next (at most 5 s). */
export function bestPower(a: GeneratedActivity, seconds: number): number | null {
  const { t, w } = a.samples!;
  const perSecond: number[] = [];
  for (let i = 0; i + 1 < t.length; i++) {
    for (let s = t[i]; s < t[i + 1]; s++) perSecond.push(s - t[i] < 5 ? w![i] : 0);
  }
  if (perSecond.length < seconds) return null;
  let sum = 0;
  for (let s = 0; s < seconds; s++) sum += perSecond[s];
  let best = sum;
  for (let s = seconds; s < perSecond.length; s++) {
    sum += perSecond[s] - perSecond[s - seconds];
    if (sum > best) best = sum;
  }
  return Math.round(best / seconds);
}

/** A run's fastest time over a distance: the shortest span of samples covering it (linear between samples). */
export function bestTime(a: GeneratedActivity, metres: number): number | null {
  const { t, d } = a.samples!;
  if (d[d.length - 1] < metres) return null;
  let best = Infinity;
  let j = 0;
  for (let i = 0; i < d.length; i++) {
    while (j < d.length && d[j] - d[i] < metres) j++;
    if (j === d.length) break;
    // The time at which the distance reaches d[i] + metres, between samples j-1 and j.
    const f = (d[i] + metres - d[j - 1]) / (d[j] - d[j - 1]);
    best = Math.min(best, t[j - 1] + f * (t[j] - t[j - 1]) - t[i]);
  }
  return best;
}
