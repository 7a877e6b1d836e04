import { createHash } from "node:crypto";
import type { Queryable } from "../../events/db/types.ts";
import { type ActivityRow, kudoedByAthlete, photosOf } from "../../projections/activities/queries.ts";
import type { ActivityDetailPart } from "../../projections/queries/activity-detail.ts";
import type { ActivityFacts } from "../../projections/activities/projection.ts";
import { fullPolyline } from "../blobs.ts";
import {
  type Release, releasedLocation, releasedPolyline, releaseOf, type Viewer, viewerAudience, type ZoneSet, zonesOfOwnersFor,
} from "../privacy/engine.ts";
import { metaAthlete } from "../athletes/represent.ts";
import { findGear } from "../../projections/queries/gear-with-distance.ts";
import { type GearRow, summaryGear } from "../gear/represent.ts";
import { photosSummary, type PhotoRow } from "../photos/represent.ts";

export { ACTIVITY_SELECT, type ActivityRow, findActivity, normalizeActivityRow } from "../../projections/activities/queries.ts";
export { processingUploadOf } from "../../projections/uploads/queries.ts";

/** What a representation is built for. */
export interface ActivityContext {
  db: Queryable;
  viewer: Viewer | null;
  publicUrl: string;
  /** GET /v3/activities/:id?include_all_efforts=true */
  includeAllEfforts: boolean;
  /** Everything a detailed activity needs, read with its row in one statement (server/activities/detail.ts). */
  preload?: ActivityDetailPreload;
}

/**
 * The parts of a detailed activity read together with its row (one SQL statement instead of one
 * per part): has_kudoed, the privacy zones that apply for this viewer, gear, photos, and each
 * registered detail part's raw value (`parts[key]`), which its contributor reads instead of querying.
 */
export interface ActivityDetailPreload {
  hasKudoed: boolean;
  /** The owner's zones when they apply to this viewer (undefined: none, or the owner with view_private). */
  zones: ZoneSet | undefined;
  gear: GearRow | undefined;
  photos: PhotoRow[];
  parts: Record<string, unknown>;
}

/**
 * A SQL expression read with the activity row for its detail (alias `a` is the activities row,
 * $2 the viewer's athlete id or null, $3 include_all_efforts), under `key` in the preload's parts.
 */
export type { ActivityDetailPart };
export const activityDetailParts: ActivityDetailPart[] = [];

/**
 * Extension point for other families (Segments: segment_efforts, pr_count, achievement_count).
 * A detail contributor returns fields merged over the defaults of the detailed activity
 * (segment_efforts: [], pr_count: 0, achievement_count: 0); a summary contributor answers, for a
 * page of activities at once, the fields to merge into each summary (pr_count, achievement_count).
 * Extensions are listed in server/wiring.ts, which installs them when a platform opens.
 */
export type ActivityDetailContributor = (row: ActivityRow, context: ActivityContext) => Promise<Record<string, unknown>>;
export type ActivitySummaryContributor = (
  rows: readonly ActivityRow[],
  context: ActivityContext,
) => Promise<Map<number, Record<string, unknown>>>;

export const activityDetailContributors: ActivityDetailContributor[] = [];
export const activitySummaryContributors: ActivitySummaryContributor[] = [];

/** What one family adds to activities: a part read with the detail's row, detail and summary fields. */
export interface ActivityExtension {
  part?: ActivityDetailPart;
  detail?: ActivityDetailContributor;
  summary?: ActivitySummaryContributor;
}

/** Adds an extension's part and contributors (server/wiring.ts calls it once per listed extension). */
export function installActivityExtension(extension: ActivityExtension): void {
  if (extension.part && !activityDetailParts.includes(extension.part)) activityDetailParts.push(extension.part);
  if (extension.detail && !activityDetailContributors.includes(extension.detail)) activityDetailContributors.push(extension.detail);
  if (extension.summary && !activitySummaryContributors.includes(extension.summary)) activitySummaryContributors.push(extension.summary);
}

export function metaActivity(id: number) {
  return { id, resource_state: 1 };
}

/** An activity whose upload is still processing. */
export function processingActivity(id: number) {
  return { id, resource_state: -1 };
}

/** Not a secret: a stable token derived from the activity (documented in docs/app-developers.md). */
export function embedToken(row: ActivityRow): string {
  return createHash("sha256").update(`embed:${row.id}:${row.athlete_id}:${row.start_date}`).digest("hex").slice(0, 40);
}

/**
 * The privacy zones that apply to each row for this viewer (through the privacy engine): the
 * owner's zones, except for the owner with view_private (who sees everything as recorded). Loaded
 * once for a page of rows; rows whose owner has no zones are absent.
 */
async function zonesFor(rows: readonly ActivityRow[], context: ActivityContext): Promise<Map<number, ZoneSet>> {
  return await zonesOfOwnersFor(context.db, rows.filter(hasPlace), viewerAudience(context.viewer));
}

