import { z } from "zod";
import { VISIBILITIES } from "../../shared/visibility.ts";
import { type ActivityType, activityTypeOf, UPLOAD_ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { requestActor } from "../actor.ts";
import { notFound } from "../http/errors.ts";
import { zBool, zNumId } from "../http/input.ts";
import { SpooledFile } from "../http/multipart.ts";
import { defineRoute } from "../http/route.ts";
import { type DataType, dataTypeOf } from "../ingest/decode.ts";
import { submitUpload } from "./submit.ts";
import { zSportType } from "../activities/sport-input.ts";
import { resolveSport } from "../../shared/sport-types.ts";
import { badRequest } from "../http/errors.ts";
import { findUpload, uploadStatusBody } from "./status.ts";
import { zUpload } from "./schema.ts";

const uploadBody = z.object({
  file: z.custom<File>((v) => typeof File !== "undefined" && v instanceof File, { message: "a file is required" }),
  data_type: z.string().transform((v, ctx): DataType => {
    const type = dataTypeOf(v);
    if (!type) {
      ctx.addIssue({ code: "custom", message: "fit, fit.gz, tcx, tcx.gz, gpx or gpx.gz" });
      return z.NEVER;
    }
    return type;
  }),
  activity_type: z.string().optional().transform((v, ctx): ActivityType | undefined => {
    if (v === undefined || v.trim() === "") return undefined;
    const type = activityTypeOf(v);
    if (!type || !UPLOAD_ACTIVITY_TYPES.includes(type)) {
      ctx.addIssue({ code: "custom", message: "not an upload activity type" });
      return z.NEVER;
    }
    return type;
  }),
  sport_type: z.string().optional().transform((v) => v === undefined || v.trim() === "" ? undefined : v).pipe(
    zSportType.optional(),
  ),
  name: z.string().max(255).optional(),
  description: z.string().max(10000).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  private: zBool.optional(),
  trainer: zBool.optional(),
  commute: zBool.optional(),
  external_id: z.string().max(255).optional(),
});

export const uploadRoutes = [
  defineRoute({
    method: "POST",
    path: "/v3/uploads",
    response: zUpload,
    summary: "Upload a FIT, TCX or GPX file (multipart); processing is asynchronous.",
    description: "201 with an upload status ('Your activity is still being processed.'); 400 with an upload status " +
      "for malformed data or a duplicate found at submission; 413 for files over MAX_UPLOAD_BYTES (after decompression). " +
      "visibility (everyone, followers_only, only_me; default: the athlete's default_visibility) says who may see the " +
      "activity; private 1 is only_me, 0 'not only me' (the default unless that is only_me, then everyone); both must agree.",
    tag: "Uploads",
    auth: "token",
    permission: "write",
    resource: "Upload",
    body: uploadBody,
    status: 201,
    async handler({ platform, auth, body, requestId }) {
      const file = body.file;
      // sport_type (any of Strava's) gives activity_type; both given must agree.
      const sport = resolveSport(body.activity_type, body.sport_type);
      if (sport === null) throw badRequest("Upload", "sport_type", "invalid");
      return await submitUpload(platform, {
        athleteId: auth.athleteId,
        fileName: file.name || "upload",
        ...(file instanceof SpooledFile
          ? { spooled: { path: file.path, size: file.size, sha256: file.sha256 } }
          : { bytes: new Uint8Array(await file.arrayBuffer()) }),
        dataType: body.data_type,
        activityType: sport?.type ?? null,
        sportType: body.sport_type ?? null,
        name: body.name?.trim() || null,
        description: body.description ?? null,
        visibility: body.visibility,
        private: body.private,
        trainer: body.trainer ?? false,
        commute: body.commute ?? false,
        externalId: body.external_id?.trim() || null,
      }, requestActor(auth, requestId));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/uploads/:id",
    response: zUpload,
    summary: "The status of an upload (poll at most once a second).",
    tag: "Uploads",
    auth: "token",
    resource: "Upload",
    params: z.object({ id: zNumId }),
    async handler({ platform, auth, params }) {
      const row = await findUpload(platform.db, params.id);
      if (!row || row.athlete_id !== auth.athleteId) throw notFound("Upload");
      return uploadStatusBody(row);
    },
  }),
];
