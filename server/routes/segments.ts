import { z } from "zod";
import { handleCommand } from "../../events/decider.ts";
import { starDecider } from "../../events/segment/decide.ts";
import { segmentStarStream } from "../../events/segment/events.ts";
import { badRequest, forbidden, notFound } from "../http/errors.ts";
import { paging, zBool, zId, zInt, zNumId, zPaging } from "../http/input.ts";
import { defineRoute } from "../http/route.ts";
import { type Viewer, viewerOf, visibleActivities } from "../privacy/engine.ts";
import { loadRelease, releasedStreams, viewerAudience } from "../privacy/engine.ts";
import { findActivity } from "../representations/activity.ts";
import { findAthlete } from "../../projections/athletes/queries.ts";
import {
  detailedSegment, effortsWithSegments, exploreSegment, findSegment, isKomSql, SEGMENT_COLUMNS, type SegmentRow, starredBy,
  summarySegment,
} from "../representations/segment.ts";
import { loadStreams, shapeStreams, streamsResponse } from "../activities/streams.ts";
import { listEfforts, sliceStreams, visibleEffort, zLocalDateTime } from "../segments/effort-queries.ts";
import { createSegment, pointsFromActivity } from "../segments/create.ts";
import { exploreSegments } from "../segments/explore.ts";
import { cumulativeDistances, type LatLng } from "../segments/geometry.ts";
import { AGE_GROUPS, DATE_RANGES, leaderboard, WEIGHT_CLASSES } from "../segments/leaderboard.ts";
import { zStreamSet, zDetailedSegment, zExplorerResponse, zSegmentEffort, zSegmentEffortList, zSegmentLeaderboard, zStarredSegmentList, zSummarySegmentList } from "../http/responses/index.ts";

const idParams = z.object({ id: zNumId });

const effortStreamQuery = z.object({
  keys: z.string().max(500).optional(),
  key_by_type: zBool.optional(),
  resolution: z.enum(["low", "medium", "high"]).optional(),
  series_type: z.enum(["distance", "time"]).optional(),
});

const EFFORT_STREAMS_NOTE =
  "keys: comma list of time, latlng, distance, altitude, velocity_smooth, heartrate, cadence, watts, temp, moving, grade_smooth (distance is always returned; unknown keys ignored); key_by_type=true answers an object keyed by type. Values are the activity's own (distance and time count from the activity's start); original_size is the number of points in the effort. The effort must be visible to the caller as its activity is; points inside the owner's privacy zones are removed unless the owner reads. Needs read_all (view_private), as the reference documents.";

async function segmentOr404(db: Parameters<typeof findSegment>[0], id: number, viewer: Viewer | null): Promise<SegmentRow> {
  const row = await findSegment(db, id, viewer);
  if (!row) throw notFound("Segment");
  return row;
}

