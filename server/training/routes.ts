import { z } from "zod";
import { forbidden, notFound } from "../http/errors.ts";
import { zInt, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { model } from "../http/schema.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { ATL_DAYS, CTL_DAYS, fitnessSeriesFrom, RESTING_HEARTRATE } from "../../projections/training-load/model.ts";
import {
  activityLoadsBetween,
  fitnessWindow,
  lastLoadDay,
  trainingLoadFtp,
} from "../../projections/training-load/queries.ts";

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

const todayUtc = () => new Date().toISOString().slice(0, 10);

export const athleteFitnessRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/fitness",
    summary:
      "Extension: the authenticated athlete's fitness (CTL), fatigue (ATL) and form (TSB) by day, from the training load of each activity.",
    description:
      "The athlete's own only (403 for another athlete): the training-load read model (projections/training-load) holds each activity's load — power TSS = t·NP·IF/(FTP·3600)·100 with the FTP set when it was recorded, else Banister's heart-rate TRIMP, else 0 — and the series is folded from the first activity's day through today: CTL += (load − CTL)/42, ATL += (load − ATL)/7, TSB = CTL − ATL (the read model keeps the state after each day with activities, so an answer reads only its window). days (1–3650, default 365) is how many of the latest days are answered. Private activities count only with view_private. Formulas and sources: docs/numbers.md.",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: z.object({ id: zNumId }),
    query: z.object({ days: zInt.pipe(z.number().int().min(1).max(3650)).optional() }),
    response: zAthleteFitness,
    async handler({ platform, auth, params, query }) {
      if (!(await findAthlete(platform.db, params.id))) throw notFound("Athlete");
      if (params.id !== auth.athleteId) throw forbidden("Athlete", "id", "not own");
      const viewPrivate = auth.permissions.has("view_private");
      const keep = query.days ?? 365;
      const [ftp, last] = await Promise.all([
        trainingLoadFtp(platform.db, params.id),
        lastLoadDay(platform.db, params.id, viewPrivate),
      ]);
      const today = todayUtc();
      // Bounded by the request, never by the data: at most a day past today (shared/date-range.ts
      // refuses later starts; one stored before that rule sits outside every window).
      const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      const through = last && last > today && last <= tomorrow ? last : today;
      const windowFrom = new Date(Date.parse(`${through}T00:00:00Z`) - (keep - 1) * 86_400_000).toISOString()
        .slice(0, 10);
      // The window alone: the state before it from the read model's days, then its own days.
      const window = last ? await fitnessWindow(platform.db, params.id, viewPrivate, windowFrom, through) : null;
      const series = window
        ? fitnessSeriesFrom(window.before, new Map(window.days.map((d) => [d.day, d.load])), windowFrom, through)
        : [];
      const from = series[0]?.date ?? through;
      const rows = series.length ? await activityLoadsBetween(platform.db, params.id, viewPrivate, from, through) : [];
      return {
        ftp,
        resting_heartrate: RESTING_HEARTRATE,
        ctl_days: CTL_DAYS,
        atl_days: ATL_DAYS,
        days: series,
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
