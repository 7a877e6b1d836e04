import { z } from "zod";
import { requestActor } from "../actor.ts";
import { ACTIVITY_TYPES } from "../../shared/activity-types.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { zEpoch, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { deleteHeatmap, requestHeatmap } from "./commands.ts";
import { findHeatmap, heatmapsOf } from "../../projections/heatmaps/queries.ts";
import { createdHeatmap, progressHeatmap, summaryHeatmap } from "./represent.ts";
import { zCreatedHeatmap, zHeatmap, zHeatmapList, zHeatmapProgress } from "./schema.ts";

/** "1,2, 5" (or [1, 2]) → sorted distinct activity type numbers 1 … 29 (the spec's list order). */
export const zActivityTypeIds = z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])
  .transform((value, ctx) => {
    const parts = (Array.isArray(value) ? value.map(String) : String(value).split(",")).map((p) => p.trim());
    const ids = new Set<number>();
    for (const part of parts) {
      const n = Number(part);
      if (!/^\d+$/.test(part) || n < 1 || n > ACTIVITY_TYPES.length) {
        ctx.addIssue({ code: "custom", message: "unknown activity type id" });
        return z.NEVER;
      }
      ids.add(n);
    }
    if (ids.size === 0) {
      ctx.addIssue({ code: "custom", message: "no activity type id" });
      return z.NEVER;
    }
    return [...ids].sort((a, b) => a - b);
  });

const mapParams = z.object({ athlete_id: zNumId, map_id: zNumId });

async function heatmapOr404(db: Parameters<typeof findHeatmap>[0], athleteId: number, mapId: number) {
  const row = await findHeatmap(db, athleteId, mapId);
  if (!row) throw notFound("Heatmap");
  return row;
}

/**
 * Heatmaps. A map is readable by its athlete and by whoever holds its (random) id: the read
 * endpoints answer any valid token that names the right athlete_id and map_id; only the athlete
 * lists it, and creating or deleting one needs the write scope like every other change. Its page and tiles need no token (the id in the URL is the key).
 */
export const heatmapRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/athlete/heatmaps",
    response: zHeatmapList,
    summary: "The authenticated athlete's heatmaps (summaries, newest first).",
    tag: "Heatmaps",
    auth: "token",
    resource: "Heatmap",
    async handler({ platform, auth }) {
      const rows = await heatmapsOf(platform.db, auth.athleteId);
      return rows.map((row) => summaryHeatmap(row, platform.config.publicUrl));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/athlete/heatmaps",
    response: zCreatedHeatmap,
    summary:
      "Create a heatmap of one's public activities of some types, optionally within a local-time window; builds asynchronously.",
    description:
      "activity_type_ids: comma separated numbers of the spec's activity types in its order (Ride = 1, Run = 2, Swim = 3, …). " +
      "start_date_local / end_date_local: epoch seconds compared with the activities' local start and end times.",
    tag: "Heatmaps",
    auth: "token",
    permission: "write",
    resource: "Heatmap",
    status: 201,
    body: z.object({
      activity_type_ids: zActivityTypeIds,
      start_date_local: zEpoch.optional(),
      end_date_local: zEpoch.optional(),
    }),
    async handler({ platform, auth, body, requestId }) {
      const startDateLocal = body.start_date_local ?? null;
      const endDateLocal = body.end_date_local ?? null;
      if (startDateLocal !== null && endDateLocal !== null && startDateLocal > endDateLocal) {
        throw badRequest("Heatmap", "end_date_local", "invalid");
      }
      const mapId = await requestHeatmap(platform, {
        athleteId: auth.athleteId,
        activityTypeIds: body.activity_type_ids,
        startDateLocal,
        endDateLocal,
      }, requestActor(auth, requestId));
      platform.jobs.kick();
      return createdHeatmap(
        { id: mapId, athlete_id: auth.athleteId, activity_type_ids: body.activity_type_ids },
        platform.config.publicUrl,
      );
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:athlete_id/heatmaps/:map_id/progress",
    response: zHeatmapProgress,
    summary:
      "A heatmap with its build status (queued, building, gathering, generating, done, error) and status_message.",
    tag: "Heatmaps",
    auth: "token",
    resource: "Heatmap",
    params: mapParams,
    async handler({ platform, params }) {
      return progressHeatmap(
        await heatmapOr404(platform.db, params.athlete_id, params.map_id),
        platform.config.publicUrl,
      );
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:athlete_id/heatmaps/:map_id",
    response: zHeatmap,
    summary: "A heatmap summary.",
    tag: "Heatmaps",
    auth: "token",
    resource: "Heatmap",
    params: mapParams,
    async handler({ platform, params }) {
      return summaryHeatmap(
        await heatmapOr404(platform.db, params.athlete_id, params.map_id),
        platform.config.publicUrl,
      );
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v3/athletes/:athlete_id/heatmaps/:map_id",
    summary: "Delete one's heatmap: 204, and its page and tiles are gone.",
    tag: "Heatmaps",
    auth: "token",
    permission: "write",
    resource: "Heatmap",
    params: mapParams,
    status: 204,
    async handler({ platform, auth, params, requestId }) {
      const row = await heatmapOr404(platform.db, params.athlete_id, params.map_id);
      await deleteHeatmap(platform, row, auth.athleteId, requestActor(auth, requestId));
      return null;
    },
  }),
];
