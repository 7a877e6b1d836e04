import type { EventData } from "../../events/catalogue.ts";
import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent, StoredEventOfType } from "../../events/index.ts";
import { activityCreated, activityRecorded } from "../../events/activity/events.ts";
import { activityReprocessed } from "../../events/activity/reprocessed.ts";
import { activityCropped, activityCropUndone } from "../../events/activity/cropped.ts";
import {
  activityDeleted,
  activityUpdated,
  commentAdded,
  commentDeleted,
  kudosGiven,
  photoAdded,
  photoLinked,
} from "../../events/activity/changes.ts";
import type { Projection } from "../projection.ts";
import { ActivityGroup, type ActivityRow } from "./batch.ts";
import { activityAccessChanged, allActivityAccessChanged } from "./access-changes.ts";
import { activitiesBulk } from "./bulk.ts";

/** Events that leave an activity's owner and visibility as they are (the rest may change them). */
const KEEPS_ACCESS: ReadonlySet<string> = new Set([
  kudosGiven.type,
  commentAdded.type,
  commentDeleted.type,
  photoAdded.type,
  photoLinked.type,
]);

type Recorded = EventData<typeof activityRecorded>;
type Created = EventData<typeof activityCreated>;

/**
 * Facts kept as jsonb (everything the summary list does not filter or sort on). Manual activities
 * get the same shape with the measured facts null.
 */
export type ActivityFacts = Omit<
  Recorded,
  | "activityId"
  | "athleteId"
  | "name"
  | "type"
  | "description"
  | "externalId"
  | "uploadId"
  | "startDate"
  | "startDateLocal"
  | "timezone"
  | "distance"
  | "movingTime"
  | "elapsedTime"
  | "totalElevationGain"
  | "visibility"
  | "trainer"
  | "commute"
>;

function recordedFacts(d: Recorded): ActivityFacts {
  const {
    activityId: _a,
    athleteId: _b,
    name: _c,
    type: _d,
    description: _e,
    externalId: _f,
    uploadId: _g,
    startDate: _h,
    startDateLocal: _i,
    timezone: _j,
    distance: _k,
    movingTime: _l,
    elapsedTime: _m,
    totalElevationGain: _n,
    visibility: _o,
    trainer: _p,
    commute: _q,
    ...facts
  } = d;
  return facts;
}

function manualFacts(d: Created): ActivityFacts {
  return {
    sportType: d.sportType,
    elevHigh: null,
    elevLow: null,
    startLatlng: null,
    endLatlng: null,
    averageSpeed: d.elapsedTime > 0 ? d.distance / d.elapsedTime : 0,
    maxSpeed: 0,
    averageCadence: null,
    averageTemp: null,
    averageWatts: null,
    maxWatts: null,
    weightedAverageWatts: null,
    kilojoules: null,
    deviceWatts: null,
    hasHeartrate: false,
    averageHeartrate: null,
    maxHeartrate: null,
    calories: null,
    sufferScore: null,
    deviceName: null,
    workoutType: null,
    polyline: null,
    summaryPolyline: null,
    streamsSha256: null,
    laps: [],
    splitsMetric: [],
    splitsStandard: [],
    bestEfforts: [],
  };
}

const UPDATE_COLUMNS: Record<string, string> = {
  name: "name",
  type: "type",
  visibility: "visibility",
  commute: "commute",
  trainer: "trainer",
  gearId: "gear_id",
  description: "description",
};

/** Edited fields kept among the jsonb facts. */
const FACT_UPDATES = ["sportType", "hideFromHome"] as const;

const epoch = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * Activities read model: summary-list columns in SQL, other facts as jsonb; kudos, comments and
 * photos in their own tables. Projects both ActivityRecorded (uploads) and ActivityCreated (manual).
 */
