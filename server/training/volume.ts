import { z } from "zod";
import { badRequest, notFound } from "../http/errors.ts";
import { zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { model } from "../http/schema.ts";
import type { Platform } from "../platform.ts";
import { type Viewer, viewerOf, visibilityClassesFor } from "../privacy/engine.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { volumeBuckets, type VolumePeriod } from "../../projections/training-volume/queries.ts";
import { MAX_YEAR, MIN_YEAR } from "../../shared/date-range.ts";
import { VISIBILITY_CLASSES } from "../../shared/visibility.ts";

/**
 * Extension `GET /v3/athletes/:id/volume` (docs/web-app.md, "Volume and totals"): an athlete's
 * totals by day, week, month or year and by sport, over a window the caller chooses, from the
 * training-volume read model (projections/training-volume): the calendar, the Year view, the feed's
 * and the profile's totals. Counts the activities the caller may see: the visibility classes the
 * privacy engine lets through, named in the answer.
 */

/** The longest window of days, weeks or months (a year view's weeks from the Monday before 1 January fit). */
export const MAX_VOLUME_DAYS = 400;

const DAY = 86_400_000;
const zDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a date YYYY-MM-DD").refine((text) => {
  const ms = Date.parse(`${text}T00:00:00Z`);
  const year = Number(text.slice(0, 4));
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === text && year >= MIN_YEAR &&
    year <= MAX_YEAR;
}, `a date of years ${MIN_YEAR}–${MAX_YEAR}`);

const zBucket = z.object({
  start: z.string(),
  sport_type: z.string(),
  count: z.number().int(),
  distance: z.number(),
  moving_time: z.number().int(),
  elapsed_time: z.number().int(),
  total_elevation_gain: z.number(),
});

export const zAthleteVolume = model(
  "AthleteVolume",
  z.object({
    period: z.enum(["day", "week", "month", "year"]),
    from: z.string(),
    to: z.string(),
    visibility: z.array(z.enum(VISIBILITY_CLASSES)),
    includes_private: z.boolean(),
    buckets: z.array(zBucket),
  }),
  "Extension: an athlete's totals by period (day, week from Monday, month or year of the activities' local start days) and sport type — count, distance (m), moving and elapsed time (s), elevation gain (m) — over the activities the caller may see; `visibility` names the classes counted, `includes_private` whether the athlete's only-me activities are among them (the athlete's own token with view_private). Periods without activities are absent.",
  {
    period: "month",
    from: "2024-01-01",
    to: "2024-12-31",
    visibility: ["everyone"],
    includes_private: false,
    buckets: [{
      start: "2024-05-01",
      sport_type: "Ride",
      count: 12,
      distance: 481234.5,
      moving_time: 61230,
      elapsed_time: 65012,
      total_elevation_gain: 3120.4,
    }],
  },
);

const round1 = (x: number) => Math.round(x * 10) / 10;

export async function athleteVolume(
  platform: Platform,
  viewer: Viewer | null,
  athleteId: number,
  period: VolumePeriod,
  from: string,
  to: string,
) {
  const classes = await visibilityClassesFor(platform.db, viewer, athleteId);
  const buckets = await volumeBuckets(platform.db, athleteId, classes, period, from, to);
  return {
    period,
    from,
    to,
    visibility: classes,
    includes_private: classes.includes("only_me"),
    buckets: buckets.map((b) => ({
      start: b.start,
      sport_type: b.sport,
      count: b.count,
      distance: round1(b.distance),
      moving_time: b.moving_time,
      elapsed_time: b.elapsed_time,
      total_elevation_gain: round1(b.elevation_gain),
    })),
  };
}

export const athleteVolumeRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/volume",
    summary:
      "Extension: an athlete's totals by day, week, month or year and sport type (count, distance, time, elevation) between two local dates.",
    description:
      `Over the activities the caller may see (the owner's private ones with the owner's token with view_private; \`visibility\` names the classes counted). \`from\` and \`to\` are local dates (YYYY-MM-DD, inclusive) compared with each activity's local start day. \`period\`: day, week (Monday to Sunday; a bucket's \`start\` is its Monday, which may precede \`from\`: only days from \`from\` on count), month, or year (the whole calendar years from \`from\`'s to \`to\`'s). A window of days, weeks or months spans at most ${MAX_VOLUME_DAYS} days; years any range of ${MIN_YEAR}–${MAX_YEAR}. Read from the training-volume read model, kept as activities are recorded, edited, made private or deleted. 404 for an unknown athlete; 400 for a bad or too long window.`,
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: z.object({ id: zNumId }),
    query: z.object({
      period: z.enum(["day", "week", "month", "year"]).default("month"),
      from: zDay,
      to: zDay,
    }),
    response: zAthleteVolume,
    async handler({ platform, auth, params, query }) {
      if (query.to < query.from) throw badRequest("Athlete", "to");
      const days = (Date.parse(`${query.to}T00:00:00Z`) - Date.parse(`${query.from}T00:00:00Z`)) / DAY + 1;
      if (query.period !== "year" && days > MAX_VOLUME_DAYS) throw badRequest("Athlete", "from");
      if (!(await findAthlete(platform.db, params.id))) throw notFound("Athlete");
      return await athleteVolume(platform, viewerOf(auth), params.id, query.period, query.from, query.to);
    },
  }),
];
