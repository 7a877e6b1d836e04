import { z } from "zod";
import { requestActor } from "../actor.ts";
import { badRequest, forbidden, notFound } from "../http/errors.ts";
import { paging, zBool, zId, zInt, zNumId, zPaging } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { type Viewer, viewerOf, visibleActivities, visibleOwnedObjects } from "../privacy/engine.ts";
import { loadRelease, releasedStreams, viewerAudience } from "../privacy/engine.ts";
import { findActivity } from "../activities/read.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import {
  exploreSegments,
  segmentGeometry,
  type SegmentRow,
  starredBy,
  starredSegments,
} from "../../projections/segments/queries.ts";
import {
  athleteSegmentStats,
  detailedSegment,
  exploreSegment,
  prEffort,
  type PrEffortRow,
  summarySegment,
} from "./represent.ts";
import { effortsWithSegments, findSegment, segmentVisible, viewerPrs } from "./access.ts";
import { loadStreams, shapeStreams, streamsResponse } from "../activities/streams.ts";
import { listEfforts, sliceStreams, visibleEffort, zLocalDateTime } from "./effort-queries.ts";
import { pointsFromActivity } from "./create.ts";
import { createSegment, starSegment } from "./commands.ts";
import { cumulativeDistances, type LatLng } from "./geometry.ts";
import { AGE_GROUPS, DATE_RANGES, representBoard, segmentBoard, WEIGHT_CLASSES } from "./leaderboard.ts";
import { zStreamSet } from "../activities/streams-schema.ts";
import {
  zDetailedSegment,
  zExplorerResponse,
  zSegmentEffort,
  zSegmentEffortList,
  zSegmentLeaderboard,
  zStarredSegmentList,
} from "./schema.ts";

const idParams = z.object({ id: zNumId });

const effortStreamQuery = z.object({
  keys: z.string().max(500).optional(),
  key_by_type: zBool.optional(),
  resolution: z.enum(["low", "medium", "high"]).optional(),
  series_type: z.enum(["distance", "time"]).optional(),
});

const EFFORT_STREAMS_NOTE =
  "keys: comma list of time, latlng, distance, altitude, velocity_smooth, heartrate, cadence, watts, temp, moving, grade_smooth (distance is always returned; unknown keys ignored); key_by_type=true answers an object keyed by type. Values are the activity's own (distance and time count from the activity's start); original_size is the number of points in the effort. The effort must be visible to the caller as its activity is; points inside the owner's privacy zones are removed unless the owner reads. Needs read_all (view_private), as the reference documents.";

async function segmentOr404(
  db: Parameters<typeof findSegment>[0],
  id: number,
  viewer: Viewer | null,
): Promise<SegmentRow> {
  const row = await findSegment(db, id, viewer);
  if (!row) throw notFound("Segment");
  return row;
}

/** A detailed segment with the viewer's PR on it (athlete_pr_effort, athlete_segment_stats). */
function detailedWithPr(row: SegmentRow, starred: boolean, pr: PrEffortRow | undefined) {
  return {
    ...detailedSegment(row, starred),
    athlete_pr_effort: prEffort(pr),
    athlete_segment_stats: athleteSegmentStats(pr),
  };
}

/**
 * A starred-segment list item: the summary segment with start/end coordinates, the requesting
 * athlete's PR (pr_time, athlete_pr_effort) and when the listed athlete starred it.
 */
function starredItem(row: SegmentRow & { starred_date: string }, starred: boolean, pr: PrEffortRow | undefined) {
  return {
    ...summarySegment(row, starred),
    start_latitude: row.start_lat,
    start_longitude: row.start_lng,
    end_latitude: row.end_lat,
    end_longitude: row.end_lng,
    pr_time: pr ? pr.elapsed_time : null,
    athlete_pr_effort: prEffort(pr),
    athlete_segment_stats: athleteSegmentStats(pr),
    starred_date: row.starred_date.replace(/\.\d{3}Z$/, "Z"),
  };
}

/** Parses `bounds` = south,west,north,east; out of range or inverted → 400. */
function parseBounds(text: string): [number, number, number, number] {
  const parts = text.split(",").map((s) => s.trim());
  if (parts.length !== 4 || parts.some((p) => p === "" || !Number.isFinite(Number(p)))) {
    throw badRequest("Segment", "bounds", "invalid");
  }
  const [south, west, north, east] = parts.map(Number);
  if ([south, north].some((v) => v < -90 || v > 90) || [west, east].some((v) => v < -180 || v > 180)) {
    throw badRequest("Segment", "bounds", "invalid");
  }
  if (south > north || west > east) throw badRequest("Segment", "bounds", "invalid");
  return [south, west, north, east];
}

