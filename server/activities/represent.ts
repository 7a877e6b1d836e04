import { createHash } from "node:crypto";
import type { z } from "zod";
import type { ActivityRow } from "../../projections/activities/queries.ts";
import type { ActivityFacts } from "../../projections/activities/projection.ts";
import { type Release, releasedLocation, releasedPolyline } from "../privacy/engine.ts";
import { metaAthlete } from "../athletes/represent.ts";
import { isPrivateVisibility } from "../../shared/visibility.ts";
import { type GearRow, summaryGear } from "../gear/represent.ts";
import { photosSummary } from "./photos-summary.ts";
import type { PhotoRow } from "../../projections/activities/queries.ts";
import type { zDetailedActivity, zSummaryActivity } from "./schema.ts";
import type { Dialect } from "../http/dialect.ts";

/**
 * Activities as the API shows them, built from rows and what was read with them (pure: the reads
 * are in server/activities/read.ts). `release` is what of the row the viewer may see (the privacy
 * engine), `extras` the fields other families add (server/activities/extensions.ts).
 */

export type { ActivityRow };

/**
 * The response schemas' shapes (server/activities/schema.ts); type and sport_type as the read model
 * holds them (text the decider checked when it was recorded).
 */
type AsStored<T> = Omit<T, "type" | "sport_type"> & { type: string; sport_type: string };
/** The spec's summary (zSummaryActivity); Strava's dialect adds device_name, which its summaries carry. */
export type SummaryActivity = AsStored<z.input<typeof zSummaryActivity>> & { device_name?: string | null };
export type DetailedActivity = AsStored<z.input<typeof zDetailedActivity>>;

/**
 * What the spec's summary representation omits of the detailed one (spec, Activity: "same as
 * detailed except these attributes are omitted"). Strava's summaries carry device_name; on /v3 none
 * of these appear in a summary (tests/dropin/spec-contract.test.ts reads the list from the spec).
 */
export const SPEC_SUMMARY_OMITS = [
  "calories",
  "description",
  "gear",
  "segment_efforts",
  "splits_metric",
  "splits_standard",
  "laps",
  "best_efforts",
  "device_name",
  "embed_token",
  "photos",
] as const;

/**
 * The string fields of the spec's Activity table (and the map's polylines): on /v3 a string is
 * never null ("string", not "string or null"), "" where there is none — an activity without a
 * description, gear, device or GPS track. Strava's dialect answers null there, as Strava does.
 */
const SPEC_STRINGS = [
  "external_id",
  "name",
  "description",
  "type",
  "timezone",
  "location_city",
  "location_state",
  "location_country",
  "device_name",
  "embed_token",
  "gear_id",
] as const;

function specStrings<T extends { map: { polyline?: string | null; summary_polyline: string | null } }>(activity: T): T {
  const fields = activity as Record<string, unknown>;
  for (const key of SPEC_STRINGS) if (fields[key] === null) fields[key] = "";
  if (activity.map.summary_polyline === null) activity.map.summary_polyline = "";
  if (activity.map.polyline === null) activity.map.polyline = "";
  return activity;
}

export function metaActivity(id: number) {
  return { id, resource_state: 1 };
}

/** An activity whose upload is still processing. */
export function processingActivity(id: number) {
  return { id, resource_state: -1 };
}

/** Embed tokens computed lately, by what they are derived from (at most EMBED_TOKENS_KEPT, oldest dropped first). */
const embedTokens = new Map<string, string>();
const EMBED_TOKENS_KEPT = 10_000;

/**
 * Not a secret: a stable token derived from the activity (documented in docs/app-developers.md).
 * A function of its input, so kept once computed: a SHA-256 through node:crypto was 17 µs of a GET's
 * 1.2 ms under load, every time the same activity was read.
 */
export function embedToken(row: ActivityRow): string {
  const source = `embed:${row.id}:${row.athlete_id}:${row.start_date}`;
  let token = embedTokens.get(source);
  if (token === undefined) {
    token = createHash("sha256").update(source).digest("hex").slice(0, 40);
    if (embedTokens.size >= EMBED_TOKENS_KEPT) embedTokens.delete(embedTokens.keys().next().value!);
    embedTokens.set(source, token);
  }
  return token;
}

