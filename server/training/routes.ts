import { z } from "zod";
import { loadStreams } from "../activities/streams.ts";
import { forbidden, notFound } from "../http/errors.ts";
import { zInt, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { model } from "../http/schema.ts";
import { BEST_EFFORTS } from "../ingest/derive.ts";
import { MAX_SPAN_MS } from "../ingest/span.ts";
import type { Platform } from "../platform.ts";
import { viewerOf, visibilitiesSeen, visibleActivities } from "../privacy/engine.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { ATL_DAYS, CTL_DAYS, fitnessWindow, RESTING_HEARTRATE } from "../../projections/training-load/model.ts";
import {
  activityLoads,
  dailyLoadsThrough,
  latestLoadDay,
  trainingLoadFtp,
} from "../../projections/training-load/queries.ts";
import { addDays, dayOf, dayWindow } from "../../shared/date-range.ts";
import { type RecordSource, recordSources } from "../../projections/queries/athlete-records.ts";

/**
 * Extension `GET /v3/athletes/:id/records` (docs/web-app.md, "Personal records"): an athlete's
 * best efforts over the activities the caller may see — the fastest run of each best-effort
 * distance (400 m … marathon, from the best efforts recorded with each run) and the power curve
 * (the highest mean power over 5 s … 1 h of any ride with power, from the streams) — each with its
 * activity and the day it was set. Another athlete's private activities never count.
 */

/** Power-curve durations in seconds. */
export const POWER_DURATIONS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600] as const;
/** The longest span a recording may have (server/ingest/span.ts): 31 days. */
const MAX_RECORDING_SECONDS = MAX_SPAN_MS / 1000;
/** A gap between samples longer than this counts as 0 W (as the streams' own long gaps). */
const MAX_HOLD_SECONDS = 5;

/**
 * Highest mean power over each duration: the watts resampled to one value per second of elapsed
 * time (a sample holds until the next one, up to MAX_HOLD_SECONDS; longer gaps are 0 W), then a
 * sliding window over prefix sums. A duration longer than the activity has no value (null).
 */
export function powerCurve(
  streams: Pick<ActivityStreams, "time" | "watts">,
  durations: readonly number[] = POWER_DURATIONS,
): (number | null)[] {
  const { time, watts } = streams;
  if (!watts || time.length < 2) return durations.map(() => null);
  // At most a recording's longest span (server/ingest/span.ts, 31 days): the per-second arrays
  // below are bounded by that, never by a time stream's own values.
  const t0 = time[0], span = Math.min(MAX_RECORDING_SECONDS, Math.floor(time[time.length - 1] - t0));
  if (!(span > 0)) return durations.map(() => null);
  const perSecond = new Float64Array(span);
  for (let i = 0; i + 1 < time.length; i++) {
    const from = Math.floor(time[i] - t0), to = Math.min(span, Math.floor(time[i + 1] - t0));
    const w = Number(watts[i]) || 0;
    for (let s = from; s < to; s++) perSecond[s] = s - from < MAX_HOLD_SECONDS ? w : 0;
  }
  const prefix = new Float64Array(span + 1);
  for (let s = 0; s < span; s++) prefix[s + 1] = prefix[s] + perSecond[s];
  return durations.map((d) => {
    if (d > span) return null;
    let best = 0;
    for (let s = d; s <= span; s++) best = Math.max(best, prefix[s] - prefix[s - d]);
    return Math.round(best / d);
  });
}

const zRecordActivity = z.object({ id: z.number().int(), name: z.string(), type: z.string() });