export const activitiesProjection: Projection = {
  name: "activities",
  tables: ["activities", "activity_kudos", "activity_comments", "activity_photos"],
  schema: `
    create table if not exists activities (
      id bigint primary key,
      athlete_id bigint not null,
      upload_id bigint,
      external_id text,
      name text not null,
      type text not null,
      description text,
      start_date text not null,
      start_epoch bigint not null,
      start_date_local text not null,
      timezone text not null,
      distance double precision not null,
      moving_time integer not null,
      elapsed_time integer not null,
      total_elevation_gain double precision not null,
      visibility text not null,
      commute boolean not null,
      trainer boolean not null,
      manual boolean not null,
      gear_id text,
      kudos_count integer not null default 0,
      comment_count integer not null default 0,
      photo_count integer not null default 0,
      total_photo_count integer not null default 0,
      facts jsonb not null,
      recorded_position bigint not null
    );
    create index if not exists activities_athlete_start on activities (athlete_id, start_epoch);
    create index if not exists activities_gear on activities (gear_id);
    create table if not exists activity_kudos (
      activity_id bigint not null,
      athlete_id bigint not null,
      position bigint not null,
      primary key (activity_id, athlete_id)
    );
    create table if not exists activity_comments (
      id bigint primary key,
      activity_id bigint not null,
      athlete_id bigint not null,
      text text not null,
      created_at text not null,
      position bigint not null
    );
    create index if not exists activity_comments_activity on activity_comments (activity_id, position);
    create table if not exists activity_photos (
      key text primary key,
      activity_id bigint not null,
      source integer not null,
      position bigint not null,
      data jsonb not null
    );
    create index if not exists activity_photos_activity on activity_photos (activity_id, position);
  `,
  isolated: true,
  bulk: activitiesBulk,
  handles: [
    activityRecorded.type,
    activityCreated.type,
    activityUpdated.type,
    activityDeleted.type,
    kudosGiven.type,
    activityReprocessed.type,
    activityCropped.type,
    activityCropUndone.type,
    commentAdded.type,
    commentDeleted.type,
    photoAdded.type,
    photoLinked.type,
  ],
  /** A kudos in the append's own statement: its row and the activity's count, as apply's one statement. */
  fuse(event, sql) {
    if (event.type !== kudosGiven.type) return undefined;
    const d = event.data;
    const activity = sql.param(d.activityId), athlete = sql.param(d.athleteId);
    const added = sql.cte("kudos");
    return [
      {
        name: added,
        sql: `insert into activity_kudos (activity_id, athlete_id, position)
              select ${activity}::bigint, ${athlete}::bigint, a.p from (select ${sql.position} as p) a where a.p is not null
              on conflict do nothing returning 1`,
      },
      {
        name: sql.cte("kudos_count"),
        sql:
          `update activities set kudos_count = (select count(*) from activity_kudos where activity_id = ${activity}::bigint)
                                                  + (select count(*) from ${added})
               where id = ${activity}::bigint and ${sql.position} is not null`,
      },
    ];
  },
  replaced() {
    allActivityAccessChanged();
  },
  async applyBatch(tx: Queryable, events: StoredEvent[]) {
    for (const event of events) accessMayChange(event);
    // Creations, edits, kudos and comments in groups of set-based statements (batch.ts); a
    // deletion, a reprocessing or a photo in its place, one by one.
    let group = new ActivityGroup();
    for (const event of events) {
      const row = event.type === activityRecorded.type || event.type === activityCreated.type
        ? activityRow(event)
        : undefined;
      if (group.accepts(event, row)) {
        group.add(event, row);
        continue;
      }
      await flushGroup(tx, group, this);
      group = new ActivityGroup();
      if (group.accepts(event, row)) group.add(event, row);
      else await this.apply(tx, event);
    }
    await flushGroup(tx, group, this);
  },
  async apply(tx: Queryable, event: StoredEvent) {
    accessMayChange(event);
    const insert = `insert into activities (id, athlete_id, upload_id, external_id, name, type, description,
        start_date, start_epoch, start_date_local, timezone, distance, moving_time, elapsed_time,
        total_elevation_gain, visibility, commute, trainer, manual, facts, recorded_position)
      values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21)
      on conflict (id) do nothing`;
    switch (event.type) {
      case activityRecorded.type:
      case activityCreated.type: {
        const r = activityRow(event);
        await tx.query(insert, [
          r.id,
          r.athlete_id,
          r.upload_id,
          r.external_id,
          r.name,
          r.type,
          r.description,
          r.start_date,
          r.start_epoch,
          r.start_date_local,
          r.timezone,
          r.distance,
          r.moving_time,
          r.elapsed_time,
          r.total_elevation_gain,
          r.visibility,
          r.commute,
          r.trainer,
          r.manual,
          JSON.stringify(r.facts),
          r.recorded_position,
        ]);
        return;
      }
      case activityReprocessed.type: {
        const { activityId, facts } = event.data;
        const { distance, movingTime, elapsedTime, totalElevationGain, ...rest } = facts;
        // A polyline given inline replaces one kept as a blob (and the reverse).
        if (rest.polyline !== undefined && rest.polylineSha256 === undefined) rest.polylineSha256 = null;
        await tx.query(
          `update activities set distance = $2, moving_time = $3, elapsed_time = $4, total_elevation_gain = $5,
                  facts = facts || $6::jsonb
            where id = $1`,
          [activityId, distance, movingTime, elapsedTime, totalElevationGain, JSON.stringify(rest)],
        );
        return;
      }
      case activityCropped.type:
      case activityCropUndone.type: {
        // A crop, a split or its undoing: the measured facts over the window, the start with them.
        const { activityId, facts } = event.data;
        const { distance, movingTime, elapsedTime, totalElevationGain, startDate, startDateLocal, timezone, ...rest } =
          facts;
        if (rest.polylineSha256 === undefined) rest.polylineSha256 = null;
        await tx.query(
          `update activities set start_date = $2, start_epoch = $3, start_date_local = $4, timezone = $5,
                  distance = $6, moving_time = $7, elapsed_time = $8, total_elevation_gain = $9,
                  facts = facts || $10::jsonb
            where id = $1`,
          [
            activityId,
            startDate,
            epoch(startDate),
            startDateLocal,
            timezone,
            distance,
            movingTime,
            elapsedTime,
            totalElevationGain,
            JSON.stringify(rest),
          ],
        );
        return;
      }
      case activityUpdated.type: {
        const d: Record<string, unknown> = event.data;
        const sets: string[] = [];
        const params: unknown[] = [event.data.activityId];
        for (const [key, column] of Object.entries(UPDATE_COLUMNS)) {
          if (key in d && d[key] !== undefined) {
            params.push(d[key]);
            sets.push(`${column} = $${params.length}`);
          }
        }
        // Both fact keys in one assignment (a column may be assigned once per update).
        let facts = "facts";
        for (const key of FACT_UPDATES) {
          if (d[key] === undefined) continue;
          params.push(JSON.stringify(d[key]));
          facts = `jsonb_set(${facts}, '{${key}}', $${params.length}::jsonb)`;
        }
        if (facts !== "facts") sets.push(`facts = ${facts}`);
        if (sets.length) await tx.query(`update activities set ${sets.join(", ")} where id = $1`, params);
        return;
      }
      case activityDeleted.type: {
        const { activityId } = event.data;
        await tx.query("delete from activities where id = $1", [activityId]);
        await tx.query("delete from activity_kudos where activity_id = $1", [activityId]);
        await tx.query("delete from activity_comments where activity_id = $1", [activityId]);
        await tx.query("delete from activity_photos where activity_id = $1", [activityId]);
        return;
      }
      case kudosGiven.type: {
        const d = event.data;
        // One statement: the kudos row, and the count of the activity's kudos (the insert is not
        // visible to the count's snapshot, so the row it adds is counted from its returning).
        await tx.query(
          `with added as (
             insert into activity_kudos (activity_id, athlete_id, position) values ($1,$2,$3) on conflict do nothing
             returning 1)
           update activities set kudos_count = (select count(*) from activity_kudos where activity_id = $1)
                                               + (select count(*) from added)
            where id = $1`,
          [d.activityId, d.athleteId, event.position],
        );
        return;
      }
      case commentAdded.type: {
        const d = event.data;
        await tx.query(
          "insert into activity_comments (id, activity_id, athlete_id, text, created_at, position) values ($1,$2,$3,$4,$5,$6) on conflict do nothing",
          [d.commentId, d.activityId, d.athleteId, d.text, event.recordedAt, event.position],
        );
        await countComments(tx, d.activityId);
        return;
      }
      case commentDeleted.type: {
        const d = event.data;
        // The comment's own activity is recounted too (the event names where it was deleted; a
        // log may name another one: replay's batched path recounts both alike, batch.ts).
        const gone = await tx.query<{ activity_id: string }>(
          "delete from activity_comments where id = $1 returning activity_id",
          [d.commentId],
        );
        await countComments(tx, d.activityId);
        for (const { activity_id } of gone) {
          if (Number(activity_id) !== d.activityId) await countComments(tx, Number(activity_id));
        }
        return;
      }
      case photoAdded.type: {
        const d = event.data;
        const data = { ...d, uploadedAt: event.recordedAt };
        await tx.query(
          "insert into activity_photos (key, activity_id, source, position, data) values ($1,$2,1,$3,$4) on conflict do nothing",
          [`n:${d.uniqueId}`, d.activityId, event.position, JSON.stringify(data)],
        );
        await countPhotos(tx, d.activityId);
        return;
      }
      case photoLinked.type: {
        const d = event.data;
        const data = { ...d, createdAt: event.recordedAt };
        await tx.query(
          "insert into activity_photos (key, activity_id, source, position, data) values ($1,$2,2,$3,$4) on conflict do nothing",
          [`e:${d.photoId}`, d.activityId, event.position, JSON.stringify(data)],
        );
        await countPhotos(tx, d.activityId);
        return;
      }
    }
  },
};