/** Whether the row has a place the privacy zones may hide (else no zones need to be read for it). */
export function hasPlace(row: ActivityRow): boolean {
  const f = row.facts;
  return !!(f.polyline || f.summaryPolyline || f.startLatlng || f.endLatlng);
}

/** Fields common to summary and detail, in the real service's order. */
function baseActivity(row: ActivityRow, release: Release, hasKudoed: boolean): SummaryActivity {
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
    visibility: row.visibility,
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
    map: { id: `a${row.id}`, summary_polyline: releasedPolyline(release, f.summaryPolyline), resource_state: 2 },
    trainer: row.trainer,
    commute: row.commute,
    manual: row.manual,
    private: isPrivateVisibility(row.visibility),
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

/**
 * A summary activity (resource_state 2): detail-only attributes absent. For everyone but the owner
 * with view_private, points inside the owner's privacy zones are cut from the polyline and a
 * start/end location inside a zone is null (`release`, from the privacy engine). `extras`: the
 * fields each activity extension adds, merged in order. In Strava's dialect the summary also
 * carries device_name, as Strava's list answers do; on /v3 nothing the spec's summary omits.
 */
export function summaryActivity(
  row: ActivityRow,
  release: Release,
  hasKudoed: boolean,
  extras: readonly Record<string, unknown>[],
  dialect: Dialect,
): SummaryActivity {
  const summary: SummaryActivity = baseActivity(row, release, hasKudoed);
  if (dialect === "strava") summary.device_name = row.facts.deviceName ?? null;
  for (const extra of extras) Object.assign(summary, extra);
  if (dialect === "spec") {
    for (const omitted of SPEC_SUMMARY_OMITS) delete (summary as Record<string, unknown>)[omitted];
    specStrings(summary);
  }
  return summary;
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
    sport_type: lap.sportType === undefined ? row.facts.sportType ?? row.type : lap.sportType,
  }));
}

function splits(row: ActivityRow, items: ActivityFacts["splitsMetric"]) {
  return runsOnly(
    row,
    items.map((s) => ({
      distance: s.distance,
      elapsed_time: s.elapsedTime,
      elevation_difference: s.elevationDifference,
      moving_time: s.movingTime,
      split: s.split,
      average_speed: s.averageSpeed,
      ...(s.averageHeartrate === null ? {} : { average_heartrate: s.averageHeartrate }),
      pace_zone: s.paceZone,
    })),
  );
}

/** Best efforts (spec, Best effort): segment, kom_rank, pr_rank null; activity and athlete hold only id. */
function bestEfforts(row: ActivityRow) {
  const offset = localOffsetMs(row);
  return runsOnly(
    row,
    row.facts.bestEfforts.map((e, i) => ({
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
    })),
  );
}

/** What a detailed activity shows beyond its summary, read with it (server/activities/read.ts). */
export interface ActivityDetailReads {
  gear: GearRow | undefined;
  photos: readonly PhotoRow[];
  /** The full polyline as recorded (a long track's is kept as a blob: server/uploads/polyline-blob.ts). */
  polyline: string | null;
  publicUrl: string;
}

/**
 * The detailed activity (resource_state 3): every field of the spec's Activity table, over the
 * activity's summary; `extras` (the activity extensions' detail fields) merged last.
 */
export function detailedActivityOf(
  row: ActivityRow,
  summary: SummaryActivity,
  release: Release,
  reads: ActivityDetailReads,
  extras: readonly Record<string, unknown>[],
  dialect: Dialect,
): DetailedActivity {
  const f = row.facts;
  const detail: DetailedActivity = {
    ...summary,
    resource_state: 3,
    map: {
      id: `a${row.id}`,
      polyline: releasedPolyline(release, reads.polyline),
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
    gear: reads.gear ? summaryGear(reads.gear) : null,
    photos: photosSummary(reads.publicUrl, reads.photos),
    device_name: f.deviceName,
    embed_token: embedToken(row),
    // This server's addition (docs/numbers.md): the altitudes are the recording's GPS altitude.
    elevation_from_gps: f.elevationSource === undefined || f.elevationSource === null
      ? null
      : f.elevationSource === "gps",
  };
  for (const extra of extras) Object.assign(detail, extra);
  return dialect === "spec" ? specStrings(detail) : detail;
}
