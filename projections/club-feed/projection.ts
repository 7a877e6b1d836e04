import type { EventData } from "../../events/catalogue.ts";
import type { Queryable } from "../../events/db/types.ts";
import type { RecordedEvent } from "../../events/types.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import type { Projection } from "../projection.ts";

/** What a club activity feed shows of an activity (the summary facts, without laps, splits, streams). */
export interface FeedFacts {
  name: string;
  type: string;
  external_id: string | null;
  upload_id: number | null;
  distance: number;
  moving_time: number;
  elapsed_time: number;
  total_elevation_gain: number;
  elev_high: number | null;
  elev_low: number | null;
  start_date: string;
  start_date_local: string;
  timezone: string;
  start_latlng: [number, number] | null;
  end_latlng: [number, number] | null;
  average_speed: number;
  max_speed: number;
  average_cadence: number | null;
  average_temp: number | null;
  average_watts: number | null;
  max_watts: number | null;
  weighted_average_watts: number | null;
  kilojoules: number | null;
  device_watts: boolean | null;
  has_heartrate: boolean;
  average_heartrate: number | null;
  max_heartrate: number | null;
  suffer_score: number | null;
  trainer: boolean;
  commute: boolean;
  manual: boolean;
  workout_type: number | null;
  summary_polyline: string | null;
}

function recordedFacts(d: EventData<typeof activityRecorded>): FeedFacts {
  return {
    name: d.name, type: d.type, external_id: d.externalId, upload_id: d.uploadId, distance: d.distance,
    moving_time: d.movingTime, elapsed_time: d.elapsedTime, total_elevation_gain: d.totalElevationGain,
    elev_high: d.elevHigh, elev_low: d.elevLow, start_date: d.startDate, start_date_local: d.startDateLocal,
    timezone: d.timezone, start_latlng: d.startLatlng, end_latlng: d.endLatlng, average_speed: d.averageSpeed,
    max_speed: d.maxSpeed, average_cadence: d.averageCadence, average_temp: d.averageTemp,
    average_watts: d.averageWatts, max_watts: d.maxWatts, weighted_average_watts: d.weightedAverageWatts,
    kilojoules: d.kilojoules, device_watts: d.deviceWatts, has_heartrate: d.hasHeartrate,
    average_heartrate: d.averageHeartrate, max_heartrate: d.maxHeartrate, suffer_score: d.sufferScore,
    trainer: d.trainer, commute: d.commute, manual: false, workout_type: d.workoutType,
    summary_polyline: d.summaryPolyline,
  };
}

function createdFacts(d: EventData<typeof activityCreated>): FeedFacts {
  return {
    name: d.name, type: d.type, external_id: null, upload_id: null, distance: d.distance,
    moving_time: d.elapsedTime, elapsed_time: d.elapsedTime, total_elevation_gain: 0, elev_high: null,
    elev_low: null, start_date: d.startDate, start_date_local: d.startDateLocal, timezone: d.timezone,
    start_latlng: null, end_latlng: null, average_speed: d.elapsedTime > 0 ? d.distance / d.elapsedTime : 0,
    max_speed: 0, average_cadence: null, average_temp: null, average_watts: null, max_watts: null,
    weighted_average_watts: null, kilojoules: null, device_watts: null, has_heartrate: false,
    average_heartrate: null, max_heartrate: null, suffer_score: null, trainer: d.trainer, commute: d.commute,
    manual: true, workout_type: null, summary_polyline: null,
  };
}

/**
 * The club activity feed's own read model: every activity's summary facts, its owner and start,
 * so a club's feed is "the latest activities of its members" in one indexed query.
 */
export const clubFeedProjection: Projection = {
  name: "club-feed",
  tables: ["club_feed_activities"],
  schema: `
    create table if not exists club_feed_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      start_date timestamptz not null,
      private boolean not null,
      facts jsonb not null
    );
    create index if not exists club_feed_recent on club_feed_activities (start_date desc, activity_id desc);
    create index if not exists club_feed_athlete on club_feed_activities (athlete_id, start_date desc);
  `,
  handles: [activityRecorded.type, activityCreated.type, activityUpdated.type, activityDeleted.type],
  async apply(tx: Queryable, event: RecordedEvent) {
    if (event.type === activityDeleted.type) {
      const d = event.data as EventData<typeof activityDeleted>;
      await tx.query("delete from club_feed_activities where activity_id = $1", [d.activityId]);
      return;
    }
    if (event.type === activityUpdated.type) {
      const d = event.data as EventData<typeof activityUpdated>;
      const patch: Record<string, unknown> = {};
      for (const key of ["name", "type", "commute", "trainer"] as const) if (d[key] !== undefined) patch[key] = d[key];
      await tx.query(
        `update club_feed_activities set private = coalesce($2, private), facts = facts || $3::jsonb
          where activity_id = $1`,
        [d.activityId, d.private ?? null, JSON.stringify(patch)],
      );
      return;
    }
    let row: { activityId: number; athleteId: number; private: boolean; facts: FeedFacts };
    if (event.type === activityRecorded.type) {
      const d = event.data as EventData<typeof activityRecorded>;
      row = { activityId: d.activityId, athleteId: d.athleteId, private: d.private, facts: recordedFacts(d) };
    } else {
      const d = event.data as EventData<typeof activityCreated>;
      row = { activityId: d.activityId, athleteId: d.athleteId, private: d.private, facts: createdFacts(d) };
    }
    await tx.query(
      `insert into club_feed_activities (activity_id, athlete_id, start_date, private, facts)
       values ($1, $2, $3, $4, $5::jsonb)
       on conflict (activity_id) do update set athlete_id = excluded.athlete_id, start_date = excluded.start_date,
         private = excluded.private, facts = excluded.facts`,
      [row.activityId, row.athleteId, row.facts.start_date, row.private, JSON.stringify(row.facts)],
    );
  },
};