export const segmentRoutes = [
  defineRoute({
    method: "GET",
    path: "/v3/segments/explore",
    response: zExplorerResponse,
    summary: "Up to 10 segments starting inside a map area (most attempted first).",
    tag: "Segments",
    auth: "token",
    resource: "Segment",
    query: z.object({
      bounds: z.string().min(1),
      activity_type: z.enum(["running", "riding"]).optional(),
      min_cat: zInt.pipe(z.number().int().min(0).max(5)).optional(),
      max_cat: zInt.pipe(z.number().int().min(0).max(5)).optional(),
    }),
    async handler({ platform, auth, query }) {
      const [south, west, north, east] = parseBounds(query.bounds);
      const minCat = query.min_cat ?? 0;
      const maxCat = query.max_cat ?? 5;
      if (minCat > maxCat) throw badRequest("Segment", "min_cat", "invalid");
      const rows = await exploreSegments(platform.db, {
        bounds: [south, west, north, east],
        activityType: query.activity_type === "running" ? "Run" : "Ride",
        minCat,
        maxCat,
      });
      const starred = await starredBy(platform.db, auth.athleteId, rows.map((r) => Number(r.id)));
      return { segments: rows.map((r) => exploreSegment(r, starred.has(Number(r.id)))) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segments/starred",
    response: zStarredSegmentList,
    summary: "Segments the authenticated athlete starred (summary), most recently starred first.",
    tag: "Segments",
    auth: "token",
    resource: "Segment",
    query: z.object(zPaging),
    async handler({ platform, auth, query }) {
      const { perPage, offset } = paging(query);
      const viewer = viewerOf(auth)!;
      const rows = await starredSegments(platform.db, {
        athleteId: auth.athleteId,
        visible: (alias, first) => visibleOwnedObjects(viewer, alias, first),
        offset,
        limit: perPage,
      });
      const prs = await viewerPrs(platform.db, viewer, rows.map((r) => Number(r.id)));
      return rows.map((r) => starredItem(r, true, prs.get(Number(r.id))));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/athletes/:id/segments/starred",
    response: zStarredSegmentList,
    summary: "Segments an athlete starred, with start/end coordinates, the requester's PR and the starred date.",
    tag: "Segments",
    auth: "token",
    resource: "Segment",
    params: idParams,
    query: z.object(zPaging),
    async handler({ platform, auth, params, query }) {
      if (!(await findAthlete(platform.db, params.id))) throw notFound("Athlete");
      const { perPage, offset } = paging(query);
      const viewer = viewerOf(auth)!;
      const rows = await starredSegments(platform.db, {
        athleteId: params.id,
        visible: (alias, first) => visibleOwnedObjects(viewer, alias, first),
        offset,
        limit: perPage,
      });
      const ids = rows.map((r) => Number(r.id));
      const mine = await starredBy(platform.db, auth.athleteId, ids);
      const prs = await viewerPrs(platform.db, viewer, ids);
      return rows.map((r) => starredItem(r, mine.has(Number(r.id)), prs.get(Number(r.id))));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/segments",
    response: zDetailedSegment,
    summary:
      "Creates a segment from a stretch of one of the athlete's own activities (activity id and stream index range).",
    description:
      "Through the privacy engine: the activity must be visible to this token (a private one needs view_private), a segment cut from a private activity must be private (else 400 private), and no point of the stretch may lie inside the athlete's privacy zones (400 start_index or end_index).",
    tag: "Segments",
    auth: "token",
    permission: "write",
    resource: "Segment",
    status: 201,
    body: z.object({
      name: z.string().trim().min(1).max(255),
      activity_id: zNumId,
      start_index: zInt.pipe(z.number().int().min(0)),
      end_index: zInt.pipe(z.number().int().min(1)),
      private: zBool.optional(),
      hazardous: zBool.optional(),
    }),
    async handler({ platform, auth, body, requestId }) {
      const activity = await findActivity(platform.db, body.activity_id);
      if (!activity || activity.athlete_id !== auth.athleteId) throw notFound("Activity");
      const cut = await pointsFromActivity(platform, activity, {
        viewer: viewerOf(auth)!,
        startIndex: body.start_index,
        endIndex: body.end_index,
        privateSegment: body.private ?? false,
      });
      const id = await createSegment(
        platform,
        {
          name: body.name,
          ...cut,
          athleteId: auth.athleteId,
          activityId: activity.id,
          private: body.private ?? false,
          hazardous: body.hazardous ?? false,
        },
        { ...requestActor(auth, requestId), source: "api" },
        cut.cut,
      );
      return detailedSegment(await segmentOr404(platform.db, id, viewerOf(auth)), false);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segments/:id",
    response: zDetailedSegment,
    summary: "A segment (detailed), with starred for the authenticated athlete and attempt counts.",
    tag: "Segments",
    auth: "token",
    resource: "Segment",
    params: idParams,
    async handler({ platform, auth, params }) {
      const viewer = viewerOf(auth)!;
      const row = await segmentOr404(platform.db, params.id, viewer);
      const starred = await starredBy(platform.db, auth.athleteId, [row.id]);
      const prs = await viewerPrs(platform.db, viewer, [row.id]);
      return detailedWithPr(row, starred.has(row.id), prs.get(row.id));
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/v3/segments/:id/starred",
    response: zDetailedSegment,
    summary: "Stars (starred=true) or unstars a segment for the authenticated athlete.",
    tag: "Segments",
    auth: "token",
    permission: "write",
    resource: "Segment",
    params: idParams,
    body: z.object({ starred: zBool }),
    async handler({ platform, auth, params, body, requestId }) {
      await segmentOr404(platform.db, params.id, viewerOf(auth));
      await starSegment(platform, auth.athleteId, params.id, body.starred, requestActor(auth, requestId));
      const viewer = viewerOf(auth)!;
      const row = await segmentOr404(platform.db, params.id, viewer);
      const prs = await viewerPrs(platform.db, viewer, [row.id]);
      return detailedWithPr(row, body.starred, prs.get(row.id));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segments/:id/all_efforts",
    response: zSegmentEffortList,
    summary: "Efforts on a segment, ascending by start_date_local; optionally one athlete's and within local dates.",
    tag: "Segments",
    auth: "token",
    resource: "Segment",
    params: idParams,
    query: z.object({
      athlete_id: zNumId.optional(),
      start_date_local: zLocalDateTime.optional(),
      end_date_local: zLocalDateTime.optional(),
      ...zPaging,
    }),
    async handler({ platform, auth, params, query }) {
      const rows = await listEfforts(platform.db, auth, {
        segmentId: params.id,
        athleteId: query.athlete_id,
        startDateLocal: query.start_date_local,
        endDateLocal: query.end_date_local,
        ...paging(query),
      });
      return effortsWithSegments(platform.db, rows, auth.athleteId, viewerOf(auth));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segments/:id/leaderboard",
    response: zSegmentLeaderboard,
    summary:
      "The segment's leaderboard: one entry per athlete (their best), filtered; the requester's entry with context. Efforts count when the requester may see them: everyone's, and followers-only ones of the requester and of the athletes they follow.",
    tag: "Segments",
    auth: "token",
    resource: "Leaderboard",
    params: idParams,
    query: z.object({
      gender: z.enum(["M", "F"]).optional(),
      age_group: z.enum(AGE_GROUPS).optional(),
      weight_class: z.enum(WEIGHT_CLASSES).optional(),
      following: zBool.optional(),
      club_id: zNumId.optional(),
      date_range: z.enum(DATE_RANGES).optional(),
      context_entries: zInt.pipe(z.number().int().min(0).max(15)).optional(),
      ...zPaging,
    }),
    async handler({ platform, auth, params, query, dialect }) {
      // The board's one statement also reads what is decided here (the segment's privacy, the
      // viewer's premium, club membership): nothing of the board is answered before these pass.
      const viewer = viewerOf(auth);
      const board = await segmentBoard(platform.db, {
        segmentId: params.id,
        viewerId: auth.athleteId,
        // The followers-only efforts this viewer may see (their own, and those of athletes they follow).
        followersOnly: (alias, first) => visibleActivities(viewer, alias, first),
        filters: {
          gender: query.gender,
          ageGroup: query.age_group,
          weightClass: query.weight_class,
          following: query.following,
          clubId: query.club_id,
          dateRange: query.date_range,
        },
        ...paging(query, 10),
        contextEntries: query.context_entries ?? 2,
      });
      const { segment, premium, member } = board.access;
      if (!segment || !segmentVisible(segment, viewer)) throw notFound("Segment");
      if ((query.age_group || query.weight_class) && !premium) {
        throw forbidden("Leaderboard", query.age_group ? "age_group" : "weight_class", "premium_required");
      }
      if (query.club_id !== undefined && !member) throw badRequest("Leaderboard", "club_id", "invalid");
      return representBoard(board, dialect);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segments/:id/streams",
    response: zStreamSet,
    summary: "A segment's streams: distance, altitude (when known) and latlng, whatever keys are asked.",
    tag: "Segments",
    auth: "token",
    resource: "Segment",
    params: idParams,
    query: z.object({
      keys: z.string().optional(),
      key_by_type: zBool.optional(),
      resolution: effortStreamQuery.shape.resolution,
    }),
    async handler({ platform, auth, params, query }) {
      await segmentOr404(platform.db, params.id, viewerOf(auth));
      const row = (await segmentGeometry(platform.db, params.id))!;
      const points = JSON.parse(row.points) as LatLng[];
      const altitudes = row.altitudes ? JSON.parse(row.altitudes) as number[] : null;
      const distance = cumulativeDistances(points).map((d) => Math.round(d * 10) / 10);
      const streams: [string, unknown[]][] = [["distance", distance]];
      if (altitudes) streams.push(["altitude", altitudes]);
      streams.push(["latlng", points]);
      return shapeStreams(streams, {
        axis: distance,
        keyByType: query.key_by_type ?? false,
        resolution: query.resolution,
        seriesType: "distance",
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segment_efforts/:id",
    response: zSegmentEffort,
    summary: "One segment effort (64-bit id) with its segment.",
    tag: "Segments",
    auth: "token",
    resource: "SegmentEffort",
    params: z.object({ id: zId }),
    async handler({ platform, auth, params }) {
      const { effort } = await visibleEffort(platform.db, auth, params.id);
      const [summary] = await effortsWithSegments(platform.db, [effort], auth.athleteId, viewerOf(auth));
      return { ...summary, resource_state: 3 };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segment_efforts/:id/streams",
    response: zStreamSet,
    summary: "Streams of a segment effort: the activity's streams from its start_index to its end_index.",
    description: EFFORT_STREAMS_NOTE,
    tag: "Streams",
    auth: "token",
    permission: "view_private",
    resource: "SegmentEffort",
    params: z.object({ id: zId }),
    query: effortStreamQuery,
    async handler({ platform, auth, params, query }) {
      const { effort, activity } = await visibleEffort(platform.db, auth, params.id);
      // The activity's streams as the engine releases them to this caller, then the effort's stretch.
      let data = activity
        ? releasedStreams(
          await loadRelease(platform.db, activity, viewerAudience(viewerOf(auth))),
          await loadStreams(platform.db, activity.facts.streamsSha256),
        )
        : null;
      if (data) data = sliceStreams(data, effort.start_index, effort.end_index);
      return streamsResponse(data, {
        keys: (query.keys ?? "").split(",").map((k) => k.trim()).filter(Boolean),
        keyByType: query.key_by_type ?? false,
        resolution: query.resolution,
        seriesType: query.series_type ?? "distance",
      });
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segment_efforts",
    response: zSegmentEffortList,
    summary:
      "The authenticated athlete's efforts on a segment, ascending by start_date_local; optionally within local dates.",
    description:
      "segment_id required; start_date_local and end_date_local (ISO 8601, inclusive, local time) must be sent together; per_page (default 30), page. The same rules as /v3/segments/:id/all_efforts, limited to the caller's own efforts.",
    tag: "Segments",
    auth: "token",
    resource: "SegmentEffort",
    query: z.object({
      segment_id: zNumId,
      start_date_local: zLocalDateTime.optional(),
      end_date_local: zLocalDateTime.optional(),
      ...zPaging,
    }),
    async handler({ platform, auth, query }) {
      const rows = await listEfforts(platform.db, auth, {
        segmentId: query.segment_id,
        athleteId: auth.athleteId,
        startDateLocal: query.start_date_local,
        endDateLocal: query.end_date_local,
        ...paging(query),
      });
      return effortsWithSegments(platform.db, rows, auth.athleteId, viewerOf(auth));
    },
  }),
];
