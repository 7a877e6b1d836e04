import type { Queryable } from "../../events/db/types.ts";
import { canSeeActivity, type Viewer } from "../privacy/engine.ts";
import { exactInteger } from "../../shared/json.ts";
import { CLIMB_CATEGORY_DESC } from "../segments/geometry.ts";

export interface SegmentRow {
  id: number;
  athlete_id: number | null;
  activity_id: number | null;
  name: string;
  activity_type: string;
  distance: number;
  average_grade: number;
  maximum_grade: number;
  elevation_high: number | null;
  elevation_low: number | null;
  total_elevation_gain: number;
  climb_category: number;
  start_lat: number;
  start_lng: number;
  end_lat: number;
  end_lng: number;
  polyline: string;
  city: string | null;
  state: string | null;
  country: string | null;
  private: boolean;
  hazardous: boolean;
  effort_count: number;
  athlete_count: number;
  star_count: number;
  created_at: string;
  updated_at: string;
}

export const SEGMENT_COLUMNS = `s.id, s.athlete_id, s.activity_id, s.name, s.activity_type, s.distance, s.average_grade,
  s.maximum_grade, s.elevation_high, s.elevation_low, s.total_elevation_gain, s.climb_category, s.start_lat, s.start_lng,
  s.end_lat, s.end_lng, s.polyline, s.city, s.state, s.country, s.private, s.hazardous, s.effort_count, s.athlete_count,
  s.star_count, s.created_at, s.updated_at`;

/** A segment the viewer may see (private segments only by their creator), or undefined. */
/**
 * A segment as the viewer may see it: a private segment (possibly cut from a private activity) only
 * for its owner with view_private — the privacy engine's rule, as for the activities it comes from.
 */
export async function findSegment(db: Queryable, id: number, viewer: Viewer | null): Promise<SegmentRow | undefined> {
  const [row] = await db.query<SegmentRow>(`select ${SEGMENT_COLUMNS} from segments s where s.id = $1`, [id]);
  if (!row) return undefined;
  if (!canSeeActivity({ athlete_id: row.athlete_id ?? 0, private: row.private }, viewer)) return undefined;
  return { ...row, id: Number(row.id) };
}

export async function starredBy(db: Queryable, athleteId: number, segmentIds: number[]): Promise<Set<number>> {
  if (segmentIds.length === 0) return new Set();
  const rows = await db.query<{ segment_id: number }>(
    "select segment_id from segment_stars where athlete_id = $1 and segment_id = any($2::bigint[])",
    [athleteId, segmentIds],
  );
  return new Set(rows.map((r) => Number(r.segment_id)));
}

/** Summary segment (resource_state 2). */
export function summarySegment(row: SegmentRow, starred: boolean) {
  return {
    id: Number(row.id),
    resource_state: 2,
    name: row.name,
    activity_type: row.activity_type,
    distance: row.distance,
    average_grade: row.average_grade,
    maximum_grade: row.maximum_grade,
    elevation_high: row.elevation_high,
    elevation_low: row.elevation_low,
    start_latlng: [row.start_lat, row.start_lng],
    end_latlng: [row.end_lat, row.end_lng],
    climb_category: row.climb_category,
    city: row.city,
    state: row.state,
    country: row.country,
    private: row.private,
    hazardous: row.hazardous,
    starred,
  };
}

/** Detailed segment (resource_state 3). */
export function detailedSegment(row: SegmentRow, starred: boolean) {
  return {
    ...summarySegment(row, starred),
    resource_state: 3,
    created_at: row.created_at,
    updated_at: row.updated_at,
    total_elevation_gain: row.total_elevation_gain,
    map: { id: `s${row.id}`, polyline: row.polyline, resource_state: 3 },
    effort_count: Number(row.effort_count),
    athlete_count: Number(row.athlete_count),
    star_count: Number(row.star_count),
  };
}

/** Explore item (segments explore response). */
export function exploreSegment(row: SegmentRow & { elev_difference: number }, starred: boolean) {
  return {
    id: Number(row.id),
    resource_state: 2,
    name: row.name,
    climb_category: row.climb_category,
    climb_category_desc: CLIMB_CATEGORY_DESC[row.climb_category] ?? "NC",
    avg_grade: row.average_grade,
    start_latlng: [row.start_lat, row.start_lng],
    end_latlng: [row.end_lat, row.end_lng],
    elev_difference: row.elev_difference,
    distance: row.distance,
    points: row.polyline,
    starred,
  };
}

