import { z } from "zod";
import type { Queryable } from "../../events/db/types.ts";
import type { Auth } from "../http/auth.ts";
import { badRequest, notFound } from "../http/errors.ts";
import { canSeeActivity, canSeeEffort, effortsOthersSee, viewerOf } from "../privacy/engine.ts";
import { yearInRange } from "../../shared/date-range.ts";
import { type ActivityRow, findActivity } from "../activities/read.ts";
import { effortById, type EffortRow, effortsOnSegment } from "../../projections/segments/queries.ts";
import { findSegment } from "./access.ts";
import { type ActivityStreams, STREAM_KEYS } from "../../shared/streams.ts";

/** A local date-time (ISO 8601, with or without zone; read as local wall time). */
export const zLocalDateTime = z.string().transform((value, ctx) => {
  const text = value.trim();
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?(Z|[+-]\d{2}:?\d{2})?$/.exec(text);
  if (!m || Number.isNaN(Date.parse(`${m[1]}T${m[2] ?? "00:00:00"}Z`)) || !yearInRange(Number(m[1].slice(0, 4)))) {
    ctx.addIssue({ code: "custom", message: "not an ISO 8601 date-time" });
    return z.NEVER;
  }
  const time = m[2] ? (m[2].length === 5 ? `${m[2]}:00` : m[2].slice(0, 8)) : null;
  return { date: m[1], time };
});
export type LocalDateTime = z.infer<typeof zLocalDateTime>;

export interface EffortListQuery {
  segmentId: number;
  /** Only this athlete's efforts. */
  athleteId?: number;
  /** Inclusive local bounds; both or neither (a date alone spans the whole day). */
  startDateLocal?: LocalDateTime;
  endDateLocal?: LocalDateTime;
  offset: number;
  perPage: number;
}

/**
 * Efforts on a segment, ascending by start_date_local (then id): GET /v3/segments/:id/all_efforts
 * and GET /v3/segment_efforts share these rules. Private efforts only for their own athlete reading
 * with view_private. start_date_local / end_date_local must come together (400 naming the missing
 * one) and in order (400 on end_date_local). The segment must be visible to the caller (404).
 */
export async function listEfforts(db: Queryable, auth: Auth, q: EffortListQuery): Promise<EffortRow[]> {
  const viewer = viewerOf(auth);
  if (!(await findSegment(db, q.segmentId, viewer))) throw notFound("Segment");
  if ((q.startDateLocal === undefined) !== (q.endDateLocal === undefined)) {
    throw badRequest("Segment", q.startDateLocal === undefined ? "start_date_local" : "end_date_local", "missing");
  }
  // Efforts follow their activity's privacy and the owner's zones: the engine's predicate over the effort row.
  let from: string | undefined, to: string | undefined;
  if (q.startDateLocal && q.endDateLocal) {
    from = `${q.startDateLocal.date}T${q.startDateLocal.time ?? "00:00:00"}`;
    to = `${q.endDateLocal.date}T${q.endDateLocal.time ?? "23:59:59.999"}`;
    if (from > to) throw badRequest("Segment", "end_date_local", "invalid");
  }
  return effortsOnSegment(db, {
    segmentId: q.segmentId,
    visible: (alias, first) => effortsOthersSee(viewer, alias, first),
    athleteId: q.athleteId,
    from,
    to,
    offset: q.offset,
    limit: q.perPage,
  });
}

/**
 * A segment effort the caller may see, with its activity: 404 SegmentEffort when unknown, when its
 * activity is not visible to the caller (another's private one), or when its segment is another's
 * private segment. The effort's own privacy (its activity's, copied) is checked even when the activity
 * row is gone; then `activity` is null (no streams). GET /v3/segment_efforts/:id and its streams share it.
 */
export async function visibleEffort(
  db: Queryable,
  auth: Auth,
  id: bigint | number,
): Promise<{ effort: EffortRow; activity: ActivityRow | null }> {
  const effort = await effortById(db, id);
  if (!effort) throw notFound("SegmentEffort");
  const activity = await findActivity(db, Number(effort.activity_id));
  const viewer = viewerOf(auth);
  if (!(await canSeeEffort(db, effort, viewer)) || (activity && !(await canSeeActivity(db, activity, viewer)))) {
    throw notFound("SegmentEffort");
  }
  if (!(await findSegment(db, Number(effort.segment_id), viewer))) throw notFound("SegmentEffort");
  return { effort, activity: activity ?? null };
}

/** An effort's streams: every channel of the activity's streams from `startIndex` to `endIndex` (inclusive). */
export function sliceStreams(streams: ActivityStreams, startIndex: number, endIndex: number): ActivityStreams {
  const out: Record<string, unknown[]> = {};
  for (const key of STREAM_KEYS) {
    const data = streams[key] as unknown[] | undefined;
    if (data) out[key] = data.slice(startIndex, endIndex + 1);
  }
  return out as unknown as ActivityStreams;
}
