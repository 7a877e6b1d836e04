import { z } from "zod";
import { notFound } from "../http/errors.ts";
import { zInt, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { model } from "../http/schema.ts";
import { BEST_EFFORTS } from "../ingest/derive.ts";
import { POWER_DURATIONS } from "../ingest/power-curve.ts";
import type { Platform } from "../platform.ts";
import { type Viewer, viewerOf, visibilityClassesFor } from "../privacy/engine.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { legacyPowerRides, type RecordBest, recordBests } from "../../projections/queries/athlete-records.ts";
import { loadStreams } from "../activities/streams.ts";
import { powerCurve } from "../ingest/power-curve.ts";
import { MAX_YEAR, MIN_YEAR } from "../../shared/date-range.ts";

/**
 * Extension `GET /v3/athletes/:id/records` (docs/web-app.md, "Personal records"): an athlete's
 * best efforts over the activities the caller may see — the fastest run of each best-effort
 * distance (400 m … marathon) and the power curve (the highest mean power over 5 s … 1 h of any
 * ride with power) — each with its activity and the day it was set, of all time or of one year.
 * Read from the records read model (projections/records), kept per visibility class as events
 * arrive: the bests of the classes the privacy engine lets the caller see, the best of them taken.
 */

/** The sports whose activities' best efforts count (the runs', as the activity representation). */
const EFFORT_SPORTS = ["Run"];
/** The rides: their power curves count. */
const RIDE_TYPES = ["Ride", "VirtualRide", "EBikeRide", "MountainBikeRide", "GravelRide", "Handcycle", "Velomobile"];

const zRecordActivity = z.object({ id: z.number().int(), name: z.string(), type: z.string() });

export const zAthleteRecords = model(
  "AthleteRecords",
  z.object({
    year: z.number().int().nullable(),
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
  "Extension: an athlete's personal records over the activities the caller may see — the fastest run of each best-effort distance and the highest mean power over 5 s … 1 h of the rides with power — each with its activity and the date it was set; of all time (year null) or of one year.",
  {
    year: null,
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

/** Whether a is a better record than b: a higher score, else the earlier activity (start, then id). */
function better(a: RecordBest, b: RecordBest): boolean {
  if (a.score !== b.score) return a.score > b.score;
  if (a.start_epoch !== b.start_epoch) return a.start_epoch < b.start_epoch;
  return a.activity.id < b.activity.id;
}

/** A UTC time of the activity's day written in its local time (its start's offset). */
function localOf(activity: RecordBest["activity"], utc: string): string {
  const offset = Date.parse(activity.start_date_local) - Date.parse(activity.start_date);
  return new Date(Date.parse(utc) + offset).toISOString().replace(/\.000Z$/, "Z");
}

export async function athleteRecords(
  platform: Platform,
  viewer: Viewer | null,
  athleteId: number,
  year: number | null,
) {
  const classes = await visibilityClassesFor(platform.db, viewer, athleteId);
  const rows = await recordBests(platform.db, athleteId, classes, year, { effort: EFFORT_SPORTS, power: RIDE_TYPES });
  // Rides recorded before power curves were derived with the facts: their curves from their power
  // streams, until `cli reprocess` derives them (then this list is empty).
  for (const ride of await legacyPowerRides(platform.db, athleteId, classes, year, RIDE_TYPES)) {
    const streams = await loadStreams(platform.db, ride.streams_sha256);
    if (!streams?.watts) continue;
    powerCurve(streams).forEach((watts, i) => {
      if (watts === null || watts <= 0) return;
      rows.push({
        kind: "power",
        key: String(POWER_DURATIONS[i]),
        sport: ride.activity.type,
        visibility: ride.visibility,
        score: watts,
        value: watts,
        moving_time: null,
        distance: null,
        effort_start: null,
        start_epoch: ride.start_epoch,
        activity: ride.activity,
      });
    });
  }
  const best = new Map<string, RecordBest>();
  for (const r of rows) {
    const k = `${r.kind}|${r.key}`;
    const held = best.get(k);
    if (!held || better(r, held)) best.set(k, r);
  }
  const activity = (r: RecordBest) => ({ id: r.activity.id, name: r.activity.name, type: r.activity.type });
  const best_efforts = BEST_EFFORTS.flatMap(([name]) => {
    const r = best.get(`effort|${name}`);
    if (!r) return [];
    const start = r.effort_start ?? r.activity.start_date;
    return [{
      name,
      distance: r.distance ?? 0,
      elapsed_time: r.value,
      moving_time: r.moving_time ?? r.value,
      start_date: start,
      start_date_local: localOf(r.activity, start),
      activity: activity(r),
    }];
  });
  const power_curve = POWER_DURATIONS.flatMap((duration) => {
    const r = best.get(`power|${duration}`);
    return r
      ? [{
        duration,
        watts: r.value,
        start_date: r.activity.start_date,
        start_date_local: r.activity.start_date_local,
        activity: activity(r),
      }]
      : [];
  });
  return { year, best_efforts, power_curve };
}

export const athleteRecordRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/records",
    summary:
      "Extension: an athlete's personal records — best efforts of runs (400 m … marathon) and the power curve of rides (5 s … 1 h) — each with its activity and date, of all time or of one year.",
    description:
      "Over the activities the caller may see: another athlete's private activities never count, the owner's own count with view_private. Best efforts: the fastest elapsed time of each distance among the runs' best efforts. Power curve: the highest mean power over 5, 15, 30 s, 1, 2, 5, 10, 20, 30 and 60 min of elapsed time of any ride with power (a sample holds up to 5 s; longer gaps count 0 W), derived once per ride when it is recorded (a ride recorded before this was kept is read from its power stream until `cli reprocess` derives it); a duration longer than every ride is absent. On a tie the earlier activity holds the record. `year` (local start year) answers the records set that year. The start date of a power record is its activity's. 404 for an unknown athlete.",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: z.object({ id: zNumId }),
    query: z.object({ year: zInt.pipe(z.number().int().min(MIN_YEAR).max(MAX_YEAR)).optional() }),
    response: zAthleteRecords,
    async handler({ platform, auth, params, query }) {
      if (!(await findAthlete(platform.db, params.id))) throw notFound("Athlete");
      return await athleteRecords(platform, viewerOf(auth), params.id, query.year ?? null);
    },
  }),
];