/** The row a creation inserts (an upload's ActivityRecorded or a manual ActivityCreated). */
export function activityRow(
  event: StoredEventOfType<"ActivityRecorded"> | StoredEventOfType<"ActivityCreated">,
): ActivityRow {
  if (event.type === activityRecorded.type) {
    const d = event.data;
    return {
      id: d.activityId,
      athlete_id: d.athleteId,
      upload_id: d.uploadId,
      external_id: d.externalId,
      name: d.name,
      type: d.type,
      description: d.description,
      start_date: d.startDate,
      start_epoch: epoch(d.startDate),
      start_date_local: d.startDateLocal,
      timezone: d.timezone,
      distance: d.distance,
      moving_time: d.movingTime,
      elapsed_time: d.elapsedTime,
      total_elevation_gain: d.totalElevationGain,
      visibility: d.visibility,
      commute: d.commute,
      trainer: d.trainer,
      manual: false,
      facts: recordedFacts(d),
      recorded_position: event.position,
    };
  }
  const d = event.data;
  return {
    id: d.activityId,
    athlete_id: d.athleteId,
    upload_id: null,
    external_id: null,
    name: d.name,
    type: d.type,
    description: d.description,
    start_date: d.startDate,
    start_epoch: epoch(d.startDate),
    start_date_local: d.startDateLocal,
    timezone: d.timezone,
    distance: d.distance,
    moving_time: d.elapsedTime,
    elapsed_time: d.elapsedTime,
    total_elevation_gain: 0,
    visibility: d.visibility,
    commute: d.commute,
    trainer: d.trainer,
    manual: true,
    facts: manualFacts(d),
    recorded_position: event.position,
  };
}

/** Tells the server's access cache that this event may change its activity's owner or visibility. */
function accessMayChange(event: StoredEvent) {
  if (KEEPS_ACCESS.has(event.type) || !("activityId" in event.data)) return;
  const id = event.data.activityId;
  if (typeof id === "number") activityAccessChanged(id);
}

/** A group of one event goes through apply (the live path's statements); a bigger one set-based. */
async function flushGroup(tx: Queryable, group: ActivityGroup, projection: Projection) {
  if (group.size === 1 && group.only) return projection.apply(tx, group.only);
  await group.flush(tx);
}

async function countComments(tx: Queryable, activityId: number) {
  await tx.query(
    "update activities set comment_count = (select count(*) from activity_comments where activity_id = $1) where id = $1",
    [activityId],
  );
}

async function countPhotos(tx: Queryable, activityId: number) {
  await tx.query(
    `update activities set
       photo_count = (select count(*) from activity_photos where activity_id = $1 and source = 2),
       total_photo_count = (select count(*) from activity_photos where activity_id = $1)
     where id = $1`,
    [activityId],
  );
}
