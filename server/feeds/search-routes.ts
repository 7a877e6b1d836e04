import { z } from "zod";
import { findAthlete } from "../../projections/athletes/queries.ts";
import {
  type ActivityFilters,
  countActivities,
  filtered,
  type Keyset,
  searchActivities,
} from "../../projections/activity-list/queries.ts";
import { activityCount } from "../../projections/training-volume/queries.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { zBool, zInt, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { model } from "../http/schema.ts";
import { viewerOf, visibilityClassesFor, visibleActivities } from "../privacy/engine.ts";
import { MAX_YEAR, MIN_YEAR } from "../../shared/date-range.ts";
import { zFeedActivity } from "./schema.ts";
import { shown } from "./routes.ts";

/**
 * Extension `GET /v3/athletes/:id/activities/search` (docs/web-app.md, "Your activities"): an
 * athlete's activities searched and paged on the server — by part of the name, sport, local dates,
 * gear, commute and trainer — newest first, a page at a time by keyset (`before`/`after` a cursor
 * the previous answer gave), with the exact count of the matches. Strava's list
 * (`GET /v3/athlete/activities`) stays as the spec has it; this is the web app's way through a
 * whole history. The privacy engine chooses the rows as for every list.
 */

const CURSOR = /^(-?\d{1,12})\.(\d{1,16})$/;
const zCursor = z.string().regex(CURSOR, "a cursor of a previous answer");
const cursorOf = (k: Keyset) => `${k.start}.${k.id}`;
const keysetOf = (text: string): Keyset => {
  const m = CURSOR.exec(text)!;
  return { start: Number(m[1]), id: Number(m[2]) };
};

const zDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a date YYYY-MM-DD").refine((text) => {
  const ms = Date.parse(`${text}T00:00:00Z`);
  const year = Number(text.slice(0, 4));
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === text && year >= MIN_YEAR &&
    year <= MAX_YEAR;
}, `a date of years ${MIN_YEAR}–${MAX_YEAR}`);

export const zActivitySearch = model(
  "ActivitySearch",
  z.object({
    count: z.number().int(),
    total: z.number().int(),
    activities: z.array(zFeedActivity),
    older: z.string().nullable(),
    newer: z.string().nullable(),
  }),
  "Extension: a page of an athlete's activities matching a search, newest first (summary activities, each with its summary athlete); `count` is how many match in all, `total` how many of the athlete's activities the caller may see; `older` / `newer` are the cursors of the next page either way (null at an end).",
  { count: 45, total: 2060, activities: [], older: "1714546800.1234", newer: null },
);

export const activitySearchRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/activities/search",
    summary:
      "Extension: search an athlete's activities (part of the name, sport, local dates, gear, commute, trainer), newest first, a page at a time, with the exact count of matches.",
    description:
      "Over the activities the caller may see (another athlete's private ones never; the owner's own with view_private). `q`: a part of the name, any case. `sport_type`: the activity's type or sport type. `from` / `to`: local start dates (YYYY-MM-DD, inclusive). `gear_id`, `commute`, `trainer` (true/false). `per_page` 1–200 (default 30). Paging is by keyset: `before` takes the `older` cursor of an answer (the next older page), `after` its `newer` cursor (the page just newer, still newest first); a page never shifts when activities are added. 404 for an unknown athlete.",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    params: z.object({ id: zNumId }),
    query: z.object({
      q: z.string().max(100).optional(),
      sport_type: z.string().regex(/^[A-Za-z]{1,40}$/).optional(),
      from: zDay.optional(),
      to: zDay.optional(),
      gear_id: z.string().max(40).optional(),
      commute: zBool.optional(),
      trainer: zBool.optional(),
      per_page: zInt.pipe(z.number().int().min(1).max(200)).optional(),
      before: zCursor.optional(),
      after: zCursor.optional(),
    }),
    response: zActivitySearch,
    async handler({ platform, auth, params, query, dialect }) {
      if (query.before && query.after) throw badRequest("Activity", "after");
      if (query.from && query.to && query.to < query.from) throw badRequest("Activity", "to");
      if (!(await findAthlete(platform.db, params.id))) throw notFound("Athlete");
      const viewer = viewerOf(auth);
      const visible = (alias: string, first: number) => visibleActivities(viewer, alias, first);
      const filters: ActivityFilters = {
        q: query.q?.trim() || undefined,
        sport: query.sport_type,
        from: query.from,
        to: query.to,
        gearId: query.gear_id || undefined,
        commute: query.commute,
        trainer: query.trainer,
      };
      const classes = await visibilityClassesFor(platform.db, viewer, params.id);
      const [page, total] = await Promise.all([
        searchActivities(platform.db, params.id, visible, filters, {
          limit: query.per_page ?? 30,
          before: query.before ? keysetOf(query.before) : undefined,
          after: query.after ? keysetOf(query.after) : undefined,
        }),
        activityCount(platform.db, params.id, classes),
      ]);
      const count = filtered(filters) ? await countActivities(platform.db, params.id, visible, filters) : total;
      return {
        count,
        total,
        activities: await shown(platform, auth, page.rows, dialect),
        older: page.older && page.rows.length ? cursorOf(page.rows[page.rows.length - 1]) : null,
        newer: page.newer && page.rows.length ? cursorOf(page.rows[0]) : null,
      };
    },
  }),
];
