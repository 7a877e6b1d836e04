import { z } from "zod";
import { requestActor } from "../actor.ts";
import { activityContext, ownedActivity } from "./access.ts";
import { createManualActivity, deleteActivity, updateActivity } from "./commands.ts";
import { detailJson, readActivityDetail } from "./detail.ts";
import { jsonTextResponse } from "../http/conventions.ts";
import { MAX_DESCRIPTION, zActivityType, zDescription, zName, zStartDateLocal } from "./input.ts";
import { requireTypeOrSport, zSportType } from "./sport-input.ts";
import { forbidden, notFound } from "../http/errors.ts";
import { paging, zBool, zEpoch, zFloat, zInt, zNumId, zPaging } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { canSeeActivity, viewerOf, visibleActivities } from "../privacy/engine.ts";
import { processingActivity } from "./represent.ts";
import { VISIBILITIES } from "../../shared/visibility.ts";
import { detailedActivity, findActivity, processingUploadOf, summaryActivities } from "./read.ts";
import { athleteActivitiesPage } from "../../projections/activities/queries.ts";
import { zActivity, zDetailedActivity, zSummaryActivityList } from "./schema.ts";

const idParams = z.object({ id: zNumId });
const flag = zBool;

const createBody = z.object({
  name: zName,
  type: zActivityType.optional(),
  sport_type: zSportType.optional(),
  start_date_local: zStartDateLocal,
  elapsed_time: zInt.pipe(z.number().int().min(0).max(365 * 86400)),
  description: zDescription.optional(),
  distance: zFloat.pipe(z.number().min(0).max(1e8)).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  private: flag.optional(),
  trainer: flag.optional(),
  commute: flag.optional(),
}).superRefine(requireTypeOrSport, { when: () => true });

const updateBody = z.object({
  name: zName.optional(),
  type: zActivityType.optional(),
  sport_type: zSportType.optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  private: flag.optional(),
  hide_from_home: flag.optional(),
  commute: flag.optional(),
  trainer: flag.optional(),
  gear_id: z.string().trim().min(1).max(64).optional(),
  description: zDescription.optional(),
  // The start is not editable (Strava's UpdatableActivity has none; a client sending a whole
  // activity back keeps it); a date no activity has is refused all the same, as everywhere
  // (shared/date-range.ts): an edit never carries one.
  start_date_local: zStartDateLocal.optional(),
  start_date: zStartDateLocal.optional(),
});

const listQuery = z.object({
  before: zEpoch.optional(),
  after: zEpoch.optional(),
  ...zPaging,
});