export interface EffortRow {
  id: number | bigint;
  segment_id: number;
  activity_id: number;
  athlete_id: number;
  name: string;
  start_index: number;
  end_index: number;
  start_date: string;
  start_date_local: string;
  elapsed_time: number;
  moving_time: number;
  distance: number;
  average_heartrate: number | null;
  max_heartrate: number | null;
  average_watts: number | null;
  average_cadence: number | null;
  kom_rank: number | null;
  pr_rank: number | null;
  achievements: { type_id: number; type: string; rank: number }[];
  hidden: boolean;
  private: boolean;
  /** Whether the effort holds the segment's overall record now (isKomSql). */
  is_kom: boolean;
}

/**
 * SQL: whether effort `e` is a current KOM/QOM — first place (rank 0) on the segment's overall
 * leaderboard as it stands now: it is its athlete's best public effort (segment_bests) and no other
 * athlete's best is strictly faster (ties share first place, as they share the leaderboard's rank).
 * Private efforts never are. Unlike kom_rank (frozen at upload), this follows later efforts.
 */
export function isKomSql(e: string): string {
  return `exists (select 1 from segment_bests kb
     where kb.segment_id = ${e}.segment_id and kb.athlete_id = ${e}.athlete_id and kb.effort_id = ${e}.id
       and not exists (select 1 from segment_bests ko where ko.segment_id = kb.segment_id and ko.elapsed_time < kb.elapsed_time))`;
}

export const EFFORT_COLUMNS = `e.id, e.segment_id, e.activity_id, e.athlete_id, e.name, e.start_index, e.end_index, e.start_date,
  e.start_date_local, e.elapsed_time, e.moving_time, e.distance, e.average_heartrate, e.max_heartrate, e.average_watts,
  e.average_cadence, e.kom_rank, e.pr_rank, e.achievements, e.hidden, e.private, ${isKomSql("e")} as is_kom`;

const noMillis = (iso: string) => iso.replace(/\.\d{3}Z$/, "Z");

/** Segment effort summary (resource_state 2) with its segment summary. */
export function summaryEffort(row: EffortRow, segment: ReturnType<typeof summarySegment> | null) {
  return {
    id: exactInteger(row.id),
    resource_state: 2,
    name: row.name,
    activity: { id: Number(row.activity_id), resource_state: 1 },
    athlete: { id: Number(row.athlete_id), resource_state: 1 },
    elapsed_time: row.elapsed_time,
    moving_time: row.moving_time,
    start_date: noMillis(row.start_date),
    start_date_local: noMillis(row.start_date_local),
    distance: row.distance,
    start_index: row.start_index,
    end_index: row.end_index,
    average_cadence: row.average_cadence,
    device_watts: row.average_watts !== null,
    average_watts: row.average_watts,
    average_heartrate: row.average_heartrate,
    max_heartrate: row.max_heartrate,
    segment,
    kom_rank: row.kom_rank,
    pr_rank: row.pr_rank,
    achievements: row.achievements ?? [],
    hidden: row.hidden,
    is_kom: row.is_kom === true,
  };
}

/** Summaries of effort rows, with their segments' summaries (starred relative to the viewer). */
export async function effortsWithSegments(db: Queryable, rows: EffortRow[], viewerId: number | null) {
  const ids = [...new Set(rows.map((r) => Number(r.segment_id)))];
  if (ids.length === 0) return [];
  const segments = await db.query<SegmentRow>(`select ${SEGMENT_COLUMNS} from segments s where s.id = any($1::bigint[])`, [ids]);
  const starred = viewerId === null ? new Set<number>() : await starredBy(db, viewerId, ids);
  const byId = new Map(segments.map((s) => [Number(s.id), summarySegment(s, starred.has(Number(s.id)))]));
  return rows.map((r) => summaryEffort(r, byId.get(Number(r.segment_id)) ?? null));
}
