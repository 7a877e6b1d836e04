import { z } from "zod";
import { badRequest, forbidden, notFound } from "../http/errors.ts";
import { zId, zNumId } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { loadRelease, releasedStreams, viewerAudience, viewerOf } from "../privacy/engine.ts";
import { loadStreams } from "../activities/streams.ts";
import type { ActivityStreams } from "../../shared/streams.ts";
import { effortsWithSegments, findSegment } from "./access.ts";
import { visibleEffort } from "./effort-queries.ts";
import { compareAt, comparisonPoints, effortStretch, gapOf } from "./compare.ts";
import { zEffortComparison } from "./compare-schema.ts";

/** Two 64-bit effort ids, comma-separated. */
const zTwoEfforts = z.string().max(60).transform((value, ctx) => {
  const ids = value.split(",").map((s) => zId.safeParse(s.trim()));
  if (ids.length !== 2 || ids.some((r) => !r.success)) {
    ctx.addIssue({ code: "custom", message: "two effort ids, comma-separated" });
    return z.NEVER;
  }
  return ids.map((r) => r.data!) as [number | bigint, number | bigint];
});

export const segmentCompareRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/segments/:id/compare",
    response: zEffortComparison,
    summary:
      "Two efforts on a segment compared along its distance (ours): the time gap, and each one's speed, heart rate and power.",
    description:
      "effort_ids: two efforts on this segment, comma-separated; the first is the reference (the gap is the second's time minus the first's). At least one must be the caller's own (403 otherwise), the other any effort the caller may see (the privacy engine: as GET /v3/segment_efforts/{id}; an unknown or unseen one is a 404). Another athlete's streams come as the privacy engine releases them (no point inside their privacy zones).",
    tag: "Segments",
    auth: "token",
    resource: "SegmentEffort",
    params: z.object({ id: zNumId }),
    query: z.object({ effort_ids: zTwoEfforts }),
    async handler({ platform, auth, params, query }) {
      const viewer = viewerOf(auth);
      const segment = await findSegment(platform.db, params.id, viewer);
      if (!segment) throw notFound("Segment");
      const found = await Promise.all(query.effort_ids.map((id) => visibleEffort(platform.db, auth, id)));
      if (found.some(({ effort }) => Number(effort.segment_id) !== params.id)) {
        throw badRequest("SegmentEffort", "effort_ids", "not on this segment");
      }
      if (!found.some(({ effort }) => Number(effort.athlete_id) === auth.athleteId)) {
        throw forbidden("SegmentEffort", "effort_ids", "not yours");
      }
      const length = Number(segment.distance);
      const points = comparisonPoints(length);
      const compared = await Promise.all(found.map(async ({ effort, activity }) => {
        // The effort's stretch of its activity's streams, then what the engine releases of it to this caller.
        const streams = activity ? await loadStreams(platform.db, activity.facts.streamsSha256) : null;
        const stretch = streams ? effortStretch(streams, effort.start_index, effort.end_index) : null;
        const release = activity ? await loadRelease(platform.db, activity, viewerAudience(viewer)) : null;
        const released = stretch && release
          ? releasedStreams(release, { ...stretch, latlng: releasedLatlng(streams!, effort) } as ActivityStreams)
          : null;
        return released ? compareAt(released, points, length, effort.elapsed_time) : null;
      }));
      if (compared.some((c) => c === null)) throw badRequest("SegmentEffort", "effort_ids", "no streams");
      const [first, second] = compared as NonNullable<(typeof compared)[number]>[];
      const efforts = await effortsWithSegments(platform.db, found.map((f) => f.effort), auth.athleteId, viewer);
      return {
        segment: { id: params.id, name: segment.name, distance: length },
        distance: points,
        gap: gapOf(first, second),
        final_gap: found[1].effort.elapsed_time - found[0].effort.elapsed_time,
        efforts: efforts.map((effort, k) => ({ effort: { ...effort, resource_state: 3 }, ...compared[k]! })),
      };
    },
  }),
];

/** The positions of the effort's stretch (the privacy engine withholds those inside the owner's zones). */
function releasedLatlng(streams: ActivityStreams, effort: { start_index: number; end_index: number }) {
  return streams.latlng?.slice(effort.start_index, effort.end_index + 1);
}