/** What of the row this viewer may see (privacy engine). */
function releaseFor(row: ActivityRow, viewer: Viewer | null, zones: ZoneSet | undefined): Release {
  return releaseOf(row, viewerAudience(viewer), zones);
}

function hasPlace(row: ActivityRow): boolean {
  const f = row.facts;
  return !!(f.polyline || f.summaryPolyline || f.startLatlng || f.endLatlng);
}

/** Fields common to summary and detail, in the real service's order. */
function baseActivity(row: ActivityRow, release: Release, hasKudoed: boolean) {
  const f = row.facts;
  const latlng = (p: [number, number] | null) => releasedLocation(release, p);
  return {
    id: row.id,
    resource_state: 2,
    external_id: row.external_id,
    upload_id: row.upload_id,
    upload_id_str: row.upload_id === null ? null : String(row.upload_id),
    athlete: metaAthlete(row.athlete_id),
    name: row.name,
    distance: row.distance,
    moving_time: row.moving_time,
    elapsed_time: row.elapsed_time,
    total_elevation_gain: row.total_elevation_gain,
    type: row.type,
    sport_type: f.sportType ?? row.type,
    workout_type: f.workoutType,
    start_date: row.start_date,
    start_date_local: row.start_date_local,
    timezone: row.timezone,
    start_latlng: latlng(f.startLatlng),
    end_latlng: latlng(f.endLatlng),
    // Strava's answers also carry these (its summaries, as stravalib reads them): the offset of local
    // time in seconds, the released start point split in two (null where the engine hides it), who sees it.
    utc_offset: Math.round((Date.parse(row.start_date_local) - Date.parse(row.start_date)) / 1000),
    start_latitude: latlng(f.startLatlng)?.[0] ?? null,
    start_longitude: latlng(f.startLatlng)?.[1] ?? null,
    visibility: row.private ? "only_me" : "everyone",
    device_name: f.deviceName ?? null,
    location_city: null,
    location_state: null,
    location_country: null,
    achievement_count: 0,
    pr_count: 0,
    kudos_count: row.kudos_count,
    comment_count: row.comment_count,
    athlete_count: 1,
    photo_count: row.photo_count,
    total_photo_count: row.total_photo_count,
    map: { id: `a${row.id}`, summary_polyline: releasedPolyline(release, f.summaryPolyline), resource_state: 2 } as Record<string, unknown>,
    trainer: row.trainer,
    commute: row.commute,
    manual: row.manual,
    private: row.private,
    hide_from_home: (f as { hideFromHome?: boolean }).hideFromHome ?? false,
    flagged: false,
    gear_id: row.gear_id,
    average_speed: f.averageSpeed,
    max_speed: f.maxSpeed,
    average_cadence: f.averageCadence,
    average_temp: f.averageTemp,
    average_watts: f.averageWatts,
    max_watts: f.maxWatts,
    weighted_average_watts: f.weightedAverageWatts,
    kilojoules: f.kilojoules,
    device_watts: f.deviceWatts,
    has_heartrate: f.hasHeartrate,
    average_heartrate: f.averageHeartrate,
    max_heartrate: f.maxHeartrate,
    elev_high: f.elevHigh,
    elev_low: f.elevLow,
    suffer_score: row.owner_premium ? f.sufferScore : null,
    has_kudoed: hasKudoed,
  };
}

function kudoedBy(db: Queryable, viewer: Viewer | null, ids: readonly number[]): Promise<Set<number>> {
  return viewer ? kudoedByAthlete(db, viewer.athleteId, ids) : Promise.resolve(new Set());
}

async function summariesWithZones(rows: readonly ActivityRow[], context: ActivityContext) {
  const [kudoed, zones, extras] = await Promise.all([
    kudoedBy(context.db, context.viewer, rows.map((r) => r.id)),
    zonesFor(rows, context),
    Promise.all(activitySummaryContributors.map((c) => c(rows, context))),
  ]);
  const summaries = rows.map((row) => {
    const release = releaseFor(row, context.viewer, zones.get(row.athlete_id));
    const base: Record<string, unknown> = baseActivity(row, release, kudoed.has(row.id));
    for (const extra of extras) Object.assign(base, extra.get(row.id) ?? {});
    return base;
  });
  return { summaries, zones };
}

/**
 * Summary activities (resource_state 2) for a page of rows: detail-only attributes absent. For
 * everyone but the owner with view_private, points inside the owner's privacy zones are cut from
 * the polyline and a start/end location inside a zone is null (the privacy engine, server/privacy/engine.ts).
 */
export async function summaryActivities(rows: readonly ActivityRow[], context: ActivityContext) {
  return (await summariesWithZones(rows, context)).summaries;
}

function runsOnly<T>(row: ActivityRow, items: T[]): T[] {
  return row.type === "Run" ? items : [];
}

/** Offset between local and UTC start, to shift lap and effort start dates. */
function localOffsetMs(row: ActivityRow): number {
  return Date.parse(row.start_date_local) - Date.parse(row.start_date);
}