export const activityRoutes = [
  defineRoute({
    method: "POST",
    path: "/v3/activities",
    response: zDetailedActivity,
    summary: "Create a manual activity.",
    description:
      `Form fields: name (≤ 255), sport_type (Strava's SportType list) and/or type (case-insensitive; one of them required, both must agree; sport_type gives type), start_date_local (ISO 8601; an offset gives start_date and timezone, otherwise local = UTC), elapsed_time (seconds ≥ 0), description (≤ ${MAX_DESCRIPTION}), distance (m), visibility (everyone, followers_only, only_me; default: the athlete's default_visibility), private (1: only_me; 0: not only me — the athlete's default unless that is only_me, then everyone; must agree with visibility), trainer, commute (1/0). 201 with the detailed activity.`,
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Activity",
    body: createBody,
    status: 201,
    async handler({ platform, auth, body, dialect, requestId }) {
      const activityId = await createManualActivity(platform, {
        athleteId: auth.athleteId,
        name: body.name,
        type: body.type,
        sportType: body.sport_type,
        start: body.start_date_local,
        elapsedTime: body.elapsed_time,
        distance: body.distance,
        description: body.description,
        visibility: body.visibility,
        private: body.private,
        trainer: body.trainer,
        commute: body.commute,
      }, requestActor(auth, requestId));
      const row = await findActivity(platform.db, activityId);
      if (!row) throw notFound("Activity");
      return await detailedActivity(row, activityContext(platform, auth, dialect));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/activities/:id",
    response: zActivity,
    summary: "An activity of the authenticated athlete (detailed); resource_state -1 while its upload is processing.",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    params: idParams,
    query: z.object({ include_all_efforts: zBool.optional() }),
    async handler({ c, platform, auth, params, query, dialect }) {
      const includeAll = query.include_all_efforts ?? false;
      const viewer = viewerOf(auth);
      const read = await readActivityDetail(platform.db, params.id, viewer, includeAll, platform.activityExtensions);
      if (!read) {
        const processing = await processingUploadOf(platform.db, params.id);
        if (processing && processing.athleteId === auth.athleteId) return processingActivity(params.id);
        throw notFound("Activity");
      }
      if (!(await canSeeActivity(platform.db, { athlete_id: read.athleteId, visibility: read.visibility }, viewer))) {
        throw notFound("Activity");
      }
      if (read.athleteId !== auth.athleteId) throw forbidden("Activity", "athlete", "forbidden");
      // The JSON text, kept for an equal row (detail-cache.ts): the same answer as the representation's.
      return jsonTextResponse(
        c,
        await detailJson(read, activityContext(platform, auth, dialect, includeAll), detailedActivity),
      );
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/v3/activities/:id",
    response: zDetailedActivity,
    summary:
      "Update an activity (name, sport_type, type, visibility, private, commute, trainer, gear_id — 'none' clears it — description).",
    description:
      "Fields left out stay as they are. visibility: everyone, followers_only or only_me. private: 1 is only_me; 0 is 'not only me' — a followers_only activity stays so, an only_me one becomes the athlete's default_visibility (everyone when that is only_me). Both given must agree (400 {Activity, private, invalid}). The start is not editable: start_date / start_date_local are ignored when they hold a date an activity may have (1980-01-06, the first GPS date, to a day after the server's clock) and refused (400 naming the field) otherwise.",
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Activity",
    params: idParams,
    body: updateBody,
    async handler({ platform, auth, params, body, dialect, requestId }) {
      await ownedActivity(platform.db, params.id, auth);
      await updateActivity(platform, params.id, auth.athleteId, {
        name: body.name,
        type: body.type,
        sportType: body.sport_type,
        visibility: body.visibility,
        private: body.private,
        hideFromHome: body.hide_from_home,
        commute: body.commute,
        trainer: body.trainer,
        gearId: body.gear_id,
        description: body.description,
      }, requestActor(auth, requestId));
      const row = await findActivity(platform.db, params.id);
      if (!row) throw notFound("Activity");
      return await detailedActivity(row, activityContext(platform, auth, dialect));
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/activities/:id",
    summary: "Delete an activity (beyond the spec, as the real service has it). 204 No Content.",
    tag: "Activities",
    auth: "token",
    permission: "write",
    resource: "Activity",
    params: idParams,
    status: 204,
    async handler({ platform, auth, params, requestId }) {
      await ownedActivity(platform.db, params.id, auth);
      await deleteActivity(platform, params.id, auth.athleteId, requestActor(auth, requestId));
      return null;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athlete/activities",
    response: zSummaryActivityList,
    summary: "The authenticated athlete's activities (summary), newest first; oldest first with after.",
    description:
      "before/after are epoch seconds on start_date; before, after and page cannot be combined (400 naming each one given). Newest first; oldest first when after is given. On /api/v3 (Strava's dialect) they combine as Strava's clients send them: the date window first, then page/per_page within it (docs/app-developers.md, 'Two dialects').",
    tag: "Activities",
    auth: "token",
    resource: "Activity",
    query: listQuery,
    exclusive: ["before", "after", "page"],
    async handler({ platform, auth, query, dialect }) {
      const { perPage, offset } = paging(query);
      const viewer = viewerOf(auth);
      const rows = await athleteActivitiesPage(
        platform.db,
        auth.athleteId,
        (alias, first) => visibleActivities(viewer, alias, first),
        {
          before: query.before,
          after: query.after,
          limit: perPage,
          offset,
        },
      );
      return await summaryActivities(rows, activityContext(platform, auth, dialect));
    },
  }),
];