export const zAthleteRecords = model(
  "AthleteRecords",
  z.object({
    best_efforts: z.array(z.object({
      name: z.string(),
      distance: z.number(),
      elapsed_time: z.number().int(),
      moving_time: z.number().int(),
      start_date: z.string(),
      start_date_local: z.string(),
      activity: zRecordActivity,
    })),
    power_curve: z.array(z.object({
      duration: z.number().int(),
      watts: z.number().int(),
      start_date: z.string(),
      start_date_local: z.string(),
      activity: zRecordActivity,
    })),
  }),
  "Extension: an athlete's personal records over the activities the caller may see — the fastest run of each best-effort distance and the highest mean power over 5 s … 1 h of the rides with power — each with its activity and the date it was set.",
  {
    best_efforts: [{
      name: "5K",
      distance: 5000,
      elapsed_time: 1342,
      moving_time: 1342,
      start_date: "2024-05-04T07:31:12Z",
      start_date_local: "2024-05-04T09:31:12Z",
      activity: { id: 1234, name: "Morning run", type: "Run" },
    }],
    power_curve: [{
      duration: 300,
      watts: 287,
      start_date: "2024-05-02T16:03:00Z",
      start_date_local: "2024-05-02T18:03:00Z",
      activity: { id: 1230, name: "Hill repeats", type: "Ride" },
    }],
  },
);

type Row = RecordSource;

const RIDE_TYPES = ["Ride", "VirtualRide", "EBikeRide", "MountainBikeRide", "GravelRide", "Handcycle", "Velomobile"];

export async function athleteRecords(platform: Platform, viewer: ReturnType<typeof viewerOf>, athleteId: number) {
  const rows = await recordSources(platform.db, athleteId, (alias, first) => visibleActivities(viewer, alias, first));
  const activity = (r: Row) => ({ id: r.id, name: r.name, type: r.type });
  const offset = (r: Row) => Date.parse(r.start_date_local) - Date.parse(r.start_date);
  const localOf = (r: Row, utc: string) => new Date(Date.parse(utc) + offset(r)).toISOString().replace(/\.000Z$/, "Z");

  // The fastest of each distance; on a tie the earlier (rows are oldest first: a later one must be faster).
  const best = new Map<string, { row: Row; effort: NonNullable<Row["facts"]["bestEfforts"]>[number] }>();
  for (const r of rows) {
    if (r.type !== "Run") continue; // best efforts are the runs' (as the activity representation)
    for (const e of r.facts.bestEfforts ?? []) {
      const held = best.get(e.name);
      if (!held || e.elapsedTime < held.effort.elapsedTime) best.set(e.name, { row: r, effort: e });
    }
  }
  const best_efforts = BEST_EFFORTS.filter(([name]) => best.has(name)).map(([name]) => {
    const { row, effort } = best.get(name)!;
    const start = effort.startDate ?? row.start_date;
    return {
      name,
      distance: effort.distance,
      elapsed_time: effort.elapsedTime,
      moving_time: effort.movingTime,
      start_date: start,
      start_date_local: localOf(row, start),
      activity: activity(row),
    };
  });

  const curve: ({ watts: number; row: Row } | null)[] = POWER_DURATIONS.map(() => null);
  for (const r of rows) {
    if (!RIDE_TYPES.includes(r.type) || !r.facts.averageWatts || !r.facts.streamsSha256) continue;
    const streams = await loadStreams(platform.db, r.facts.streamsSha256);
    if (!streams?.watts) continue;
    powerCurve(streams).forEach((w, i) => {
      if (w !== null && w > 0 && (!curve[i] || w > curve[i]!.watts)) curve[i] = { watts: w, row: r };
    });
  }
  const power_curve = POWER_DURATIONS.flatMap((duration, i) => {
    const c = curve[i];
    return c
      ? [{
        duration,
        watts: c.watts,
        start_date: c.row.start_date,
        start_date_local: c.row.start_date_local,
        activity: activity(c.row),
      }]
      : [];
  });
  return { best_efforts, power_curve };
}

export const athleteRecordRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/records",
    summary:
      "Extension: an athlete's personal records — best efforts of runs (400 m … marathon) and the power curve of rides (5 s … 1 h) — each with its activity and date.",
    description:
      "Over the activities the caller may see: another athlete's private activities never count, the owner's own count with view_private. Best efforts: the fastest elapsed time of each distance among the runs' best efforts. Power curve: the highest mean power over 5, 15, 30 s, 1, 2, 5, 10, 20, 30 and 60 min of elapsed time of any ride with power (a sample holds up to 5 s; longer gaps count 0 W); a duration longer than every ride is absent. The start date of a power record is its activity's. 404 for an unknown athlete.",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: z.object({ id: zNumId }),
    response: zAthleteRecords,
    async handler({ platform, auth, params }) {
      if (!(await findAthlete(platform.db, params.id))) throw notFound("Athlete");
      return await athleteRecords(platform, viewerOf(auth), params.id);
    },
  }),
];