/** Parses `bounds` = south,west,north,east; out of range or inverted → 400. */
function parseBounds(text: string): [number, number, number, number] {
  const parts = text.split(",").map((s) => s.trim());
  if (parts.length !== 4 || parts.some((p) => p === "" || !Number.isFinite(Number(p)))) throw badRequest("Segment", "bounds", "invalid");
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
        bounds: [south, west, north, east], activityType: query.activity_type === "running" ? "Run" : "Ride", minCat, maxCat,
      });
      const starred = await starredBy(platform.db, auth.athleteId, rows.map((r) => Number(r.id)));
      return { segments: rows.map((r) => exploreSegment(r, starred.has(Number(r.id)))) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segments/starred",
    response: zSummarySegmentList,
    summary: "Segments the authenticated athlete starred (summary), most recently starred first.",
    tag: "Segments",
    auth: "token",
    resource: "Segment",
    query: z.object(zPaging),
    async handler({ platform, auth, query }) {
      const { perPage, offset } = paging(query);
      const visible = visibleActivities(viewerOf(auth), "s", 4);
      const rows = await platform.db.query<SegmentRow>(
        `select ${SEGMENT_COLUMNS} from segment_stars t join segments s on s.id = t.segment_id
          where t.athlete_id = $1 and ${visible.sql}
          order by t.starred_at desc, s.id desc offset $2 limit $3`,
        [auth.athleteId, offset, perPage, ...visible.params],
      );
      return rows.map((r) => summarySegment(r, true));
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
      const visible = visibleActivities(viewerOf(auth), "s", 4);
      const rows = await platform.db.query<SegmentRow & { starred_date: string }>(
        `select ${SEGMENT_COLUMNS}, t.starred_at as starred_date
           from segment_stars t join segments s on s.id = t.segment_id
          where t.athlete_id = $1 and ${visible.sql}
          order by t.starred_at desc, s.id desc offset $2 limit $3`,
        [params.id, offset, perPage, ...visible.params],
      );
      const ids = rows.map((r) => Number(r.id));
      const mine = await starredBy(platform.db, auth.athleteId, ids);
      const prs = ids.length === 0 ? [] : await platform.db.query<{
        segment_id: number; effort_id: number | bigint; elapsed_time: number; start_date: string; start_date_local: string;
        distance: number; kom: boolean;
      }>(
        `select distinct on (e.segment_id) e.segment_id, e.id as effort_id, e.elapsed_time, e.start_date, e.start_date_local,
                e.distance, ${isKomSql("e")} as kom
           from segment_efforts e
          where e.athlete_id = $1 and e.segment_id = any($2::bigint[]) and ${visibleActivities(viewerOf(auth), "e", 3).sql}
          order by e.segment_id, e.elapsed_time, e.start_date, e.id`,
        [auth.athleteId, ids, ...visibleActivities(viewerOf(auth), "e", 3).params],
      );
      const prBy = new Map(prs.map((p) => [Number(p.segment_id), p]));
      return rows.map((r) => {
        const pr = prBy.get(Number(r.id));
        return {
          ...summarySegment(r, mine.has(Number(r.id))),
          start_latitude: r.start_lat,
          start_longitude: r.start_lng,
          end_latitude: r.end_lat,
          end_longitude: r.end_lng,
          pr_time: pr ? pr.elapsed_time : null,
          athlete_pr_effort: pr
            ? {
              id: pr.effort_id,
              elapsed_time: pr.elapsed_time,
              distance: pr.distance,
              start_date: pr.start_date.replace(/\.\d{3}Z$/, "Z"),
              start_date_local: pr.start_date_local.replace(/\.\d{3}Z$/, "Z"),
              is_kom: pr.kom,
            }
            : null,
          starred_date: r.starred_date.replace(/\.\d{3}Z$/, "Z"),
        };
      });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v3/segments",
    response: zDetailedSegment,
    summary: "Creates a segment from a stretch of one of the athlete's own activities (activity id and stream index range).",
    description: "Through the privacy engine: the activity must be visible to this token (a private one needs view_private), a segment cut from a private activity must be private (else 400 private), and no point of the stretch may lie inside the athlete's privacy zones (400 start_index or end_index).",
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
    async handler({ platform, auth, body }) {
      const activity = await findActivity(platform.db, body.activity_id);
      if (!activity || activity.athlete_id !== auth.athleteId) throw notFound("Activity");
      const cut = await pointsFromActivity(platform, activity, {
        viewer: viewerOf(auth)!, startIndex: body.start_index, endIndex: body.end_index, privateSegment: body.private ?? false,
      });
      const id = await createSegment(platform, {
        name: body.name, ...cut, athleteId: auth.athleteId, activityId: activity.id,
        private: body.private ?? false, hazardous: body.hazardous ?? false,
      }, "api");
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
      const row = await segmentOr404(platform.db, params.id, viewerOf(auth));
      const starred = await starredBy(platform.db, auth.athleteId, [row.id]);
      return detailedSegment(row, starred.has(row.id));
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
      await handleCommand(platform.store, segmentStarStream(auth.athleteId, params.id), starDecider, {
        type: "star", starred: body.starred, athleteId: auth.athleteId, segmentId: params.id,
      }, { metadata: { athleteId: auth.athleteId, applicationId: auth.applicationId, requestId } });
      const row = await segmentOr404(platform.db, params.id, viewerOf(auth));
      return detailedSegment(row, body.starred);
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
        segmentId: params.id, athleteId: query.athlete_id, startDateLocal: query.start_date_local,
        endDateLocal: query.end_date_local, ...paging(query),
      });
      return effortsWithSegments(platform.db, rows, auth.athleteId);
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v3/segments/:id/leaderboard",
    response: zSegmentLeaderboard,
    summary: "The segment's leaderboard: one entry per athlete (their best), filtered; the requester's entry with context.",
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
      page: zInt.pipe(z.number().int().min(1)).optional(),
      per_page: zInt.pipe(z.number().int().min(1).max(200)).optional(),
    }),
    async handler({ platform, auth, params, query }) {
      await segmentOr404(platform.db, params.id, viewerOf(auth));
      if (query.age_group || query.weight_class) {
        const me = await findAthlete(platform.db, auth.athleteId);
        if (!me?.premium) throw forbidden("Leaderboard", query.age_group ? "age_group" : "weight_class", "premium_required");
      }
      if (query.club_id !== undefined) {
        const [{ table }] = await platform.db.query<{ table: string | null }>("select to_regclass('club_members')::text as table");
        const member = table
          ? await platform.db.query("select 1 from club_members where club_id = $1 and athlete_id = $2 and membership = 'member'", [query.club_id, auth.athleteId])
          : [];
        if (member.length === 0) throw badRequest("Leaderboard", "club_id", "invalid");
      }
      return leaderboard(platform.db, {
        segmentId: params.id,
        viewerId: auth.athleteId,
        filters: {
          gender: query.gender, ageGroup: query.age_group, weightClass: query.weight_class,
          following: query.following, clubId: query.club_id, dateRange: query.date_range,
        },
        page: query.page ?? 1,
        perPage: query.per_page ?? 10,
        contextEntries: query.context_entries ?? 2,
      });
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
    query: z.object({ keys: z.string().optional(), key_by_type: zBool.optional(), resolution: effortStreamQuery.shape.resolution }),
    async handler({ platform, auth, params, query }) {
      await segmentOr404(platform.db, params.id, viewerOf(auth));
      const [row] = await platform.db.query<{ points: string; altitudes: string | null }>(
        "select points::text as points, altitudes::text as altitudes from segments where id = $1",
        [params.id],
      );
      const points = JSON.parse(row.points) as LatLng[];
      const altitudes = row.altitudes ? JSON.parse(row.altitudes) as number[] : null;
      const distance = cumulativeDistances(points).map((d) => Math.round(d * 10) / 10);
      const streams: [string, unknown[]][] = [["distance", distance]];
      if (altitudes) streams.push(["altitude", altitudes]);
      streams.push(["latlng", points]);
      return shapeStreams(streams, { axis: distance, keyByType: query.key_by_type ?? false, resolution: query.resolution, seriesType: "distance" });
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
      const [summary] = await effortsWithSegments(platform.db, [effort], auth.athleteId);
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
        ? releasedStreams(await loadRelease(platform.db, activity, viewerAudience(viewerOf(auth))), await loadStreams(platform.db, activity.facts.streamsSha256))
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
    summary: "The authenticated athlete's efforts on a segment, ascending by start_date_local; optionally within local dates.",
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
        segmentId: query.segment_id, athleteId: auth.athleteId, startDateLocal: query.start_date_local,
        endDateLocal: query.end_date_local, ...paging(query),
      });
      return effortsWithSegments(platform.db, rows, auth.athleteId);
    },
  }),
];
