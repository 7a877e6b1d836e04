import type { EffortRow, PrEffortRow, SegmentRow } from "../../projections/segments/queries.ts";
import { exactInteger } from "../../shared/json.ts";
import type { z } from "zod";
import { CLIMB_CATEGORY_DESC } from "./geometry.ts";
import type { zDetailedSegment, zSummarySegment } from "./schema.ts";

export type { EffortRow, PrEffortRow, SegmentRow };

/** A segment's sport: Ride or Run, the only ones a segment is created with (events/segment/create.ts). */
const segmentSport = (type: string): "Ride" | "Run" => (type === "Run" ? "Run" : "Ride");

/** Summary segment (resource_state 2). */
export function summarySegment(row: SegmentRow, starred: boolean): z.input<typeof zSummarySegment> {
  return {
    id: Number(row.id),
    resource_state: 2,
    name: row.name,
    activity_type: segmentSport(row.activity_type),
    distance: row.distance,
    average_grade: row.average_grade,
    maximum_grade: row.maximum_grade,
    elevation_high: row.elevation_high,
    elevation_low: row.elevation_low,
    start_latlng: [row.start_lat, row.start_lng],
    end_latlng: [row.end_lat, row.end_lng],
    climb_category: row.climb_category,
    // Strings, never null (spec and Strava's model): "" where no place is known.
    city: row.city ?? "",
    state: row.state ?? "",
    country: row.country ?? "",
    private: row.private,
    hazardous: row.hazardous,
    starred,
  };
}

/** Detailed segment (resource_state 3). */
export function detailedSegment(row: SegmentRow, starred: boolean): z.input<typeof zDetailedSegment> {
  return {
    ...summarySegment(row, starred),
    resource_state: 3,
    created_at: row.created_at,
    updated_at: row.updated_at,
    total_elevation_gain: row.total_elevation_gain,
    // Strava's PolylineMap: the segment's line as polyline and summary_polyline (one line, not simplified).
    map: { id: `s${row.id}`, polyline: row.polyline, summary_polyline: row.polyline, resource_state: 3 },
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

const noMillis = (iso: string) => iso.replace(/\.\d{3}Z$/, "Z");

/** Segment effort summary (resource_state 2) with its segment summary. */
export function summaryEffort(row: EffortRow, segment: ReturnType<typeof summarySegment> | null) {
  return {
    id: exactInteger(row.id),
    resource_state: 2,
    name: row.name,
    activity: { id: Number(row.activity_id), resource_state: 1 },
    athlete: { id: Number(row.athlete_id), resource_state: 1 },
    activity_id: Number(row.activity_id),
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

/**
 * The requesting athlete's PR on a segment (`athlete_pr_effort`), or null without one. The spec's
 * fields (id, elapsed_time, distance, start_date, start_date_local, is_kom — the SummarySegmentEffort
 * shape real responses carry, with its activity_id) and the fields of Strava's published model for
 * it, SummaryPRSegmentEffort (pr_activity_id, pr_elapsed_time, pr_date, effort_count: the athlete's
 * efforts on the segment), so clients written against either find theirs.
 */
export function prEffort(pr: PrEffortRow | undefined) {
  if (!pr) return null;
  return {
    id: exactInteger(pr.effort_id),
    activity_id: Number(pr.activity_id),
    elapsed_time: pr.elapsed_time,
    distance: pr.distance,
    start_date: noMillis(pr.start_date),
    start_date_local: noMillis(pr.start_date_local),
    is_kom: pr.kom === true,
    pr_activity_id: Number(pr.activity_id),
    pr_elapsed_time: pr.elapsed_time,
    pr_date: noMillis(pr.start_date),
    effort_count: Number(pr.effort_count),
  };
}

/**
 * The athlete's statistics on a segment (`athlete_segment_stats`): PR time, date and activity, and
 * effort count. pr_date is a calendar date (the PR's local day, "2011-09-25"), as Strava sends it.
 */
export function athleteSegmentStats(pr: PrEffortRow | undefined) {
  return {
    pr_elapsed_time: pr ? pr.elapsed_time : null,
    pr_date: pr ? noMillis(pr.start_date_local).slice(0, 10) : null,
    pr_activity_id: pr ? Number(pr.activity_id) : null,
    effort_count: pr ? Number(pr.effort_count) : 0,
  };
}