export const zAthleteFitness = model(
  "AthleteFitness",
  z.object({
    ftp: z.number().int().nullable(),
    resting_heartrate: z.number().int(),
    ctl_days: z.number().int(),
    atl_days: z.number().int(),
    days: z.array(z.object({ date: z.string(), load: z.number(), ctl: z.number(), atl: z.number(), tsb: z.number() })),
    activities: z.array(z.object({
      activity_id: z.number().int(),
      date: z.string(),
      load: z.number(),
      method: z.enum(["power", "heartrate", "none"]),
    })),
  }),
  "Extension: the athlete's own training load and the impulse-response model over it — fitness (CTL, 42-day exponentially weighted daily load), fatigue (ATL, 7-day) and form (TSB = CTL − ATL) — by day, with each activity's load and how it was computed (power TSS with the FTP of its day, else heart-rate TRIMP, else 0).",
  {
    ftp: 250,
    resting_heartrate: 60,
    ctl_days: 42,
    atl_days: 7,
    days: [{ date: "2024-05-02", load: 87.5, ctl: 41.2, atl: 55.3, tsb: -14.1 }],
    activities: [{ activity_id: 1230, date: "2024-05-02", load: 87.5, method: "power" }],
  },
);

export const athleteFitnessRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/fitness",
    summary:
      "Extension: the authenticated athlete's fitness (CTL), fatigue (ATL) and form (TSB) by day, from the training load of each activity.",
    description:
      "The athlete's own only (403 for another athlete): the training-load read model (projections/training-load) holds each activity's load — power TSS = t·NP·IF/(FTP·3600)·100 with the FTP set when it was recorded, else Banister's heart-rate TRIMP, else 0 — and the series is folded from the first activity's day: CTL += (load − CTL)/42, ATL += (load − ATL)/7, TSB = CTL − ATL. days (1–3650, default 365) is the window answered: the days ending today (or tomorrow, when an activity is dated tomorrow: ahead of UTC), never later — activities dated after it are left out, and the days before the first activity too. Private activities count only with view_private. Formulas and sources: docs/numbers.md.",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: z.object({ id: zNumId }),
    query: z.object({ days: zInt.pipe(z.number().int().min(1).max(3650)).optional() }),
    response: zAthleteFitness,
    async handler({ platform, auth, params, query }) {
      if (!(await findAthlete(platform.db, params.id))) throw notFound("Athlete");
      if (params.id !== auth.athleteId) throw forbidden("Athlete", "id", "not own");
      const ftp = await trainingLoadFtp(platform.db, params.id);
      // The athlete's own: every activity the token may see (only_me with view_private).
      const seen = visibilitiesSeen(viewerOf(auth), params.id, false);
      // The window is the request's (days, capped; ending today, or tomorrow when an activity is
      // dated tomorrow, ahead of UTC): never the span of the data (docs/proof.md, "Reads over a
      // date range").
      const today = dayOf(Date.now());
      const latest = await latestLoadDay(platform.db, params.id, seen, addDays(today, 1));
      const window = dayWindow(query.days ?? 365, latest && latest > today ? latest : today);
      const loads = await dailyLoadsThrough(platform.db, params.id, seen, window.through);
      const days = fitnessWindow(loads, window.from, window.through);
      const rows = days.length ? await activityLoads(platform.db, params.id, seen, days[0].date, window.through) : [];
      return {
        ftp,
        resting_heartrate: RESTING_HEARTRATE,
        ctl_days: CTL_DAYS,
        atl_days: ATL_DAYS,
        days,
        activities: rows.map((r) => ({
          activity_id: r.activityId,
          date: r.day,
          load: r.load,
          method: r.method,
        })),
      };
    },
  }),
];
