import { z } from "zod";
import { badRequest, notFound } from "../http/errors.ts";
import { VISIBILITIES, type Visibility, visibilityOfPrivate } from "../../shared/visibility.ts";
import { type ActivityType, activityTypeOf } from "../../shared/activity-types.ts";
import { updateAthlete } from "./commands.ts";
import { requestActor } from "../actor.ts";
import { zBool, zFloat, zInt, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { athleteFor } from "./represent.ts";
import { athleteDetailExtras } from "./detail-extras.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import { zAthlete, zDetailedAthlete } from "./schema.ts";

const updateBody = z.object({
  weight: zFloat.pipe(z.number().gt(0).lt(500)).optional(),
  /** Functional threshold power (W), for the power zones (issue #19). */
  ftp: zInt.pipe(z.number().int().min(1).max(2000)).optional(),
  default_activity_type: z.string().optional().transform((v, ctx): ActivityType | undefined => {
    if (v === undefined) return undefined;
    const type = activityTypeOf(v);
    if (!type) ctx.addIssue({ code: "custom", message: "unknown activity type" });
    return type;
  }),
  /** Who may see new activities unless they say otherwise (an extension, Strava's visibility values). */
  default_visibility: z.enum(VISIBILITIES).optional(),
  /** The older extension: true = only_me, false = everyone (must agree with default_visibility when both are sent). */
  default_private: zBool.optional(),
  /** The units the athlete reads (Strava's DetailedAthlete field, writable here): "meters" or "feet". */
  measurement_preference: z.enum(["feet", "meters"]).optional(),
});

/** default_visibility, or the older default_private (true = only_me, false = everyone); both must agree. */
function defaultVisibilityOf(body: { default_visibility?: Visibility; default_private?: boolean }) {
  const { default_visibility: visibility, default_private: isPrivate } = body;
  if (visibility !== undefined && isPrivate !== undefined && isPrivate !== (visibility === "only_me")) {
    throw badRequest("Athlete", "default_private", "invalid");
  }
  return visibility ?? (isPrivate === undefined ? undefined : visibilityOfPrivate(isPrivate));
}

export const athleteRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athlete",
    response: zDetailedAthlete,
    summary: "The authenticated athlete (detailed representation).",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    async handler({ platform, auth }) {
      const row = await findAthlete(platform.db, auth.athleteId);
      if (!row) throw notFound("Athlete");
      return athleteFor(row, auth, { form: "detailed", extras: await athleteDetailExtras(platform, auth.athleteId) });
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/v3/athlete",
    response: zDetailedAthlete,
    summary:
      "Update the authenticated athlete: weight (kg), ftp (W), measurement_preference (meters or feet), and the extensions default_activity_type and default_visibility (everyone, followers_only, only_me: who may see new activities that do not say; default_private true/false is only_me/everyone).",
    tag: "Athlete",
    auth: "token",
    permission: "write",
    resource: "Athlete",
    body: updateBody,
    async handler({ platform, auth, body, requestId }) {
      // Recorded with the request's application and id (issue 30); "api" stays its source.
      await updateAthlete(platform, auth.athleteId, {
        weight: body.weight,
        ftp: body.ftp,
        defaultActivityType: body.default_activity_type,
        defaultVisibility: defaultVisibilityOf(body),
        measurementPreference: body.measurement_preference,
      }, { ...requestActor(auth, requestId), source: "api" });
      const row = await findAthlete(platform.db, auth.athleteId);
      if (!row) throw notFound("Athlete");
      return athleteFor(row, auth, { form: "detailed", extras: await athleteDetailExtras(platform, auth.athleteId) });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id",
    response: zAthlete,
    summary: "An athlete by id (detailed for oneself, summary for others).",
    tag: "Athlete",
    auth: "token",
    resource: "Athlete",
    params: z.object({ id: zNumId }),
    async handler({ platform, auth, params }) {
      const row = await findAthlete(platform.db, params.id);
      if (!row) throw notFound("Athlete");
      if (Number(row.id) === auth.athleteId) {
        return athleteFor(row, auth, { form: "detailed", extras: await athleteDetailExtras(platform, auth.athleteId) });
      }
      return athleteFor(row, auth, { form: "summary" });
    },
  }),
];