export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Lap summaries (spec, Lap); lap ids are derived: activity id × 10000 + lap_index. */
export function laps(row: ActivityRow) {
  const offset = localOffsetMs(row);
  return row.facts.laps.map((lap) => ({
    id: row.id * 10000 + lap.lapIndex,
    resource_state: 2,
    name: lap.name,
    activity: metaActivity(row.id),
    athlete: metaAthlete(row.athlete_id),
    elapsed_time: lap.elapsedTime,
    moving_time: lap.movingTime,
    start_date: lap.startDate,
    start_date_local: isoSeconds(Date.parse(lap.startDate) + offset),
    distance: lap.distance,
    start_index: lap.startIndex,
    end_index: lap.endIndex,
    total_elevation_gain: lap.totalElevationGain,
    average_speed: lap.averageSpeed,
    max_speed: lap.maxSpeed,
    average_cadence: lap.averageCadence,
    average_watts: lap.averageWatts,
    average_heartrate: lap.averageHeartrate,
    max_heartrate: lap.maxHeartrate,
    lap_index: lap.lapIndex,
    split: lap.lapIndex,
    pace_zone: row.type === "Run" ? 0 : null,
  }));
}

function splits(row: ActivityRow, items: ActivityFacts["splitsMetric"]) {
  return runsOnly(row, items.map((s) => ({
    distance: s.distance,
    elapsed_time: s.elapsedTime,
    elevation_difference: s.elevationDifference,
    moving_time: s.movingTime,
    split: s.split,
    average_speed: s.averageSpeed,
    ...(s.averageHeartrate === null ? {} : { average_heartrate: s.averageHeartrate }),
    pace_zone: s.paceZone,
  })));
}

/** Best efforts (spec, Best effort): segment, kom_rank, pr_rank null; activity and athlete hold only id. */
function bestEfforts(row: ActivityRow) {
  const offset = localOffsetMs(row);
  return runsOnly(row, row.facts.bestEfforts.map((e, i) => ({
    id: row.id * 100 + i + 1,
    resource_state: 2,
    name: e.name,
    segment: null,
    activity: { id: row.id },
    athlete: { id: row.athlete_id },
    activity_id: row.id,
    // Best efforts are on no leaderboard (SummarySegmentEffort.is_kom: the current best on it).
    is_kom: false,
    kom_rank: null,
    pr_rank: null,
    elapsed_time: e.elapsedTime,
    moving_time: e.movingTime,
    start_date: e.startDate,
    start_date_local: isoSeconds(Date.parse(e.startDate) + offset),
    distance: e.distance,
    start_index: e.startIndex,
    end_index: e.endIndex,
    hidden: false,
    achievements: e.prRank === null ? [] : [{ type_id: 3, type: "pr", rank: e.prRank }],
    average_cadence: e.averageCadence ?? null,
    average_watts: e.averageWatts ?? null,
    device_watts: e.deviceWatts ?? false,
    average_heartrate: e.averageHeartrate ?? null,
    max_heartrate: e.maxHeartrate ?? null,
  })));
}

/** The detailed activity (resource_state 3): every field of the spec's Activity table. */
export async function detailedActivity(row: ActivityRow, context: ActivityContext) {
  const pre = context.preload;
  let summary: Record<string, unknown>;
  let release: Release;
  if (pre) {
    release = releaseFor(row, context.viewer, hasPlace(row) ? pre.zones : undefined);
    summary = baseActivity(row, release, pre.hasKudoed);
    for (const contribute of activitySummaryContributors) Object.assign(summary, (await contribute([row], context)).get(row.id) ?? {});
  } else {
    const loaded = await summariesWithZones([row], context);
    summary = loaded.summaries[0];
    release = releaseFor(row, context.viewer, loaded.zones.get(row.athlete_id));
  }
  const f = row.facts;
  const gear = pre ? pre.gear : row.gear_id ? await findGear(context.db, row.gear_id) : undefined;
  const photos = pre ? pre.photos : await photosOf(context.db, row.id);
  const detail: Record<string, unknown> = {
    ...summary,
    resource_state: 3,
    map: {
      id: `a${row.id}`,
      // A long track's full polyline is kept as a blob (server/uploads/polyline-blob.ts).
      polyline: releasedPolyline(release, await fullPolyline(context.db, f)),
      summary_polyline: releasedPolyline(release, f.summaryPolyline),
      resource_state: 3,
    },
    description: row.description,
    calories: f.calories,
    segment_efforts: [],
    splits_metric: splits(row, f.splitsMetric),
    splits_standard: splits(row, f.splitsStandard),
    laps: laps(row),
    best_efforts: bestEfforts(row),
    gear: gear ? summaryGear(gear) : null,
    photos: photosSummary(context.publicUrl, photos),
    device_name: f.deviceName,
    embed_token: embedToken(row),
  };
  for (const contribute of activityDetailContributors) Object.assign(detail, await contribute(row, context));
  return detail;
}
