import type { Queryable } from "../../events/db/types.ts";
import type { StoredEvent } from "../../events/index.ts";
import { activityRecorded } from "../../events/activity/events.ts";
import { activityDeleted, activityUpdated } from "../../events/activity/changes.ts";
import { activityCropped, activityCropUndone } from "../../events/activity/cropped.ts";
import { privacyZoneCreated, privacyZoneDeleted } from "../../events/privacy-zone/events.ts";
import type { Projection } from "../projection.ts";

/** Epoch seconds of a local time written as UTC ("2024-05-01T07:30:00Z"); null when unreadable. */
export function localEpochSeconds(text: string): number | null {
  const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

/**
 * What heatmap builds need, kept apart from the activities read model: each activity's owner, type,
 * visibility, local start/end (epoch seconds) and streams blob; and per athlete a privacy epoch (the
 * position of the last event that changed what may be shown), which keys the tile caches.
 */
export const heatmapSourcesProjection: Projection = {
  name: "heatmap_sources",
  tables: ["heatmap_activities", "heatmap_privacy_epochs"],
  schema: `
    create table if not exists heatmap_activities (
      activity_id bigint primary key,
      athlete_id bigint not null,
      type text not null,
      visibility text not null,
      start_local bigint,
      end_local bigint,
      streams_sha256 text
    );
    create index if not exists heatmap_activities_athlete on heatmap_activities (athlete_id, type);
    create table if not exists heatmap_privacy_epochs (
      athlete_id bigint primary key,
      position bigint not null
    );
  `,
  isolated: true,
  handles: [
    activityRecorded.type,
    activityUpdated.type,
    activityDeleted.type,
    activityCropped.type,
    activityCropUndone.type,
    privacyZoneCreated.type,
    privacyZoneDeleted.type,
  ],
  async apply(tx: Queryable, event: StoredEvent) {
    if (event.type === activityRecorded.type) {
      const d = event.data;
      const start = localEpochSeconds(d.startDateLocal);
      await tx.query(
        `insert into heatmap_activities (activity_id, athlete_id, type, visibility, start_local, end_local, streams_sha256)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (activity_id) do update set athlete_id = excluded.athlete_id, type = excluded.type,
           visibility = excluded.visibility, start_local = excluded.start_local, end_local = excluded.end_local,
           streams_sha256 = excluded.streams_sha256`,
        [
          d.activityId,
          d.athleteId,
          d.type,
          d.visibility,
          start,
          start === null ? null : start + d.elapsedTime,
          d.streamsSha256,
        ],
      );
      return;
    }
    if (event.type === activityUpdated.type) {
      const d = event.data;
      if (d.type !== undefined) {
        await tx.query("update heatmap_activities set type = $2 where activity_id = $1", [d.activityId, d.type]);
      }
      if (d.visibility === undefined) return;
      const changed = await tx.query(
        "update heatmap_activities set visibility = $2 where activity_id = $1 and visibility <> $2 returning athlete_id",
        [d.activityId, d.visibility],
      );
      if (changed.length > 0) await bumpPrivacyEpoch(tx, d.athleteId, event.position);
      return;
    }
    if (event.type === activityCropped.type || event.type === activityCropUndone.type) {
      // A crop, a split or its undoing: another track (its streams) and span; the tiles drawn from it change.
      const d = event.data;
      const start = localEpochSeconds(d.facts.startDateLocal);
      const changed = await tx.query(
        `update heatmap_activities set start_local = $2, end_local = $3, streams_sha256 = $4 where activity_id = $1
         returning athlete_id`,
        [d.activityId, start, start === null ? null : start + d.facts.elapsedTime, d.facts.streamsSha256],
      );
      if (changed.length > 0) await bumpPrivacyEpoch(tx, d.athleteId, event.position);
      return;
    }
    if (event.type === activityDeleted.type) {
      const d = event.data;
      await tx.query("delete from heatmap_activities where activity_id = $1", [d.activityId]);
      await bumpPrivacyEpoch(tx, d.athleteId, event.position);
      return;
    }
    if (event.type !== privacyZoneCreated.type && event.type !== privacyZoneDeleted.type) return;
    await bumpPrivacyEpoch(tx, event.data.athleteId, event.position);
  },
};

export async function bumpPrivacyEpoch(tx: Queryable, athleteId: number, position: number): Promise<void> {
  await tx.query(
    `insert into heatmap_privacy_epochs (athlete_id, position) values ($1, $2)
     on conflict (athlete_id) do update set position = excluded.position`,
    [athleteId, position],
  );
}
