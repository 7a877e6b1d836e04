import type { FeedFacts } from "../../projections/club-feed/projection.ts";

export interface ClubFeedRow {
  activity_id: number;
  athlete_id: number;
  private: boolean;
  facts: FeedFacts;
}

const round2 = (p: [number, number] | null) =>
  p ? [Math.round(p[0] * 100) / 100, Math.round(p[1] * 100) / 100] as [number, number] : null;

/**
 * A summary activity (resource_state 2) as a club feed lists it: the spec's summary fields plus
 * `guid`. Start/end locations are rounded to 2 decimals unless the viewer owns the activity with
 * view_private. Kudos, comment and photo counts come from the activities read model.
 */
export interface ActivitySocial {
  kudos_count: number;
  comment_count: number;
  photo_count: number;
  total_photo_count: number;
  has_kudoed: boolean;
}

export const NO_SOCIAL: ActivitySocial = { kudos_count: 0, comment_count: 0, photo_count: 0, total_photo_count: 0, has_kudoed: false };

export function summaryClubActivity(row: ClubFeedRow, athlete: unknown, exactLocations: boolean, social: ActivitySocial = NO_SOCIAL) {
  const f = row.facts;
  const id = Number(row.activity_id);
  return {
    id,
    resource_state: 2,
    external_id: f.external_id,
    upload_id: f.upload_id,
    athlete,
    name: f.name,
    distance: f.distance,
    moving_time: f.moving_time,
    elapsed_time: f.elapsed_time,
    total_elevation_gain: f.total_elevation_gain,
    elev_high: f.elev_high,
    elev_low: f.elev_low,
    type: f.type,
    start_date: f.start_date,
    start_date_local: f.start_date_local,
    timezone: f.timezone,
    start_latlng: exactLocations ? f.start_latlng : round2(f.start_latlng),
    end_latlng: exactLocations ? f.end_latlng : round2(f.end_latlng),
    location_city: null,
    location_state: null,
    location_country: null,
    achievement_count: 0,
    pr_count: 0,
    kudos_count: social.kudos_count,
    comment_count: social.comment_count,
    athlete_count: 1,
    photo_count: social.photo_count,
    total_photo_count: social.total_photo_count,
    map: { id: `a${id}`, summary_polyline: f.summary_polyline, resource_state: 2 },
    trainer: f.trainer,
    commute: f.commute,
    manual: f.manual,
    private: row.private,
    flagged: false,
    workout_type: f.workout_type,
    gear_id: null,
    average_speed: f.average_speed,
    max_speed: f.max_speed,
    average_cadence: f.average_cadence,
    average_temp: f.average_temp,
    average_watts: f.average_watts,
    max_watts: f.max_watts,
    weighted_average_watts: f.weighted_average_watts,
    kilojoules: f.kilojoules,
    device_watts: f.device_watts,
    has_heartrate: f.has_heartrate,
    average_heartrate: f.average_heartrate,
    max_heartrate: f.max_heartrate,
    suffer_score: f.suffer_score,
    has_kudoed: social.has_kudoed,
    guid: `activity-${id}`,
  };
}
